#!/usr/bin/env bash
# compare.sh: mpbench PingPong against the C MPI libraries on this host.
#
# Runs, interleaved and after one throw-away warm-up pass, REPEATS (default
# 5) passes of:
#   ompi-shm    NetPIPE NPopenmpi on Open MPI, shared memory (btl vader,self)
#   ompi-tcp    NPopenmpi on Open MPI over TCP loopback (pml ob1, btl tcp,self)
#   mpich-shm   NetPIPE NPmpich2 on MPICH (ch4), shared memory
#   mpich-tcp   NPmpich2 on MPICH over TCP (MPIR_CVAR_NOLOCAL=1, UCX_TLS=tcp)
#   nptcp       NetPIPE NPtcp, plain TCP sockets over loopback
#   mpbench-shm mpbench run -np 2 --transport shm PingPong
#   mpbench-tcp mpbench run -np 2 --transport tcp PingPong
# and prints the medians of latency (one-way time, half a round trip, in
# microseconds) at the smallest size (0 B for mpbench, 1 B for NetPIPE,
# which has no 0-byte test) and at 8 B, and of bandwidth in MB/s (10^6
# bytes/s; NetPIPE's Mbps / 8) at 64 KiB, 1 MiB and 4 MiB, then the ratio
# of mpbench to the best C reference of the same medium in each column
# (latency: <= 1 is as fast; bandwidth: >= 1 is as fast).
#
# Usage: bench/compare.sh            (from the repository, as root or with sudo for apt)
# Environment: REPEATS (5), OUT (a new directory under /tmp), CONFIGS (all of the above);
# TABLE_ONLY=1 with OUT of an earlier run prints its table from the passes it completed.
set -euo pipefail

REPEATS=${REPEATS:-5}
OUT=${OUT:-$(mktemp -d /tmp/mpbench-compare.XXXXXX)}
CONFIGS=${CONFIGS:-"ompi-shm ompi-tcp mpich-shm mpich-tcp nptcp mpbench-shm mpbench-tcp"}
MAXB=4194304
SIZES="0 1 8 65536 1048576 4194304"
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"

log() { printf '%s\n' "$*" >&2; }

# Debian packages: NetPIPE for both MPI libraries and for plain TCP.
pkgs="openmpi-bin libopenmpi-dev mpich netpipe-openmpi netpipe-mpich2 netpipe-tcp"
missing=$(for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
	log "installing: $missing"
	SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get install -y $missing >&2
fi

set -- $CONFIGS
n=$#
configs=("$@")
if [ -z "${TABLE_ONLY:-}" ]; then
log "building mpbench into $OUT"
(cd "$here" && go build -o "$OUT/mpbench" ./cmd/mpbench)
printf '%s\n' $SIZES >"$OUT/sizes"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NetPIPE sweeps a whole range in self-calibrated trials; two short ranges
# (1..8 B and 64 KiB..4 MiB) hold every size the table needs and take well
# under half the time of one sweep from 1 B to 4 MiB.
NP_RANGES=("-l 1 -u 8" "-l 65536 -u $MAXB")

# Each run writes "bytes usec MBps" lines to $1.
netpipe_norm() { awk '{ printf "%d %.4f %.3f\n", $1, $3 * 1e6, $2 / 8 }' "$1"; }
imb_norm() {
	awk '/Benchmarking PingPong/ { on = 1; next }
	     on && /^#/ && seen { on = 0 }
	     on && $1 ~ /^[0-9]+$/ && NF >= 4 { printf "%d %s %s\n", $1, $3, $4; seen = 1 }' "$1"
}

# netpipe_one name out range...: one NetPIPE run of config name over a range.
netpipe_one() {
	local name=$1 out=$2
	shift 2
	local np=(-p 0 "$@" -o "$out")
	case $name in
	ompi-shm) timeout 600 mpirun.openmpi -np 2 --mca pml ob1 --mca btl vader,self NPopenmpi "${np[@]}" ;;
	ompi-tcp) timeout 600 mpirun.openmpi -np 2 --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo NPopenmpi "${np[@]}" ;;
	mpich-shm) timeout 600 mpiexec.mpich -n 2 NPmpich2 "${np[@]}" ;;
	mpich-tcp) MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self timeout 600 mpiexec.mpich -n 2 NPmpich2 "${np[@]}" ;;
	nptcp)
		timeout 600 NPtcp -p 0 "$@" &
		local rx=$!
		sleep 0.5
		timeout 600 NPtcp -h 127.0.0.1 "${np[@]}"
		wait $rx ;;
	esac
}

run_one() { # name file
	local name=$1 f=$2 raw=$2.raw
	case $name in
	mpbench-shm | mpbench-tcp)
		timeout 600 "$OUT/mpbench" run -np 2 --transport "${name#mpbench-}" -msglen "$OUT/sizes" -iter 1000,400 -time 2 --quiet PingPong >"$raw" ;;
	*)
		: >"$raw"
		for range in "${NP_RANGES[@]}"; do
			# shellcheck disable=SC2086 # the range is two options
			netpipe_one "$name" "$raw.part" $range >>"$raw.log" 2>&1
			cat "$raw.part" >>"$raw"
		done
		rm -f "$raw.part" ;;
	esac
	case $name in
	mpbench-*) imb_norm "$raw" >"$f" ;;
	*) netpipe_norm "$raw" >"$f" ;;
	esac
}

for pass in $(seq 0 "$REPEATS"); do
	for i in $(seq 0 $((n - 1))); do
		name=${configs[$(((i + pass) % n))]}
		log "pass $pass/$REPEATS: $name"
		if ! run_one "$name" "$OUT/$name.$pass"; then
			log "  $name failed in pass $pass"
			rm -f "$OUT/$name.$pass"
		fi
	done
done

fi

# Medians over passes 1..REPEATS, then the table and the ratios.
for name in "${configs[@]}"; do
	for pass in $(seq 1 "$REPEATS"); do
		[ -f "$OUT/$name.$pass" ] && awk -v c="$name" '{ print c, $0 }' "$OUT/$name.$pass"
	done
done | awk -v lat_small_mpb=0 -v lat_small_np=1 '
function median(key,   n, i, j, t, v) {
	n = split(vals[key], v, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
	if (n == 0) return ""
	return (n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
}
{
	c = $1; b = $2
	small = (c ~ /^mpbench/) ? lat_small_mpb : lat_small_np
	if (b == small) vals[c ",lat0"] = vals[c ",lat0"] " " $3
	if (b == 8) vals[c ",lat8"] = vals[c ",lat8"] " " $3
	if (b == 65536) vals[c ",bw64K"] = vals[c ",bw64K"] " " $4
	if (b == 1048576) vals[c ",bw1M"] = vals[c ",bw1M"] " " $4
	if (b == 4194304) vals[c ",bw4M"] = vals[c ",bw4M"] " " $4
	seen[c] = 1
}
END {
	ncol = split("lat0 lat8 bw64K bw1M bw4M", cols, " ")
	split("ompi-shm mpich-shm ompi-tcp mpich-tcp nptcp mpbench-shm mpbench-tcp", order, " ")
	printf "%-12s %12s %12s %12s %12s %12s\n", "config", "lat min us", "lat 8B us", "64KiB MB/s", "1MiB MB/s", "4MiB MB/s"
	for (o = 1; o <= 7; o++) {
		c = order[o]; if (!(c in seen)) continue
		printf "%-12s", c
		for (k = 1; k <= ncol; k++) { m[c, cols[k]] = median(c "," cols[k]); printf " %12s", (m[c, cols[k]] == "" ? "-" : sprintf("%.3f", m[c, cols[k]])) }
		printf "\n"
	}
	split("shm tcp", media, " ")
	for (d = 1; d <= 2; d++) {
		med = media[d]; me = "mpbench-" med
		if (!(me in seen)) continue
		printf "%-12s", "ratio " med
		for (k = 1; k <= ncol; k++) {
			col = cols[k]; best = ""
			for (o = 1; o <= 5; o++) {
				c = order[o]
				if (!(c in seen) || m[c, col] == "") continue
				if ((med == "shm") != (c ~ /shm$/)) continue
				if (best == "" || (col ~ /^lat/ ? m[c, col] < best : m[c, col] > best)) best = m[c, col]
			}
			if (best == "" || m[me, col] == "" || best == 0) printf " %12s", "-"
			else printf " %12.2f", m[me, col] / best
		}
		printf "\n"
	}
	print "latency ratio: mpbench / best C (<= 1 meets the target); bandwidth ratio: mpbench / best C (>= 1 meets it)"
}' | tee "$OUT/table.txt"
log "raw outputs and table in $OUT"
