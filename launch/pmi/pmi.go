// Package pmi is a client of the Process Management Interface wire
// protocols, PMI-1 and PMI-2, as spoken by MPICH's Hydra (mpiexec) and by
// Slurm's srun --mpi=pmi2 to the processes they start: each process learns
// its rank and the job size and exchanges strings with the others through
// the launcher's key-value space (put, fence, get).
//
// The launcher passes a connected socket in PMI_FD (and PMI_RANK,
// PMI_SIZE), or, in Hydra's PMI_PORT mode (mpiexec -pmi-port), the
// server's host:port in PMI_PORT and the process's id in PMI_ID: the
// client connects and first sends
//
//	cmd=initack pmiid=<PMI_ID>\n
//
// answered by "cmd=initack" and the lines "cmd=set size=N", "cmd=set
// rank=R" and "cmd=set debug=D", which take the place of PMI_SIZE and
// PMI_RANK. Both protocols then begin with the PMI-1 line
//
//	cmd=init pmi_version=2 pmi_subversion=0\n
//
// answered by "cmd=response_to_init rc=0 pmi_version=V pmi_subversion=S".
// PMI-1 then continues with newline-terminated "cmd=NAME key=value ..."
// lines (get_my_kvsname, put, barrier_in/barrier_out, get, finalize).
// PMI-2 frames every later command by a 6-character decimal length,
// left-justified and blank-padded, followed by "cmd=NAME;key=value;..."
// (fullinit, kvs-put, kvs-fence, kvs-get, finalize), ';' in a value
// written as ";;". Connect asks for PMI-2 and goes on in PMI-1 framing when
// the server offers version 1 (or refuses version 2 and accepts 1): it
// never continues in a framing the server did not agree to (the hang of
// Flux issue 746). Every read has a deadline, and a timeout names the
// command waited for. Sources: MPICH's src/pmi/simple and pmi2 clients and
// Hydra's server (the wire formats, the PMI_PORT handshake), Slurm's
// mpi/pmi2 plugin.
package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Version is a PMI wire protocol version.
type Version int

// The protocol versions.
const (
	V1 Version = 1
	V2 Version = 2
)

// String names the version, "PMI-1" or "PMI-2".
func (v Version) String() string { return "PMI-" + strconv.Itoa(int(v)) }

// DefaultTimeout bounds each wait for the server's answer (a fence waits
// for every process of the job to reach it).
const DefaultTimeout = 60 * time.Second

// Client is one process's connection to its PMI server.
type Client struct {
	conn    net.Conn
	in      *bufio.Reader
	version Version
	rank    int
	size    int
	kvs     string // PMI-1 key-value space name
	timeout time.Duration
}

// Rank is this process's rank, 0 <= Rank < Size.
func (c *Client) Rank() int { return c.rank }

// Size is the number of processes of the job.
func (c *Client) Size() int { return c.size }

// Version is the protocol version agreed with the server.
func (c *Client) Version() Version { return c.version }

// Env names the environment variables that say a process was started by a
// PMI launcher.
const (
	EnvFD    = "PMI_FD"
	EnvRank  = "PMI_RANK"
	EnvSize  = "PMI_SIZE"
	EnvJobID = "PMI_JOBID" // Slurm's job and step, sent back in PMI-2's fullinit
	EnvPort  = "PMI_PORT"  // host:port of the PMI server (Hydra's -pmi-port), when PMI_FD is not set
	EnvID    = "PMI_ID"    // this process's id on PMI_PORT
)

// Present reports whether the environment (getenv) gives a PMI socket
// (PMI_FD) or a PMI server's port (PMI_PORT).
func Present(getenv func(string) string) bool { return getenv(EnvFD) != "" || getenv(EnvPort) != "" }

// Connect opens the PMI connection named by PMI_FD, or else by PMI_PORT
// and PMI_ID, in getenv's environment and initialises it (see the package
// doc); timeout bounds each answer and the connection to PMI_PORT (0:
// DefaultTimeout). Errors name the variable or the command that failed.
func Connect(getenv func(string) string, timeout time.Duration) (*Client, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if getenv(EnvFD) == "" && getenv(EnvPort) != "" {
		return connectPort(getenv, timeout)
	}
	fd, err := strconv.Atoi(getenv(EnvFD))
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("pmi: %s=%q: want the number of an open file descriptor", EnvFD, getenv(EnvFD))
	}
	f := os.NewFile(uintptr(fd), "PMI_FD")
	conn, err := net.FileConn(f) // a duplicate, with deadlines
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("pmi: %s=%d is not a socket (%v)", EnvFD, fd, err)
	}
	c, err := Init(conn, getenv, timeout)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if err := c.checkSize(getenv); err != nil {
		return nil, err
	}
	return c, nil
}

// connectPort connects to the PMI server at PMI_PORT, identifies itself
// by PMI_ID (initack, see the package doc) and initialises the connection
// with the rank and size the server sent.
func connectPort(getenv func(string) string, timeout time.Duration) (*Client, error) {
	id, err := strconv.Atoi(getenv(EnvID))
	if err != nil || id < 0 {
		return nil, fmt.Errorf("pmi: %s=%s with %s=%q: want this process's PMI id, a number", EnvPort, getenv(EnvPort), EnvID, getenv(EnvID))
	}
	conn, err := net.DialTimeout("tcp", getenv(EnvPort), timeout)
	if err != nil {
		return nil, fmt.Errorf("pmi: connecting to the PMI server at %s=%s: %w", EnvPort, getenv(EnvPort), err)
	}
	c := newClient(conn, timeout)
	rank, size, err := c.initack(id)
	if err == nil {
		err = c.start(func(k string) string {
			switch k {
			case EnvRank:
				return rank
			case EnvSize:
				return size
			}
			return getenv(k)
		})
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// initack is the PMI_PORT handshake: it sends this process's id and
// returns the rank and size the server answers with.
func (c *Client) initack(id int) (rank, size string, err error) {
	if _, err := c.call1("initack", "initack", "pmiid", strconv.Itoa(id)); err != nil {
		return "", "", err
	}
	set := map[string]string{}
	for _, want := range []string{"size", "rank", "debug"} {
		r, err := c.read1("initack", "set")
		if err != nil {
			return "", "", err
		}
		if _, ok := r[want]; !ok {
			return "", "", fmt.Errorf("pmi: initack: expected cmd=set %s=..., got %v", want, r)
		}
		set[want] = r[want]
	}
	return set["rank"], set["size"], nil
}

// checkSize verifies that PMI_SIZE, when set, is the size the server gave.
func (c *Client) checkSize(getenv func(string) string) error {
	if s := getenv(EnvSize); s != "" && s != strconv.Itoa(c.size) {
		c.Close()
		return fmt.Errorf("pmi: %s=%s but the PMI server says the job has %d processes", EnvSize, s, c.size)
	}
	return nil
}

// Init runs the PMI handshake on conn: init asking for version 2, then
// fullinit (PMI-2: the server gives rank and size) or get_my_kvsname
// (PMI-1: rank and size are PMI_RANK and PMI_SIZE, as MPICH's simple PMI
// client takes them). getenv gives PMI_RANK, PMI_SIZE and PMI_JOBID
// (fullinit's pmirank and pmijobid, which Slurm requires).
func Init(conn net.Conn, getenv func(string) string, timeout time.Duration) (*Client, error) {
	c := newClient(conn, timeout)
	if err := c.start(getenv); err != nil {
		return nil, err
	}
	return c, nil
}

// newClient is a client on conn before any command; timeout 0 is
// DefaultTimeout.
func newClient(conn net.Conn, timeout time.Duration) *Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{conn: conn, in: bufio.NewReader(conn), timeout: timeout}
}

// start is Init's handshake on c.
func (c *Client) start(getenv func(string) string) error {
	v, err := c.init(V2)
	if err != nil {
		return err
	}
	c.version = v
	if v == V2 {
		return c.fullinit(getenv(EnvRank), getenv(EnvJobID))
	}
	return c.init1(getenv(EnvRank), getenv(EnvSize))
}

// init sends PMI-1's init line asking for want and returns the version the
// server agrees to. A server that refuses version 2 (rc != 0) is asked for
// version 1.
func (c *Client) init(want Version) (Version, error) {
	sub := "0"
	if want == V1 {
		sub = "1"
	}
	r, err := c.call1("init", "response_to_init", "pmi_version", strconv.Itoa(int(want)), "pmi_subversion", sub)
	if err != nil {
		return 0, err
	}
	if r["rc"] != "" && r["rc"] != "0" {
		if want == V2 {
			return c.init(V1)
		}
		return 0, fmt.Errorf("pmi: the server refuses PMI-1.1 and PMI-2.0 (rc=%s)", r["rc"])
	}
	switch r["pmi_version"] {
	case "2":
		if want == V1 {
			return 0, errors.New("pmi: the server offers PMI-2 after refusing it")
		}
		return V2, nil
	case "1":
		return V1, nil
	}
	return 0, fmt.Errorf("pmi: the server offers PMI version %q; mpbench speaks PMI-1 and PMI-2", r["pmi_version"])
}

// fullinit is PMI-2's initialisation.
func (c *Client) fullinit(rank, jobid string) error {
	var args []string
	if jobid != "" {
		args = append(args, "pmijobid", jobid)
	}
	if rank != "" {
		args = append(args, "pmirank", rank)
	}
	args = append(args, "threaded", "FALSE")
	r, err := c.call2("fullinit", "fullinit-response", args...)
	if err != nil {
		return err
	}
	if c.rank, err = strconv.Atoi(r["rank"]); err != nil {
		return fmt.Errorf("pmi: fullinit-response without a rank: %v", r)
	}
	if c.size, err = strconv.Atoi(r["size"]); err != nil || c.size < 1 || c.rank < 0 || c.rank >= c.size {
		return fmt.Errorf("pmi: fullinit-response with rank %q of size %q", r["rank"], r["size"])
	}
	return nil
}

// init1 is PMI-1's initialisation after init.
func (c *Client) init1(rank, size string) error {
	var err error
	c.rank, err = strconv.Atoi(rank)
	if err == nil {
		c.size, err = strconv.Atoi(size)
	}
	if err != nil || c.size < 1 || c.rank < 0 || c.rank >= c.size {
		return fmt.Errorf("pmi: %s=%q %s=%q: a PMI-1 server needs both, with 0 <= rank < size", EnvRank, rank, EnvSize, size)
	}
	r, err := c.call1("get_my_kvsname", "my_kvsname")
	if err != nil {
		return err
	}
	c.kvs = r["kvsname"]
	return nil
}

// Put stores value under key in the job's key-value space; other
// processes see it after the next Fence. Keys and values must not contain
// blanks, '=' or newlines (PMI-1 cannot carry them): encode them.
func (c *Client) Put(key, value string) error {
	if strings.ContainsAny(key+value, " =\n;") {
		return fmt.Errorf("pmi: put %q: keys and values must not contain blanks, '=', ';' or newlines", key)
	}
	if c.version == V2 {
		_, err := c.call2("kvs-put", "kvs-put-response", "key", key, "value", value)
		return err
	}
	_, err := c.call1("put", "put_result", "kvsname", c.kvs, "key", key, "value", value)
	return err
}

// Fence waits until every process of the job has reached it and makes the
// values put before it visible to all (PMI-1 barrier, PMI-2 kvs-fence).
func (c *Client) Fence() error {
	if c.version == V2 {
		_, err := c.call2("kvs-fence", "kvs-fence-response")
		return err
	}
	_, err := c.call1("barrier_in", "barrier_out")
	return err
}

// Get returns the value another process put under key before the last
// Fence.
func (c *Client) Get(key string) (string, error) {
	var r map[string]string
	var err error
	if c.version == V2 {
		r, err = c.call2("kvs-get", "kvs-get-response", "srcid", "-1", "key", key)
		if err == nil && r["found"] != "TRUE" {
			err = fmt.Errorf("pmi: kvs-get %s: not found", key)
		}
	} else {
		r, err = c.call1("get", "get_result", "kvsname", c.kvs, "key", key)
	}
	if err != nil {
		return "", err
	}
	return r["value"], nil
}

// Finalize tells the server this process is done with PMI (a process that
// exits without it is taken for a failed one by Hydra and Slurm) and
// closes the connection.
func (c *Client) Finalize() error {
	var err error
	if c.version == V2 {
		_, err = c.call2("finalize", "finalize-response")
	} else {
		_, err = c.call1("finalize", "finalize_ack")
	}
	c.conn.Close()
	return err
}

// Close closes the connection without finalizing.
func (c *Client) Close() error { return c.conn.Close() }

// call1 sends a PMI-1 command and reads the answer, which must be
// "cmd=want" with rc 0 when it has an rc.
func (c *Client) call1(cmd, want string, kv ...string) (map[string]string, error) {
	var b strings.Builder
	b.WriteString("cmd=" + cmd)
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(" " + kv[i] + "=" + kv[i+1])
	}
	b.WriteByte('\n')
	if err := c.write(cmd, b.String()); err != nil {
		return nil, err
	}
	return c.read1(cmd, want)
}

// read1 reads the PMI-1 answer to cmd, which must be "cmd=want" with rc 0
// when it has an rc.
func (c *Client) read1(cmd, want string) (map[string]string, error) {
	c.conn.SetReadDeadline(time.Now().Add(c.timeout))
	line, err := c.in.ReadString('\n')
	if err != nil {
		return nil, c.readErr(cmd, want, err)
	}
	r := parse1(line)
	return r, check(cmd, want, r, cmd == "init")
}

// call2 sends a PMI-2 command and reads the answer.
func (c *Client) call2(cmd, want string, kv ...string) (map[string]string, error) {
	var b strings.Builder
	b.WriteString("cmd=" + cmd + ";")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(kv[i] + "=" + strings.ReplaceAll(kv[i+1], ";", ";;") + ";")
	}
	if err := c.write(cmd, fmt.Sprintf("%-6d%s", b.Len(), b.String())); err != nil {
		return nil, err
	}
	c.conn.SetReadDeadline(time.Now().Add(c.timeout))
	var head [6]byte
	if _, err := readFull(c.in, head[:]); err != nil {
		return nil, c.readErr(cmd, want, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(head[:])))
	if err != nil || n < 0 || n > 1<<20 {
		return nil, fmt.Errorf("pmi: %s: the answer's length field %q is not PMI-2 framing (a PMI-1 server?)", cmd, head[:])
	}
	body := make([]byte, n)
	if _, err := readFull(c.in, body); err != nil {
		return nil, c.readErr(cmd, want, err)
	}
	r := parse2(string(body))
	return r, check(cmd, want, r, false)
}

func (c *Client) write(cmd, s string) error {
	c.conn.SetWriteDeadline(time.Now().Add(c.timeout))
	if _, err := c.conn.Write([]byte(s)); err != nil {
		return fmt.Errorf("pmi: sending %s: %w", cmd, err)
	}
	return nil
}

func (c *Client) readErr(cmd, want string, err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("pmi: no %s from the PMI server within %v after %s", want, c.timeout, cmd)
	}
	return fmt.Errorf("pmi: waiting for %s after %s: %w", want, cmd, err)
}

// check verifies that r answers cmd: its cmd is want and rc, if present,
// is 0 (init's rc is judged by the caller).
func check(cmd, want string, r map[string]string, rcOK bool) error {
	if r["cmd"] != want {
		return fmt.Errorf("pmi: %s answered by %q, want %s", cmd, r["cmd"], want)
	}
	if !rcOK && r["rc"] != "" && r["rc"] != "0" {
		msg := r["msg"]
		if msg == "" {
			msg = r["errmsg"]
		}
		return fmt.Errorf("pmi: %s failed: rc=%s %s", cmd, r["rc"], msg)
	}
	return nil
}

// parse1 splits a PMI-1 line "cmd=x a=b c=d" at blanks and first '='.
func parse1(line string) map[string]string {
	r := map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, _ := strings.Cut(f, "=")
		r[k] = v
	}
	return r
}

// parse2 splits a PMI-2 body "cmd=x;a=b;" at single ';' (";;" is a
// literal ';') and first '='.
func parse2(body string) map[string]string {
	r := map[string]string{}
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			k, v, _ := strings.Cut(cur.String(), "=")
			r[k] = v
			cur.Reset()
		}
	}
	for i := 0; i < len(body); i++ {
		if body[i] == ';' {
			if i+1 < len(body) && body[i+1] == ';' {
				cur.WriteByte(';')
				i++
				continue
			}
			flush()
			continue
		}
		cur.WriteByte(body[i])
	}
	flush()
	return r
}

func readFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
