package coll

import "fmt"

// ChoiceError is the error of ParseAlgorithms, CheckChoice, Select, For,
// AlgorithmNames, Listed and Cost for a collective, algorithm, option or
// segment that is not valid. Msg is one line naming the bad item and the valid choices; Error
// prefixes it with "coll: ". Callers that print the item their own way
// (the command line names the option) use Msg.
type ChoiceError struct {
	Msg string
}

// Error returns Msg prefixed with "coll: ".
func (e *ChoiceError) Error() string { return "coll: " + e.Msg }

// choiceErrorf makes a *ChoiceError.
func choiceErrorf(format string, args ...any) error {
	return &ChoiceError{Msg: fmt.Sprintf(format, args...)}
}
