package launch

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/mpbench/mpbench/transport/auth"
)

// register is a worker's first message on the control connection.
type register struct {
	Rank  int    `json:"rank"`
	Size  int    `json:"size"`
	Addr  string `json:"addr"`
	Nonce string `json:"nonce"` // the rank's nonce, hex
	MAC   string `json:"mac"`   // rankMAC, hex (rvauth.go)
}

// table is the launcher's answer once every rank has registered.
type table struct {
	Addrs []string `json:"addrs,omitempty"`
	Hosts []string `json:"hosts,omitempty"` // host of each rank (Spec.Hosts or this host)
	Error string   `json:"error,omitempty"`
	MAC   string   `json:"mac,omitempty"` // tableMAC, hex (rvauth.go)
}

// maxLine bounds a control message in bytes.
const maxLine = 64 << 10

// registerTimeout bounds how long a connected worker may take to register.
const registerTimeout = 30 * time.Second

// rendezvous is the launcher's listener that collects each rank's transport
// address and sends back the full table. It keeps the control connections
// open until Close.
type rendezvous struct {
	ln     net.Listener
	secret string
	np     int
	hosts  []string  // host of each rank, sent with the table
	refuse *refusals // reports connections that fail authentication

	mu     sync.Mutex
	conns  []net.Conn  // registered control connection by rank
	nonces [][2][]byte // launcher's and rank's nonce by rank
	addrs  []string
	n      int        // ranks registered
	open   []net.Conn // every accepted connection, closed by Close
	closed bool
	failed error         // why Accept stopped before Close, e.g. too many open files
	failC  chan struct{} // closed when failed is set
	wg     sync.WaitGroup
}

// startRendezvous listens on bind for np ranks proving secret; hosts[r]
// is rank r's host, sent with the table.
func startRendezvous(bind string, np int, secret string, hosts []string, refuse *refusals) (*rendezvous, error) {
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, fmt.Errorf("launch: rendezvous listener on %s: %w", bind, err)
	}
	r := &rendezvous{ln: ln, secret: secret, np: np, hosts: hosts, refuse: refuse, conns: make([]net.Conn, np), nonces: make([][2][]byte, np), addrs: make([]string, np),
		failC: make(chan struct{})}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// acceptErr is why the listener stopped accepting ranks before Close
// (nil if it did not): ranks not yet registered then wait in vain.
func (r *rendezvous) acceptErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Addr is the host:port workers connect to.
func (r *rendezvous) Addr() string { return r.ln.Addr().String() }

func (r *rendezvous) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			r.mu.Lock()
			if !r.closed && r.n < r.np && !errors.Is(err, net.ErrClosed) {
				r.failed = err
				close(r.failC)
			}
			r.mu.Unlock()
			return
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			c.Close()
			return
		}
		r.open = append(r.open, c)
		r.wg.Add(1)
		r.mu.Unlock()
		go r.serve(c)
	}
}

// serve reads one registration from c and answers it: with an error at once,
// or with the table when the last rank has registered.
func (r *rendezvous) serve(c net.Conn) {
	defer r.wg.Done()
	nonce, err := auth.NewNonce()
	if err != nil {
		c.Close()
		return
	}
	b, _ := json.Marshal(challenge{Nonce: hex.EncodeToString(nonce)})
	c.SetDeadline(time.Now().Add(registerTimeout))
	if _, err := c.Write(append(b, '\n')); err != nil {
		c.Close()
		return
	}
	line, err := bufio.NewReaderSize(c, maxLine).ReadSlice('\n')
	if err != nil {
		c.Close()
		return
	}
	c.SetDeadline(time.Time{})
	var m register
	if err := json.Unmarshal(line, &m); err != nil {
		r.refuse.refused("the rendezvous", c.RemoteAddr().String(), errors.New("not an mpbench rank (malformed registration)"))
		reply(c, table{Error: "malformed registration: " + err.Error()})
		c.Close()
		return
	}
	rankNonce, err := checkRegistration([]byte(r.secret), nonce, m)
	if err != nil {
		r.refuse.refused("the rendezvous", c.RemoteAddr().String(), err)
		reply(c, table{Error: err.Error()})
		c.Close()
		return
	}
	if err := r.add(c, m, [2][]byte{nonce, rankNonce}); err != nil {
		reply(c, table{Error: err.Error()})
		c.Close()
	}
}

// add registers rank m.Rank; the last registration sends the table to all.
func (r *rendezvous) add(c net.Conn, m register, nonces [2][]byte) error {
	if m.Size != r.np {
		return fmt.Errorf("job has %d ranks, worker says %d", r.np, m.Size)
	}
	if m.Rank < 0 || m.Rank >= r.np {
		return fmt.Errorf("rank %d out of range 0..%d", m.Rank, r.np-1)
	}
	if m.Addr == "" {
		return errors.New("registration without a transport address")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns[m.Rank] != nil {
		return fmt.Errorf("rank %d registered twice", m.Rank)
	}
	r.conns[m.Rank], r.addrs[m.Rank], r.nonces[m.Rank] = c, m.Addr, nonces
	r.n++
	if r.n == r.np {
		r.ln.Close() // no one else may join
		for rank, rc := range r.conns {
			t := table{Addrs: r.addrs, Hosts: r.hosts}
			t.MAC = hex.EncodeToString(tableMAC([]byte(r.secret), r.nonces[rank][0], r.nonces[rank][1], rank, r.np, t))
			reply(rc, t)
		}
	}
	return nil
}

// reply writes v as one JSON line to c.
func reply(c net.Conn, v any) {
	b, _ := json.Marshal(v)
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	c.Write(append(b, '\n'))
	c.SetWriteDeadline(time.Time{})
}

// Close stops accepting and closes every control connection; workers still
// running then exit.
func (r *rendezvous) Close() {
	r.mu.Lock()
	r.closed = true
	r.ln.Close()
	for _, c := range r.open {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}
