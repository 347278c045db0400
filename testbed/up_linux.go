package testbed

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ForwarderArgs are the arguments, after the program (os.Executable), that
// start the forwarder process; the testbed name follows them. The mpbench
// command line serves them as a hidden command.
var ForwarderArgs = []string{"testbed", "forward"}

// ErrBusy is wrapped when a testbed of the same name is up.
var ErrBusy = errors.New("testbed is up")

func notifyStop(c chan os.Signal) { signal.Notify(c, syscall.SIGTERM, syscall.SIGINT) }

// Up builds testbed cfg: a network namespace per node, the forwarder, and
// each node's eth0 (address 10.77.0.K/24, MTU, MAC, static neighbours, TCP
// timestamps and IPv6 off), then checks that every node reaches node 1 over
// TCP. A testbed of the same name left by a killed run is removed first; a
// live one is an error wrapping ErrBusy. On any failure everything built
// is removed again. Errors wrapping ErrUnsupported mean the host lacks
// something (see Probe).
func Up(cfg Config) (State, error) {
	if err := cfg.Validate(); err != nil {
		return State{}, err
	}
	if err := Probe(); err != nil {
		return State{}, err
	}
	if st, err := Load(cfg.Name); err == nil && Alive(st) {
		return State{}, refuse(ErrBusy, "testbed %q (%d nodes, %s) is up; remove it with mpbench testbed down --name %s, or give another --name", cfg.Name, st.Nodes, st.Net, cfg.Name)
	}
	if err := removeTestbed(cfg.Name, true); err != nil {
		return State{}, fmt.Errorf("removing the testbed %q a killed run left: %v", cfg.Name, err)
	}
	m, _ := cfg.Medium()
	st := State{Config: cfg, Model: m.Describe(), Created: time.Now()}
	if err := writeState(st); err != nil {
		return st, err
	}
	fail := func(err error) (State, error) {
		removeTestbed(cfg.Name, true)
		return st, err
	}
	for k := 1; k <= cfg.Nodes; k++ {
		if err := ip("netns", "add", cfg.Node(k)); err != nil {
			return fail(err)
		}
	}
	pid, err := startForwarder(cfg.Name)
	if err != nil {
		return fail(err)
	}
	st.ForwarderPID = pid
	if err := writeState(st); err != nil {
		return fail(err)
	}
	for k := 1; k <= cfg.Nodes; k++ {
		if err := configureNode(cfg, k); err != nil {
			return fail(fmt.Errorf("node %d: %v", k, err))
		}
	}
	if err := checkReach(cfg); err != nil {
		return fail(err)
	}
	if self, err := os.Executable(); err == nil {
		if err := writeLaunchFiles(st, self); err != nil {
			return fail(err)
		}
	}
	return st, nil
}

// startForwarder starts the forwarder process of testbed name in its own
// session and waits for it to report that every TAP device is open.
func startForwarder(name string) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	logf, err := os.Create(filepath.Join(Dir(name), "forwarder.log"))
	if err != nil {
		w.Close()
		return 0, err
	}
	defer logf.Close()
	cmd := exec.Command(self, append(append([]string{}, ForwarderArgs...), name)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{w} // fd 3
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Env = append(os.Environ(), "MPBENCH_TESTBED_READY_FD=3")
	if err := cmd.Start(); err != nil {
		w.Close()
		return 0, fmt.Errorf("starting the forwarder: %v", err)
	}
	w.Close()
	go cmd.Wait() // reap it if it exits while this process lives
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s != "ok" {
			if s == "" {
				s = "exited without a word; see " + filepath.Join(Dir(name), "forwarder.log")
			}
			return 0, fmt.Errorf("forwarder: %s", s)
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		return 0, errors.New("forwarder did not start within 15 s")
	}
	return cmd.Process.Pid, nil
}

// configureNode sets up node k's interfaces, neighbours and sysctls.
func configureNode(cfg Config, k int) error {
	ns := cfg.Node(k)
	err := InNode(ns, func() error {
		for p, v := range map[string]string{
			"/proc/sys/net/ipv4/tcp_timestamps":            "0",
			"/proc/sys/net/ipv6/conf/all/disable_ipv6":     "1",
			"/proc/sys/net/ipv6/conf/default/disable_ipv6": "1",
		} {
			if err := os.WriteFile(p, []byte(v), 0o644); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	mac := MAC(k)
	var b strings.Builder
	fmt.Fprintf(&b, "link set lo up\n")
	fmt.Fprintf(&b, "link set eth0 address %s mtu %d up\n", net.HardwareAddr(mac[:]), cfg.MTU)
	fmt.Fprintf(&b, "addr add %s/24 dev eth0\n", Addr(k))
	for j := 1; j <= cfg.Nodes; j++ {
		if j != k {
			m := MAC(j)
			fmt.Fprintf(&b, "neigh replace %s lladdr %s dev eth0 nud permanent\n", Addr(j), net.HardwareAddr(m[:]))
		}
	}
	cmd := exec.Command("ip", "-n", ns, "-batch", "-")
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ip -n %s -batch: %v: %s", ns, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// checkReach connects from every node to a listener on node 1.
func checkReach(cfg Config) error {
	var ln net.Listener
	if err := InNode(cfg.Node(1), func() (err error) {
		ln, err = net.Listen("tcp", Addr(1)+":0")
		return err
	}); err != nil {
		return err
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for k := 2; k <= cfg.Nodes; k++ {
		var c net.Conn
		err := InNode(cfg.Node(k), func() (err error) {
			c, err = net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
			return err
		})
		if err != nil {
			return fmt.Errorf("node %d cannot reach node 1 over the emulated network: %v (see %s)", k, err, filepath.Join(Dir(cfg.Name), "forwarder.log"))
		}
		c.Close()
	}
	return nil
}

// Alive reports whether st's forwarder runs.
func Alive(st State) bool {
	return processAlive(st.ForwarderPID, strings.Join(ForwarderArgs, " ")+" "+st.Name)
}

// Down removes testbed name: its forwarder, every process on its nodes,
// its namespaces and its state. It reports whether anything was there.
func Down(name string) (bool, error) {
	found := len(namespaces(name)) > 0
	if _, err := os.Stat(Dir(name)); err == nil {
		found = true
	}
	return found, removeTestbed(name, true)
}

// Names returns the testbeds on this host: those with a state directory
// and those with namespaces only (left by a killed run).
func Names() []string {
	seen := map[string]bool{}
	ents, _ := os.ReadDir(StateRoot)
	for _, e := range ents {
		if e.IsDir() {
			seen[e.Name()] = true
		}
	}
	for _, ns := range namespaces("") {
		rest := strings.TrimPrefix(ns, Prefix)
		if i := strings.LastIndex(rest, "-n"); i > 0 {
			seen[rest[:i]] = true
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	return out
}

// removeTestbed tears testbed name down in reverse order: forwarder
// (when killForwarder), the processes on its nodes, its namespaces, its
// state directory. Objects of other names are never touched.
func removeTestbed(name string, killForwarder bool) error {
	if killForwarder {
		if st, err := Load(name); err == nil {
			stopForwarder(st)
		}
		if b, err := os.ReadFile(filepath.Join(Dir(name), "forwarder.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				stopForwarder(State{Config: Config{Name: name}, ForwarderPID: pid})
			}
		}
	}
	var errs []error
	for _, ns := range namespaces(name) {
		killIn(ns, 500*time.Millisecond)
		if err := ip("netns", "del", ns); err != nil && !errors.Is(statErr(netnsDir+"/"+ns), fs.ErrNotExist) {
			errs = append(errs, err) // not removed meanwhile by another Down
		}
	}
	if err := os.RemoveAll(Dir(name)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// stopForwarder ends st's forwarder: SIGTERM, SIGKILL after 2 s.
func stopForwarder(st State) {
	if !Alive(st) {
		return
	}
	syscall.Kill(st.ForwarderPID, syscall.SIGTERM)
	for range 100 {
		time.Sleep(20 * time.Millisecond)
		if !Alive(st) {
			return
		}
	}
	syscall.Kill(st.ForwarderPID, syscall.SIGKILL)
}

func statErr(path string) error {
	_, err := os.Stat(path)
	return err
}
