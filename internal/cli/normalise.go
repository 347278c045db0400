package cli

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// longFlags returns every long option name of the command tree, mapped to
// whether it takes a value (false for boolean switches such as -check).
func longFlags(root *cobra.Command) map[string]bool {
	names := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) { names[f.Name] = f.NoOptDefVal == "" }
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	names["help"] = false
	return names
}

// normaliseArgs rewrites IMB-style single-dash long options ("-npmin 2",
// "-msglog=0:22", "-np 4") to the double-dash form pflag parses
// ("--npmin 2"), so both spellings are accepted. A value following an
// option that takes one is never rewritten ("-off_cache -1" stays a value),
// nor is anything after "--". A single-dash word of two or more letters
// that names no option is rejected (unknownOption, with the help of
// command, e.g. "mpbench run"), rather than being read as a cluster of
// one-letter options.
func normaliseArgs(args []string, long map[string]bool, command string) ([]string, error) {
	out := make([]string, 0, len(args))
	valueNext := false
	for i, a := range args {
		switch {
		case valueNext:
			valueNext = false
		case a == "--":
			return append(out, args[i:]...), nil
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			valueNext = long[name] && !hasValue
		case len(a) > 2 && a[0] == '-' && !isNumber(a):
			name, _, hasValue := strings.Cut(a[1:], "=")
			takesValue, known := long[name]
			if !known {
				return nil, unknownOption(a, command)
			}
			a = "-" + a
			valueNext = takesValue && !hasValue
		}
		out = append(out, a)
	}
	return out, nil
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

// commandPath is the path of the command args run ("mpbench run"), or
// root's when args name none.
func commandPath(root *cobra.Command, args []string) string {
	if c, _, _ := root.Find(args); c != nil {
		return c.CommandPath()
	}
	return root.CommandPath()
}
