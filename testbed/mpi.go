package testbed

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CIDR is the network of every testbed's nodes (Addr).
const CIDR = "10.77.0.0/24"

// HostfilePath, MPICHHostfilePath and AgentPath are the files Up writes
// for MPI launchers: a hostfile of the nodes with one slot each in Open
// MPI's syntax ("host slots=1", which mpbench also reads) and in MPICH
// hydra's ("host:1"), and a launch agent that runs "AGENT HOST COMMAND..."
// on a node as ssh would (through sh -c), for Open MPI's plm_rsh_agent and
// MPICH hydra's -launcher-exec.
func HostfilePath(name string) string { return filepath.Join(Dir(name), "hostfile") }

// MPICHHostfilePath: see HostfilePath.
func MPICHHostfilePath(name string) string { return filepath.Join(Dir(name), "hostfile.mpich") }

// AgentPath: see HostfilePath.
func AgentPath(name string) string { return filepath.Join(Dir(name), "agent") }

// writeLaunchFiles writes the hostfile and the agent of st; self is the
// mpbench executable the agent runs.
func writeLaunchFiles(st State, self string) error {
	var ompi, mpich strings.Builder
	for k := 1; k <= st.Nodes; k++ {
		fmt.Fprintf(&ompi, "%s slots=1\n", st.Node(k))
		fmt.Fprintf(&mpich, "%s:1\n", st.Node(k))
	}
	if err := os.WriteFile(HostfilePath(st.Name), []byte(ompi.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(MPICHHostfilePath(st.Name), []byte(mpich.String()), 0o644); err != nil {
		return err
	}
	agent := fmt.Sprintf(`#!/bin/sh
# Launch agent of mpbench testbed %[1]s: "agent [options] HOST COMMAND..." runs
# COMMAND on node HOST through a shell, as ssh does. Options (hydra's -x) are
# ignored. Open MPI: --mca plm_rsh_agent %[2]s; MPICH: -launcher ssh -launcher-exec %[2]s
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
host=$1
shift
exec '%[3]s' testbed exec --name %[1]s --node "$host" -- sh -c "$*"
`, st.Name, AgentPath(st.Name), self)
	return os.WriteFile(AgentPath(st.Name), []byte(agent), 0o755)
}

// MPILauncher returns the argv of an MPI library's launcher that starts np
// processes of a program (appended by the caller) on the nodes of st, one
// per node in node order, over TCP on the testbed's addresses: flavor
// "openmpi" (mpirun.openmpi with the hostfile and the agent as
// plm_rsh_agent, the TCP BTL and OOB on CIDR) or "mpich" (mpiexec.mpich
// with hostfile.mpich and the agent as hydra's -launcher-exec, -iface eth0
// because the nodes' hostnames do not resolve, and UCX restricted to TCP
// on eth0, since UCX would otherwise join the namespaces through shared
// memory and bypass the emulated network). The launcher must run on a
// node (node 1: the nodes reach each other, not the host). An unknown
// flavor returns nil.
func MPILauncher(st State, flavor string, np int) []string {
	n := strconv.Itoa(np)
	switch flavor {
	case "openmpi":
		return []string{"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", n, "--hostfile", HostfilePath(st.Name),
			"--mca", "plm_rsh_agent", AgentPath(st.Name), "--mca", "btl", "tcp,self",
			"--mca", "btl_tcp_if_include", CIDR, "--mca", "oob_tcp_if_include", CIDR}
	case "mpich":
		return []string{"env", "UCX_TLS=tcp,self", "UCX_NET_DEVICES=eth0", "mpiexec.mpich", "-n", n, "-f", MPICHHostfilePath(st.Name),
			"-launcher", "ssh", "-launcher-exec", AgentPath(st.Name), "-iface", "eth0"}
	}
	return nil
}

// MPICommands returns example command lines that run an MPI program
// (PROGRAM) across every node of st with Open MPI and with MPICH
// (MPILauncher), run on node 1 through mpbench testbed exec --node 1.
func MPICommands(st State) (openmpi, mpich string) {
	exec := fmt.Sprintf("mpbench testbed exec --name %s --node 1 -- ", st.Name)
	line := func(flavor string) string {
		return exec + strings.Join(MPILauncher(st, flavor, st.Nodes), " ") + " PROGRAM"
	}
	return line("openmpi"), line("mpich")
}
