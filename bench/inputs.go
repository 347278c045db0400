package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Checks of the IMB options that name processes, sizes, benchmarks,
// layouts and thread levels, and of the files of -msglen and -input. Every
// command line that takes one of them calls these, so that a value is
// refused with the same line whichever command was given it.

// CheckNP checks a process count given with -np (a single count or one of
// a list): at least 1. The error is "-np 0: expected a process count
// N >= 1, e.g. -np 4".
func CheckNP(np int) error {
	if np < 1 {
		return optionErrorf("-np %d: expected a process count N >= 1, e.g. -np 4", np)
	}
	return nil
}

// sizeRange is how every message-size error says what is accepted.
var sizeRange = fmt.Sprintf("expected a size in bytes 0..%d", MaxMsgLen)

// checkSize refuses a message size outside 0..MaxMsgLen; what names the
// option and the value as the message starts, e.g. "-msglen line 3".
func checkSize(what string, n int64) error {
	if n < 0 || n > MaxMsgLen {
		return optionErrorf("%s: %d: %s", what, n, sizeRange)
	}
	return nil
}

// parseSize reads one message size in bytes; what is as for checkSize.
func parseSize(what, s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, optionErrorf("%s: %q: %s", what, strings.TrimSpace(s), sizeRange)
	}
	return n, checkSize(what, n)
}

// ParseMsgSizeAlone is ParseMsgSize for a run that may also have been
// given -msglen (msglen), which lists message sizes too: both are an
// *OptionError ("-msgsize and -msglen both list message sizes; give
// one").
func ParseMsgSizeAlone(s string, msglen bool) ([]int64, error) {
	if msglen {
		return nil, optionErrorf("-msgsize and -msglen both list message sizes; give one")
	}
	return ParseMsgSize(s)
}

// ParseMsgSize parses IMB's -msgsize list: message sizes in bytes,
// 0..MaxMsgLen, separated by commas, in run order. The error names the
// size: `-msgsize 8,1k: "1k": expected a size in bytes 0..1073741824`.
func ParseMsgSize(s string) ([]int64, error) {
	var sizes []int64
	for _, part := range strings.Split(s, ",") {
		n, err := parseSize("-msgsize "+shown(s), part)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// ParseContigType checks IMB's -contig_type: only base (contiguous
// elements) is offered; IMB's base_vec, resize and resize_vec are refused
// with a line saying so.
func ParseContigType(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "base":
		return nil
	case "base_vec", "resize", "resize_vec":
		return optionErrorf("-contig_type %s: mpbench moves contiguous elements only; expected -contig_type base", shown(s))
	}
	return optionErrorf("-contig_type %s: expected base (IMB also names base_vec, resize, resize_vec, which mpbench does not offer)", shown(s))
}

// threadLevels are the values of IMB's -thread_level in the order of MPI's
// thread levels, MPI_THREAD_SINGLE (0) to MPI_THREAD_MULTIPLE (3).
var threadLevels = [...]string{"single", "funneled", "serialized", "multiple"}

// ParseThreadLevel parses IMB's -thread_level (single, funneled,
// serialized or multiple, in any case) into the level's place in MPI's
// order: 0 for MPI_THREAD_SINGLE to 3 for MPI_THREAD_MULTIPLE, the order
// of mpi.Thread.
func ParseThreadLevel(s string) (int, error) {
	for i, n := range threadLevels {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return i, nil
		}
	}
	return 0, optionErrorf("-thread_level %q: expected -thread_level single, funneled, serialized or multiple", s)
}

// CheckThreadLevel checks IMB's -thread_level s (ParseThreadLevel) for a
// run on an MPI library (library) or on mpbench's own runtime, which has
// no thread levels: there a valid level is an *OptionError too, naming
// where it belongs.
func CheckThreadLevel(s string, library bool) error {
	if _, err := ParseThreadLevel(s); err != nil {
		return err
	}
	if !library {
		return optionErrorf("-thread_level %s: thread levels belong to MPI libraries; mpbench's own runtime has none. Give it to an mpi build run with --transport mpi or under mpirun", s)
	}
	return nil
}

// Canonical returns the registered spelling of benchmark name (names match
// in any case); an unknown name is an *OptionError listing the accepted
// names.
func Canonical(name string) (string, error) {
	spec, ok := Lookup(name)
	if !ok {
		return "", unknownBenchmark(name)
	}
	return spec.Name, nil
}

// unknownBenchmark is the error for a name that is not registered.
func unknownBenchmark(name string) error {
	return optionErrorf("unknown benchmark %q; accepted names (any case): %s", name, strings.Join(Names(), ", "))
}

// ReadInput reads an IMB -input file: the first word of each line that
// does not start with '#' is a benchmark name (not checked here: see
// Canonical). A file naming none is an *OptionError.
func ReadInput(r io.Reader) ([]string, error) {
	var names []string
	sc := bufio.NewScanner(r)
	line := 1
	for ; sc.Scan(); line++ {
		text := sc.Text()
		if fields := strings.Fields(text); len(fields) > 0 && !strings.HasPrefix(text, "#") {
			names = append(names, fields[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, scanError("-input", "benchmark name", line, err)
	}
	if len(names) == 0 {
		return nil, optionErrorf("-input: the file names no benchmark; expected one name per line")
	}
	return names, nil
}

// scanError is the *OptionError of a line-by-line read of option's file
// that failed at line (1-based), e.g. "-msglen line 1: longer than 65536
// bytes; expected one size in bytes per line" for a line too long to be
// one (bufio.ErrTooLong), else "-msglen: <err>".
func scanError(option, item string, line int, err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return optionErrorf("%s line %d: longer than %d bytes; expected one %s per line", option, line, bufio.MaxScanTokenSize, item)
	}
	return optionErrorf("%s: %w", option, err)
}

// ReadInputFile is ReadInput of the file at path; every error is an
// *OptionError naming the option and the file: "-input FILE: cannot read
// the file (no such file or directory); expected a file with one benchmark
// name per line".
func ReadInputFile(path string) ([]string, error) {
	return readOptionFile("-input", path, "a file with one benchmark name per line", ReadInput)
}

// ReadMsgLenFile is ReadMsgLen of the file at path, with errors as
// ReadInputFile's: "-msglen FILE: is a directory; expected a readable file
// with one size in bytes per line".
func ReadMsgLenFile(path string) ([]int64, error) {
	return readOptionFile("-msglen", path, "a readable file with one size in bytes per line", ReadMsgLen)
}

// readOptionFile opens the file of option at path and reads it with read;
// want says what the option expects. The errors of read are prefixed with
// the path: "FILE: -msglen line 2: ...".
func readOptionFile[T any](option, path, want string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	file, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named already
		}
		return zero, optionErrorf("%s %s: cannot read the file (%v); expected %s", option, shown(path), err, want)
	}
	defer file.Close()
	if st, err := file.Stat(); err == nil && st.IsDir() {
		return zero, optionErrorf("%s %s: is a directory; expected %s", option, shown(path), want)
	}
	v, err := read(file)
	if err != nil {
		return zero, optionErrorf("%s: %w", shown(path), err)
	}
	return v, nil
}
