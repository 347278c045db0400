#!/usr/bin/env bash
# predict: "mpbench predict matmul" against the communication "mpbench app
# matmul" measures, both measured in the same run, in interleaved rounds.
#
# Every round measures
#   the Bcast tables: for np 2 in a 2-rank job (mpbench run -np 2 Bcast
#     PingPong: the job the product at np 2 runs in), for np 4 in a
#     4-rank job (-npmin 2 Bcast PingPong, and the Multi-Bcast of 2 groups
#     of 2 ranks, -multi 0: the two rows' or columns' Bcasts of the 2 x 2
#     grid at once), with -iter ITER (default 1000,4096: up to 1000 calls
#     per size, capped by -time 1), so that a row at the blocks' sizes
#     averages hundreds of calls; all with --sync-all (the barrier between
#     calls joins both groups, which then call together as the product's
#     rows do, and each row has t_callmax_usec, the slowest rank's time per
#     call averaged, which the prediction reads in place of t_max), and
#     the Multi-Bcast once more without it, as IMB-MPI1 measures it (each
#     group's own barrier; the "IMB -multi" ratio);
#   the same Bcast and Multi-Bcast with -off_cache OFF_CACHE (default 64:
#     every call on a buffer not used for 128 MiB of buffers, so from
#     memory, not from the cache; the product's blocks are read or written
#     after local products that went through 12 MiB per rank at n = 1000);
# then REPS products (default 3) at np 2 and at np 4 with --sync (a
# barrier of the whole grid and an Align barrier before every Bcast step,
# one after), and REPS at np 2 of order ROW_N (default: the order whose
# 1 x 2 grid has the np 4 product's block, 707 for N = 1000): one grid row
# of the np 4 product alone, each rank with a CPU of its own, predicted
# from the np 2 table ("np 4 row alone"). It predicts each process count from each table set, --net
# PREDICT_NET (the study's expression 4.5) and --net multi (the measured
# Multi-Bcast), and compares with the products' median
# comm_calls_max_s (the slowest rank's time in each Bcast, summed: what a
# sum of per-call times predicts). Each round prints the ratios
# predicted/measured: "ratio" from the tables, "cold" from the -off_cache
# tables, and "one barrier" against comm_calls_max_s + align_calls_max_s
# (how much later the last rank left each step's first barrier), about
# what the product measured when --sync had no Align barrier and its
# Bcasts counted that skew. Then the median ratio with its min..max over
# the rounds, the predictions from every round's files against the median
# measurement, and one traced product at np 2 and at np 4 with --sync and
# one at np 4 without it (mpbench app matmul --trace): every rank's Bcasts
# and barriers, one line each, with their CPU time, run delay and the time
# another rank computed meanwhile, the sums per rank, and per Bcast call
# how far apart the ranks entered it.
#
# NET chooses where the ranks run:
#   local (default): this host, over TRANSPORT (default tcp);
#   switch, hub: a 4-node testbed at RATE (default 100mbit), one rank per
#     node (needs root; mpbench testbed run). There the Bcasts take
#     hundreds of milliseconds of wire time, so a busy host disturbs them
#     far less than on one host.
#
# Usage: bench/predict/run.sh              (from the repository)
# Environment: ROUNDS (default 3), N (matrix order, default 1000), ROW_N, REPS
#   (products per process count and round, default 3), ITER (the tables'
#   -iter, default 1000,4096), OFF_CACHE (MiB, default 64), NET,
#   TRANSPORT, RATE, PREDICT_NET (predict's --net for the plain Bcast:
#   default switch, shared for NET=hub).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
N=${N:-1000}
REPS=${REPS:-3}
# ROW_N: n x n/2 float64 = (N/2)^2 float64, the np 4 block (N / sqrt 2)
ROW_N=${ROW_N:-$(awk -v n="${N:-1000}" 'BEGIN { printf "%d", n / sqrt(2) + 0.5 }')}
ITER=${ITER:-1000,4096}
OFF_CACHE=${OFF_CACHE:-64}
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
kinds="ratio cold onebarrier"
for np in 2 4; do for net in "$PREDICT_NET" multi; do for k in $kinds; do : >"$work/r-$np-$net-$k"; done; done; : >"$work/ma-$np"; : >"$work/sk-$np"; done
: >"$work/r-4-imb"
: >"$work/r-row"
for r in $(seq "$ROUNDS"); do
	# np 2 from a 2-rank job, np 4 from the 4-rank job; warm and cold buffers
	on 2 run --sync-all "${sizes[@]}" -iter "$ITER" Bcast PingPong --json "$work/bc2-$r.jsonl" >/dev/null
	on 4 run --sync-all -npmin 2 "${sizes[@]}" -iter "$ITER" Bcast PingPong --json "$work/bc4-$r.jsonl" >/dev/null
	on 4 run --sync-all -npmin 2 -multi 0 "${sizes[@]}" -iter "$ITER" Bcast --json "$work/mb4-$r.jsonl" >/dev/null
	on 4 run -npmin 2 -multi 0 "${sizes[@]}" -iter "$ITER" Bcast --json "$work/im4-$r.jsonl" >/dev/null
	on 2 run --sync-all "${sizes[@]}" -iter "$ITER" -off_cache "$OFF_CACHE" Bcast --json "$work/oc2-$r.jsonl" >/dev/null
	on 4 run --sync-all -npmin 2 "${sizes[@]}" -iter "$ITER" -off_cache "$OFF_CACHE" Bcast --json "$work/oc4-$r.jsonl" >/dev/null
	on 4 run --sync-all -npmin 2 -multi 0 "${sizes[@]}" -iter "$ITER" -off_cache "$OFF_CACHE" Bcast --json "$work/om4-$r.jsonl" >/dev/null
	for np in 2 4; do
		for k in $(seq "$REPS"); do
			on "$np" app matmul -n "$N" --sync --no-verify --json "$work/mm$r-$np-$k.jsonl" >/dev/null
		done
		ma=$(measured comm_calls_max_s "$work"/mm"$r-$np"-*.jsonl)
		sk=$(measured align_calls_max_s "$work"/mm"$r-$np"-*.jsonl)
		# comm + skew of each product, their median
		mo=$(for f in "$work"/mm"$r-$np"-*.jsonl; do
			awk '{ if (match($0, /"comm_calls_max_s":[-+.0-9eE]+/)) c = substr($0, RSTART + 19, RLENGTH - 19)
				if (match($0, /"align_calls_max_s":[-+.0-9eE]+/)) a = substr($0, RSTART + 20, RLENGTH - 20) }
				END { if (c != "") print c + a }' "$f"
		done | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }')
		echo "$ma" >>"$work/ma-$np"
		echo "$sk" >>"$work/sk-$np"
		warm="$work/bc2-$r.jsonl" cold="$work/oc2-$r.jsonl"
		[ "$np" = 4 ] && warm="$work/bc4-$r.jsonl,$work/mb4-$r.jsonl" cold="$work/oc4-$r.jsonl,$work/om4-$r.jsonl"
		line="# round $r, np $np: measured $ma s (comm_calls_max_s), skew $sk s (align_calls_max_s)"
		for net in "$PREDICT_NET" multi; do
			pw=$(predicted "$np" "$net" "$warm")
			pc=$(predicted "$np" "$net" "$cold")
			a=$(ratio "$pw" "$ma") c=$(ratio "$pc" "$ma") o=$(ratio "$pw" "$mo")
			echo "$a" >>"$work/r-$np-$net-ratio"
			echo "$c" >>"$work/r-$np-$net-cold"
			echo "$o" >>"$work/r-$np-$net-onebarrier"
			line="$line; --net $net predicted $pw s, cold $pc s: ratio $a, cold $c, one barrier $o"
		done
		if [ "$np" = 4 ]; then
			pi=$(predicted 4 multi "$work/bc4-$r.jsonl,$work/im4-$r.jsonl")
			i=$(ratio "$pi" "$ma")
			echo "$i" >>"$work/r-4-imb"
			line="$line; IMB -multi (groups unsynchronised, t_max) predicted $pi s: ratio $i"
		fi
		echo "$line"
	done
	for k in $(seq "$REPS"); do
		on 2 app matmul -n "$ROW_N" --sync --no-verify --json "$work/row$r-$k.jsonl" >/dev/null
	done
	pr=$("$MPB" predict matmul --bench "$work/bc2-$r.jsonl" -n "$ROW_N" --np 2 --net switch | awk '$1 == 2 { print $(NF-2) }')
	mr=$(measured comm_calls_max_s "$work"/row"$r"-*.jsonl)
	rr=$(ratio "$pr" "$mr")
	echo "$rr" >>"$work/r-row"
	echo "# round $r, np 4 row alone (np 2, n = $ROW_N): measured $mr s, predicted $pr s: ratio $rr"
done
echo "## Block product n = $N, --sync: communication predicted from the same round's tables against measured (median of $REPS products per round)"
for np in 2 4; do
	stats "np $np measured, comm_calls_max_s [s]" <"$work/ma-$np"
	stats "np $np skew, align_calls_max_s [s]" <"$work/sk-$np"
	for net in "$PREDICT_NET" multi; do
		stats "np $np --net $net, ratio" <"$work/r-$np-$net-ratio"
		stats "np $np --net $net, cold (-off_cache $OFF_CACHE)" <"$work/r-$np-$net-cold"
		stats "np $np --net $net, one barrier (comm + skew)" <"$work/r-$np-$net-onebarrier"
	done
done
stats "np 4 --net multi from IMB -multi, ratio" <"$work/r-4-imb"
stats "np 4 row alone (np 2, n = $ROW_N), ratio" <"$work/r-row"
echo "## mpbench predict matmul from every round's tables, against the median measurement"
list() { ls "$@" | paste -sd,; }
for net in "$PREDICT_NET" multi; do
	"$MPB" predict matmul --bench "$(list "$work"/bc2-*.jsonl)" -n "$N" --np 2 --net "$net" --scaling "$(list "$work"/mm*-2-*.jsonl)"
	"$MPB" predict matmul --bench "$(list "$work"/bc4-*.jsonl "$work"/mb4-*.jsonl)" -n "$N" --np 4 --net "$net" --scaling "$(list "$work"/mm*-4-*.jsonl)"
done
echo "## np 4 from IMB's Multi-Bcast (-multi 0 without --sync-all: each group's own barrier, t_max)"
"$MPB" predict matmul --bench "$(list "$work"/bc4-*.jsonl "$work"/im4-*.jsonl)" -n "$N" --np 4 --net multi --scaling "$(list "$work"/mm*-4-*.jsonl)"
echo "## the same from the -off_cache $OFF_CACHE tables"
"$MPB" predict matmul --bench "$(list "$work"/oc2-*.jsonl)" -n "$N" --np 2 --net "$PREDICT_NET" --scaling "$(list "$work"/mm*-2-*.jsonl)"
"$MPB" predict matmul --bench "$(list "$work"/oc4-*.jsonl "$work"/om4-*.jsonl)" -n "$N" --np 4 --net multi --scaling "$(list "$work"/mm*-4-*.jsonl)"
# Traces: where a product's communication time goes, call by call.
for run in "2 --sync" "4 --sync" "4"; do
	set -- $run
	echo "## traced product, np $1 ${2:-without --sync} (mpbench app matmul --trace): Bcasts and barriers, one line each"
	on "$1" app matmul -n "$N" ${2:-} --no-verify --trace "$work/tr.csv" >"$work/tr.txt"
	awk -F, 'NR == 1 || $3 != "gemm" { printf "%4s %4s %-6s %-5s %8s %10s %10s %10s %11s %18s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$work/tr.csv"
	sed -n '/ Time split/,$p' "$work/tr.txt"
	# The k-th Bcast of every rank is one call: how far apart the ranks
	# entered it, the slowest rank's time in it, the time from the last
	# rank's entry to the last exit, the CPU time all ranks used in it
	# against its span (first entry to last exit; 2 = both CPUs of a
	# 2-CPU host busy with the call's ranks throughout), the ranks'
	# blocking waits in it (sleeps) and the time another rank computed
	# meanwhile.
	echo " per Bcast call (ms): entry spread over the ranks, slowest rank's time, last entry to last exit, CPUs used, sleeps, others computing"
	awk -F, 'NR > 1 && $3 == "Bcast" && $5 > 0 {
		k = n[$1]++; s = $6 + 0; e = s + $7
		if (!(k in lo) || s < lo[k]) lo[k] = s
		if (!(k in hi) || s > hi[k]) hi[k] = s
		if (!(k in end) || e > end[k]) end[k] = e
		if ($7 + 0 > w[k]) w[k] = $7 + 0
		cpu[k] += $8; sl[k] += $11; oc[k] += $10
		g[k] = $4; c[k]++; if (k + 1 > K) K = k + 1 }
		END { for (k = 0; k < K; k++) if (c[k] > 1) {
			sp = end[k] - lo[k]
			printf "   call %d %-4s entry spread %8.3f  slowest %8.3f  last entry to exit %8.3f  CPUs %5.2f  sleeps %4d  others computing %8.3f\n", k, g[k], 1e3 * (hi[k] - lo[k]), 1e3 * w[k], 1e3 * (end[k] - hi[k]), (sp > 0 ? cpu[k] / sp : 0), sl[k], 1e3 * oc[k]
			a += hi[k] - lo[k]; b += w[k]; d += end[k] - hi[k]; tc += cpu[k]; ts += sp; tsl += sl[k]; to += oc[k] }
			printf "   sum          entry spread %8.3f  slowest %8.3f  last entry to exit %8.3f  CPUs %5.2f  sleeps %4d  others computing %8.3f\n", 1e3 * a, 1e3 * b, 1e3 * d, (ts > 0 ? tc / ts : 0), tsl, 1e3 * to }' "$work/tr.csv"
done
