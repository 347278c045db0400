#!/usr/bin/env bash
# fuzz-ci.sh: runs every fuzz target of mpbench (every "func FuzzX" in a
# _test.go file, found anew on each run), one after the other, each for
# FUZZTIME (default 12s; CI runs this default: about 20 s a target with the build, 6 minutes for 18 targets), and prints per target the
# time, executions and new inputs, and at the end "N passed, M failed".
# A crash fails the run; Go writes the input that failed to the package's
# testdata/fuzz/FuzzX/, where it stays as a regression input: commit it with
# the fix.
#   FUZZTIME=10m nice -n 19 bench/fuzz-ci.sh      # the long campaign, by hand
#   FUZZ_ONLY='Hostfile|Rules' bench/fuzz-ci.sh   # targets matching a regexp
# FUZZ_PARALLEL (default 1) is the number of fuzzing workers per target;
# FUZZ_MINIMIZE (default 2s) bounds the minimisation of each new input, which
# Go otherwise gives a minute, so that short runs spend their time fuzzing.
set -uo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-12s}
only=${FUZZ_ONLY:-.}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
pass=0 fail=0
printf '%-22s %-26s %7s %10s %6s  %s\n' package target seconds execs new result
while IFS=: read -r file target; do
	pkg=./$(dirname "${file#./}")
	[[ $target =~ $only ]] || continue
	start=$(date +%s)
	if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -fuzzminimizetime "${FUZZ_MINIMIZE:-2s}" \
		-parallel "${FUZZ_PARALLEL:-1}" "$pkg" >"$log/out" 2>&1; then
		result=PASS pass=$((pass + 1))
	else
		result=FAIL fail=$((fail + 1))
	fi
	last=$(grep '^fuzz: elapsed' "$log/out" | tail -1)
	execs=$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' <<<"$last")
	new=$(sed -n 's/.*new interesting: \([0-9]*\).*/\1/p' <<<"$last")
	printf '%-22s %-26s %7s %10s %6s  %s\n' "$pkg" "$target" $(($(date +%s) - start)) "${execs:-0}" "${new:-0}" "$result"
	if [ "$result" = FAIL ]; then
		grep -v '^fuzz: elapsed' "$log/out" | sed 's/^/    /'
	fi
done < <(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's/:func /:/' | sort)
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
