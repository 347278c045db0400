#!/usr/bin/env bash
# mpicompare.sh: PingPong of mpbench on its own runtime and on real MPI
# libraries, against each library's own ping-pong in C and against NetPIPE.
#
# One invocation checks its settings, builds the binaries, runs one
# throw-away warm-up pass, then REPEATS (default 5) passes; in every pass
# each configuration runs once, in an order rotated from pass to pass
# (interleaved, so that a slow phase of a shared machine hits every
# configuration alike). Configurations:
#   mpbench-shm      mpbench run -np 2 --transport shm PingPong
#   mpbench-tcp      mpbench run -np 2 --transport tcp PingPong
#   ompi            mpbench built with -tags mpi, under mpirun.openmpi -np 2
#   mpich           mpbench built with -tags mpi,mpich, under mpiexec.mpich -n 2
#   c-ompi c-mpich  bench/mpiref/mpiref.c: the same PingPong loop in plain C
#                   (IMB's: separate send and receive buffers, mean of one
#                   sample, IMB's repetitions), compiled with the library's
#                   mpicc: the library's own ping-pong, no Go in the process
#   c1-ompi c1-mpich
#                   mpiref with NetPIPE's method: one buffer for both
#                   directions, fastest of 7 trials (mpiref -1 -trials 7)
#   np-ompi np-mpich
#                   NetPIPE's NPopenmpi and NPmpich2 (Debian netpipe-openmpi,
#                   netpipe-mpich2), a ping-pong that is not ours
#   ompi-tcp mpich-tcp c-ompi-tcp c-mpich-tcp np-ompi-tcp np-mpich-tcp
#                   the same over each library's TCP transport on loopback
#                   (Open MPI: --mca btl tcp,self; MPICH: MPIR_CVAR_NOLOCAL=1
#                   and UCX_TLS=tcp,self), the path of a cluster network
#   c1-ompi-tcp c1-mpich-tcp (not run by default)
#                   NetPIPE's method in C over TCP
#   ompi-cold mpich-cold np-ompi-cold np-mpich-cold (not run by default)
#                   out of cache: mpbench with IMB's -off_cache (buffers
#                   rotated through a region of CACHE_MIB MiB), NetPIPE with
#                   -I; mpiref has no out-of-cache mode (no c-*-cold)
# After the passes, mpicheck -sidebyside runs once per library and transport
# among the mpbench configurations of CONFIGS (ompi, mpich, ompi-tcp,
# mpich-tcp): the C loop and mpbench's PingPong kernel alternate in one job
# on the same buffers, which compares mpbench's measurement with the C loop
# free of the run-to-run noise of process placement. mpicheck prints its own
# table; its mpb/C columns are time ratios (> 1 = mpbench slower).
#
# The tables: medians over the measured passes of latency (t = half a round
# trip, usec) at 0 B (NetPIPE: 1 B, its smallest size) and 8 B, and
# bandwidth (bytes / t in MB/s, 10^6 bytes/s, for every tool) at 1 KiB,
# 64 KiB, 1 MiB and 4 MiB. Then ratio tables of medians, each row
# "first/second", all in one convention: the performance of the first
# configuration relative to the second, > 1 = first faster, < 1 = first
# slower, 1.00 = agreement (latency columns: t_second / t_first; bandwidth
# columns: MB/s first / MB/s second):
#   mpbench on a library vs the library's C ping-pong (same method)
#   C with NetPIPE's method vs NetPIPE (checks that mpiref -1 reproduces it)
#   mpbench on a library vs NetPIPE
# A ratio row is printed when both of its configurations have a measured
# pass that succeeded, a ratio table when it has a row. Last the spread (max/min - 1, in %) of each cell's repeats
# (with REPEATS >= 2).
#
# Method, so that the tools are compared like for like:
#   - All are ping-pongs of blocking MPI_Send/MPI_Recv between 2 ranks on
#     this host; t is half the round trip and bandwidth is bytes / t.
#   - Thread level: mpbench runs with -thread_level single (THREAD_LEVEL),
#     the level MPI_Init gives mpiref and NetPIPE; Open MPI 4 takes locks
#     from MPI_THREAD_FUNNELED, mpbench's default, up.
#   - Buffers: IMB, mpbench and mpiref send from one buffer and receive
#     into another; NetPIPE (without -I) uses one buffer for both, which
#     changes the time of 64 KiB to 4 MiB messages by up to 2x in either
#     direction on shared memory. The c1 rows show that this, with the
#     statistic, is the whole difference.
#   - Statistic: NetPIPE reports the fastest of 7 trials, IMB and mpbench
#     the mean over the repetitions of one sample.
#   - NetPIPE's second output column is Mbit/s with Mbit = 2^20 bits; this
#     script computes bandwidth from its time column instead, bytes / t.
#   - NetPIPE's default perturbation (sizes n-3, n, n+3) is off (-p 0), and
#     each size is run on its own with a fixed repetition count (-n).
#
# Failures: every run (mpbench, mpiref, NetPIPE, mpicheck, each under its
# launcher, 300 s limit; mpicheck 600 s) keeps its standard output in
# OUT/NAME.PASS.txt and its standard error in OUT/NAME.PASS.err (mpicheck:
# OUT/mpicheck-NAME.txt and .err). A run fails when the tool or its
# launcher exits non-zero or times out, or when its output lacks a row for
# one of the 6 message sizes; each failure is logged once (configuration,
# pass, cause, first line of its standard error, the files to look at),
# listed in OUT/failures and left out of the tables, and the script goes on.
#
# Usage: bench/mpicompare.sh    (from anywhere in the repository)
# Environment: REPEATS (measured passes, an integer >= 1; 5), OUT (a new
# directory under /tmp), CONFIGS (names from the list above, each at most
# once; the default is every one not marked "not run by default"), TIME
# (mpbench -time seconds per size, a positive number; 2), THREAD_LEVEL
# (single, funneled, serialized or multiple; single), ROUNDS (mpicheck
# -sidebyside rounds, an integer >= 0, 0 skips it; 9), CACHE_MIB (MiB that
# -off_cache rotates through, an integer >= 1; default the last-level
# cache); unset or empty, each takes its default. All are checked before
# any work: a bad one is named in one line.
# Exit status: 0 when every run succeeded; 1 when a run or the build failed
# (the tables still show the runs that succeeded); 2 for a bad setting.
# Needs: go, pkg-config, libopenmpi-dev, openmpi-bin, libmpich-dev, mpich,
# netpipe-openmpi, netpipe-mpich2 (installed with apt-get when missing).
set -euo pipefail

SIZES=(0 8 1024 65536 1048576 4194304)
LIMIT=300 # seconds for one run of a tool
ALL_CONFIGS=(mpbench-shm mpbench-tcp ompi mpich c-ompi c-mpich c1-ompi c1-mpich np-ompi np-mpich
	ompi-tcp mpich-tcp c-ompi-tcp c-mpich-tcp c1-ompi-tcp c1-mpich-tcp np-ompi-tcp np-mpich-tcp
	ompi-cold mpich-cold np-ompi-cold np-mpich-cold)
DEFAULT_CONFIGS="mpbench-shm mpbench-tcp ompi mpich c-ompi c-mpich c1-ompi c1-mpich np-ompi np-mpich ompi-tcp mpich-tcp c-ompi-tcp c-mpich-tcp np-ompi-tcp np-mpich-tcp"

log() { printf '%s\n' "$*" >&2; }
# bad MESSAGE: one line naming a bad setting, exit status 2.
bad() {
	log "mpicompare.sh: $*"
	exit 2
}

llc_mib() { # size of the last-level cache in MiB (sysfs), 32 if unknown
	local s
	s=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || true)
	case $s in
	*K) echo $(((${s%K} + 1023) / 1024)) ;;
	*M) echo "${s%M}" ;;
	*) echo 32 ;;
	esac
}

REPEATS=${REPEATS:-5}
CONFIGS=${CONFIGS:-$DEFAULT_CONFIGS}
TIME=${TIME:-2}
THREAD_LEVEL=${THREAD_LEVEL:-single}
ROUNDS=${ROUNDS:-9}
CACHE_MIB=${CACHE_MIB:-$(llc_mib)}

# int_at_least NAME VALUE MIN: VALUE is a decimal integer >= MIN, else exit 2.
int_at_least() {
	if ! [[ $2 =~ ^[0-9]{1,9}$ ]] || [ $((10#$2)) -lt "$3" ]; then
		bad "$1=\"$2\": want an integer >= $3"
	fi
}
int_at_least REPEATS "$REPEATS" 1
int_at_least ROUNDS "$ROUNDS" 0
int_at_least CACHE_MIB "$CACHE_MIB" 1
REPEATS=$((10#$REPEATS)) ROUNDS=$((10#$ROUNDS)) CACHE_MIB=$((10#$CACHE_MIB))
if ! [[ $TIME =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] || ! awk -v t="$TIME" 'BEGIN { exit !(t + 0 > 0) }'; then
	bad "TIME=\"$TIME\": want a positive number of seconds, such as 2 or 0.5"
fi
case $THREAD_LEVEL in
single | funneled | serialized | multiple) ;;
*) bad "THREAD_LEVEL=\"$THREAD_LEVEL\": want single, funneled, serialized or multiple" ;;
esac
read -r -d '' -a configs <<<"$CONFIGS" || true
[ "${#configs[@]}" -gt 0 ] || bad "CONFIGS is empty: want names among ${ALL_CONFIGS[*]}"
for name in "${configs[@]}"; do
	case " ${ALL_CONFIGS[*]} " in
	*" $name "*) ;;
	*) bad "CONFIGS: unknown configuration \"$name\"; valid: ${ALL_CONFIGS[*]}" ;;
	esac
	case " ${seen:-} " in *" $name "*) bad "CONFIGS: \"$name\" given twice; want each name at most once" ;; esac
	seen="${seen:-} $name"
done
n=${#configs[@]}

# in_configs NAME: NAME is among CONFIGS.
in_configs() { case " ${configs[*]} " in *" $1 "*) return 0 ;; esac; return 1; }

OUT=${OUT:-$(mktemp -d /tmp/mpbench-mpicompare.XXXXXX)}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
: >"$OUT/failures"

pkgs=(pkg-config libopenmpi-dev openmpi-bin libmpich-dev mpich netpipe-openmpi netpipe-mpich2)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
	log "installing: ${missing[*]}"
	SUDO=()
	[ "$(id -u)" -ne 0 ] && SUDO=(sudo)
	"${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi

log "building mpbench (own runtime, Open MPI, MPICH), mpicheck and mpiref into $OUT"
if ! (cd "$here" && go build -o "$OUT/mpbench" ./cmd/mpbench &&
	go build -tags mpi -o "$OUT/mpbench-ompi" ./cmd/mpbench &&
	go build -tags mpi,mpich -o "$OUT/mpbench-mpich" ./cmd/mpbench &&
	go build -tags mpi -o "$OUT/mpicheck-ompi" ./mpi/internal/mpicheck &&
	go build -tags mpi,mpich -o "$OUT/mpicheck-mpich" ./mpi/internal/mpicheck &&
	mpicc.openmpi -O2 -I mpi/internal/cref -o "$OUT/mpiref-ompi" bench/mpiref/mpiref.c &&
	mpicc.mpich -O2 -Wno-stringop-overflow -I mpi/internal/cref -o "$OUT/mpiref-mpich" bench/mpiref/mpiref.c); then
	log "mpicompare.sh: the build failed (errors above); nothing was run"
	exit 1
fi
printf '%s\n' "${SIZES[@]}" >"$OUT/sizes"

OMPI=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 2)
MPICH=(mpiexec.mpich -n 2)
MPB_ARGS=(run -msglen "$OUT/sizes" -iter "1000,400" -time "$TIME" --all-sizes --quiet PingPong)
LIB_ARGS=(-thread_level "$THREAD_LEVEL")

# tool LABEL LIMIT OUTFILE ERRFILE CMD...: runs CMD (a tool, under its
# launcher) for at most LIMIT seconds, its standard output to OUTFILE and
# its standard error to ERRFILE. On failure sets why to the cause, naming
# the tool by LABEL, and returns 1.
tool() {
	local label=$1 limit=$2 out=$3 err=$4 rc=0
	shift 4
	timeout "$limit" "$@" >"$out" 2>"$err" || rc=$?
	case $rc in
	0) return 0 ;;
	124) why="$label timed out after $limit s" ;;
	126 | 127) why="$label could not be started (exit status $rc)" ;;
	*) why="$label exited with status $rc" ;;
	esac
	return 1
}

# rows_ok FILE SOURCE: FILE has a row for each size of SIZES; else sets why
# (SOURCE names the output FILE was read from) and returns 1.
rows_ok() {
	local got
	got=$(wc -l <"$1")
	[ "$got" -eq "${#SIZES[@]}" ] && return 0
	why="$got of the ${#SIZES[@]} message sizes in $2"
	return 1
}

# failed WHAT WHERE FILE...: logs one failure in one line (what failed,
# where, why, the first line of the standard error FILE.err and which of
# FILE... exist and are not empty) and lists it in OUT/failures.
failed() {
	local what=$1 where=$2 f files=() first="" line
	shift 2
	for f in "$@"; do [ -s "$f" ] && files+=("$f"); done
	for f in "$@"; do
		case $f in *.err) [ -s "$f" ] && first=$(grep -m 1 '[[:alnum:]]' "$f" | tr '\t\r' '  ' | sed 's/^ *//; s/ *$//' | cut -c 1-160) ;; esac
		[ -n "$first" ] && break
	done
	line="FAILED $what, $where: $why"
	[ -n "$first" ] && line="$line: \"$first\""
	if [ "${#files[@]}" -gt 0 ]; then line="$line; see ${files[*]}"; else line="$line; no output"; fi
	log "  $line"
	printf '%s\n' "$line" >>"$OUT/failures"
}

# netpipe FILE LAUNCHER... BINARY [-I]: one NetPIPE run per size (NetPIPE
# has no 0-byte test: 1 B stands for it), its rows written to FILE as
# "bytes usec MB/s" lines, its output in FILE.txt and FILE.err (the last
# size run) and its own result file FILE.np. On failure sets why, returns 1.
netpipe() {
	local f=$1 s n np
	shift
	np=${*: -1}
	[ "$np" = -I ] && np=${*: -2:1}
	: >"$f"
	for s in "${SIZES[@]}"; do
		[ "$s" -eq 0 ] && s=1
		n=1000
		[ "$s" -ge 65536 ] && n=200
		[ "$s" -ge 1048576 ] && n=50
		[ "$s" -ge 4194304 ] && n=20
		rm -f "$f.np"
		tool "${L[0]} running $np at $s B" "$LIMIT" "$f.txt" "$f.err" "$@" -p 0 -l "$s" -u "$s" -n "$n" -o "$f.np" || return 1
		if [ ! -s "$f.np" ]; then
			why="$np wrote no result to $f.np at $s B"
			return 1
		fi
		awk '{ printf "%d %.4f %.3f\n", $1, $3 * 1e6, $1 / ($3 * 1e6) }' "$f.np" >>"$f"
	done
	rows_ok "$f" "$f.np"
}

# mpiref_rows: mpiref's output as "bytes usec MB/s" lines, usec from the
# fastest trial (column 3; with one trial it is that trial's mean).
mpiref_rows() {
	awk '!/^#/ && NF >= 4 { printf "%d %s %.3f\n", $1, $3, ($3 > 0 ? $1 / $3 : 0) }' "$1"
}

# imb_rows: the PingPong rows of IMB text as "bytes usec MB/s" lines (MB/s
# recomputed as bytes / t, 10^6 bytes/s).
imb_rows() {
	awk '/Benchmarking PingPong/ { on = 1; next }
	     on && /^#/ && seen { on = 0 }
	     on && $1 ~ /^[0-9]+$/ && NF >= 4 { printf "%d %s %.3f\n", $1, $3, ($3 > 0 ? $1 / $3 : 0); seen = 1 }' "$1"
}

# launcher LIB VARIANT: the launcher command of library LIB (ompi, mpich)
# for 2 ranks, over its TCP transport when VARIANT is tcp, in array L.
launcher() {
	case $1-$2 in
	ompi-tcp) L=("${OMPI[@]:0:3}" --mca btl "tcp,self" -np 2) ;;
	ompi-*) L=("${OMPI[@]}") ;;
	mpich-tcp) L=(mpiexec.mpich -genv MPIR_CVAR_NOLOCAL 1 -genv UCX_TLS "tcp,self" -n 2) ;;
	mpich-*) L=("${MPICH[@]}") ;;
	esac
}

# np_binary LIB: NetPIPE's executable for library LIB.
np_binary() { if [ "$1" = ompi ]; then echo NPopenmpi; else echo NPmpich2; fi; }

# run_one NAME FILE: one run of configuration NAME (see the top: an optional
# tool prefix c-, c1- or np-, the library, an optional -tcp or -cold; NAME
# was checked against ALL_CONFIGS), its rows written to FILE as "bytes usec
# MB/s" lines, the tool's output to FILE.txt and FILE.err. On failure sets
# why and returns 1.
run_one() {
	local name=$1 f=$2 kind=mpbench rest lib variant="" cold=()
	case $name in
	mpbench-shm | mpbench-tcp)
		tool "mpbench run --transport ${name#mpbench-}" "$LIMIT" "$f.txt" "$f.err" \
			"$OUT/mpbench" "${MPB_ARGS[@]}" -np 2 --transport "${name#mpbench-}" --json "$f.jsonl" || return 1
		imb_rows "$f.txt" >"$f"
		rows_ok "$f" "$f.txt"
		return ;;
	c-* | c1-* | np-*) kind=${name%%-*} rest=${name#*-} ;;
	*) rest=$name ;;
	esac
	lib=${rest%%-*}
	[ "$lib" != "$rest" ] && variant=${rest#*-}
	launcher "$lib" "$variant"
	case $kind in
	mpbench)
		[ "$variant" = cold ] && cold=(-off_cache "$CACHE_MIB")
		tool "${L[0]} running mpbench-$lib" "$LIMIT" "$f.txt" "$f.err" \
			"${L[@]}" "$OUT/mpbench-$lib" "${MPB_ARGS[@]}" "${LIB_ARGS[@]}" "${cold[@]}" --json "$f.jsonl" || return 1
		imb_rows "$f.txt" >"$f" ;;
	c) tool "${L[0]} running mpiref-$lib" "$LIMIT" "$f.txt" "$f.err" "${L[@]}" "$OUT/mpiref-$lib" "${SIZES[@]}" || return 1
		mpiref_rows "$f.txt" >"$f" ;;
	c1) tool "${L[0]} running mpiref-$lib -1" "$LIMIT" "$f.txt" "$f.err" "${L[@]}" "$OUT/mpiref-$lib" -1 -trials 7 "${SIZES[@]}" || return 1
		mpiref_rows "$f.txt" >"$f" ;;
	np)
		if [ "$variant" = cold ]; then
			netpipe "$f" "${L[@]}" "$(np_binary "$lib")" -I
		else
			netpipe "$f" "${L[@]}" "$(np_binary "$lib")"
		fi
		return ;;
	esac
	rows_ok "$f" "$f.txt"
}

start=$(date +%s)
for pass in $(seq 0 "$REPEATS"); do
	where="pass $pass/$REPEATS"
	[ "$pass" -eq 0 ] && where="warm-up pass (discarded)"
	for i in $(seq 0 $((n - 1))); do
		name=${configs[$(((i + pass) % n))]}
		log "$where: $name"
		why=""
		if ! run_one "$name" "$OUT/$name.$pass"; then
			failed "$name" "$where" "$OUT/$name.$pass.err" "$OUT/$name.$pass.txt" "$OUT/$name.$pass.np"
			rm -f "$OUT/$name.$pass"
		fi
	done
done

# Every measured pass of a configuration that succeeded in one file, for
# 'mpbench compare' (the repeats in one file give the noise).
for name in "${configs[@]}"; do
	jsonl=()
	for pass in $(seq 1 "$REPEATS"); do
		[ -f "$OUT/$name.$pass" ] && [ -f "$OUT/$name.$pass.jsonl" ] && jsonl+=("$OUT/$name.$pass.jsonl")
	done
	[ "${#jsonl[@]}" -gt 0 ] && cat "${jsonl[@]}" >"$OUT/$name.jsonl"
done

passes="$REPEATS measured passes"
[ "$REPEATS" -eq 1 ] && passes="1 measured pass"
cold_note=""
for name in "${configs[@]}"; do
	case $name in *-cold) cold_note="; -off_cache $CACHE_MIB for the cold rows" ;; esac
done
{
	echo "# $(date -u +%FT%TZ) $(uname -n): $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end," \
		"$passes after a warm-up, $(($(date +%s) - start)) s$cold_note"
	for name in "${configs[@]}"; do
		for pass in $(seq 1 "$REPEATS"); do
			if [ -f "$OUT/$name.$pass" ]; then awk -v c="$name" '{ print c, $0 }' "$OUT/$name.$pass"; fi
		done
	done | awk -v order="${configs[*]}" -v repeats="$REPEATS" '
	function sortv(v, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t } }
	function median(key,   n, v) {
		n = split(vals[key], v, " "); if (n == 0) return ""
		sortv(v, n); return (n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
	}
	# ratio(a, b, col): the performance of configuration a relative to b
	# in column col, > 1 = a faster: t_b / t_a for latency, MB/s a / MB/s b
	# for bandwidth; "-" when a median is missing or zero.
	function ratio(a, b, col,   x, y) {
		x = m[a, col]; y = m[b, col]
		if (x == "" || y == "" || x == 0 || y == 0) return "-"
		return sprintf("%.2f", col ~ /^lat/ ? y / x : x / y)
	}
	# ratios prints a table of ratio(a, b, column) for each pair "a:b" in
	# pairs whose two configurations were both run.
	function ratios(title, pairs,   np, p, k, ab, c, line, printed) {
		np = split(pairs, p, " "); printed = 0
		for (k = 1; k <= np; k++) {
			split(p[k], ab, ":")
			if (!(ab[1] in ran) || !(ab[2] in ran)) continue
			if (!printed) {
				print ""
				print title ": performance of first relative to second, >1 = first faster, <1 = first slower (usec: t_second/t_first; MB/s: first/second)"
				print rhead; printed = 1
			}
			line = sprintf(lab, ab[1] "/" ab[2])
			for (c = 1; c <= ncol; c++) line = line sprintf(" %10s", ratio(ab[1], ab[2], cols[c]))
			print line
		}
	}
	function spread(key,   n, v) {
		n = split(vals[key], v, " "); if (n < 2) return ""
		sortv(v, n); return (v[1] > 0) ? 100 * (v[n] / v[1] - 1) : ""
	}
	{
		c = $1; b = $2; ran[c] = 1
		col = ""
		if (b <= 1) col = "lat0"; else if (b == 8) col = "lat8"
		if (col != "") { vals[c "," col] = vals[c "," col] " " $3; next }
		if (b == 1024) col = "bw1K"; else if (b == 65536) col = "bw64K"; else if (b == 1048576) col = "bw1M"; else if (b == 4194304) col = "bw4M"
		if (col != "") vals[c "," col] = vals[c "," col] " " $4
	}
	END {
		ncol = split("lat0 lat8 bw1K bw64K bw1M bw4M", cols, " ")
		nconf = split(order, confs, " ")
		same = "ompi:c-ompi mpich:c-mpich ompi-tcp:c-ompi-tcp mpich-tcp:c-mpich-tcp"
		c1np = "c1-ompi:np-ompi c1-mpich:np-mpich c1-ompi-tcp:np-ompi-tcp c1-mpich-tcp:np-mpich-tcp"
		mpbnp = "ompi:np-ompi mpich:np-mpich ompi-tcp:np-ompi-tcp mpich-tcp:np-mpich-tcp ompi-cold:np-ompi-cold mpich-cold:np-mpich-cold"
		# One width for the first column of every table: the longest
		# configuration name or ratio row label.
		w = length("first/second"); hasnp = 0
		for (o = 1; o <= nconf; o++) { if (length(confs[o]) > w) w = length(confs[o]); if (confs[o] ~ /^np-/) hasnp = 1 }
		np = split(same " " c1np " " mpbnp, p, " ")
		for (k = 1; k <= np; k++) { split(p[k], ab, ":"); if ((ab[1] in ran) && (ab[2] in ran) && length(p[k]) > w) w = length(p[k]) }
		lab = "%-" w "s"
		cfmt = lab " %10s %10s %10s %10s %10s %10s"
		head = sprintf(cfmt, "config", "0B usec", "8B usec", "1KiB MB/s", "64KiB MB/s", "1MiB MB/s", "4MiB MB/s")
		rhead = sprintf(cfmt, "first/second", "0B", "8B", "1KiB", "64KiB", "1MiB", "4MiB")
		print "medians over the measured passes" (hasnp ? " (NetPIPE: 1 B in the 0 B column)" : ""); print head
		for (o = 1; o <= nconf; o++) {
			c = confs[o]; line = sprintf(lab, c)
			for (k = 1; k <= ncol; k++) { m[c, cols[k]] = median(c "," cols[k]); line = line sprintf(" %10s", m[c, cols[k]] == "" ? "-" : sprintf(cols[k] ~ /^lat/ ? "%.2f" : "%.0f", m[c, cols[k]])) }
			print line
		}
		ratios("mpbench on a library vs the C ping-pong on the same library, IMB method (mpiref)", same)
		ratios("C ping-pong with the NetPIPE method (mpiref -1 -trials 7) vs NetPIPE", c1np)
		ratios("mpbench on a library vs NetPIPE on the same library", mpbnp)
		print ""
		if (repeats < 2) { print "spread of the repeats: needs REPEATS >= 2"; exit }
		print "spread of the repeats, max/min - 1 in %"; print head
		for (o = 1; o <= nconf; o++) {
			c = confs[o]; line = sprintf(lab, c)
			for (k = 1; k <= ncol; k++) { s = spread(c "," cols[k]); line = line sprintf(" %10s", s == "" ? "-" : sprintf("%.0f", s)) }
			print line
		}
	}'
} | tee "$OUT/table.txt"

# mpbench's PingPong against the C loop, in one job per library and transport
# (see the top), for the libraries and transports among CONFIGS.
if [ "$ROUNDS" -gt 0 ]; then
	for cfg in ompi mpich ompi-tcp mpich-tcp; do
		in_configs "$cfg" || continue
		lib=${cfg%%-*} variant=""
		[ "$lib" != "$cfg" ] && variant=${cfg#*-}
		launcher "$lib" "$variant"
		f=$OUT/mpicheck-$cfg
		printf '\n# %s: C loop and mpbench'\''s PingPong kernel alternating in one job: %s mpicheck -sidebyside -rounds %s -thread_level %s\n' \
			"$cfg" "${L[*]}" "$ROUNDS" "$THREAD_LEVEL" | tee -a "$OUT/table.txt"
		why=""
		if tool "${L[0]} running mpicheck-$lib -sidebyside" 600 "$f.txt" "$f.err" \
			"${L[@]}" "$OUT/mpicheck-$lib" -sidebyside -rounds "$ROUNDS" -thread_level "$THREAD_LEVEL"; then
			if ! grep -q '^ *[0-9]' "$f.txt"; then why="no rows in $f.txt"; fi
		fi
		tee -a "$OUT/table.txt" <"$f.txt"
		[ -z "$why" ] || failed "mpicheck -sidebyside for $cfg" "after the passes" "$f.err" "$f.txt"
	done
fi
log "raw outputs, per-configuration JSON (all passes) and the table in $OUT"
nfailed=$(wc -l <"$OUT/failures")
if [ "$nfailed" -gt 0 ]; then
	runs="runs"
	[ "$nfailed" -eq 1 ] && runs="run"
	log "mpicompare.sh: $nfailed $runs failed (each logged above, listed in $OUT/failures); the tables show the runs that succeeded"
	exit 1
fi
