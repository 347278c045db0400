package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/testbed"
	"github.com/mpbench/mpbench/testbed/medium"
)

// newTestbedCmd builds "mpbench testbed": the emulated networks.
func newTestbedCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Emulate the study's networks (switch, hub, wifi) between network namespaces on this host",
		Long: `mpbench testbed builds N nodes on this Linux host, each a network namespace with
its own hostname and address (10.77.0.K), joined by an emulated switch, hub or
802.11g wifi network, and runs commands on them. Needs root (CAP_NET_ADMIN).`,
	}
	cmd.AddCommand(newTestbedUpCmd(), newTestbedStatusCmd(), newTestbedExecCmd(), newTestbedDownCmd(),
		newTestbedForwardCmd(), newTestbedCheckCmd(), newTestbedRunCmd(), newTestbedTuneCmd(), newTestbedStudyCmd())
	return cmd
}

// testbedError maps the testbed's errors to exit statuses: a host that
// cannot build a testbed, or a busy name (a *testbed.Refusal), is bad
// input (2), told by its message alone.
func testbedError(err error) error {
	var r *testbed.Refusal
	if errors.As(err, &r) {
		return usageErrorf("%s", r.Msg)
	}
	return err
}

// upTestbed builds the testbed cfg (testbed.Up), its refusal bad input
// (testbedError).
func upTestbed(cfg testbed.Config) (testbed.State, error) {
	st, err := testbed.Up(cfg)
	return st, testbedError(err)
}

// testbedFlags are the options that describe a testbed.
type testbedFlags struct {
	name, net, rate, latency, loss string
	nodes, mtu                     int
	poll                           time.Duration
	jitter                         bool
	seed                           uint64
}

func (f *testbedFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "tb", "testbed name (several testbeds can be up at once)")
	fl.IntVar(&f.nodes, "nodes", 4, "number of nodes, 2.."+strconv.Itoa(testbed.MaxNodes))
	fl.StringVar(&f.net, "net", "switch", "network: "+strings.Join(medium.Kinds, ", "))
	fl.StringVar(&f.rate, "rate", "100mbit", "line rate (bit, kbit, mbit, gbit); for wifi the rate standing for 802.11g's 54mbit")
	fl.StringVar(&f.latency, "latency", "0us", "one-way latency added to every frame (e.g. 50us)")
	fl.IntVar(&f.mtu, "mtu", 1500, "IP MTU of each node's eth0")
	fl.StringVar(&f.loss, "loss", "0%", "frames dropped at random (e.g. 0.1%)")
	fl.BoolVar(&f.jitter, "jitter", false, "wifi: draw each backoff at random (0..15 slots) instead of its mean")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the loss and backoff draws")
	fl.DurationVar(&f.poll, "poll", testbed.DefaultPoll, fmt.Sprintf("the forwarder polls this long after delivering a frame to a node that answers in time, within %g of a CPU (0: sleep at once)", testbed.PollShare))
}

// config checks the options and returns the testbed they describe.
func (f *testbedFlags) config() (testbed.Config, error) {
	if !slices.Contains(medium.Kinds, f.net) {
		return testbed.Config{}, usageErrorf("--net %s: expected one of %s", f.net, strings.Join(medium.Kinds, ", "))
	}
	rate, err := medium.ParseRate(f.rate)
	if err != nil {
		return testbed.Config{}, usageErrorf("--rate: %v", err)
	}
	lat, err := time.ParseDuration(f.latency)
	if err != nil || lat < 0 {
		return testbed.Config{}, usageErrorf("--latency %q: give a duration such as 50us or 1ms", f.latency)
	}
	loss, err := parseFraction(f.loss)
	if err != nil {
		return testbed.Config{}, usageErrorf("--loss: %v", err)
	}
	c := testbed.Config{Name: f.name, Nodes: f.nodes, Net: f.net, RateBps: rate, Latency: lat, MTU: f.mtu,
		Loss: loss, Jitter: f.jitter, Seed: f.seed, Poll: f.poll}
	if err := c.Validate(); err != nil {
		return c, usageErrorf("%v", err)
	}
	return c, nil
}

// parseFraction reads "0.1%" as 0.001 and "0.001" as 0.001.
func parseFraction(s string) (float64, error) {
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: give a percentage such as 0.1%% or a fraction such as 0.001", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func newTestbedUpCmd() *cobra.Command {
	var f testbedFlags
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Build a testbed: N namespaces joined by an emulated switch, hub or wifi",
		Example: `  mpbench testbed up --nodes 4 --net switch --rate 100mbit
  mpbench testbed up --nodes 8 --net hub --rate 10mbit --latency 50us
  mpbench testbed up --nodes 4 --net wifi --rate 54mbit --loss 0.1% --jitter`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			st, err := upTestbed(cfg)
			if err != nil {
				return err
			}
			printStatus(cmd.OutOrStdout(), st)
			return nil
		},
	}
	f.add(cmd)
	return cmd
}

// printStatus prints a testbed's nodes, model and counters.
func printStatus(w io.Writer, st testbed.State) {
	state := fmt.Sprintf("up (forwarder pid %d)", st.ForwarderPID)
	if !testbed.Alive(st) {
		state = "left by a killed run (forwarder gone); mpbench testbed down --name " + st.Name + " removes it"
	}
	fmt.Fprintf(w, "# testbed %s: %s, built %s\n", st.Name, state, st.Created.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "# network: %s\n", st.Model)
	fmt.Fprintf(w, "# mtu %d, loss %g%%, queue limit %d frames per receiver, TCP timestamps off, offloads off (TAP), forwarder polls %v after a frame\n",
		st.MTU, st.Loss*100, st.QueueLimit(), st.Poll)
	if o, err := st.OneWayOf(0); err == nil {
		fmt.Fprintf(w, "# one way of a %s\n", o)
	}
	fmt.Fprintf(w, "%-5s %-18s %s\n", "node", "hostname", "address")
	for k := 1; k <= st.Nodes; k++ {
		fmt.Fprintf(w, "%-5d %-18s %s\n", k, st.Node(k), testbed.Addr(k))
	}
	ompi, mpich := testbed.MPICommands(st)
	fmt.Fprintf(w, "# MPI libraries (hostfile %s, launch agent %s):\n#   %s\n#   %s\n", testbed.HostfilePath(st.Name), testbed.AgentPath(st.Name), ompi, mpich)
	if s, err := testbed.ReadStats(st.Name); err == nil {
		fmt.Fprintf(w, "# forwarder: %d frames in, %d delivered, %d lost (--loss), %d queue drops, %d oversize; delivery late by p50 %.1f usec, p99 %.1f usec; polled %.0f ms after frames\n",
			s.Frames, s.Delivered, s.Lost, s.QueueDrops, s.Oversize, s.LateP50Usec, s.LateP99Usec, s.PolledMs)
	}
}

func newTestbedStatusCmd() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the testbeds on this host: nodes, addresses, network model, forwarder counters",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names := testbed.Names()
			if name != "" {
				names = []string{name}
			}
			if len(names) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no testbed on this host (mpbench testbed up builds one)")
				return nil
			}
			for _, n := range names {
				st, err := testbed.Load(n)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					if name != "" {
						return usageErrorf("no testbed %q on this host; mpbench testbed status lists them", n)
					}
					fmt.Fprintf(cmd.OutOrStdout(), "# testbed %s: namespaces without state, left by a killed run; mpbench testbed down --name %s removes them\n", n, n)
				case err != nil:
					return err
				default:
					printStatus(cmd.OutOrStdout(), st)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "show this testbed only")
	return cmd
}

func newTestbedExecCmd() *cobra.Command {
	var name, node string
	cmd := &cobra.Command{
		Use:   "exec --node K -- COMMAND [ARGS...]",
		Short: "Run a command on node K (its network namespace and hostname)",
		Example: `  mpbench testbed exec --node 1 -- hostname
  mpbench testbed exec --node 2 -- mpbench transfer serve`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ns, err := nodeNamespace(name, node)
			if err != nil {
				return err
			}
			return testbedError(testbed.ExecInNode(ns, args))
		},
	}
	cmd.Flags().StringVar(&name, "name", "tb", "testbed name")
	cmd.Flags().StringVar(&node, "node", "", "node number 1..N, or its hostname")
	return cmd
}

// nodeNamespace resolves --node (a number or a hostname) on testbed name.
func nodeNamespace(name, node string) (string, error) {
	st, err := testbed.Load(name)
	if err != nil {
		return "", usageErrorf("no testbed %q is up; build it with mpbench testbed up --name %s", name, name)
	}
	for k := 1; k <= st.Nodes; k++ {
		if node == strconv.Itoa(k) || node == st.Node(k) {
			return st.Node(k), nil
		}
	}
	return "", usageErrorf("--node %q: testbed %s has nodes 1..%d (%s..%s)", node, name, st.Nodes, st.Node(1), st.Node(st.Nodes))
}

func newTestbedDownCmd() *cobra.Command {
	var name string
	var all bool
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Remove a testbed: its processes, namespaces and forwarder (also one left by a killed run)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names := []string{name}
			if all {
				names = testbed.Names()
			}
			for _, n := range names {
				found, err := testbed.Down(n)
				if err != nil {
					return testbedError(err)
				}
				if found {
					fmt.Fprintf(cmd.OutOrStdout(), "testbed %s removed\n", n)
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "no testbed %s on this host\n", n)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "tb", "testbed name")
	cmd.Flags().BoolVar(&all, "all", false, "remove every testbed on this host")
	return cmd
}

// newTestbedForwardCmd is the forwarder process testbed up starts.
func newTestbedForwardCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "forward NAME",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			var ready *os.File
			if fd, err := strconv.Atoi(os.Getenv("MPBENCH_TESTBED_READY_FD")); err == nil {
				ready = os.NewFile(uintptr(fd), "ready")
			}
			return testbed.RunForwarder(args[0], ready)
		},
	}
}

func newTestbedCheckCmd() *cobra.Command {
	var name, tol string
	var o testbed.CheckOptions
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Measure every link of a testbed (latency, bulk rate, two transfers at once) against the model",
		Long: `mpbench testbed check measures a testbed that is up: a 1-byte TCP ping-pong
on node 1's loopback (the host's own software latency), the same between node 1
and every other node, one bulk transfer from every node to node 1, and two
transfers at once (2->1 and 4->3, or 1->2 and 2->1 with fewer than 4 nodes). It
prints each next to the model (latency: the model's one-way time plus the
loopback latency) and fails (exit 1) when a bandwidth is off the model by more
than --tolerance.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := parseFraction(tol)
			if err != nil || t <= 0 {
				return usageErrorf("--tolerance %q: give a percentage such as 15%%", tol)
			}
			if o.Seconds <= 0 || o.Pings < 10 {
				return usageErrorf("--seconds must be > 0 and --pings at least 10")
			}
			st, err := testbed.Load(name)
			if err != nil || !testbed.Alive(st) {
				return usageErrorf("no testbed %q is up; build it with mpbench testbed up --name %s", name, name)
			}
			rows, err := testbed.Check(st, o)
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "# testbed %s: %d nodes, %s\n", st.Name, st.Nodes, st.Model)
			fmt.Fprintf(w, "%-28s %-7s %10s %10s %7s\n", "test", "unit", "model", "measured", "ratio")
			var off []string
			for _, r := range rows {
				fmt.Fprintf(w, "%-28s %-7s %10.2f %10.2f %7.3f\n", r.Test, r.Unit, r.Model, r.Measured, r.Ratio())
				if r.Judged && (r.Ratio() < 1-t || r.Ratio() > 1+t) {
					off = append(off, fmt.Sprintf("%s %.2f %s is %.0f%% of the model's %.2f", r.Test, r.Measured, r.Unit, 100*r.Ratio(), r.Model))
				}
			}
			if s, serr := testbed.ReadStats(name); serr == nil {
				fmt.Fprintf(w, "# forwarder: %d frames, %d lost (--loss), %d queue drops, %d oversize; delivery late by p50 %.1f usec, p99 %.1f usec\n",
					s.Frames, s.Lost, s.QueueDrops, s.Oversize, s.LateP50Usec, s.LateP99Usec)
			}
			if err != nil {
				return err
			}
			if len(off) > 0 {
				return fmt.Errorf("testbed check: %s (tolerance %s; a host too loaded for this rate is the usual cause, see docs/testbed.md)", strings.Join(off, "; "), tol)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "tb", "testbed name")
	cmd.Flags().Float64Var(&o.Seconds, "seconds", 1, "length of each bulk transfer at the model's rate")
	cmd.Flags().IntVar(&o.Pings, "pings", 200, "round trips per latency measurement")
	cmd.Flags().StringVar(&tol, "tolerance", "15%", "largest accepted deviation of a bandwidth from the model")
	return cmd
}
