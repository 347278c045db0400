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
