package cli

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpbench/mpbench/bench"
)

// flagError turns a parse error of c's options into a usage error of one
// line. A value of the wrong type (a *pflag.InvalidValueError) names the
// option as the user typed it (spelled), the value, and the accepted form
// from the option's help text, instead of Go's parser message: "-time abc:
// expected a number: IMB -time seconds: time limit per message size (>
// 0)"; a missing value (a *pflag.ValueRequiredError) likewise: "-np:
// expected an integer: number of processes ...". An option c does not
// define (a *pflag.NotExistError) is unknownOption's line, as for a
// single-dash one. Other errors keep pflag's text with a pointer to
// --help.
func (inv *invocation) flagError(c *cobra.Command, err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue // the value's own check, already in the option's words
	}
	var opt *bench.OptionError
	if errors.As(err, &opt) {
		return opt // bench's check of the value (switchFlag)
	}
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) {
		spelled := "--" + unknown.GetSpecifiedName()
		if unknown.GetSpecifiedShortnames() != "" {
			spelled = "-" + unknown.GetSpecifiedName() // one letter of a cluster such as -x
		}
		return unknownOption(spelled, c.CommandPath())
	}
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		fl := bad.GetFlag()
		return usageErrorf("%s %s: expected %s: %s", inv.spelledFlag(fl), bad.GetValue(), valueKind(fl, err), fl.Usage)
	}
	var missing *pflag.ValueRequiredError
	if errors.As(err, &missing) {
		fl := missing.GetFlag()
		spelled := inv.spelled(fl.Name)
		if missing.GetSpecifiedShortnames() != "" {
			spelled = "-" + fl.Shorthand
		}
		return usageErrorf("%s: expected %s: %s", spelled, valueKind(fl, err), fl.Usage)
	}
	return usageErrorf("%v; see '%s --help'", err, c.CommandPath())
}

// spelled is option name as the user typed it: "-time" when given with
// one dash (IMB's spelling, rewritten by normalise), else "--time".
func (inv *invocation) spelled(name string) string {
	if inv != nil && inv.dashed[name] {
		return "-" + name
	}
	return "--" + name
}

// spelledFlag is spelled for fl, which may also have been typed as its
// one-letter shorthand: "-n" for "-n abc" (matmul's order), "-o" for
// "-o" of --output, "--output" when the long name was typed.
func (inv *invocation) spelledFlag(fl *pflag.Flag) string {
	if fl.Shorthand != "" && fl.Shorthand != fl.Name && inv != nil && inv.dashed[fl.Shorthand] && !inv.typed("--"+fl.Name) {
		return "-" + fl.Shorthand
	}
	return inv.spelled(fl.Name)
}

// typed reports whether the command line holds option (such as
// "--output") before any "--", alone or as option=value.
func (inv *invocation) typed(option string) bool {
	for _, a := range inv.args {
		if a == "--" {
			break
		}
		if a == option || strings.HasPrefix(a, option+"=") {
			return true
		}
	}
	return false
}

// valueKinds describe, by pflag type name, the value an option of that
// type takes, in flagError's words. Every type an option of the command
// tree has is here (TestEveryOptionTypeWorded).
var valueKinds = map[string]string{
	"int": "an integer", "int64": "an integer", "uint": "an integer >= 0", "uint64": "an integer >= 0",
	"float64": "a number", "duration": "a duration such as 90s or 30m", "bool": "true or false",
	"string": "a value", "switch": "1 or 0 (on or off)",
	"intSlice":    "integers separated by commas, such as 1,2,4",
	"stringSlice": "values separated by commas",
}

// valueKind describes the type of value fl takes (valueKinds), and says
// when a number was out of range (err wraps strconv.ErrRange).
func valueKind(fl *pflag.Flag, err error) string {
	kind := valueKinds[fl.Value.Type()]
	if kind == "" {
		kind = "a value of type " + fl.Value.Type()
	}
	if errors.Is(err, strconv.ErrRange) {
		kind += " in range"
	}
	return kind
}
