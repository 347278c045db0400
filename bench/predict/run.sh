#!/usr/bin/env bash
# predict: "mpbench predict matmul" against the communication "mpbench app
# matmul" measures, both measured in the same run, the way the tables and
# the measurement are taken now ("after") and the way they were taken
# before ("before"), side by side in every round.
#
# Every round measures
#   after:  the Bcast table for np 2 in a 2-rank job (mpbench run -np 2
#           Bcast PingPong: the job the product at np 2 runs in), and for
#           np 4 in a 4-rank job (-npmin 2 Bcast PingPong, and the
#           Multi-Bcast of 2 groups of 2 ranks, -multi 0: the two rows' or
#           columns' Bcasts of the 2 x 2 grid at once), with -iter ITER
#           (default 1000,4096: up to 1000 calls per size, capped by -time
#           1), so that a row at the blocks' sizes averages hundreds of
#           calls;
#   before: the same 4-rank job's tables with IMB's default repetitions
#           (-iter 1000,40: 10 calls at 4 MiB, 20 at 2 MiB), both np 2 and
#           np 4 predicted from them;
# then REPS products (default 3) at np 2 and at np 4 with --sync (a
# barrier of the whole grid before and after every Bcast step). It
# predicts each product count from each table set, --net PREDICT_NET (the
# study's expression 4.5) and --net multi (the measured Multi-Bcast), and
# compares with the products' median communication in two definitions
# from the same runs: after, comm_calls_max_s (the slowest rank's time in
# each Bcast, summed: what a sum of per-Bcast t_max predicts); before,
# comm_max_s (the largest sum over one rank). Each round prints the ratios
# predicted/measured before and after, and the two mixed ones (new table
# with the old measure, old table with the new) that tell the two changes
# apart; then the median ratio with its min..max over the rounds, the
# predictions from every round's files against the median measurement,
# and one traced product at np 2 and at np 4 with --sync and one at np 4
# without it (mpbench app matmul --trace): every rank's Bcasts, one line
# each, with their CPU time, run delay and the time another rank computed
# meanwhile, and the sums per rank.
#
# NET chooses where the ranks run:
#   local (default): this host, over TRANSPORT (default tcp);
#   switch, hub: a 4-node testbed at RATE (default 100mbit), one rank per
#     node (needs root; mpbench testbed run). There the Bcasts take
#     hundreds of milliseconds of wire time, so a busy host disturbs them
#     far less than on one host.
#
# Usage: bench/predict/run.sh              (from the repository)
# Environment: ROUNDS (default 3), N (matrix order, default 1000), REPS
#   (products per process count and round, default 3), ITER (the after
#   tables' -iter, default 1000,4096), NET, TRANSPORT, RATE, PREDICT_NET
#   (predict's --net for the plain Bcast: default switch, shared for
#   NET=hub).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
N=${N:-1000}
REPS=${REPS:-3}
ITER=${ITER:-1000,4096}
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
sizes=(-msglog "16:$maxlog" -time 1 --all-sizes) # every size: the prediction interpolates between them
# predicted NP NET FILES: the predicted communication [s] of the product on
# NP ranks from FILES (comma-separated), --net NET.
predicted() {
	"$MPB" predict matmul --bench "$3" -n "$N" --np "$1" --net "$2" | awk -v np="$1" '$1 == np { print $(NF-2) }'
}
# measured KEY FILES...: the median over the product runs' rows of
# extra.KEY [s].
measured() {
	local key=$1
	shift
	cat "$@" | grep -o "\"$key\":[-+.0-9eE]*" | cut -d: -f2 | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }'
}
ratio() { awk -v p="$1" -v m="$2" 'BEGIN { printf "%.3g", p / m }'; }
kinds="before after tableonly measonly"
for np in 2 4; do for net in "$PREDICT_NET" multi; do for k in $kinds; do : >"$work/r-$np-$net-$k"; done; done; : >"$work/mb-$np"; : >"$work/ma-$np"; done
for r in $(seq "$ROUNDS"); do
	# before: the 4-rank job, IMB's default repetitions
	on 4 run -npmin 2 "${sizes[@]}" Bcast PingPong --json "$work/old$r.jsonl" >/dev/null
	on 4 run -npmin 2 -multi 0 "${sizes[@]}" Bcast --json "$work/oldm$r.jsonl" >/dev/null
	# after: np 2 from a 2-rank job, np 4 from the 4-rank job, -iter ITER
	on 2 run "${sizes[@]}" -iter "$ITER" Bcast PingPong --json "$work/bc2-$r.jsonl" >/dev/null
	on 4 run -npmin 2 "${sizes[@]}" -iter "$ITER" Bcast PingPong --json "$work/bc4-$r.jsonl" >/dev/null
	on 4 run -npmin 2 -multi 0 "${sizes[@]}" -iter "$ITER" Bcast --json "$work/mb4-$r.jsonl" >/dev/null
	for np in 2 4; do
		for k in $(seq "$REPS"); do
			on "$np" app matmul -n "$N" --sync --no-verify --json "$work/mm$r-$np-$k.jsonl" >/dev/null
		done
		mb=$(measured comm_max_s "$work"/mm"$r-$np"-*.jsonl)
		ma=$(measured comm_calls_max_s "$work"/mm"$r-$np"-*.jsonl)
		echo "$mb" >>"$work/mb-$np"
		echo "$ma" >>"$work/ma-$np"
		new="$work/bc2-$r.jsonl"
		[ "$np" = 4 ] && new="$work/bc4-$r.jsonl,$work/mb4-$r.jsonl"
		line="# round $r, np $np: measured $mb s (comm_max_s), $ma s (comm_calls_max_s)"
		for net in "$PREDICT_NET" multi; do
			po=$(predicted "$np" "$net" "$work/old$r.jsonl,$work/oldm$r.jsonl")
			pn=$(predicted "$np" "$net" "$new")
			b=$(ratio "$po" "$mb") a=$(ratio "$pn" "$ma") t=$(ratio "$pn" "$mb") m=$(ratio "$po" "$ma")
			for k in $kinds; do
				case $k in before) v=$b ;; after) v=$a ;; tableonly) v=$t ;; measonly) v=$m ;; esac
				echo "$v" >>"$work/r-$np-$net-$k"
			done
			line="$line; --net $net predicted before $po s, after $pn s: ratio before $b, after $a (new table only $t, new measure only $m)"
		done
		echo "$line"
	done
done
echo "## Block product n = $N, --sync: communication predicted from the same round's tables against measured (median of $REPS products per round)"
for np in 2 4; do
	stats "np $np measured, comm_max_s [s]" <"$work/mb-$np"
	stats "np $np measured, comm_calls_max_s [s]" <"$work/ma-$np"
	for net in "$PREDICT_NET" multi; do
		stats "np $np --net $net, ratio before" <"$work/r-$np-$net-before"
		stats "np $np --net $net, ratio after" <"$work/r-$np-$net-after"
		stats "np $np --net $net, new table only" <"$work/r-$np-$net-tableonly"
		stats "np $np --net $net, new measure only" <"$work/r-$np-$net-measonly"
	done
done
echo "## mpbench predict matmul from every round's after-tables, against the median measurement"
list() { ls "$@" | paste -sd,; }
for net in "$PREDICT_NET" multi; do
	"$MPB" predict matmul --bench "$(list "$work"/bc2-*.jsonl)" -n "$N" --np 2 --net "$net" --scaling "$(list "$work"/mm*-2-*.jsonl)"
	"$MPB" predict matmul --bench "$(list "$work"/bc4-*.jsonl "$work"/mb4-*.jsonl)" -n "$N" --np 4 --net "$net" --scaling "$(list "$work"/mm*-4-*.jsonl)"
done
# Traces: where a product's communication time goes, call by call.
for run in "2 --sync" "4 --sync" "4"; do
	set -- $run
	echo "## traced product, np $1 ${2:-without --sync} (mpbench app matmul --trace): Bcasts and Syncs, one line each"
	on "$1" app matmul -n "$N" ${2:-} --no-verify --trace "$work/tr.csv" >"$work/tr.txt"
	awk -F, 'NR == 1 || $3 != "gemm" { printf "%4s %4s %-6s %-5s %8s %10s %10s %10s %11s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$work/tr.csv"
	sed -n '/ Time split/,$p' "$work/tr.txt"
done
