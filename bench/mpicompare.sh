#!/usr/bin/env bash
# mpicompare.sh: PingPong of mpbench on its own runtime and on real MPI
# libraries, with NetPIPE on the same libraries as an independent check.
#
# One invocation builds the binaries, runs one throw-away warm-up pass, then
# REPEATS (default 5) passes; in every pass each configuration runs once,
# in an order rotated from pass to pass (interleaved, so that a slow phase
# of a shared machine hits every configuration alike). Configurations:
#   native-shm      mpbench run -np 2 --transport shm PingPong
#   native-tcp      mpbench run -np 2 --transport tcp PingPong
#   ompi            mpbench built with -tags mpi, under mpirun.openmpi -np 2
#   mpich           mpbench built with -tags mpi,mpich, under mpiexec.mpich -n 2
#   np-ompi         NetPIPE's NPopenmpi (Debian netpipe-openmpi) on Open MPI
#   np-mpich        NetPIPE's NPmpich2 (Debian netpipe-mpich2) on MPICH
#   ompi-cold ... np-mpich-cold
#                   the same four library configurations out of cache:
#                   mpbench with IMB's -off_cache (buffers rotated through a
#                   region the size of the last-level cache), NetPIPE with -I
# The table gives medians over the passes of: latency (t = half a round
# trip, usec) at 0 B (NetPIPE: 1 B, its smallest size) and 8 B, and
# bandwidth (bytes / t in MB/s, 10^6 bytes/s, for every tool) at 1 KiB,
# 64 KiB, 1 MiB and 4 MiB; then, per column, the ratio of mpbench on a
# library to NetPIPE on the same library in the same cache mode (1.00 =
# agreement), and the spread (max/min - 1, in %) of each cell's repeats.
#
# Method, so that the tools are compared like for like:
#   - Both are ping-pongs of blocking MPI_Send/MPI_Recv between 2 ranks on
#     this host; t is half the round trip and bandwidth is bytes / t.
#   - Cache: IMB and mpbench reuse one send and one receive buffer (hot
#     cache) unless -off_cache; NetPIPE by default also reuses one buffer
#     per size (send and receive in the same buffer) and with -I rotates
#     through a 10 MB pool after flushing the cache with a dummy buffer.
#     The hot rows compare hot with hot, the cold rows cold with cold.
#   - NetPIPE runs each size in 7 trials and reports the fastest trial;
#     mpbench (as IMB) reports the mean over all repetitions of one
#     sample. On a quiet machine they agree; on a loaded one NetPIPE's
#     minimum is the lower bound.
#   - NetPIPE's second output column is Mbit/s with Mbit = 2^20 bits; this
#     script computes bandwidth from its time column instead, bytes / t.
#   - NetPIPE's default perturbation (sizes n-3, n, n+3) is off (-p 0), and
#     each size is run on its own with a fixed repetition count (-n), so
#     that both tools time the same sizes with similar volumes.
#
# Usage: bench/mpicompare.sh    (from anywhere in the repository)
# Environment: REPEATS (5), OUT (a new directory under /tmp), CONFIGS (all
# of the above), TIME (mpbench -time per size, 2), CACHE_MIB (the region
# -off_cache rotates through, default the last-level cache size).
# Needs: go, pkg-config, libopenmpi-dev, openmpi-bin, libmpich-dev, mpich,
# netpipe-openmpi, netpipe-mpich2 (installed with apt-get when missing).
set -euo pipefail

REPEATS=${REPEATS:-5}
OUT=${OUT:-$(mktemp -d /tmp/mpbench-mpicompare.XXXXXX)}
CONFIGS=${CONFIGS:-"native-shm native-tcp ompi mpich np-ompi np-mpich ompi-cold mpich-cold np-ompi-cold np-mpich-cold"}
TIME=${TIME:-2}
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

log "building mpbench (native, Open MPI, MPICH) into $OUT"
(cd "$here" && go build -o "$OUT/mpbench" ./cmd/mpbench &&
	go build -tags mpi -o "$OUT/mpbench-ompi" ./cmd/mpbench &&
	go build -tags mpi,mpich -o "$OUT/mpbench-mpich" ./cmd/mpbench)
printf '%s\n' $SIZES >"$OUT/sizes"

OMPI=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 2)
MPICH=(mpiexec.mpich -n 2)
MPB_ARGS=(run -msglen "$OUT/sizes" -iter 1000,400 -time "$TIME" --quiet PingPong)

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

# imb_rows: the PingPong rows of IMB text as "bytes usec MB/s" lines (MB/s
# recomputed as bytes / t, 10^6 bytes/s).
imb_rows() {
	awk '/Benchmarking PingPong/ { on = 1; next }
	     on && /^#/ && seen { on = 0 }
	     on && $1 ~ /^[0-9]+$/ && NF >= 4 { printf "%d %s %.3f\n", $1, $3, ($3 > 0 ? $1 / $3 : 0); seen = 1 }' "$1"
}

run_one() { # name file
	local name=$1 f=$2 cold=()
	case $name in *-cold) cold=(-off_cache "$CACHE_MIB") ;; esac
	case $name in
	native-shm | native-tcp)
		timeout 300 "$OUT/mpbench" "${MPB_ARGS[@]}" -np 2 --transport "${name#native-}" --json "$f.jsonl" >"$f.txt" ;;
	ompi | ompi-cold)
		timeout 300 "${OMPI[@]}" "$OUT/mpbench-ompi" "${MPB_ARGS[@]}" "${cold[@]}" --json "$f.jsonl" >"$f.txt" ;;
	mpich | mpich-cold)
		timeout 300 "${MPICH[@]}" "$OUT/mpbench-mpich" "${MPB_ARGS[@]}" "${cold[@]}" --json "$f.jsonl" >"$f.txt" ;;
	np-ompi) netpipe "$f" "${OMPI[@]}" NPopenmpi ;;
	np-mpich) netpipe "$f" "${MPICH[@]}" NPmpich2 ;;
	np-ompi-cold) netpipe "$f" "${OMPI[@]}" NPopenmpi -I ;;
	np-mpich-cold) netpipe "$f" "${MPICH[@]}" NPmpich2 -I ;;
	*) log "unknown configuration $name"; return 1 ;;
	esac
	case $name in np-*) ;; *) imb_rows "$f.txt" >"$f" ;; esac
}

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
	case $name in np-*) continue ;; esac
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
	function spread(key,   n, v) {
		n = split(vals[key], v, " "); if (n < 2) return ""
		sortv(v, n); return (v[1] > 0) ? 100 * (v[n] / v[1] - 1) : ""
	}
	{
		c = $1; b = $2
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
		print ""; print "mpbench on a library / NetPIPE on the same library (latency: time ratio; bandwidth: MB/s ratio)"; print head
		for (o = 1; o <= nconf; o++) {
			c = confs[o]; if (c !~ /^(ompi|mpich)/) continue
			ref = "np-" c; line = sprintf("%-14s", c "/np")
			for (k = 1; k <= ncol; k++) {
				a = m[c, cols[k]]; r = m[ref, cols[k]]
				line = line sprintf(" %10s", (a == "" || r == "" || r == 0) ? "-" : sprintf("%.2f", a / r))
			}
			print line
		}
		print ""; print "spread of the repeats, max/min - 1 in %"; print head
		for (o = 1; o <= nconf; o++) {
			c = confs[o]; line = sprintf("%-14s", c)
			for (k = 1; k <= ncol; k++) { s = spread(c "," cols[k]); line = line sprintf(" %10s", s == "" ? "-" : sprintf("%.0f", s)) }
			print line
		}
	}'
} | tee "$OUT/table.txt"
log "raw outputs, per-configuration JSON (all passes) and the table in $OUT"
