package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readmeBlock returns the commands of README.md's indented code block that
// follows the paragraph starting with intro: the block's lines starting
// with "mpbench ", without it.
func readmeBlock(t *testing.T, intro string) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, intro)
	if i < 0 {
		t.Fatalf("README.md has no paragraph starting %q", intro)
	}
	var cmds [][]string
	inBlock := false
	for _, l := range strings.Split(text[i:], "\n") {
		cmd, ok := strings.CutPrefix(l, "    mpbench ")
		switch {
		case ok:
			inBlock = true
			cmds = append(cmds, strings.Fields(cmd))
		case inBlock:
			return cmds
		}
	}
	return cmds
}

// TestReadmePredictRecipe runs README's predict recipe (section
// "Applications and scaling") as written, with smaller sizes: a matrix of
// order 64 and tables up to 16 KiB (the np 2 block is 16 KiB), so that
// it is quick. Every command must succeed, the tables must be measured
// as bench/predict/run.sh measures them (np 2 in a 2-rank job, TCP,
// --sync-all), and each prediction must print the measured communication
// beside the predicted.
func TestReadmePredictRecipe(t *testing.T) {
	smaller := map[string]string{"16:22": "10:14", "1000": "64", "1000,4096": "20,4096", "1": "0.05", "4,64,512": "4"}
	cmds := readmeBlock(t, "`mpbench predict matmul` predicts")
	if len(cmds) < 5 {
		t.Fatalf("README's predict recipe: %v", cmds)
	}
	dir := t.TempDir()
	predictions := 0
	for _, c := range cmds {
		args := make([]string, 0, len(c)+2)
		for _, a := range c {
			if s, ok := smaller[a]; ok {
				a = s
			}
			args = append(args, a)
			if a == "1,2,4" {
				args = append(args, "--repeats", "1")
			}
		}
		line := strings.Join(c, " ")
		if args[0] == "run" {
			np := flagValue(t, args, "-np")
			if !strings.Contains(line, "--sync-all") || !strings.Contains(line, "--transport tcp") || np == "4" && !strings.Contains(line, "-npmin 2") {
				t.Errorf("%s: not measured as bench/predict/run.sh measures (--sync-all, --transport tcp, np 2 in a 2-rank job)", line)
			}
		}
		cmd, out, errb := e2eCmd(t, args...)
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			t.Fatalf("README's %q (as %v): exit %d\n%s%s", line, args, exitCode(err), out, errb)
		}
		if args[0] == "predict" {
			predictions++
			np := strings.Split(flagValue(t, args, "--np"), ",")[0]
			if r := predictRow(t, out.String(), np); r[len(r)-2] == "-" || r[len(r)-1] == "-" {
				t.Errorf("%s: no measured communication beside the prediction: %v", line, r)
			}
		}
	}
	if predictions < 2 {
		t.Errorf("README's recipe predicts %d times", predictions)
	}
}

// flagValue is the value after flag in args.
func flagValue(t *testing.T, args []string, flag string) string {
	t.Helper()
	i := slices.Index(args, flag)
	if i < 0 || i+1 == len(args) {
		t.Fatalf("%v has no %s", args, flag)
	}
	return args[i+1]
}
