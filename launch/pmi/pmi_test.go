package pmi

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// stub is a PMI server for one client on one end of a socket pair: it
// answers the init line as initReply says and then speaks PMI-1 or PMI-2
// framing (v), keeping a key-value space.
type stub struct {
	t         *testing.T
	conn      net.Conn
	in        *bufio.Reader
	v         int
	initReply func(version string) string // "" ends the connection
	kvs       map[string]string
	mu        sync.Mutex
	seen      []string // commands received
}

func newStub(t *testing.T, v int, initReply func(string) string) (net.Conn, *stub) {
	a, b := net.Pipe()
	s := &stub{t: t, conn: b, in: bufio.NewReader(b), v: v, initReply: initReply, kvs: map[string]string{}}
	go s.serve()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, s
}

func (s *stub) note(cmd string) {
	s.mu.Lock()
	s.seen = append(s.seen, cmd)
	s.mu.Unlock()
}

// portStub listens on a TCP port of 127.0.0.1 as Hydra does for mpiexec
// -pmi-port and serves one client: it expects "cmd=initack pmiid=<id>",
// answers with the client's size (2) and rank (the id), then serves as
// newStub's stub. It returns the PMI_PORT value.
func portStub(t *testing.T, v int, initReply func(string) string) (string, *stub) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &stub{t: t, v: v, initReply: initReply, kvs: map[string]string{}}
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s.conn, s.in = c, bufio.NewReader(c)
		t.Cleanup(func() { c.Close() })
		line, err := s.in.ReadString('\n')
		if err != nil {
			return
		}
		r := parse1(line)
		s.note(r["cmd"])
		if r["cmd"] != "initack" {
			return
		}
		fmt.Fprintf(c, "cmd=initack\ncmd=set size=2\ncmd=set rank=%s\ncmd=set debug=0\n", r["pmiid"])
		s.serve()
	}()
	t.Cleanup(func() { ln.Close(); <-accepted })
	return ln.Addr().String(), s
}

func (s *stub) serve() {
	for {
		line, err := s.in.ReadString('\n')
		if err != nil {
			return
		}
		r := parse1(line)
		s.note(r["cmd"])
		if r["cmd"] != "init" {
			return
		}
		ans := s.initReply(r["pmi_version"])
		if ans == "" {
			return
		}
		s.conn.Write([]byte(ans + "\n"))
		if strings.Contains(ans, "rc=0") {
			break
		}
	}
	if s.v == 1 {
		s.serve1()
	} else {
		s.serve2()
	}
}

func (s *stub) serve1() {
	for {
		line, err := s.in.ReadString('\n')
		if err != nil {
			return
		}
		r := parse1(line)
		s.note(r["cmd"])
		var ans string
		switch r["cmd"] {
		case "get_my_kvsname":
			ans = "cmd=my_kvsname kvsname=kvs_7_0 rc=0"
		case "put":
			s.kvs[r["key"]] = r["value"]
			ans = "cmd=put_result rc=0"
		case "barrier_in":
			ans = "cmd=barrier_out"
		case "get":
			ans = "cmd=get_result rc=0 value=" + s.kvs[r["key"]]
		case "finalize":
			ans = "cmd=finalize_ack"
		default:
			ans = "cmd=" + r["cmd"] + " rc=-1 msg=unknown"
		}
		s.conn.Write([]byte(ans + "\n"))
	}
}

func (s *stub) serve2() {
	for {
		var head [6]byte
		if _, err := readFull(s.in, head[:]); err != nil {
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(head[:])))
		if err != nil {
			s.t.Errorf("stub: bad length field %q", head)
			return
		}
		body := make([]byte, n)
		if _, err := readFull(s.in, body); err != nil {
			return
		}
		r := parse2(string(body))
		s.note(r["cmd"])
		var ans string
		switch r["cmd"] {
		case "fullinit":
			if r["pmijobid"] != "7.0" {
				s.t.Errorf("fullinit without PMI_JOBID: %v", r)
			}
			ans = "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=" + r["pmirank"] + ";size=2;appnum=0;debugged=FALSE;pmiverbose=FALSE;"
		case "kvs-put":
			s.kvs[r["key"]] = r["value"]
			ans = "cmd=kvs-put-response;rc=0;"
		case "kvs-fence":
			ans = "cmd=kvs-fence-response;rc=0;"
		case "kvs-get":
			v, ok := s.kvs[r["key"]]
			ans = fmt.Sprintf("cmd=kvs-get-response;rc=0;found=%s;value=%s;", map[bool]string{true: "TRUE", false: "FALSE"}[ok], strings.ReplaceAll(v, ";", ";;"))
		case "finalize":
			ans = "cmd=finalize-response;rc=0;"
		}
		s.conn.Write([]byte(fmt.Sprintf("%-6d%s", len(ans), ans)))
	}
}

// env is a getenv with PMI_RANK and PMI_SIZE.
func env(rank, size string) func(string) string {
	return func(k string) string {
		return map[string]string{EnvRank: rank, EnvSize: size, EnvJobID: "7.0"}[k]
	}
}

// exercise puts, fences, gets and finalizes through c.
func exercise(t *testing.T, c *Client) {
	t.Helper()
	if err := c.Put("mpbench-addr-1", "3132372e302e302e31"); err != nil {
		t.Fatal(err)
	}
	if err := c.Fence(); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get("mpbench-addr-1"); err != nil || v != "3132372e302e302e31" {
		t.Fatalf("get: %q %v", v, err)
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// TestPMI2: a PMI-2 server; framing, rank and size from fullinit.
func TestPMI2(t *testing.T) {
	conn, s := newStub(t, 2, func(v string) string {
		return "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0"
	})
	c, err := Init(conn, env("1", "2"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != V2 || c.Rank() != 1 || c.Size() != 2 {
		t.Errorf("version %v rank %d size %d", c.Version(), c.Rank(), c.Size())
	}
	exercise(t, c)
	if got := strings.Join(s.seen, " "); got != "init fullinit kvs-put kvs-fence kvs-get finalize" {
		t.Errorf("commands %s", got)
	}
}

// TestPMIServerOffersV1: asked for version 2, the server answers version 1
// (field case B31): the client goes on in PMI-1 framing, never sending a
// length-framed command.
func TestPMIServerOffersV1(t *testing.T) {
	conn, s := newStub(t, 1, func(v string) string {
		return "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1"
	})
	c, err := Init(conn, env("0", "2"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != V1 || c.Rank() != 0 || c.Size() != 2 || c.kvs != "kvs_7_0" {
		t.Errorf("version %v rank %d size %d kvs %q", c.Version(), c.Rank(), c.Size(), c.kvs)
	}
	exercise(t, c)
	if got := strings.Join(s.seen, " "); got != "init get_my_kvsname put barrier_in get finalize" {
		t.Errorf("commands %s", got)
	}
}

// TestPMIServerRefusesV2: a server that answers version 2 with rc=-1 (as
// a patched PMI-1-only server does) is asked for version 1.
func TestPMIServerRefusesV2(t *testing.T) {
	conn, s := newStub(t, 1, func(v string) string {
		if v == "2" {
			return "cmd=response_to_init rc=-1 pmi_version=1 pmi_subversion=1"
		}
		return "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1"
	})
	c, err := Init(conn, env("1", "2"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, c)
	if got := strings.Join(s.seen, " "); got != "init init get_my_kvsname put barrier_in get finalize" {
		t.Errorf("commands %s", got)
	}
}

// TestPMIServerSilent: a server that never answers; the error names the
// command waited for, after the timeout.
func TestPMIServerSilent(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go bufio.NewReader(b).ReadString('\n') // read the init, answer nothing
	start := time.Now()
	_, err := Init(a, env("0", "2"), 200*time.Millisecond)
	if err == nil || err.Error() != "pmi: no response_to_init from the PMI server within 200ms after init" {
		t.Errorf("error %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestPMIServerOffersOtherVersion: a version the client does not speak
// is refused, not guessed at.
func TestPMIServerOffersOtherVersion(t *testing.T) {
	conn, _ := newStub(t, 2, func(v string) string {
		return "cmd=response_to_init rc=0 pmi_version=3 pmi_subversion=0"
	})
	if _, err := Init(conn, env("0", "2"), time.Second); err == nil || !strings.Contains(err.Error(), `offers PMI version "3"`) {
		t.Errorf("error %v", err)
	}
}

func TestParse2(t *testing.T) {
	r := parse2("cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b=c;")
	if r["cmd"] != "kvs-get-response" || r["value"] != "a;b=c" || r["found"] != "TRUE" {
		t.Errorf("%v", r)
	}
}

// portEnv is a getenv of Hydra's PMI_PORT mode: PMI_PORT and PMI_ID, no
// PMI_FD, PMI_RANK or PMI_SIZE.
func portEnv(port, id string) func(string) string {
	return func(k string) string {
		return map[string]string{EnvPort: port, EnvID: id, EnvJobID: "7.0"}[k]
	}
}

// TestPMIPort: Hydra's PMI_PORT mode. The client connects to PMI_PORT,
// identifies itself by PMI_ID before init, takes rank and size from the
// server's answer, and goes on in the version the server offers (field
// case B31: an initack comes before init, so the server learns the
// client's version only from init).
func TestPMIPort(t *testing.T) {
	for _, tc := range []struct {
		v        int
		offer    string
		want     Version
		commands string
	}{
		{2, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0", V2, "initack init fullinit kvs-put kvs-fence kvs-get finalize"},
		{1, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1", V1, "initack init get_my_kvsname put barrier_in get finalize"},
	} {
		t.Run(tc.want.String(), func(t *testing.T) {
			port, s := portStub(t, tc.v, func(string) string { return tc.offer })
			env := portEnv(port, "1")
			if !Present(env) {
				t.Fatal("PMI_PORT alone is not taken for a PMI launcher")
			}
			c, err := Connect(env, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if c.Version() != tc.want || c.Rank() != 1 || c.Size() != 2 {
				t.Errorf("version %v rank %d size %d", c.Version(), c.Rank(), c.Size())
			}
			exercise(t, c)
			s.mu.Lock()
			defer s.mu.Unlock()
			if got := strings.Join(s.seen, " "); got != tc.commands {
				t.Errorf("commands %s, want %s", got, tc.commands)
			}
		})
	}
}

// TestPMIPortErrors: PMI_PORT without a PMI_ID, or naming a port nothing
// listens on, fails in one error naming the variables.
func TestPMIPortErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		env  func(string) string
		want string
	}{
		{portEnv("127.0.0.1:1", ""), `pmi: PMI_PORT=127.0.0.1:1 with PMI_ID="": want this process's PMI id, a number`},
		{portEnv(closed, "0"), "pmi: connecting to the PMI server at PMI_PORT=" + closed + ": "},
	} {
		if _, err := Connect(tc.env, time.Second); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
