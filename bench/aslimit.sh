#!/usr/bin/env bash
# aslimit.sh: what mpbench prints under each address-space limit (ulimit -v).
#
# Usage: bench/aslimit.sh [FROM] [TO] [STEP]   (KiB; default 50000 2000000 50000)
# Environment: NP (2), MPBENCH (a built binary; default: built from this tree).
#
# Runs "mpbench run -np NP -msglog 0:0 -time 0.05 PingPong" under ulimit -v L
# for L from FROM to TO in steps of STEP, and prints per limit the exit
# status, the number of lines on stderr, whether they hold a Go stack
# ("goroutine N [", "runtime stack:", "fatal error:") and the first line.
# Exit status 1 if any limit printed a Go stack, 2 for bad arguments.
set -uo pipefail
FROM=${1:-50000} TO=${2:-2000000} STEP=${3:-50000}
for v in "$FROM" "$TO" "$STEP"; do
	case $v in '' | *[!0-9]*) echo "aslimit.sh: limits are KiB numbers, got '$v'" >&2; exit 2 ;; esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/mpbench-aslimit.XXXXXX)
trap 'rm -rf "$dir"' EXIT
bin=${MPBENCH:-$dir/mpbench}
[ -n "${MPBENCH:-}" ] || (cd "$here" && go build -o "$bin" ./cmd/mpbench) || exit 1
echo "# $(date -u +%FT%TZ) $(uname -r) $(go version 2>/dev/null | cut -d' ' -f3) np ${NP:-2}, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %-5s %-6s %-6s %s\n' "ulimit-v" exit lines stack "first line"
status=0
for ((v = FROM; v <= TO; v += STEP)); do
	(cd "$dir" && ulimit -v "$v" && exec "$bin" run -np "${NP:-2}" -msglog 0:0 -time 0.05 --timeout 60s PingPong) >/dev/null 2>"$dir/err.txt"
	code=$?
	stack=no
	if grep -qE '^goroutine [0-9]+ .*\[|^runtime stack:|^fatal error:' "$dir/err.txt"; then
		stack=YES
		status=1
	fi
	printf '%-9s %-5s %-6s %-6s %s\n' "$v" "$code" "$(wc -l <"$dir/err.txt")" "$stack" "$(head -1 "$dir/err.txt" | cut -c1-110)"
done
exit $status
