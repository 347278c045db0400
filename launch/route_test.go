package launch

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// fakeProcess is a transport.ProcessDriver named and reaching as a real
// one, whose prepared side records what connect asks of it.
type fakeProcess struct {
	name  string
	reach transport.Reach
}

func (f fakeProcess) Properties() transport.Properties {
	return transport.Properties{Name: f.name, Reach: f.reach}
}
func (fakeProcess) NewJob(int) ([]transport.Endpoint, error)                    { return nil, nil }
func (fakeProcess) Prepare(transport.ProcessConfig) (transport.Prepared, error) { return nil, nil }

// fakePrepared records Connect's arguments and Abort.
type fakePrepared struct {
	rank, size int
	addrs      []string
	reach      []bool
	connected  bool
	aborted    bool
}

func (p *fakePrepared) Addr() string { return "" }
func (p *fakePrepared) Abort()       { p.aborted = true }
func (p *fakePrepared) Connect(_ context.Context, addrs []string, reach []bool) (transport.Endpoint, error) {
	p.addrs, p.reach, p.connected = addrs, reach, true
	return fakeEndpoint{rank: p.rank, size: p.size}, nil
}

// fakeEndpoint is an endpoint of rank of size that is never started.
type fakeEndpoint struct {
	transport.Endpoint
	rank, size int
}

func (e fakeEndpoint) Rank() int    { return e.rank }
func (e fakeEndpoint) Size() int    { return e.size }
func (e fakeEndpoint) Close() error { return nil }

var (
	fakeShm = fakeProcess{"shm", transport.SameHost}
	fakeTCP = fakeProcess{"tcp", transport.AnyHost}
)

// connectFake runs connect for rank of len(table) ranks on host "A" with
// the given transports and returns the endpoint's name, each transport's
// prepared side and the error.
func connectFake(t *testing.T, rank int, drivers []transport.ProcessDriver, table []string) (string, []*fakePrepared, error) {
	t.Helper()
	w := workerEnv{rank: rank, size: len(table), transport: TransportAuto, bind: BindNone}
	l := &local{me: peerAddr{host: "A"}}
	var fakes []*fakePrepared
	for _, d := range drivers {
		p := &fakePrepared{rank: rank, size: len(table)}
		fakes = append(fakes, p)
		l.drivers = append(l.drivers, d)
		l.prepared = append(l.prepared, p)
	}
	ep, name, err := connect(context.Background(), w, l, table)
	if err == nil && (ep.Rank() != rank || ep.Size() != len(table)) {
		t.Errorf("endpoint is rank %d of %d, want %d of %d", ep.Rank(), ep.Size(), rank, len(table))
	}
	return name, fakes, err
}

func flags(b []bool) string {
	var s strings.Builder
	for _, v := range b {
		if v {
			s.WriteByte('x')
		} else {
			s.WriteByte('.')
		}
	}
	return s.String()
}

// TestConnectRoutes: each peer goes through the first transport both ends
// prepared that reaches it; unused transports are released; a peer no
// transport reaches is an error naming what would.
func TestConnectRoutes(t *testing.T) {
	both := []transport.ProcessDriver{fakeShm, fakeTCP}

	// Rank 1 of 4: rank 0 on this host, rank 2 on another, rank 3 on
	// this host but without shared memory (MPBENCH_TRANSPORT=tcp there).
	name, p, err := connectFake(t, 1, both, []string{"host=A;shm=;tcp=a:0", "host=A;shm=;tcp=a:1", "host=B;shm=;tcp=b:2", "host=A;tcp=a:3"})
	if err != nil {
		t.Fatal(err)
	}
	if name != "shm+tcp" || flags(p[0].reach) != "x..." || flags(p[1].reach) != "..xx" {
		t.Errorf("mixed job: %s, shm reaches %s, tcp %s; want shm+tcp, x... and ..xx", name, flags(p[0].reach), flags(p[1].reach))
	}
	if p[1].addrs[2] != "b:2" || p[1].addrs[3] != "a:3" {
		t.Errorf("tcp addresses %q: want b:2 and a:3 for ranks 2 and 3", p[1].addrs)
	}

	// Every rank on this host: shared memory alone, TCP released.
	name, p, err = connectFake(t, 0, both, []string{"host=A;shm=;tcp=a:0", "host=A;shm=;tcp=a:1"})
	if err != nil || name != "shm" || !p[0].connected || p[1].connected || !p[1].aborted {
		t.Errorf("one host: %q, %v, shm connected %v, tcp connected %v aborted %v; want shm alone, tcp released",
			name, err, p[0].connected, p[1].connected, p[1].aborted)
	}

	// One rank: the preferred transport alone.
	if name, p, err = connectFake(t, 0, both, []string{"host=A;shm=;tcp=a:0"}); err != nil || name != "shm" || !p[1].aborted {
		t.Errorf("one rank: %q, %v; want shm, tcp released", name, err)
	}

	// Shared memory only, a peer on another host.
	_, p, err = connectFake(t, 0, []transport.ProcessDriver{fakeShm}, []string{"host=A;shm=", "host=B;shm="})
	if err == nil || !strings.Contains(err.Error(), "rank 1 is on another host") || !strings.Contains(err.Error(), "use MPBENCH_TRANSPORT=auto or tcp") {
		t.Errorf("shm across hosts: %v; want an error naming rank 1 and tcp", err)
	}
	if !p[0].aborted || p[0].connected {
		t.Errorf("shm across hosts: the segment was not released")
	}
}

// TestProcessDriversRegistered: launch reaches shm and tcp through the
// registry, shared memory preferred.
func TestProcessDriversRegistered(t *testing.T) {
	var names []string
	for _, d := range transport.ProcessDrivers() {
		names = append(names, d.Properties().Name)
	}
	if got := strings.Join(names, ","); got != "shm,tcp" {
		t.Errorf("transport.ProcessDrivers: %s, want shm,tcp", got)
	}
}

// envAlias makes a test worker register tcpAlias before it joins.
const envAlias = "MPBENCH_TESTALIAS"

// tcpAlias is tcp registered under another name by the test workers only
// (envAlias): a transport package launch has never heard of.
type tcpAlias struct{ transport.ProcessDriver }

func (a tcpAlias) Properties() transport.Properties {
	p := a.ProcessDriver.Properties()
	p.Name = "tcpalias"
	return p
}

func init() {
	if os.Getenv(envAlias) != "" {
		d, _ := transport.Lookup("tcp")
		transport.Register(tcpAlias{d.(transport.ProcessDriver)})
	}
}

// TestRunOnRegisteredTransport: ranks join a job over a transport that is
// only registered (in the workers, by this test), named by
// MPBENCH_TRANSPORT: launch builds the endpoint through the registry.
func TestRunOnRegisteredTransport(t *testing.T) {
	var stdout, stderr syncBuffer
	err := Run(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)}, Timeout: 60 * time.Second, Stdout: &stdout, Stderr: &stderr,
		Env: []string{quickExit, envMode + "=where", envAlias + "=1", EnvTransport + "=tcpalias"}})
	if err != nil {
		t.Fatalf("Run: %v\nstderr:\n%s", err, stderr.String())
	}
	for r := range 3 {
		if want := fmt.Sprintf("rank %d: tcpalias ", r); !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if want := "exchange ok np=3\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
}
