package cli

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// longFlags returns the long option names command c takes (its own and
// those its parents pass down), mapped to whether each takes a value
// (false for boolean switches such as -check).
func longFlags(c *cobra.Command) map[string]bool {
	names := map[string]bool{"help": false}
	add := func(f *pflag.Flag) { names[f.Name] = f.NoOptDefVal == "" }
	c.Flags().VisitAll(add)
	for p := c; p != nil; p = p.Parent() {
		p.PersistentFlags().VisitAll(add)
	}
	return names
}

// normalise rewrites the IMB-style single-dash options of args with the
// options of the command args run (normaliseArgs), and returns which
// option names were given with one dash (for flagError, which names an
// option as it was typed). Arguments that name no command of root's tree
// (an unknown command, cobra's help and completion commands) or stop at a
// command group (app, testbed, ...) are left as they are, for execute to
// report or run.
func normalise(root *cobra.Command, args []string) ([]string, map[string]bool, error) {
	c, _, err := root.Find(args)
	if err != nil || isGroup(c) {
		return args, nil, nil
	}
	return normaliseArgs(args, longFlags(c), c.CommandPath())
}

// normaliseArgs rewrites IMB-style single-dash long options ("-npmin 2",
// "-msglog=0:22", "-np 4") to the double-dash form pflag parses
// ("--npmin 2"), so both spellings are accepted, and returns the names
// so rewritten, and the letters of one-letter options typed on their own
// ("-n 4": "n"). long holds the options of the command (longFlags). A value
// following an option that takes one is never rewritten ("-off_cache -1"
// stays a value), nor is anything after "--". A single-dash word of two
// or more letters that names no option of the command is rejected
// (unknownOption, with the help of command, e.g. "mpbench run"), rather
// than being read as a cluster of one-letter options or as another
// command's option.
func normaliseArgs(args []string, long map[string]bool, command string) ([]string, map[string]bool, error) {
	out := make([]string, 0, len(args))
	dashed := map[string]bool{}
	valueNext := false
	for i, a := range args {
		switch {
		case valueNext:
			valueNext = false
		case a == "--":
			return append(out, args[i:]...), dashed, nil
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			valueNext = long[name] && !hasValue
		case len(a) == 2 && a[0] == '-' && a[1] != '-':
			dashed[a[1:]] = true // a one-letter option or shorthand (-n, -o)
			valueNext = long[a[1:]]
		case len(a) > 2 && a[0] == '-' && !isNumber(a):
			name, _, hasValue := strings.Cut(a[1:], "=")
			takesValue, known := long[name]
			if !known {
				return nil, nil, unknownOption(a, command)
			}
			dashed[name] = true
			a = "-" + a
			valueNext = takesValue && !hasValue
		}
		out = append(out, a)
	}
	return out, dashed, nil
}

// isNumber reports whether s parses as a number ("-1", "-0.5").
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// unknownOption is the usage error for an option that command (e.g.
// "mpbench run") does not define, as the user spelled it (-npmax, --npmax,
// -x), whether normaliseArgs or pflag found it: "unknown option -npmax;
// see 'mpbench run --help'".
func unknownOption(spelled, command string) error {
	return usageErrorf("unknown option %s; see '%s --help'", spelled, command)
}
