package cli

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandTree returns every command of mpbench's tree, cobra's help and
// completion commands included, each with its words on the command line
// (nil for the root).
func commandTree(t *testing.T) map[*cobra.Command][]string {
	t.Helper()
	root := newRoot(&invocation{}, io.Discard, io.Discard)
	completeTree(root, nil)
	tree := map[*cobra.Command][]string{}
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		tree[c] = path
		for _, s := range c.Commands() {
			walk(s, append(append([]string(nil), path...), s.Name()))
		}
	}
	walk(root, nil)
	return tree
}

// oneUsageLine checks that mpbench args was refused as bad input: exit
// status 2, nothing on stdout, one line on stderr; it returns the line.
func oneUsageLine(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runMain(t, args...)
	if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, errorPrefix) {
		t.Errorf("mpbench %s: exit %d, stdout %q, stderr %q; want exit 2 and one line", strings.Join(args, " "), code, out, errs)
	}
	return errs
}

// TestEveryGroupRefusesUnknownWords: every command group (the root, app,
// testbed, transfer, predict, completion, and any added later) refuses a
// word that names none of its subcommands, and options without a
// subcommand, with one line listing its subcommands and its help; given
// nothing it prints its help.
func TestEveryGroupRefusesUnknownWords(t *testing.T) {
	groups := 0
	for c, path := range commandTree(t) {
		if !isGroup(c) {
			continue
		}
		groups++
		see := "; see '" + c.CommandPath() + " --help'\n"
		names := strings.Join(subcommandNames(c), ", ")
		line := oneUsageLine(t, append(path, "nosuch", "--x", "1")...)
		if !strings.Contains(line, ` "nosuch"; expected one of `+names+see) || !strings.HasPrefix(line, "mpbench: unknown ") {
			t.Errorf("%s nosuch: %q", c.CommandPath(), line)
		}
		line = oneUsageLine(t, append(path, "--x", "1")...)
		if !strings.HasPrefix(line, "mpbench: missing ") || !strings.HasSuffix(line, " before --x; expected one of "+names+see) {
			t.Errorf("%s --x 1: %q", c.CommandPath(), line)
		}
		if code, out, errs := runMain(t, path...); code != ExitOK || !strings.Contains(out, "Available Commands:") || errs != "" {
			t.Errorf("%s alone: exit %d, stderr %q; want its help", c.CommandPath(), code, errs)
		}
		if code, out, _ := runMain(t, append(path, "--help")...); code != ExitOK || !strings.Contains(out, "Available Commands:") {
			t.Errorf("%s --help: exit %d", c.CommandPath(), code)
		}
	}
	if groups < 5 {
		t.Errorf("%d command groups found, want root, app, testbed, transfer, predict and completion", groups)
	}
}

// TestEveryArgsRuleWorded: every command's refusal of its positional
// arguments (counts from none to 9) is one line, "missing NAME" or
// "unexpected argument", with the command's synopsis and help; cobra's own
// wording ("accepts 1 arg(s)", "requires at least") never shows.
func TestEveryArgsRuleWorded(t *testing.T) {
	checked := 0
	for c, path := range commandTree(t) {
		if c.Args == nil || !c.Runnable() || isGroup(c) {
			continue
		}
		for n := 0; n <= maxArgsProbe+1; n++ {
			args := make([]string, n)
			for i := range args {
				args[i] = "w" + string(rune('1'+i))
			}
			if c.Args(c, args) == nil {
				continue
			}
			checked++
			line := oneUsageLine(t, append(path, args...)...)
			if !strings.HasPrefix(line, "mpbench: missing ") && !strings.HasPrefix(line, "mpbench: unexpected argument ") ||
				!strings.Contains(line, ": expected "+c.CommandPath()) || !strings.HasSuffix(line, "; see '"+c.CommandPath()+" --help'\n") {
				t.Errorf("%s with %d arguments: %q", c.CommandPath(), n, line)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d refused argument lists tried", checked)
	}
}

// TestEveryTypedOptionRefusesBadValue: for every option of every command
// whose value has a type (integers, numbers, durations, lists, switches),
// a value that is not of the type is refused with one line naming the
// option as typed, the value and what it expects.
func TestEveryTypedOptionRefusesBadValue(t *testing.T) {
	checked := 0
	for c, path := range commandTree(t) {
		if !c.Runnable() || c.DisableFlagParsing {
			continue
		}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			typ := fl.Value.Type()
			if typ == "string" || typ == "stringSlice" || fl.Name == "help" {
				return
			}
			checked++
			name := fl.Name
			if sw, ok := fl.Value.(*switchFlag); ok {
				name = sw.name // an alias (-warmup) shares -warm_up's value and words
			}
			line := oneUsageLine(t, append(path, "--"+fl.Name+"=bogus")...)
			if !strings.HasPrefix(line, "mpbench: --"+name+" bogus: expected ") && !strings.HasPrefix(line, "mpbench: -"+name+" bogus: expected ") {
				t.Errorf("%s --%s=bogus (%s): %q", c.CommandPath(), fl.Name, typ, line)
			}
		})
	}
	if checked < 30 {
		t.Errorf("only %d typed options tried", checked)
	}
}

// TestEveryOptionTypeWorded: every type of option in the tree has its
// words in valueKinds, so a missing or malformed value says what the
// option takes ("integers separated by commas"), never Go's type name.
func TestEveryOptionTypeWorded(t *testing.T) {
	for c := range commandTree(t) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if valueKinds[fl.Value.Type()] == "" {
				t.Errorf("%s --%s: type %s has no words in valueKinds", c.CommandPath(), fl.Name, fl.Value.Type())
			}
		})
	}
}

// TestArgNames reads the required arguments from each form of synopsis
// the commands use.
func TestArgNames(t *testing.T) {
	for syn, want := range map[string][]string{
		"HOST[:PORT]":                       {"HOST[:PORT]"},
		"--node K -- COMMAND [ARGS...]":     {"COMMAND"},
		"A B [C...]":                        {"A", "B"},
		"FILE... -o report.html":            {"FILE"},
		"NAME":                              {"NAME"},
		"":                                  nil,
		"[options] -o DIR":                  nil,
		"--bench FILE [-n 2000] [--np 2,4]": nil,
		"[--np N] [--net switch|hub ...] -- ARGS | app NAME <options>": {"ARGS"},
	} {
		if got := argNames(syn); !reflect.DeepEqual(got, want) {
			t.Errorf("argNames(%q) = %q, want %q", syn, got, want)
		}
	}
}

// TestFirstWord finds the word cobra would take for a subcommand.
func TestFirstWord(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int // -1: none
	}{
		{[]string{"nosuch"}, 0},
		{[]string{"--np", "4", "ep"}, 2},
		{[]string{"-np", "4"}, 1},
		{[]string{"-n", "4"}, -1},
		{[]string{"--np=4", "-h", "x", "y"}, 3},
		{[]string{"--", "x"}, -1},
		{[]string{"-", "x"}, 1},
		{nil, -1},
	} {
		got, ok := firstWord(c.args)
		if !ok {
			got = -1
		}
		if got != c.want {
			t.Errorf("firstWord(%q) = %d, want %d", c.args, got, c.want)
		}
	}
}
