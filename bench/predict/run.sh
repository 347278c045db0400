#!/usr/bin/env bash
# predict: "mpbench predict matmul" against the communication "mpbench app
# matmul" measures, both measured in the same run. Every round measures
# Bcast and PingPong at 2 and 4 ranks (mpbench run -npmin 2, from 64 KiB
# to the largest block, at least 4 MiB) and the Multi-Bcast of 2 groups of
# 2 ranks (-multi 0: the two rows' or columns' Bcasts of the 2 x 2 grid at
# once, on the same ranks), then the block product at np 2 and 4 with
# --sync (a barrier of the whole grid before every Bcast step, so that its
# communication time is the simultaneous Bcasts' transfers, as expression
# 4.4 counts them), and predicts that round's products from that round's
# files twice: --net PREDICT_NET from the plain Bcast (the study's
# expression 4.5) and --net multi from the measured Multi-Bcast. It prints
# each round's predictions, the measured communication (the maximum over
# ranks) and their ratios, then the median ratio with its min..max per
# process count, and the predictions from every round's files against the
# median measurement. Last, one traced product at np 2 and at np 4 with
# --sync and one at np 4 without it (mpbench app matmul --trace): every
# rank's Bcasts, one line each, with their CPU time, run delay and the
# time another rank computed meanwhile, and the sums per rank.
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
#   TRANSPORT, RATE, PREDICT_NET (predict's --net for the plain Bcast:
#   default switch, shared for NET=hub).
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
for np in 2 4; do for f in ratio ratiom pred predm meas; do : >"$work/$f$np"; done; done
for r in $(seq "$ROUNDS"); do
	on 4 run -npmin 2 -msglog "16:$maxlog" -time 1 Bcast PingPong --json "$work/bc$r.jsonl" >"$work/bc$r.txt"
	on 4 run -npmin 2 -multi 0 -msglog "16:$maxlog" -time 1 Bcast --json "$work/mb$r.jsonl" >"$work/mb$r.txt"
	for np in 2 4; do
		on "$np" app matmul -n "$N" --sync --no-verify --json "$work/mm$r-$np.jsonl" >"$work/mm$r-$np.txt"
	done
	for net in "$PREDICT_NET" multi; do
		"$MPB" predict matmul --bench "$work/bc$r.jsonl,$work/mb$r.jsonl" -n "$N" --np 2,4 --net "$net" \
			--scaling "$work/mm$r-2.jsonl,$work/mm$r-4.jsonl" >"$work/pr$r-$net.txt"
	done
	# The table's last three columns: predicted[s], measured[s], pred/meas.
	for np in 2 4; do
		row() { awk -v np="$np" '$1 == np {print $(NF-2), $(NF-1), $NF}' "$work/pr$r-$1.txt"; }
		read -r p m q < <(row "$PREDICT_NET") && read -r pm _ qm < <(row multi) || {
			echo "round $r: no prediction row for np $np:"; cat "$work/pr$r-$PREDICT_NET.txt" "$work/pr$r-multi.txt"; exit 1; }
		echo "$p" >>"$work/pred$np"; echo "$pm" >>"$work/predm$np"; echo "$m" >>"$work/meas$np"
		echo "$q" >>"$work/ratio$np"; echo "$qm" >>"$work/ratiom$np"
		echo "# round $r, np $np: measured $m s; predicted from Bcast (--net $PREDICT_NET) $p s, ratio $q; from Multi-Bcast (--net multi) $pm s, ratio $qm"
	done
done
echo "## Block product n = $N: communication predicted from the same round's tables against measured (--sync, max over ranks)"
for np in 2 4; do
	stats "np $np measured [s]" <"$work/meas$np"
	stats "np $np predicted, Bcast, --net $PREDICT_NET [s]" <"$work/pred$np"
	stats "np $np predicted/measured, Bcast" <"$work/ratio$np"
	stats "np $np predicted, Multi-Bcast, --net multi [s]" <"$work/predm$np"
	stats "np $np predicted/measured, Multi-Bcast" <"$work/ratiom$np"
done
echo "## mpbench predict matmul from every round's files, against the median measurement"
bcs=$(ls "$work"/bc*.jsonl "$work"/mb*.jsonl | paste -sd,)
mms=$(ls "$work"/mm*.jsonl | paste -sd,)
for net in "$PREDICT_NET" multi; do
	"$MPB" predict matmul --bench "$bcs" -n "$N" --np 2,4 --net "$net" --scaling "$mms"
done
# Traces: where a product's communication time goes, call by call.
for run in "2 --sync" "4 --sync" "4"; do
	set -- $run
	echo "## traced product, np $1 ${2:-without --sync} (mpbench app matmul --trace): Bcasts and Syncs, one line each"
	on "$1" app matmul -n "$N" ${2:-} --no-verify --trace "$work/tr.csv" >"$work/tr.txt"
	awk -F, 'NR == 1 || $3 != "gemm" { printf "%4s %4s %-6s %-5s %8s %10s %10s %10s %11s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$work/tr.csv"
	sed -n '/ Time split/,$p' "$work/tr.txt"
done
