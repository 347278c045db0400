package cli

import (
	"fmt"
	"os"
	"path/filepath"
)

// What standard output carries, for the refusal of "-" as an output file.
const (
	stdoutIMB      = "the IMB text"             // mpbench run
	stdoutReport   = "the application's report" // mpbench app
	stdoutScaling  = "the scaling table"        // mpbench scaling
	stdoutTransfer = "the transfer table"       // mpbench transfer send
)

// checkOutputPaths checks --json and --csv before any rank starts: "-" is
// refused (standard output carries stdout, e.g. stdoutIMB, and mixing a
// second format into it would break both readers), and so are two options
// naming the same file (both writers would truncate and interleave it). It
// then opens each file for writing (creating it), so an unwritable path is
// reported at once, without emptying an existing file: a command empties
// its files with emptyOutputs only after every other check has passed, so
// a refused option never costs the rows of an earlier run. Errors are
// usage errors naming the option.
func checkOutputPaths(jsonPath, csvPath, stdout string) error {
	return checkOutputs(jsonPath, csvPath, stdout, false)
}

// emptyOutputs empties each named regular file ("" and devices or pipes
// are skipped). A launcher calls it
// after all its checks and before it starts the job, so a job that fails
// before rank 0 opens the files leaves no rows of an earlier run under
// this run's end record. Errors name the file.
func emptyOutputs(paths ...string) error {
	for _, path := range paths {
		if path == "" {
			continue
		}
		if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
			continue // a device or pipe (/dev/full, /dev/null) has no rows to drop
		}
		if err := os.Truncate(path, 0); err != nil {
			return fmt.Errorf("cannot empty %s for this run's rows: %w", path, unwrapPath(err))
		}
	}
	return nil
}

// checkOutputs is checkOutputPaths; with truncate set each file is also
// emptied, once all of them opened. Rank 0 of an MPI job checks that way;
// the other ranks do not truncate: rank 0 may already be writing the file,
// and truncating it under rank 0's file offset would leave NUL bytes before
// its rows.
func checkOutputs(jsonPath, csvPath, stdout string, truncate bool) error {
	outs := []struct{ flag, path string }{{"json", jsonPath}, {"csv", csvPath}}
	for _, out := range outs {
		if out.path == "-" {
			return usageErrorf("--%s -: standard output carries %s; expected --%s FILE (e.g. --%s run.%s)", out.flag, stdout, out.flag, out.flag, map[string]string{"json": "jsonl", "csv": "csv"}[out.flag])
		}
	}
	if jsonPath != "" && csvPath != "" && samePath(jsonPath, csvPath) {
		return usageErrorf("--json %s and --csv %s name the same file; expected two different files", jsonPath, csvPath)
	}
	for _, out := range outs {
		if out.path == "" {
			continue
		}
		file, err := os.OpenFile(out.path, os.O_WRONLY|os.O_CREATE, 0o666)
		if err != nil {
			return cannotCreate("--"+out.flag, out.path, err)
		}
		file.Close()
	}
	if truncate {
		return emptyOutputs(jsonPath, csvPath)
	}
	return nil
}

// cannotCreate is the usage error of an output file option (--json,
// -dumpfile, ...) whose file cannot be created: "--json PATH: cannot
// create the file (permission denied); expected a writable path".
func cannotCreate(option, path string, err error) error {
	return usageErrorf("%s %s: cannot create the file (%v); expected a writable path", option, path, unwrapPath(err))
}

// cannotRead is the usage error of an input file option (--coll-rules,
// ...) whose file cannot be opened, in the words of bench's -msglen and
// -input: "--coll-rules PATH: cannot read the file (no such file or
// directory); expected WANT".
func cannotRead(option, path string, err error, want string) error {
	return usageErrorf("%s %s: cannot read the file (%v); expected %s", option, path, unwrapPath(err), want)
}

// samePath reports whether a and b name the same file: equal cleaned
// absolute paths, or the same existing file (links).
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ba, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == ba {
		return true
	}
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

// checkDumpPath checks -dumpfile as checkOutputs checks --json and --csv:
// not "-", not one of their files, and writable now (truncated only when
// truncate is set: under an MPI launcher every rank checks, rank 0
// truncates).
func checkDumpPath(f *runFlags, truncate bool) error {
	path := f.imb.dumpfile
	if path == "" {
		return nil
	}
	if path == "-" {
		return usageErrorf("-dumpfile -: standard output carries the IMB text; expected -dumpfile FILE")
	}
	for _, other := range []string{f.jsonFile, f.csvFile} {
		if other != "" && samePath(path, other) {
			return usageErrorf("-dumpfile %s names the same file as --json or --csv; expected a file of its own", path)
		}
	}
	flags := os.O_WRONLY | os.O_CREATE
	if truncate {
		flags |= os.O_TRUNC
	}
	file, err := os.OpenFile(path, flags, 0o666)
	if err != nil {
		return cannotCreate("-dumpfile", path, err)
	}
	return file.Close()
}
