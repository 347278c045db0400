#!/usr/bin/env bash
# mpicompare.sh: PingPong of mpbench on its own runtime and on real MPI
# libraries, against each library's own ping-pong in C and against NetPIPE.
#
# One invocation builds the binaries, runs one throw-away warm-up pass, then
# REPEATS (default 5) passes; in every pass each configuration runs once,
# in an order rotated from pass to pass (interleaved, so that a slow phase
# of a shared machine hits every configuration alike). Configurations:
#   native-shm      mpbench run -np 2 --transport shm PingPong
#   native-tcp      mpbench run -np 2 --transport tcp PingPong
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
#   ompi-cold mpich-cold np-ompi-cold np-mpich-cold (not run by default)
#                   out of cache: mpbench with IMB's -off_cache (buffers
#                   rotated through a region the size of the last-level
#                   cache), NetPIPE with -I
# After the passes, mpicheck -sidebyside runs once per library: the C loop
# and mpbench's Go loop alternate in one job on the same buffers, which
# measures the cost of mpbench's Go/cgo layer free of the run-to-run noise
# of process placement.
#
# The tables: medians over the passes of latency (t = half a round trip,
# usec) at 0 B (NetPIPE: 1 B, its smallest size) and 8 B, and bandwidth
# (bytes / t in MB/s, 10^6 bytes/s, for every tool) at 1 KiB, 64 KiB,
# 1 MiB and 4 MiB; then ratios of medians (latency: time ratio; bandwidth:
# MB/s ratio; 1.00 = agreement):
#   mpbench on a library / the library's C ping-pong (same method)
#   C with NetPIPE's method / NetPIPE (checks that mpiref -1 reproduces it)
#   mpbench on a library / NetPIPE
# then the spread (max/min - 1, in %) of each cell's repeats.
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
# Usage: bench/mpicompare.sh    (from anywhere in the repository)
# Environment: REPEATS (5), OUT (a new directory under /tmp), CONFIGS (the
# default ones above), TIME (mpbench -time per size, 2), THREAD_LEVEL
# (single), ROUNDS (mpicheck -sidebyside rounds, 9; 0 skips it), CACHE_MIB
# (the region -off_cache rotates through, default the last-level cache).
# Needs: go, pkg-config, libopenmpi-dev, openmpi-bin, libmpich-dev, mpich,
# netpipe-openmpi, netpipe-mpich2 (installed with apt-get when missing).
set -euo pipefail

REPEATS=${REPEATS:-5}
OUT=${OUT:-$(mktemp -d /tmp/mpbench-mpicompare.XXXXXX)}
CONFIGS=${CONFIGS:-"native-shm native-tcp ompi mpich c-ompi c-mpich c1-ompi c1-mpich np-ompi np-mpich ompi-tcp mpich-tcp c-ompi-tcp c-mpich-tcp np-ompi-tcp np-mpich-tcp"}
TIME=${TIME:-2}
THREAD_LEVEL=${THREAD_LEVEL:-single}
ROUNDS=${ROUNDS:-9}
SIZES="0 8 1024 65536 1048576 4194304"
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"

log() { printf '%s\n' "$*" >&2; }

llc_mib() { # size of the last-level cache in MiB (sysfs), 32 if unknown
	local s
	s=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || true)
	case $s in
	*K) echo $(((${s%K} + 1023) / 1024)) ;;
	*M) echo "${s%M}" ;;
	*) echo 32 ;;
	esac
}
CACHE_MIB=${CACHE_MIB:-$(llc_mib)}

pkgs="pkg-config libopenmpi-dev openmpi-bin libmpich-dev mpich netpipe-openmpi netpipe-mpich2"
missing=$(for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
	log "installing:" $missing
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get install -y --no-install-recommends $missing >&2
fi

log "building mpbench (native, Open MPI, MPICH), mpicheck and mpiref into $OUT"
(cd "$here" && go build -o "$OUT/mpbench" ./cmd/mpbench &&
	go build -tags mpi -o "$OUT/mpbench-ompi" ./cmd/mpbench &&
	go build -tags mpi,mpich -o "$OUT/mpbench-mpich" ./cmd/mpbench &&
	go build -tags mpi -o "$OUT/mpicheck-ompi" ./transport/mpi/internal/mpicheck &&
	go build -tags mpi,mpich -o "$OUT/mpicheck-mpich" ./transport/mpi/internal/mpicheck &&
	mpicc.openmpi -O2 -I transport/mpi/internal/cref -o "$OUT/mpiref-ompi" bench/mpiref/mpiref.c &&
	mpicc.mpich -O2 -Wno-stringop-overflow -I transport/mpi/internal/cref -o "$OUT/mpiref-mpich" bench/mpiref/mpiref.c)
printf '%s\n' $SIZES >"$OUT/sizes"

OMPI=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 2)
MPICH=(mpiexec.mpich -n 2)
MPB_ARGS=(run -msglen "$OUT/sizes" -iter 1000,400 -time "$TIME" --quiet PingPong)
LIB_ARGS=(-thread_level "$THREAD_LEVEL")

# netpipe LAUNCHER... BINARY [-I]: one NetPIPE run per size (NetPIPE has no
# 0-byte test: 1 B stands for it), appending "bytes usec MB/s" lines.
netpipe() {
	local f=$1
	shift
	local s n raw=$f.np
	: >"$f"
	for s in $SIZES; do
		[ "$s" -eq 0 ] && s=1
		n=1000
		[ "$s" -ge 65536 ] && n=200
		[ "$s" -ge 1048576 ] && n=50
		[ "$s" -ge 4194304 ] && n=20
		timeout 300 "$@" -p 0 -l "$s" -u "$s" -n "$n" -o "$raw" >"$raw.log" 2>&1 || return 1
		awk '{ printf "%d %.4f %.3f\n", $1, $3 * 1e6, $1 / ($3 * 1e6) }' "$raw" >>"$f"
	done
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
	ompi-tcp) L=("${OMPI[@]:0:3}" --mca btl tcp,self -np 2) ;;
	ompi-*) L=("${OMPI[@]}") ;;
	mpich-tcp) L=(mpiexec.mpich -genv MPIR_CVAR_NOLOCAL 1 -genv UCX_TLS tcp,self -n 2) ;;
	mpich-*) L=("${MPICH[@]}") ;;
	esac
}

# run_one NAME FILE: one run of configuration NAME (see the top: an optional
# tool prefix c-, c1- or np-, the library, an optional -tcp or -cold), its
# rows written to FILE as "bytes usec MB/s" lines.
run_one() {
	local name=$1 f=$2 tool=mpbench rest lib variant="" cold=()
	case $name in
	native-shm | native-tcp)
		timeout 300 "$OUT/mpbench" "${MPB_ARGS[@]}" -np 2 --transport "${name#native-}" --json "$f.jsonl" >"$f.txt"
		imb_rows "$f.txt" >"$f"
		return ;;
	c-* | c1-* | np-*) tool=${name%%-*} rest=${name#*-} ;;
	*) rest=$name ;;
	esac
	lib=${rest%%-*}
	[ "$lib" != "$rest" ] && variant=${rest#*-}
	case $lib-$variant in ompi- | ompi-tcp | ompi-cold | mpich- | mpich-tcp | mpich-cold) ;; *) log "unknown configuration $name"; return 1 ;; esac
	launcher "$lib" "$variant"
	case $tool-$variant in
	mpbench-*)
		[ "$variant" = cold ] && cold=(-off_cache "$CACHE_MIB")
		timeout 300 "${L[@]}" "$OUT/mpbench-$lib" "${MPB_ARGS[@]}" "${LIB_ARGS[@]}" "${cold[@]}" --json "$f.jsonl" >"$f.txt"
		imb_rows "$f.txt" >"$f" ;;
	c-tcp | c-) timeout 300 "${L[@]}" "$OUT/mpiref-$lib" $SIZES >"$f.txt" && mpiref_rows "$f.txt" >"$f" ;;
	c1-tcp | c1-) timeout 300 "${L[@]}" "$OUT/mpiref-$lib" -1 -trials 7 $SIZES >"$f.txt" && mpiref_rows "$f.txt" >"$f" ;;
	np-cold) netpipe "$f" "${L[@]}" "$(np_binary "$lib")" -I ;;
	np-*) netpipe "$f" "${L[@]}" "$(np_binary "$lib")" ;;
	*) log "configuration $name is not measured (no C reference out of cache)"; return 1 ;;
	esac
}

# np_binary LIB: NetPIPE's executable for library LIB.
np_binary() { if [ "$1" = ompi ]; then echo NPopenmpi; else echo NPmpich2; fi; }

set -- $CONFIGS
n=$#
configs=("$@")
start=$(date +%s)
for pass in $(seq 0 "$REPEATS"); do
	for i in $(seq 0 $((n - 1))); do
		name=${configs[$(((i + pass) % n))]}
		log "pass $pass/$REPEATS (0: warm-up, discarded): $name"
		if ! run_one "$name" "$OUT/$name.$pass"; then
			log "  $name failed in pass $pass (see $OUT/$name.$pass*)"
			rm -f "$OUT/$name.$pass"
		fi
	done
done

# Every measured pass of a configuration in one file, for 'mpbench compare'
# (the repeats in one file give the noise).
for name in "${configs[@]}"; do
	[ -n "$(ls "$OUT/$name".*.jsonl 2>/dev/null)" ] || continue
	for pass in $(seq 1 "$REPEATS"); do cat "$OUT/$name.$pass.jsonl" 2>/dev/null || true; done >"$OUT/$name.jsonl"
done

{
	echo "# $(date -u +%FT%TZ) $(uname -n): $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end," \
		"$REPEATS passes after a warm-up, $(($(date +%s) - start)) s; -off_cache $CACHE_MIB for the cold rows"
	for name in "${configs[@]}"; do
		for pass in $(seq 1 "$REPEATS"); do
			[ -f "$OUT/$name.$pass" ] && awk -v c="$name" '{ print c, $0 }' "$OUT/$name.$pass"
		done
	done | awk -v order="$CONFIGS" '
	function sortv(v, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t } }
	function median(key,   n, v) {
		n = split(vals[key], v, " "); if (n == 0) return ""
		sortv(v, n); return (n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
	}
	# ratios prints a table of a / b per column for each pair "a:b" in
	# pairs whose two configurations were both run.
	function ratios(title, pairs,   np, p, k, ab, a, r, c, line, printed) {
		np = split(pairs, p, " "); printed = 0
		for (k = 1; k <= np; k++) {
			split(p[k], ab, ":")
			if (!(ab[1] in ran) || !(ab[2] in ran)) continue
			if (!printed) { print ""; print title; print head; printed = 1 }
			line = sprintf("%-14s", ab[1] "/" ab[2])
			for (c = 1; c <= ncol; c++) {
				a = m[ab[1], cols[c]]; r = m[ab[2], cols[c]]
				line = line sprintf(" %10s", (a == "" || r == "" || r == 0) ? "-" : sprintf("%.2f", a / r))
			}
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
		head = sprintf("%-14s %10s %10s %10s %10s %10s %10s", "config", "0B usec", "8B usec", "1KiB MB/s", "64KiB MB/s", "1MiB MB/s", "4MiB MB/s")
		print "medians (NetPIPE: 1 B in the 0 B column)"; print head
		for (o = 1; o <= nconf; o++) {
			c = confs[o]; line = sprintf("%-14s", c)
			for (k = 1; k <= ncol; k++) { m[c, cols[k]] = median(c "," cols[k]); line = line sprintf(" %10s", m[c, cols[k]] == "" ? "-" : sprintf(cols[k] ~ /^lat/ ? "%.2f" : "%.0f", m[c, cols[k]])) }
			print line
		}
		ratios("mpbench on a library / C ping-pong on the same library, IMB method (mpiref)", "ompi:c-ompi mpich:c-mpich ompi-tcp:c-ompi-tcp mpich-tcp:c-mpich-tcp")
		ratios("C ping-pong with the NetPIPE method (mpiref -1 -trials 7) / NetPIPE", "c1-ompi:np-ompi c1-mpich:np-mpich")
		ratios("mpbench on a library / NetPIPE on the same library", "ompi:np-ompi mpich:np-mpich ompi-tcp:np-ompi-tcp mpich-tcp:np-mpich-tcp ompi-cold:np-ompi-cold mpich-cold:np-mpich-cold")
		print ""; print "spread of the repeats, max/min - 1 in %"; print head
		for (o = 1; o <= nconf; o++) {
			c = confs[o]; line = sprintf("%-14s", c)
			for (k = 1; k <= ncol; k++) { s = spread(c "," cols[k]); line = line sprintf(" %10s", s == "" ? "-" : sprintf("%.0f", s)) }
			print line
		}
	}'
} | tee "$OUT/table.txt"

# The cost of mpbench's Go/cgo layer, in one job per library and transport
# (see the top), for the libraries and transports among CONFIGS.
if [ "$ROUNDS" -gt 0 ]; then
	for cfg in ompi mpich ompi-tcp mpich-tcp; do
		case " $CONFIGS " in *" $cfg "*) ;; *) continue ;; esac
		lib=${cfg%%-*} variant=""
		[ "$lib" != "$cfg" ] && variant=${cfg#*-}
		launcher "$lib" "$variant"
		echo
		echo "# $cfg: C loop and mpbench's Go loop alternating in one job: ${L[*]} mpicheck -sidebyside -rounds $ROUNDS -thread_level $THREAD_LEVEL"
		timeout 600 "${L[@]}" "$OUT/mpicheck-$lib" -sidebyside -rounds "$ROUNDS" -thread_level "$THREAD_LEVEL" || log "mpicheck -sidebyside for $cfg failed"
	done | tee -a "$OUT/table.txt"
fi
log "raw outputs, per-configuration JSON (all passes) and the table in $OUT"
