#!/usr/bin/env bash
# testbedlat: mpbench's PingPong across two nodes of an emulated switch
# (default 100 Mbit/s) against analysis' wire model plus the runtime's own
# loopback PingPong, both measured in the same rounds: the 0-byte latency
# (t[usec] of the 0-byte row) and the 1 MiB bandwidth, each as measured /
# model. Every round also runs "mpbench testbed check" on the same testbed
# (its 1-byte TCP ping-pong against the model plus the host's loopback)
# and, where ping(8) is installed, an ICMP echo from node 1 to node 2: its
# round trip is timed by the kernel (SO_TIMESTAMP) and answered by node 2's
# kernel, so no user process's scheduling enters it but the forwarder's;
# its model is four line times of a 98-byte frame plus ping's round trip on
# node 1's loopback; and back to back (ping -f, the mean round trip), where
# the next echo leaves as soon as the reply came, as in a PingPong. On a busy host (and under nice) the PingPong figures
# carry the ranks' scheduling; the ICMP one shows the forwarder's share.
# The wire model is "mpbench analyze --wire eth:RATE" of the testbed's
# PingPong file, plus one frame's store and forward (the switch receives a
# frame whole before sending it on): 1 MiB, one full frame of 1538 bytes.
# The 0 B message is counted two ways, both printed: as a bare TCP segment,
# one minimum frame (84 bytes of line time per line), and as mpbench's
# runtime sends it, its frame header in one segment (110 bytes); "mpbench
# testbed status" prints both one-way times, the header size taken from
# the runtime's code (testbed.Config.OneWayOf). analyze's wire table of an
# mpbench file over TCP charges the header too (110 bytes at 0 B).
#
# With BASE=<git revision>, every round measures that revision's build too,
# right before the current one (before/after a change of the forwarder).
# With POLLS="0s 50us" (values of up's --poll), every round measures each
# build once per value, in that order: the same binary with and without
# polling after frames.
#
# Usage: bench/testbedlat/run.sh          (from the repository, as root)
# Environment: ROUNDS (default 3), RATE (default 100, Mbit/s), BASE, POLLS.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
RATE=${RATE:-100}
work=$(mktemp -d)
tb=lat$$
builds=()
cleanup() {
	for b in "${builds[@]}"; do "$work/$b" testbed down --name "$tb" >/dev/null 2>&1 || true; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "testbedlat: a command failed at line $LINENO (status $?)" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -n "${BASE:-}" ]; then
	mkdir "$work/base-src"
	git archive "$BASE" | tar -x -C "$work/base-src"
	(cd "$work/base-src" && go build -o "$work/base" ./cmd/mpbench)
	builds+=(base)
fi
go build -o "$work/current" ./cmd/mpbench
builds+=(current)
MPB=$work/current
# variants: "build" or "build:poll" (up --poll poll).
variants=()
for b in "${builds[@]}"; do
	if [ -n "${POLLS:-}" ]; then
		for p in $POLLS; do variants+=("$b:$p"); done
	else
		variants+=("$b")
	fi
done

# stats NAME < values: "NAME median min..max" of the numbers on stdin.
stats() {
	sort -g | awk -v name="$1" '{v[NR]=$1} END {
		if (NR == 0) { printf "%-46s (no values)\n", name; exit }
		m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
		printf "%-46s median %9.4g   min..max %.4g..%.4g   (%d rounds)\n", name, m, v[1], v[NR], NR }'
}

# col FILE BYTES N: column N of the PingPong row of BYTES in IMB text.
col() { awk -v b="$2" -v c="$3" '$1 == b && NF >= 4 {v = $c} END {print v}' "$1"; }

pp=(-msglog 20:20 --eager 4194304 -iter 1000 PingPong)
echo "# testbedlat on $(hostname), $(nproc) CPUs, $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), nice $(nice)"
echo "# switch of 2 nodes at ${RATE} Mbit/s; variants (build:poll): ${variants[*]}"
for b in "${variants[@]}"; do : >"$work/$b.lat"; : >"$work/$b.latrt"; : >"$work/$b.bw"; : >"$work/$b.lo"; : >"$work/$b.tb0"; : >"$work/$b.chk"; : >"$work/$b.icmp"; : >"$work/$b.icmpus"; : >"$work/$b.flood"; done
# icmp ADDR COUNT: median ICMP echo round trip in usec from node 1 of the testbed.
icmp() {
	ip netns exec "mpbtb-$tb-n1" ping -c "$2" -i 0.002 "$1" | sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -g |
		awk '{v[NR]=$1 * 1000} END {print v[int((NR+1)/2)]}'
}
for r in $(seq "$ROUNDS"); do
	for b in "${variants[@]}"; do
		x=$work/${b%%:*}
		up=()
		[ "$b" = "${b%%:*}" ] || up=(--poll "${b#*:}")
		"$x" run -np 2 --transport tcp "${pp[@]}" >"$work/lo.txt"
		"$x" testbed up --name "$tb" --nodes 2 --net switch --rate "${RATE}mbit" "${up[@]}" >/dev/null
		"$x" testbed run --name "$tb" -- "${pp[@]}" --json "$work/tb.jsonl" >"$work/tb.txt"
		"$x" testbed check --name "$tb" --seconds 1 >"$work/chk.txt" || true
		if command -v ping >/dev/null; then
			icmp 10.77.0.2 20 >/dev/null
			rtt=$(icmp 10.77.0.2 1000); lort=$(icmp 127.0.0.1 200)
			echo "$rtt" >>"$work/$b.icmpus"
			# Back to back (flood: the next echo leaves when the reply came),
			# the mean: the PingPong's pattern, the forwarder never idle long.
			flood=$(ip netns exec "mpbtb-$tb-n1" ping -f -q -c 2000 10.77.0.2 | awk -F/ '/^rtt/ {print $5 * 1000}')
			echo "$flood" >>"$work/$b.flood"
			echo "# ICMP back to back: mean round trip $flood usec" >&2
			awk -v rtt="$rtt" -v lo="$lort" -v rate="$RATE" 'BEGIN {
				m = 4 * (98 + 24) * 8 / rate + lo; printf "%g\n", rtt / m
				printf "# ICMP round trip %s usec, loopback %s usec, model %.1f usec\n", rtt, lo, m >"/dev/stderr" }' >>"$work/$b.icmp"
		fi
		grep '^# forwarder' <("$x" testbed status --name "$tb") | sed "s/^/#   $b /" || true
		# One way of a 0 B message through the idle model: analysis' frame, the runtime's.
		read -r ow0 owrt < <("$MPB" testbed status --name "$tb" | sed -n 's/^# one way of a 0-byte message.*wire model \([0-9.]*\) usec.*runtime \([0-9.]*\) usec.*/\1 \2/p')
		"$x" testbed down --name "$tb" >/dev/null
		"$MPB" analyze --wire "eth:${RATE}m" "$work/tb.jsonl" >"$work/an.txt"
		lo0=$(col "$work/lo.txt" 0 3); lo1=$(col "$work/lo.txt" 1048576 3)
		t0=$(col "$work/tb.txt" 0 3); t1=$(col "$work/tb.txt" 1048576 3); bw=$(col "$work/tb.txt" 1048576 4)
		# The wire-time table: bytes, frames, total bytes, wire time, ...
		w0=$(sed 's/│/ /g' "$work/an.txt" | awk '$1 == 0 && NF >= 7 && !done {print $4; done = 1}')
		w1=$(sed 's/│/ /g' "$work/an.txt" | awk '$1 == 1048576 && NF >= 7 && !done {print $4; done = 1}')
		read -r lat latrt bwr < <(awk -v t0="$t0" -v t1="$t1" -v lo0="$lo0" -v lo1="$lo1" -v ow0="$ow0" -v owrt="$owrt" -v w1="$w1" -v rate="$RATE" 'BEGIN {
			m1 = w1 + 1538 * 8 / rate + lo1
			print t0 / (ow0 + lo0), t0 / (owrt + lo0), m1 / t1 }')
		echo "$lat" >>"$work/$b.lat"; echo "$latrt" >>"$work/$b.latrt"; echo "$bwr" >>"$work/$b.bw"; echo "$lo0" >>"$work/$b.lo"; echo "$t0" >>"$work/$b.tb0"
		awk '/^latency 1<->2/ {print $NF}' "$work/chk.txt" >>"$work/$b.chk"
		echo "# round $r $b: loopback 0 B $lo0 us, 1 MiB $lo1 us; testbed 0 B $t0 us, 1 MiB $t1 us ($bw MB/s); one way 0 B $ow0 us (a bare segment) or $owrt us (the runtime's frame; analyze's wire table $w0 us per line), 1 MiB wire $w1 us; latency/model $lat (a bare segment) $latrt (the runtime's), bandwidth/model $bwr"
		grep -E '^(loopback|latency|# forwarder)' "$work/chk.txt" | sed "s/^/#   check: /"
	done
done
for b in "${variants[@]}"; do
	echo "## $b"
	stats "loopback PingPong 0 B t [usec]" <"$work/$b.lo"
	stats "testbed PingPong 0 B t [usec]" <"$work/$b.tb0"
	stats "0 B latency / (wire + loopback)" <"$work/$b.lat"
	stats "0 B latency / (runtime's frame + loopback)" <"$work/$b.latrt"
	stats "1 MiB bandwidth / (wire + loopback) model" <"$work/$b.bw"
	stats "testbed check latency 1<->2 measured / model" <"$work/$b.chk"
	stats "ICMP round trip [usec]" <"$work/$b.icmpus"
	stats "ICMP round trip / (wire + loopback)" <"$work/$b.icmp"
	stats "ICMP back to back, mean round trip [usec]" <"$work/$b.flood"
done
