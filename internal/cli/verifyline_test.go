package cli

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// TestVerifyLine: a run under MPBENCH_VERIFY=1 says so in its header and
// meta data (its times are a debug mode's); a normal run adds no line.
func TestVerifyLine(t *testing.T) {
	t.Setenv(transport.EnvVerify, "1")
	l := verifyLine()
	if len(l) != 1 || l[0].Key != "frame_checksums" || !strings.Contains(l[0].Text, "MPBENCH_VERIFY=1") {
		t.Errorf("under %s=1: %+v, want one frame_checksums line naming it", transport.EnvVerify, l)
	}
	t.Setenv(transport.EnvVerify, "")
	if l := verifyLine(); l != nil {
		t.Errorf("without %s: %+v, want no line", transport.EnvVerify, l)
	}
}
