// Package testbed emulates the study's networks on one Linux host: N nodes,
// each a network namespace with one Ethernet interface (eth0, a TAP device)
// and its own hostname, joined by a user-space forwarder that carries every
// frame through one of the models of package medium (switch, hub, wifi).
// Processes run on a node through Exec (a setns into the node's network
// namespace and a new UTS namespace carrying the node's hostname), so ranks
// on different nodes talk real TCP through the emulated network.
//
// Why a forwarder: the kernels this runs on lack netem, fq and the other
// qdiscs that delay or arbitrate, so propagation delay, half-duplex sharing
// and 802.11's per-frame cost cannot be built from qdiscs (tbf would shape
// the rate only, and lets an idle link's first frames through unshaped).
// The forwarder reads each frame from the sender's TAP, asks the model when
// it reaches its receivers, and writes it to their TAPs at that time.
//
// Wire frames: a TAP device without IFF_VNET_HDR announces no offloads, so
// the kernel segments (GSO) before the forwarder sees a frame and nothing
// coalesces (GRO) what it writes; every frame is at most MTU + 14 bytes and
// is charged its Ethernet overhead (medium.WireBytes). The forwarder counts
// frames longer than that ("oversize") as proof. TCP timestamps are turned
// off in every node so a full segment carries MTU - 40 bytes, as
// analysis.EthernetModel assumes.
//
// Objects: namespaces are named mpbtb-NAME-nK (K = 1..N) and the state
// lives in /run/mpbench/testbed/NAME; nothing else on the host is touched
// (no bridge, no host interface, no firewall rule). A testbed whose
// forwarder is gone (a killed run) is found and removed by Up and Down.
package testbed
