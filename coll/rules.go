package coll

import (
	"fmt"
	"strings"
)

// RuleFunc is a decision table read from a rules file: the algorithm of a
// call of collective (a lower-case name of the table) on ranks ranks with
// the given message size in bytes (as in Select), and false where the
// built-in decision table should decide.
type RuleFunc func(collective string, ranks, bytes int) (Choice, bool)

// WithRules returns a copy of a whose decision table is rules wherever they
// decide; explicit overrides (ParseAlgorithms) still come first. Every
// choice rules can return must be checked with CheckChoice beforehand.
// Where the communicator offers a collective natively the library's runs
// and rules are not consulted, as for the built-in table.
func (a Algorithms) WithRules(rules RuleFunc) Algorithms {
	a.rules = rules
	return a
}

// CheckChoice reports whether ch is a valid algorithm (and segment) of
// collective, with ParseAlgorithms' one-line errors.
func CheckChoice(collective string, ch Choice) error {
	spec := collective + "=" + ch.Algorithm
	if ch.Segment > 0 {
		spec += fmt.Sprintf(":seg=%d", ch.Segment)
	}
	if strings.ContainsAny(collective+ch.Algorithm, "=,:") {
		return choiceErrorf("bad name in %q", spec)
	}
	_, err := ParseAlgorithms(spec)
	return err
}
