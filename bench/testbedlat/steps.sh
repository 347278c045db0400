#!/usr/bin/env bash
# steps: where the time of a 0-byte PingPong message goes on the testbed.
# Builds a 2-node switch (RATE Mbit/s, forwarder --poll POLL), runs a long
# 0-byte PingPong of mpbench across it, records TRACE_SECONDS of it with the
# kernel's tracer (sched_switch and sched_waking, the frames on the nodes'
# eth0, the ranks' writev and read, the forwarder's read and write, timer
# interrupts; a tracing instance of its own, removed at the end) and
# prints each step of a message with its median (steps.py): the sender's
# stack, the forwarder's read of the frame, the model's time and the
# forwarder's lateness, the receiver's stack, and the receiving rank's read,
# with how long receivers waited for a CPU and how many threads and timer
# interrupts each message cost. It also times a pipe round trip between two
# threads and between two processes (switchcost.c, where cc is installed):
# every frame crossing moves the CPU between a rank's process and the
# forwarder's, and on some virtual machines a switch of address space costs
# far more than a switch of thread.
#
# Usage: bench/testbedlat/steps.sh   (from the repository, as root)
# Environment: RATE (default 100), POLL (forwarder --poll, default its
# default), TRACE_SECONDS (default 0.2), MPB (an mpbench binary; default:
# built from the working tree).
set -euo pipefail
cd "$(dirname "$0")/../.."
RATE=${RATE:-100}
TRACE_SECONDS=${TRACE_SECONDS:-0.2}
work=$(mktemp -d)
tb=stp$$
T=/sys/kernel/tracing/instances/mpbsteps$$
MPB=${MPB:-}
cleanup() {
	if [ -d "$T" ]; then
		echo 0 >"$T/tracing_on"
		echo 0 >"$T/events/enable"
		rmdir "$T" || true
	fi
	[ -z "$MPB" ] || "$MPB" testbed down --name "$tb" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[ -d /sys/kernel/tracing/instances ] || { echo "steps: needs tracefs at /sys/kernel/tracing (mount -t tracefs nodev /sys/kernel/tracing)" >&2; exit 2; }
if [ -z "$MPB" ]; then
	go build -o "$work/mpbench" ./cmd/mpbench
	MPB=$work/mpbench
fi
up=(--name "$tb" --nodes 2 --net switch --rate "${RATE}mbit")
[ -z "${POLL:-}" ] || up+=(--poll "$POLL")
echo "# steps on $(hostname), $(nproc) CPUs, $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), nice $(nice)"
"$MPB" testbed up "${up[@]}" >/dev/null
"$MPB" testbed status --name "$tb" | grep 'polls' | head -1 || true
"$MPB" testbed run --name "$tb" -- -msglog 0:0 -iter 40000 -time 100 PingPong >"$work/run.txt" 2>&1 &
run=$!
sleep 2.5
# The threads of the forwarder and of each node's processes.
: >"$work/t.tids"
for p in $(cat "/run/mpbench/testbed/$tb/forwarder.pid"); do
	for t in /proc/"$p"/task/*; do echo "fwd ${t##*/}" >>"$work/t.tids"; done
done
for k in 1 2; do
	for p in $(ip netns pids "mpbtb-$tb-n$k"); do
		for t in /proc/"$p"/task/*; do echo "n$k ${t##*/}" >>"$work/t.tids"; done
	done
done
mkdir "$T"
echo mono >"$T/trace_clock"
echo 40000 >"$T/buffer_size_kb"
awk '{print $2}' "$work/t.tids" | tr '\n' ' ' >"$T/set_event_pid"
for e in sched/sched_switch sched/sched_waking net/net_dev_queue net/netif_receive_skb syscalls/sys_enter_writev \
	syscalls/sys_enter_write syscalls/sys_exit_read irq_vectors/local_timer_entry; do
	echo 1 >"$T/events/$e/enable"
done
echo 'ret > 0' >"$T/events/syscalls/sys_exit_read/filter"
echo 'name == "eth0"' >"$T/events/net/net_dev_queue/filter"
echo 'name == "eth0"' >"$T/events/net/netif_receive_skb/filter"
echo 1 >"$T/tracing_on"
sleep "$TRACE_SECONDS"
echo 0 >"$T/tracing_on"
cat "$T/trace" >"$work/t.trace"
wait "$run" || true
"$MPB" testbed status --name "$tb" | grep '^# forwarder' || true
"$MPB" testbed down --name "$tb" >/dev/null
echo "# 0 B PingPong t over its 40000 repetitions (${TRACE_SECONDS} s of them traced): $(awk '$1 == 0 && NF >= 4 {print $3 " usec"}' "$work/run.txt")"
python3 bench/testbedlat/steps.py "$work/t" "$RATE"
if command -v cc >/dev/null; then
	cc -O2 -pthread -o "$work/switchcost" bench/testbedlat/switchcost.c
	"$work/switchcost"
fi
