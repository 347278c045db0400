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
# A run that Go ends with "context deadline exceeded" and no failing input
# is Go's own race at the end of -fuzztime (go.dev/issue/75804, in Go 1.26's
# coordinator, fixed in Go 1.27: the deadline reaches it before its
# workers' cancellation), not a hang of the target: every input's run is
# bounded by the target itself (FuzzFrameStream fails an input after
# 20 s), and an input still running when the time is up is stopped
# without an error. Such a run is printed as "RACE" and counted apart; it
# fails nothing.
# FUZZ_PARALLEL (default 1) is the number of fuzzing workers per target;
# FUZZ_MINIMIZE (default 2s) bounds the minimisation of each new input, which
# Go otherwise gives a minute, so that short runs spend their time fuzzing.
set -uo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-12s}
only=${FUZZ_ONLY:-.}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
pass=0 fail=0 race=0
printf '%-22s %-26s %7s %10s %6s  %s\n' package target seconds execs new result
while IFS=: read -r file target; do
	pkg=./$(dirname "${file#./}")
	[[ $target =~ $only ]] || continue
	start=$(date +%s)
	if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -fuzzminimizetime "${FUZZ_MINIMIZE:-2s}" \
		-parallel "${FUZZ_PARALLEL:-1}" "$pkg" >"$log/out" 2>&1; then
		result=PASS pass=$((pass + 1))
	elif grep -q '^    context deadline exceeded$' "$log/out" && ! grep -q 'Failing input written' "$log/out"; then
		result=RACE race=$((race + 1))
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
if [ "$race" -gt 0 ]; then
	echo "fuzz: $pass passed, $fail failed, $race ended by Go's fuzztime race (go.dev/issue/75804; no input failed)"
else
	echo "fuzz: $pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
