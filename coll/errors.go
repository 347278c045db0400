package coll

import (
	"fmt"
	"strconv"
)

// ChoiceError is the error of ParseAlgorithms, CheckChoice, Select, For,
// AlgorithmNames, Listed and Cost for a collective, algorithm, option or
// segment that is not valid. Msg is one line naming the problem and the
// valid choices; Item is the override of ParseAlgorithms' spec it is about
// ("bcast=pipeline:seg=-1"), empty when the error is about no one item.
// Error prefixes them with "coll: ". Callers that print the value their
// own way (the command line names the option and its value) use Item and
// Msg.
type ChoiceError struct {
	Item string
	Msg  string
}

// Error returns Msg prefixed with "coll: " and the quoted Item, if any:
// `coll: "bcast=pipeline:seg=-1": seg must be a positive number of bytes,
// got "-1"`.
func (e *ChoiceError) Error() string {
	if e.Item != "" {
		return "coll: " + strconv.Quote(e.Item) + ": " + e.Msg
	}
	return "coll: " + e.Msg
}

// choiceErrorf makes a *ChoiceError about no one item.
func choiceErrorf(format string, args ...any) error {
	return &ChoiceError{Msg: fmt.Sprintf(format, args...)}
}

// itemErrorf makes a *ChoiceError about item, an override of
// ParseAlgorithms' spec.
func itemErrorf(item, format string, args ...any) error {
	return &ChoiceError{Item: item, Msg: fmt.Sprintf(format, args...)}
}
