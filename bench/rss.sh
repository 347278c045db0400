#!/usr/bin/env bash
# rss.sh: peak resident memory (VmHWM, and VmRSS sampled) of every rank of an
# mpbench job, e.g. bench/rss.sh 16 --transport shm
# Runs "mpbench run -np NP -npmin NP -msglog 0:22 -time 1 PingPong Sendrecv
# Exchange [extra options]" and samples /proc/PID/status of the ranks every
# 50 ms; prints per-rank peak VmRSS and VmHWM in MiB and the maximum.
set -euo pipefail
NP=${1:-16}
shift || true
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d /tmp/mpbench-rss.XXXXXX)/mpbench
(cd "$here" && go build -o "$bin" ./cmd/mpbench)
"$bin" run -np "$NP" -npmin "$NP" -msglog 0:22 -time 1 --quiet "$@" PingPong Sendrecv Exchange >/dev/null &
launcher=$!
declare -A peak hwm
while kill -0 $launcher 2>/dev/null; do
	for pid in $(pgrep -P $launcher 2>/dev/null); do
		st=/proc/$pid/status
		[ -r "$st" ] || continue
		r=$(awk '/^VmRSS/ { print $2 }' "$st" 2>/dev/null || echo 0)
		h=$(awk '/^VmHWM/ { print $2 }' "$st" 2>/dev/null || echo 0)
		[ -n "$r" ] && [ "${r:-0}" -gt "${peak[$pid]:-0}" ] && peak[$pid]=$r
		[ -n "$h" ] && [ "${h:-0}" -gt "${hwm[$pid]:-0}" ] && hwm[$pid]=$h
	done
	sleep 0.05
done
wait $launcher
max=0
for pid in "${!peak[@]}"; do
	printf 'pid %-8s VmRSS peak %7.1f MiB  VmHWM %7.1f MiB\n' "$pid" "$(echo "${peak[$pid]} / 1024" | bc -l)" "$(echo "${hwm[$pid]} / 1024" | bc -l)"
	[ "${hwm[$pid]}" -gt "$max" ] && max=${hwm[$pid]}
done
printf 'ranks: %d  max VmHWM: %.1f MiB\n' "${#peak[@]}" "$(echo "$max / 1024" | bc -l)"
