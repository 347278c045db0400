#!/usr/bin/env bash
# appsperf: mpbench's applications against C and Fortran references on this
# host, measured side by side: every round runs each configuration once, in
# turn (interleaved, so that a slow phase of a shared machine hits both),
# and the ratios are taken round by round; the script prints each side's
# median with its min..max and the median ratio.
#
#   1. EP class $EP_CLASS (default A) on 1 rank: Mop/s total of
#      "mpbench app ep" against NPB 3.4's own EP (NPB3.4-MPI ep.f, built
#      with mpif90 -O2 from $NPB_DIR), both as printed by the programs
#      (operations over wall time), and the same operations over the CPU
#      time (user + system, GNU time) each process used: on a host shared
#      with other work the wall-time figure depends on the share of the
#      CPU each process gets, the CPU-time one does not.
#   2. The local block product, n = $MM_N (default 2000) on 1 rank: GFLOP/s
#      of "mpbench app matmul -np 1" (2 n^3 over its compute time) as the
#      default build runs it (--blas auto: the host's OpenBLAS loaded at
#      run time, one thread per rank) and with --blas gonum (gonum's pure
#      Go BLAS), against dgemmref.c, the same product with Debian's
#      OpenBLAS cblas_dgemm on one thread (OPENBLAS_NUM_THREADS=1), its
#      second (warm) call and its first, which like mpbench's single
#      product also pays the library's first use and C's first touch.
#   3. EP (class $EP_SHM_CLASS, default W) and FT (class W) at np 1, 2 and 4
#      over shared memory: time, communication share (communication time
#      over total, the maximum over ranks) and EP's speedup T(1)/T(2).
#
# Usage: bench/appsperf/run.sh            (from the repository)
# Environment: ROUNDS (default 3), EP_CLASS, EP_SHM_CLASS, MM_N,
#   PARTS: the parts to run (default "1 2 3"; e.g. PARTS=2 for the product),
#   NPB_DIR: the NPB3.4-MPI directory of the NAS Parallel Benchmarks 3.4
#   source. It is not packaged; get it with
#     git clone https://github.com/mbdevpl/nas-parallel-benchmarks
#     NPB_DIR=$PWD/nas-parallel-benchmarks/NPB3.4-MPI bench/appsperf/run.sh
#   Without it part 1 is skipped. Part 2 needs a C compiler and OpenBLAS's
#   shared library (Debian: libopenblas0, which mpbench loads too; the C
#   reference declares the CBLAS call itself, so no -dev package is
#   needed); without them part 2 is skipped. Part 1 needs Open MPI's mpif90.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
EP_CLASS=${EP_CLASS:-A}
EP_SHM_CLASS=${EP_SHM_CLASS:-W}
MM_N=${MM_N:-2000}
PARTS=${PARTS:-1 2 3}
# part K: whether PARTS names part K.
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/mpbench" ./cmd/mpbench
MPB=$work/mpbench

# stats NAME < values: "NAME median min..max" of the numbers on stdin.
stats() {
	sort -g | awk -v name="$1" '{v[NR]=$1} END {
		if (NR == 0) { printf "%-40s (no values)\n", name; exit }
		m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
		printf "%-40s median %10.4g   min..max %.4g..%.4g   (%d rounds)\n", name, m, v[1], v[NR], NR }'
}

# mops FILE: the "Mop/s total" a program printed NPB-style.
mops() { awk -F= '/Mop\/s total/ {gsub(/ /, "", $2); print $2}' "$1"; }

# maxrow FILE COLUMN: a column of the "max" row of mpbench's time split
# (2 total, 3 compute, 4 comm).
maxrow() { awk -v c="$2" '$1 == "max" {print $c}' "$1"; }

echo "# appsperf on $(hostname), $(nproc) CPUs, $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

# --- 1. EP against NPB's EP ---------------------------------------------
if ! part 1; then
	:
elif [ -n "${NPB_DIR:-}" ] && [ -f "$NPB_DIR/EP/ep.f" ] && command -v mpif90.openmpi >/dev/null; then
	cp -r "$NPB_DIR" "$work/npb"
	sed -e 's/^MPIFC = .*/MPIFC = mpif90.openmpi/' -e 's/^FFLAGS\t= .*/FFLAGS\t= -O2 -fallow-argument-mismatch/' \
		-e 's/^MPICC = .*/MPICC = mpicc.openmpi/' -e 's/^RAND   = .*/RAND   = randdp/' \
		"$work/npb/config/make.def.template" >"$work/npb/config/make.def"
	mkdir -p "$work/npb/bin"
	(cd "$work/npb" && make ep CLASS="$EP_CLASS" >"$work/npb-build.log" 2>&1) || {
		echo "building NPB EP failed; see the log:"; tail -5 "$work/npb-build.log"; exit 1; }
	: >"$work/ep-mpb" ; : >"$work/ep-npb"; : >"$work/ep-ratio"; : >"$work/ep-cpu"
	for r in $(seq "$ROUNDS"); do
		/usr/bin/time -f "%U %S" -o "$work/c1" "$MPB" app ep --class "$EP_CLASS" -np 1 >"$work/o1"
		/usr/bin/time -f "%U %S" -o "$work/c2" "$work/npb/bin/ep.$EP_CLASS.x" >"$work/o2"
		grep -q "Verification    =               SUCCESSFUL" "$work/o1" || { echo "mpbench EP did not verify"; exit 1; }
		grep -q "SUCCESSFUL" "$work/o2" || { echo "NPB EP did not verify"; exit 1; }
		a=$(mops "$work/o1"); b=$(mops "$work/o2")
		echo "$a" >>"$work/ep-mpb"; echo "$b" >>"$work/ep-npb"
		awk -v a="$a" -v b="$b" 'BEGIN {print a / b}' >>"$work/ep-ratio"
		# Same operations on both sides: the CPU-time ratio is NPB's CPU
		# seconds over mpbench's.
		awk 'NR == FNR {a = $1 + $2; next} {print ($1 + $2) / a}' "$work/c1" "$work/c2" >>"$work/ep-cpu"
		echo "# round $r: EP.$EP_CLASS mpbench $a Mop/s ($(cat "$work/c1") s user, system), NPB $b Mop/s ($(cat "$work/c2") s)"
	done
	echo "## EP class $EP_CLASS, 1 rank, Mop/s total (NPB 3.4 ep.f: mpif90 -O2, randdp)"
	stats "mpbench app ep" <"$work/ep-mpb"
	stats "NPB3.4-MPI ep.$EP_CLASS.x" <"$work/ep-npb"
	stats "ratio mpbench/NPB (round by round)" <"$work/ep-ratio"
	stats "ratio by CPU time, NPB/mpbench seconds" <"$work/ep-cpu"
else
	if [ -n "${NPB_DIR:-}" ] && [ ! -f "$NPB_DIR/EP/ep.f" ]; then
		echo "## NPB_DIR=$NPB_DIR holds no EP/ep.f: it must name the NPB3.4-MPI directory itself"
	elif [ -n "${NPB_DIR:-}" ]; then
		echo "## no mpif90.openmpi: install Open MPI's Fortran compiler (Debian: libopenmpi-dev gfortran)"
	fi
	echo "## EP against NPB: skipped. Set NPB_DIR to the NPB3.4-MPI directory of the NPB 3.4 source"
	echo "##   (git clone https://github.com/mbdevpl/nas-parallel-benchmarks) and install Open MPI's mpif90."
fi

# --- 2. Local block product against OpenBLAS -----------------------------
if ! part 2; then
	:
elif cc -O2 -o "$work/dgemmref" bench/appsperf/dgemmref.c -l:libopenblas.so.0 2>"$work/cc.log" ||
	cc -O2 -o "$work/dgemmref" bench/appsperf/dgemmref.c -lopenblas 2>>"$work/cc.log"; then
	# The default build as a user runs it (--blas auto: the host's OpenBLAS
	# loaded at run time, one thread per rank) and the same binary with
	# --blas gonum (gonum's pure Go BLAS), each against the reference in
	# the same round.
	: >"$work/mm-mpb"; : >"$work/mm-gonum"; : >"$work/mm-ref"; : >"$work/mm-ratio"; : >"$work/mm-ratio-gonum"
	: >"$work/mm-ref1"; : >"$work/mm-ratio1"
	gflops() { awk -v n="$MM_N" -v c="$(maxrow "$1" 3)" 'BEGIN {print 2 * n^3 / c / 1e9}'; }
	for r in $(seq "$ROUNDS"); do
		"$MPB" app matmul -n "$MM_N" -np 1 --no-verify >"$work/o1"
		"$MPB" app matmul -n "$MM_N" -np 1 --no-verify --blas gonum >"$work/o3"
		OPENBLAS_NUM_THREADS=1 "$work/dgemmref" "$MM_N" >"$work/o2"
		a=$(gflops "$work/o1"); c=$(gflops "$work/o3")
		b=$(sed -n 's/.* GFLOP\/s=\([0-9.]*\).*/\1/p' "$work/o2")
		b1=$(sed -n 's/.*first_GFLOP\/s=\([0-9.]*\).*/\1/p' "$work/o2")
		echo "$a" >>"$work/mm-mpb"; echo "$c" >>"$work/mm-gonum"; echo "$b" >>"$work/mm-ref"; echo "$b1" >>"$work/mm-ref1"
		awk -v a="$a" -v b="$b1" 'BEGIN {print a / b}' >>"$work/mm-ratio1"
		awk -v a="$a" -v b="$b" 'BEGIN {print a / b}' >>"$work/mm-ratio"
		awk -v a="$c" -v b="$b" 'BEGIN {print a / b}' >>"$work/mm-ratio-gonum"
		echo "# round $r: product n=$MM_N mpbench default $a GFLOP/s, mpbench --blas gonum $c GFLOP/s, OpenBLAS $b GFLOP/s (first call $b1)"
	done
	echo "## Local block product n = $MM_N, 1 rank, GFLOP/s (reference: OpenBLAS dgemm, 1 thread)"
	echo "# default build's$(grep 'Local products' "$work/o1")"
	stats "mpbench app matmul (default)" <"$work/mm-mpb"
	stats "mpbench app matmul --blas gonum" <"$work/mm-gonum"
	stats "OpenBLAS cblas_dgemm (dgemmref)" <"$work/mm-ref"
	stats "OpenBLAS, dgemmref's first call" <"$work/mm-ref1"
	stats "ratio default/OpenBLAS" <"$work/mm-ratio"
	stats "ratio default/OpenBLAS first call" <"$work/mm-ratio1"
	stats "ratio gonum/OpenBLAS" <"$work/mm-ratio-gonum"
else
	echo "## Block product against OpenBLAS: skipped: building the C reference failed (needs cc and OpenBLAS's"
	echo "##   shared library; Debian: apt-get install gcc libopenblas0):"
	sed 's/^/##   /' "$work/cc.log" | tail -3
fi

# --- 3. EP and FT over shared memory ------------------------------------
if part 3; then for app in "ep --class $EP_SHM_CLASS" "ft --class W"; do
	for np in 1 2 4; do : >"$work/t$np"; : >"$work/s$np"; done
	: >"$work/speedup"
	for r in $(seq "$ROUNDS"); do
		for np in 1 2 4; do
			# shellcheck disable=SC2086
			"$MPB" app $app -np "$np" --transport shm >"$work/o$np"
			grep -q "Verification    =               SUCCESSFUL" "$work/o$np" || { echo "$app at np $np did not verify"; exit 1; }
			maxrow "$work/o$np" 2 >>"$work/t$np"
			awk '$1 == "max" {print 100 * $4 / $2}' "$work/o$np" >>"$work/s$np"
		done
		awk -v a="$(maxrow "$work/o1" 2)" -v b="$(maxrow "$work/o2" 2)" 'BEGIN {print a / b}' >>"$work/speedup"
	done
	echo "## $app over shm: time (s) and communication share (%), max over ranks"
	for np in 1 2 4; do
		stats "np $np time [s]" <"$work/t$np"
		stats "np $np communication share [%]" <"$work/s$np"
	done
	stats "speedup T(1)/T(2) (round by round)" <"$work/speedup"
done
fi
