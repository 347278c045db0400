package bench

import (
	"errors"
	"strings"
	"testing"
)

// TestSizeAndThreadChecks: -msgsize with -msglen and -thread_level on
// mpbench's own runtime are *OptionErrors in bench's one wording.
func TestSizeAndThreadChecks(t *testing.T) {
	var oe *OptionError
	if _, err := ParseMsgSizeAlone("8,16", true); !errors.As(err, &oe) || err.Error() != "-msgsize and -msglen both list message sizes; give one" {
		t.Errorf("-msgsize with -msglen: %v", err)
	}
	if sizes, err := ParseMsgSizeAlone("8,16", false); err != nil || len(sizes) != 2 || sizes[1] != 16 {
		t.Errorf("-msgsize 8,16: %v, %v", sizes, err)
	}
	if err := CheckThreadLevel("single", false); !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "-thread_level single: thread levels belong to MPI libraries;") {
		t.Errorf("-thread_level single on mpbench's runtime: %v", err)
	}
	if err := CheckThreadLevel("bogus", false); err == nil || !strings.Contains(err.Error(), "expected -thread_level single, funneled, serialized or multiple") {
		t.Errorf("-thread_level bogus: %v", err)
	}
	if err := CheckThreadLevel("Multiple", true); err != nil {
		t.Errorf("-thread_level Multiple on a library: %v", err)
	}
}

// TestLineTooLong: a -msglen or -input file with a line longer than the
// scanner takes (/dev/zero, a binary file) is refused naming the line and
// what a line should hold, not with bufio's internal words.
func TestLineTooLong(t *testing.T) {
	long := strings.Repeat("0", 70000)
	_, err := ReadMsgLen(strings.NewReader("8\n" + long + "\n"))
	if err == nil || err.Error() != "-msglen line 2: longer than 65536 bytes; expected one size in bytes per line" {
		t.Errorf("ReadMsgLen of a 70000-byte line: %v", err)
	}
	_, err = ReadInput(strings.NewReader(long))
	if err == nil || err.Error() != "-input line 1: longer than 65536 bytes; expected one benchmark name per line" {
		t.Errorf("ReadInput of a 70000-byte line: %v", err)
	}
	var oe *OptionError
	if !errors.As(err, &oe) {
		t.Errorf("ReadInput's error %T is not an *OptionError (bad input, exit status 2)", err)
	}
}
