package testbed

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/mpbench/mpbench/testbed/medium"
)

// Prefix starts the name of every namespace a testbed creates.
const Prefix = "mpbtb-"

// StateRoot holds one directory per testbed (state.json, forwarder log and
// counters). A variable so tests can move it.
var StateRoot = "/run/mpbench/testbed"

// MaxNodes is the largest testbed, the study's 16 PCs.
const MaxNodes = 16

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9]{0,7}$`)

// Config is what Up builds.
type Config struct {
	Name    string        // testbed name, [a-z][a-z0-9]{0,7}; "tb" by default
	Nodes   int           // 2..MaxNodes
	Net     string        // medium.Kinds: switch, hub, wifi
	RateBps float64       // line rate, bit/s
	Latency time.Duration // one-way latency added to every frame
	MTU     int           // IP MTU of eth0, 576..9000
	Loss    float64       // fraction of frames dropped, 0..1
	Jitter  bool          // wifi: random backoff
	Seed    uint64        // loss and backoff draws
	// Poll is how long the forwarder polls its devices after delivering
	// a frame to a node that answers such deliveries, before it sleeps
	// (DefaultPoll; 0 sleeps at once), within PollShare of one CPU.
	Poll time.Duration
	// Owner, when not 0, is the PID of the process that owns the testbed:
	// the forwarder removes the testbed when it exits.
	Owner int
}

// Validate reports a configuration Up cannot build, naming the fix.
func (c Config) Validate() error {
	switch {
	case !nameRE.MatchString(c.Name):
		return fmt.Errorf("--name %s: use 1-8 lower-case letters and digits, starting with a letter", c.Name)
	case c.Nodes < 2 || c.Nodes > MaxNodes:
		return fmt.Errorf("--nodes %d: use 2..%d", c.Nodes, MaxNodes)
	case c.MTU < 576 || c.MTU > 9000:
		return fmt.Errorf("--mtu %d: use 576..9000 (1500 standard Ethernet)", c.MTU)
	case !(c.Loss >= 0 && c.Loss < 1):
		return fmt.Errorf("--loss %g: use a fraction in [0, 1), e.g. 0.1%%", c.Loss)
	case c.Poll < 0 || c.Poll > time.Millisecond:
		return fmt.Errorf("--poll %v: use 0 (sleep at once) to 1ms; %v by default", c.Poll, DefaultPoll)
	}
	_, err := c.Medium()
	return err
}

// Medium returns a fresh model of the configured network.
func (c Config) Medium() (medium.Medium, error) {
	return medium.New(c.Net, medium.Params{Ports: c.Nodes, RateBps: c.RateBps, Latency: c.Latency}, c.Jitter, c.Seed)
}

// QueueLimit returns the forwarder's limit of frames waiting for one
// receiver: twice the bandwidth-delay product of a 4 MiB window in flight
// at the rate plus the latency, and at least 1000 (field case B25: a limit
// left at a small default drops frames once rate x delay exceeds it).
func (c Config) QueueLimit() int {
	frames := int(2 * (c.RateBps/8*c.Latency.Seconds() + 4<<20) / float64(c.MTU))
	return max(frames, 1000)
}

// Node returns the namespace name, which is also the hostname, of node k
// (1-based).
func (c Config) Node(k int) string { return NodeName(c.Name, k) }

// NodeName returns the namespace name and hostname of node k of testbed
// name: mpbtb-NAME-nK.
func NodeName(name string, k int) string { return Prefix + name + "-n" + strconv.Itoa(k) }

// Addr returns node k's IPv4 address: 10.77.0.K (a /24).
func Addr(k int) string { return "10.77.0." + strconv.Itoa(k) }

// MAC returns node k's locally administered MAC address.
func MAC(k int) [6]byte { return [6]byte{0x02, 0x6d, 0x70, 0x62, 0x00, byte(k)} }

// State is a testbed as Up recorded it in state.json.
type State struct {
	Config
	Model        string    `json:"model"`         // medium.Medium.Describe
	ForwarderPID int       `json:"forwarder_pid"` // 0 until the forwarder started
	Created      time.Time `json:"created"`       // when Up started
}

// Dir returns the state directory of testbed name.
func Dir(name string) string { return filepath.Join(StateRoot, name) }

func statePath(name string) string { return filepath.Join(Dir(name), "state.json") }

// writeState stores s atomically.
func writeState(s State) error {
	if err := os.MkdirAll(Dir(s.Name), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(s.Name) + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(s.Name))
}

// Load reads the state of testbed name. Errors: os.ErrNotExist (wrapped)
// when no testbed of that name was built.
func Load(name string) (State, error) {
	var s State
	b, err := os.ReadFile(statePath(name))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %v", statePath(name), err)
	}
	return s, nil
}
