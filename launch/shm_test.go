package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport/shm"
)

// leakSegment is the worker mode "leak": rank 0 creates its segment and
// dies before any peer maps it (a crash during start-up), recording the
// file's path; the others wait to be stopped.
func leakSegment() int {
	rank, _ := strconv.Atoi(os.Getenv(EnvRank))
	if rank != 0 {
		select {}
	}
	size, _ := strconv.Atoi(os.Getenv(EnvSize))
	p, err := shm.Prepare(shm.Options{Rank: rank, Size: size, Secret: []byte(os.Getenv(EnvSecret))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	os.WriteFile(filepath.Join(os.Getenv(envDir), "segment"), []byte(p.Path()), 0o644)
	return 3
}

// TestRunRemovesSegments: the launcher removes the segment a rank left in
// /dev/shm when it died during start-up.
func TestRunRemovesSegments(t *testing.T) {
	dir := t.TempDir()
	err := Run(context.Background(), Spec{NP: 2, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=leak", envDir + "=" + dir},
		Timeout: 30 * time.Second})
	if err == nil {
		t.Fatal("Run succeeded; want rank 0's failure")
	}
	path, rerr := os.ReadFile(filepath.Join(dir, "segment"))
	if rerr != nil {
		t.Fatalf("rank 0 did not create a segment: %v (run: %v)", rerr, err)
	}
	if _, serr := os.Stat(string(path)); !os.IsNotExist(serr) {
		t.Errorf("segment %s still exists after the job: %v", path, serr)
	}
}

// TestAddr round-trips rendezvous addresses and rejects unknown fields.
func TestAddr(t *testing.T) {
	for _, a := range []peerAddr{
		{host: "0123456789abcdef", addrs: map[string]string{"shm": "", "tcp": "127.0.0.1:1"}},
		{host: "ab", addrs: map[string]string{"tcp": "10.0.0.1:5000"}},
		{host: "ab", addrs: map[string]string{"shm": ""}},
	} {
		s := formatAddr(a)
		got, err := parseAddr(s)
		if err != nil || !reflect.DeepEqual(got, a) {
			t.Errorf("parseAddr(%q) = %+v, %v; want %+v", s, got, err, a)
		}
	}
	if s := formatAddr(peerAddr{host: "ab", addrs: map[string]string{"tcp": "h:1", "shm": ""}}); s != "host=ab;shm=;tcp=h:1" {
		t.Errorf("formatAddr: %q, want the transports in preference order, host=ab;shm=;tcp=h:1", s)
	}
	for _, bad := range []string{"host=ab;udp=1", "10.0.0.1:5000"} {
		if _, err := parseAddr(bad); err == nil {
			t.Errorf("parseAddr(%q): no error", bad)
		}
	}
	if hostID() != hostID() || len(hostID()) != 16 {
		t.Errorf("hostID %q is not a stable 16-digit id", hostID())
	}
}
