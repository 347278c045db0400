#!/usr/bin/env bash
# fuzz-ci.sh: runs every fuzz target of mpbench (every "func FuzzX" in a
# _test.go file, found anew on each run), one after the other (or FUZZ_JOBS
# at a time), each for FUZZTIME (default 12s), and prints per target, in
# the order of the list, the time, executions and new inputs, and at the
# end "N passed, M failed". CI runs FUZZTIME=30s FUZZ_JOBS=2: 30 s of one
# worker for each target, two targets at once on the 2 cores, about 7
# minutes for 18 targets with their builds.
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
# FUZZ_JOBS (default 1) is the number of targets fuzzed at the same time;
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
# fuzz N PKG TARGET runs one target, leaving its output, exit status and
# seconds in $log/N.out, N.rc and N.sec.
fuzz() {
	local start=$(date +%s) rc=0
	go test -run '^$' -fuzz "^${3}\$" -fuzztime "$time" -fuzzminimizetime "${FUZZ_MINIMIZE:-2s}" \
		-parallel "${FUZZ_PARALLEL:-1}" "$2" >"$log/$1.out" 2>&1 || rc=$?
	echo $(($(date +%s) - start)) >"$log/$1.sec"
	echo "$rc" >"$log/$1.rc.new" && mv "$log/$1.rc.new" "$log/$1.rc"
}
# report prints the rows of the targets finished so far, in list order.
pkgs=() targets=() shown=0
report() {
	while [ "$shown" -lt "${#targets[@]}" ] && [ -e "$log/$shown.rc" ]; do
		local n=$shown out=$log/$shown.out result
		if [ "$(cat "$log/$n.rc")" = 0 ]; then
			result=PASS pass=$((pass + 1))
		elif grep -q '^    context deadline exceeded$' "$out" && ! grep -q 'Failing input written' "$out"; then
			result=RACE race=$((race + 1))
		else
			result=FAIL fail=$((fail + 1))
		fi
		local last execs new
		last=$(grep '^fuzz: elapsed' "$out" | tail -1)
		execs=$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' <<<"$last")
		new=$(sed -n 's/.*new interesting: \([0-9]*\).*/\1/p' <<<"$last")
		printf '%-22s %-26s %7s %10s %6s  %s\n' "${pkgs[$n]}" "${targets[$n]}" "$(cat "$log/$n.sec")" "${execs:-0}" "${new:-0}" "$result"
		if [ "$result" = FAIL ]; then
			grep -v '^fuzz: elapsed' "$out" | sed 's/^/    /'
		fi
		shown=$((shown + 1))
	done
}
while IFS=: read -r file target; do
	[ -n "$target" ] && [[ $target =~ $only ]] || continue
	pkgs+=("./$(dirname "${file#./}")") targets+=("$target")
done <<<"$(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's/:func /:/' | sort)"
running=0
for n in "${!targets[@]}"; do
	if [ "$running" -ge "${FUZZ_JOBS:-1}" ]; then
		wait -n
		running=$((running - 1))
		report
	fi
	fuzz "$n" "${pkgs[$n]}" "${targets[$n]}" &
	running=$((running + 1))
done
wait
report
if [ "$race" -gt 0 ]; then
	echo "fuzz: $pass passed, $fail failed, $race ended by Go's fuzztime race (go.dev/issue/75804; no input failed)"
else
	echo "fuzz: $pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
