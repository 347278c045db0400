#!/usr/bin/env bash
# rss.sh: peak resident memory of every rank of an mpbench job, per
# transport, against a limit.
#
# Usage: bench/rss.sh [NP] [extra mpbench run options]
# Environment: TRANSPORTS (shm tcp), LIMIT_MIB (64), MSGLOG (0:22), TIME (1).
#
# For each transport runs "mpbench run -np NP -npmin NP -msglog MSGLOG -time
# TIME --transport T PingPong Sendrecv Exchange [extra options]" (at most
# four 4 MiB message buffers per rank, so the runtime's own memory shows)
# and samples /proc/PID/status of the ranks every 50 ms. Prints per rank
# the peak VmRSS seen and VmHWM (the kernel's high-water mark of resident
# memory, shared-memory rings included), in MiB of 2^20 bytes, then per
# transport the largest of either. Exit status 1 if a rank's peak exceeds
# LIMIT_MIB (or a job failed), 2 for bad arguments.
set -euo pipefail
NP=${1:-16}
shift || true
case $NP in '' | *[!0-9]*) echo "rss.sh: NP must be a number of ranks, got '$NP'" >&2; exit 2 ;; esac
TRANSPORTS=${TRANSPORTS:-"shm tcp"}
LIMIT_MIB=${LIMIT_MIB:-64}
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/mpbench-rss.XXXXXX)
trap 'rm -rf "$dir"' EXIT
bin=$dir/mpbench
(cd "$here" && go build -o "$bin" ./cmd/mpbench)
status=0
echo "# $(date -u +%FT%TZ) np $NP, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), limit $LIMIT_MIB MiB per rank"
for t in $TRANSPORTS; do
	"$bin" run -np "$NP" -npmin "$NP" -msglog "${MSGLOG:-0:22}" -time "${TIME:-1}" --all-sizes --quiet --transport "$t" "$@" \
		PingPong Sendrecv Exchange >"$dir/out.txt" 2>"$dir/err.txt" &
	launcher=$!
	declare -A peak=() hwm=()
	while kill -0 $launcher 2>/dev/null; do
		for pid in $(pgrep -P $launcher 2>/dev/null); do
			st=/proc/$pid/status
			r=$(awk '/^VmRSS/ { print $2 }' "$st" 2>/dev/null || true)
			h=$(awk '/^VmHWM/ { print $2 }' "$st" 2>/dev/null || true)
			[ -n "$r" ] && [ "$r" -gt "${peak[$pid]:-0}" ] && peak[$pid]=$r
			[ -n "$h" ] && [ "$h" -gt "${hwm[$pid]:-0}" ] && hwm[$pid]=$h
		done
		sleep 0.05
	done
	if ! wait $launcher; then
		echo "transport $t: the job failed: $(tail -1 "$dir/err.txt")"
		status=1
	fi
	max=0
	for pid in "${!hwm[@]}"; do
		printf '%-4s pid %-8s VmRSS peak %7.1f MiB  VmHWM %7.1f MiB\n' "$t" "$pid" \
			"$(echo "${peak[$pid]:-0} / 1024" | bc -l)" "$(echo "${hwm[$pid]} / 1024" | bc -l)"
		[ "${hwm[$pid]}" -gt "$max" ] && max=${hwm[$pid]}
		[ "${peak[$pid]:-0}" -gt "$max" ] && max=${peak[$pid]}
	done
	verdict=ok
	if [ "$max" -gt $((LIMIT_MIB * 1024)) ]; then
		verdict="OVER the limit of $LIMIT_MIB MiB"
		status=1
	fi
	printf 'transport %s: %d ranks sampled, largest peak %.1f MiB: %s\n' "$t" "${#hwm[@]}" "$(echo "$max / 1024" | bc -l)" "$verdict"
	unset peak hwm
done
exit $status
