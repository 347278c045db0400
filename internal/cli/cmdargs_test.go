package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// commandTree returns every command of mpbench's tree, cobra's help and
// completion commands included, each with its words on the command line
// (nil for the root).
func commandTree(t *testing.T) map[*cobra.Command][]string {
	t.Helper()
	root := newRoot(&invocation{}, io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
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
