package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// The rules in this file word the errors of the command structure itself,
// for every command of the tree alike: a word after a command group that
// names none of its subcommands (groupArgs), and positional arguments a
// command's Args check refuses (argsError, installed by usageArgs). Each
// is one usage error naming the problem, the accepted form and the help
// to read: `unknown application "x"; expected one of ep, ft, matmul; see
// 'mpbench app --help'`.

// nounAnnotation is the cobra annotation by which a command group names
// its subcommands in errors ("application" for app); without it they are
// "commands" (root) or "PATH commands" ("testbed commands").
const nounAnnotation = "mpbench.subcommand"

// isGroup reports whether c only gathers subcommands (app, testbed, the
// root, ...): it has some and runs nothing itself.
func isGroup(c *cobra.Command) bool {
	return c.HasSubCommands() && !c.Runnable()
}

// groupArgs checks rest, the arguments that follow command group c on the
// command line once root.Find has descended as far as the words name
// subcommands. A word among them is an unknown subcommand; nothing but
// options (other than --help), or a word right after an IMB-style option
// (the 4 of "-np 4", its value), leaves the subcommand missing ("missing
// application before -np"): both are usage errors listing c's
// subcommands. Empty rest, or a request for help, is nil: cobra prints
// c's help.
func groupArgs(c *cobra.Command, rest []string) error {
	noun := subcommandNoun(c)
	see := fmt.Sprintf("see '%s --help'", c.CommandPath())
	expected := "expected one of " + strings.Join(subcommandNames(c), ", ")
	if i, ok := firstWord(rest); ok && !optionValue(rest, i) {
		w := rest[i]
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2 // cobra's default, which it sets only for its own message
		}
		hint := ""
		if s := c.SuggestionsFor(w); len(s) > 0 {
			hint = fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
		}
		return usageErrorf("unknown %s %q%s; %s; %s", noun, w, hint, expected, see)
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || strings.HasPrefix(a, "--help=") {
			return nil
		}
	}
	if len(rest) == 0 {
		return nil
	}
	return usageErrorf("missing %s before %s; %s; %s", noun, rest[0], expected, see)
}

// subcommandNoun is what c's subcommands are called in its errors.
func subcommandNoun(c *cobra.Command) string {
	if n := c.Annotations[nounAnnotation]; n != "" {
		return n
	}
	if !c.HasParent() {
		return "command"
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ") + " command"
}

// subcommandNames are the names of c's subcommands a user may call
// (cobra's IsAvailableCommand: not hidden, not deprecated), sorted.
func subcommandNames(c *cobra.Command) []string {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return names
}

// firstWord returns the index of the first argument of args that is
// neither an option nor an option's value, read as cobra reads them when
// it looks for a subcommand (its stripFlags, before any option is
// defined): "--name" and "-x" without "=" take the next argument as their
// value, other arguments beginning with "-" are options, and nothing after
// "--" is a subcommand. So the word is one cobra found no subcommand for.
func firstWord(args []string) (int, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return 0, false
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="),
			len(a) == 2 && a[0] == '-':
			i++ // its value
		case a != "" && !strings.HasPrefix(a, "-"):
			return i, true
		}
	}
	return 0, false
}

// optionValue reports whether args[i] follows an option without "=" (the
// "4" of IMB's "-np 4"), so is more likely its value than a command.
func optionValue(args []string, i int) bool {
	return i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=")
}

// maxArgsProbe bounds the argument counts argsError tries.
const maxArgsProbe = 8

// argsError words the refusal of args by check, c's Args rule (cobra's
// NoArgs, ExactArgs, MinimumNArgs, ...), as one usage error with c's
// synopsis: "missing HOST[:PORT]: expected mpbench transfer send
// HOST[:PORT]; see 'mpbench transfer send --help'" when a longer list
// would pass, else `unexpected argument "x": expected ...` naming the
// first argument past the longest list that would. Rules that look at
// more than the count get cobra's text with the synopsis.
func argsError(c *cobra.Command, args []string, check cobra.PositionalArgs, err error) error {
	accepts := func(n int) bool { return check(c, make([]string, n)) == nil }
	see := fmt.Sprintf("see '%s --help'", c.CommandPath())
	expected := strings.TrimSpace(c.CommandPath() + " " + synopsis(c))
	for n := len(args) + 1; n <= len(args)+maxArgsProbe; n++ {
		if !accepts(n) {
			continue
		}
		what := "argument"
		if names := argNames(synopsis(c)); len(names) >= n {
			what = strings.Join(names[len(args):n], " ")
		} else if n-len(args) > 1 {
			what = fmt.Sprintf("%d arguments", n-len(args))
		}
		return usageErrorf("missing %s: expected %s; %s", what, expected, see)
	}
	for n := len(args) - 1; n >= 0; n-- {
		if accepts(n) {
			return usageErrorf("unexpected argument %q: expected %s; %s", args[n], expected, see)
		}
	}
	return usageErrorf("%v: expected %s; %s", err, expected, see)
}

// synopsis is c's Use line after the command's name: "HOST[:PORT]" of
// "send HOST[:PORT]".
func synopsis(c *cobra.Command) string {
	_, s, _ := strings.Cut(c.Use, " ")
	return strings.TrimSpace(s)
}

// argNames returns the required positional arguments of a synopsis, in
// order: its words that are not options, an option's value, optional
// ("[...]", however many words the brackets span) or "--", up to the first
// alternative ("|"), with a trailing "..." dropped: "COMMAND" of "--node K
// -- COMMAND [ARGS...]", "A B" of "A B [C...]", "FILE" of "FILE... -o
// report.html".
func argNames(synopsis string) []string {
	var names []string
	depth, value := 0, false
	for _, w := range strings.Fields(synopsis) {
		optional := depth > 0 || strings.HasPrefix(w, "[")
		depth += strings.Count(w, "[") - strings.Count(w, "]")
		switch {
		case optional:
		case w == "|":
			return names
		case w == "--":
			value = false
		case strings.HasPrefix(w, "-"):
			value = true
		case value:
			value = false
		default:
			names = append(names, strings.TrimSuffix(w, "..."))
		}
	}
	return names
}
