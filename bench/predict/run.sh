#!/usr/bin/env bash
# predict: "mpbench predict matmul" against the communication "mpbench app
# matmul" measures, both measured in the same run. Every round measures
# Bcast and PingPong at 2 and 4 ranks (mpbench run -npmin 2, from 64 KiB
# to the largest block, at least 4 MiB: the benchmark file the prediction
# reads), then the block product at np 2 and 4 with
# --sync (so that its communication time is the Bcasts' transfers, as the
# prediction counts them), and predicts that round's products from that
# round's Bcast file. It prints each round's predicted and measured
# communication (the maximum over ranks) and their ratio, then the median
# ratio with its min..max per process count, and the prediction from every
# round's Bcast files against the median measurement (for NET=local also
# with --net shared: simultaneous Bcasts on one host share its CPUs).
#
# NET chooses where the ranks run:
#   local (default): this host, over TRANSPORT (default tcp);
#   switch, hub: a 4-node testbed at RATE (default 100mbit), one rank per
#     node (needs root; mpbench testbed run). There the Bcasts take
#     hundreds of milliseconds of wire time, so a busy host disturbs them
#     far less than on one host.
#
# Usage: bench/predict/run.sh              (from the repository)
# Environment: ROUNDS (default 3), N (matrix order, default 1000), NET,
#   TRANSPORT, RATE, PREDICT_NET (predict's --net: default switch, shared
#   for NET=hub).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
N=${N:-1000}
NET=${NET:-local}
TRANSPORT=${TRANSPORT:-tcp}
RATE=${RATE:-100mbit}
case "$NET" in
local | switch) PREDICT_NET=${PREDICT_NET:-switch} ;;
hub) PREDICT_NET=${PREDICT_NET:-shared} ;;
*) echo "NET=$NET: use local, switch or hub" >&2; exit 2 ;;
esac
work=$(mktemp -d)
tb=pr$$
cleanup() {
	if [ "$NET" != local ]; then "$work/mpbench" testbed down --name "$tb" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

go build -o "$work/mpbench" ./cmd/mpbench
MPB=$work/mpbench

# on NP run|app ARGS...: "mpbench run ARGS" or "mpbench app ARGS" on NP
# ranks where NET says.
on() {
	local np=$1 sub=$2
	shift 2
	if [ "$NET" = local ]; then
		"$MPB" "$sub" "$@" -np "$np" --transport "$TRANSPORT"
	elif [ "$sub" = app ]; then
		"$MPB" testbed run --name "$tb" --np "$np" -- app "$@"
	else
		"$MPB" testbed run --name "$tb" --np "$np" -- "$@"
	fi
}

# stats NAME < values: "NAME median min..max" of the numbers on stdin.
stats() {
	sort -g | awk -v name="$1" '{v[NR]=$1} END {
		if (NR == 0) { printf "%-44s (no values)\n", name; exit }
		m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
		printf "%-44s median %8.4g   min..max %.4g..%.4g   (%d rounds)\n", name, m, v[1], v[NR], NR }'
}

echo "# predict on $(hostname), $(nproc) CPUs, $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$NET" = local ]; then
	echo "# ranks on this host over $TRANSPORT; matrix order $N; predict --net $PREDICT_NET"
else
	"$MPB" testbed up --name "$tb" --nodes 4 --net "$NET" --rate "$RATE" | sed -n 's/^# network: /# testbed: /p'
	echo "# one rank per node; matrix order $N; predict --net $PREDICT_NET"
fi
# The Bcast table reaches the largest block (np 2: n x n/2 float64), so
# that the prediction interpolates between measured sizes.
maxlog=$(awk -v n="$N" 'BEGIN { b = 8 * n * n / 2; l = 22; while (2 ^ l < b) l++; print l }')
for np in 2 4; do : >"$work/ratio$np"; : >"$work/pred$np"; : >"$work/meas$np"; done
for r in $(seq "$ROUNDS"); do
	on 4 run -npmin 2 -msglog "16:$maxlog" -time 1 Bcast PingPong --json "$work/bc$r.jsonl" >"$work/bc$r.txt"
	for np in 2 4; do
		on "$np" app matmul -n "$N" --sync --no-verify --json "$work/mm$r-$np.jsonl" >"$work/mm$r-$np.txt"
	done
	"$MPB" predict matmul --bench "$work/bc$r.jsonl" -n "$N" --np 2,4 --net "$PREDICT_NET" \
		--scaling "$work/mm$r-2.jsonl,$work/mm$r-4.jsonl" >"$work/pr$r.txt"
	# The table's last three columns: predicted[s], measured[s], pred/meas.
	for np in 2 4; do
		read -r p m q < <(awk -v np="$np" '$1 == np {print $(NF-2), $(NF-1), $NF}' "$work/pr$r.txt") || {
			echo "round $r: no prediction row for np $np:"; cat "$work/pr$r.txt"; exit 1; }
		echo "$p" >>"$work/pred$np"; echo "$m" >>"$work/meas$np"; echo "$q" >>"$work/ratio$np"
		echo "# round $r, np $np: predicted $p s, measured $m s, predicted/measured $q"
	done
done
echo "## Block product n = $N: communication predicted from the same round's Bcast table against measured (--sync, max over ranks)"
for np in 2 4; do
	stats "np $np predicted [s]" <"$work/pred$np"
	stats "np $np measured [s]" <"$work/meas$np"
	stats "np $np predicted/measured (round by round)" <"$work/ratio$np"
done
echo "## mpbench predict matmul from every round's Bcast files, against the median measurement"
bcs=$(ls "$work"/bc*.jsonl | paste -sd,)
mms=$(ls "$work"/mm*.jsonl | paste -sd,)
"$MPB" predict matmul --bench "$bcs" -n "$N" --np 2,4 --net "$PREDICT_NET" --scaling "$mms"
if [ "$NET" = local ] && [ "$PREDICT_NET" != shared ]; then
	# On one host the simultaneous Bcasts of the grid's rows (columns) share
	# its CPUs, which make every copy: a shared medium for them.
	echo "## the same with --net shared (simultaneous Bcasts on one host share its CPUs)"
	"$MPB" predict matmul --bench "$bcs" -n "$N" --np 2,4 --net shared --scaling "$mms"
fi
