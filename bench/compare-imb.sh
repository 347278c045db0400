#!/usr/bin/env bash
# compare-imb.sh: mpbench against IMB-MPI1 on Open MPI and MPICH, side by side.
#
# Runs, after one warm-up pass that is thrown away, ROUNDS (default 9)
# interleaved passes of every configuration (the order rotates each pass,
# so drifting load on the machine hits all alike):
#   mpbench-shm    mpbench run, its own runtime over shared memory
#   mpbench-tcp    mpbench run --transport tcp (loopback)
#   imb-ompi-shm   IMB-MPI1 on Open MPI, shared memory (btl vader,self)
#   imb-ompi-tcp   IMB-MPI1 on Open MPI, TCP only (btl tcp,self on lo)
#   imb-mpich-shm  IMB-MPI1 on MPICH
#   imb-mpich-tcp  IMB-MPI1 on MPICH, TCP only (MPIR_CVAR_NOLOCAL=1, UCX_TLS=tcp,self)
#   mpbench-shm-copy  as mpbench-shm with single copy turned off
#                  (MPBENCH_SHM_CMA=-1): every payload is copied through the
#                  rings, the path a kernel that refuses process_vm_readv
#                  leaves (Yama ptrace_scope, a container's seccomp profile)
#   imb-ompi-shm-copy as imb-ompi-shm with single copy turned off
#                  (btl_vader_single_copy_mechanism none): the library's
#                  copy-in/copy-out path, to compare mpbench-shm-copy with
#   mpi-ompi-shm   mpbench built with -tags mpi on Open MPI, as imb-ompi-shm
#   mpi-mpich-shm  mpbench built with -tags mpi,mpich on MPICH, as imb-mpich-shm
#   base-ompi-shm  an earlier mpbench built with -tags mpi, from BASE_OMPI=path,
#                  as mpi-ompi-shm (only when BASE_OMPI is set): did a change
#                  of mpbench move its numbers?
#   base-shm       with BASE=path: that mpbench binary (another build, e.g. of
#   base-tcp       an earlier commit) as mpbench-shm, mpbench-tcp and
#   base-shm-copy  mpbench-shm-copy; the table then adds the ratios
#                  mpbench-X / base-X (after / before)
# (The mpbench-* configurations were once called native-*; CONFIGS still
# takes those names, and TABLE_ONLY=1 reads an older OUT's native-* files.)
# with the same IMB options for every one (-npmin NP -msglog MSGLOG -time TIME
# and the benchmark list), and prints with bench/imbtable: per benchmark and
# size each configuration's median time and spread (max/min over the
# rounds), the ratios mpbench-shm / best library shm, mpbench-tcp / best
# library tcp, and each MPI build / IMB on the same library (> 1: mpbench
# slower), each followed by its paired ratio "(p R)", the median over the
# rounds of the two configurations' round-by-round ratios, then every
# neighbouring-size step above 3x of each configuration, and last a verdict
# per size for each MPI build against IMB-MPI1 on the same library, on the
# benchmarks VERDICT_BENCH from VERDICT_FROM bytes, over the rounds both
# ran: IMB-MPI1's and the MPI build's median with its spread (max/min over
# the rounds), the ratio of the two medians, the paired ratio, the 95%
# interval of that median over the rounds (sign test), its spread (half
# the interval's width over the median) and "within 5%", "outside 5%" or
# "no verdict: spread X% > 5%" (TOLERANCE percent); with 9 rounds a size is
# within 5% only if 7 of its 9 per-round ratios lie inside 0.95-1.05.
#
# IMB-MPI1 comes from IMB_OMPI=path and IMB_MPICH=path (a configuration
# whose binary is missing is left out). To build IMB-MPI1 2021.11 from its
# public source (github.com/intel/mpi-benchmarks, tag IMB-v2021.11), once per
# library, in two copies of the tree:
#   sed -i 's/^override CFLAGS +=.*/override CFLAGS += -g -O2 -Wall/;
#           s/^override CXXFLAGS +=.*/override CXXFLAGS += -g -O2 -Wall -Wextra/' src_cpp/Makefile
#   make IMB-MPI1 CC=mpicc.openmpi CXX=mpicxx.openmpi     # the other copy: mpicc.mpich, mpicxx.mpich
# (the upstream Makefile forces -O0 and -Werror, which the command line
# cannot replace).
#
# Usage: IMB_OMPI=... IMB_MPICH=... [BASE_OMPI=...] bench/compare-imb.sh
# Environment: ROUNDS (9), NP (2), MSGLOG (0:22), TIME (1, IMB -time: IMB-MPI1
#   abandons the rest of a benchmark once its sizes together took longer than
#   TIME x the number of sizes, which a loaded machine can reach below 1),
#   BENCHMARKS (PingPong PingPing Sendrecv Exchange Allreduce Bcast Alltoall
#   Allgather Reduce Barrier), CONFIGS (all of the above but the -copy ones), OUT (a new
#   directory under /tmp; every run's output stays there),
#   BASE (an mpbench binary to compare against, see base-shm), JOB_TIMEOUT
#   (3600: seconds one job may take; a library that hangs in MPI_Finalize,
#   as MPICH over UCX's tcp transport can, loses that round only),
#   BIND=core (ranks of every IMB-MPI1 and MPI-build configuration bound
#   one to a core, by --bind-to core under Open MPI, whose default it is
#   up to 2 ranks, and -bind-to core under MPICH, whose launcher binds
#   nothing by default; for NP up to the host's cores),
#   ALLOCMEM_SHIFT=K with ALLOCMEM_MIN=B (262144): every message buffer of
#   at least B bytes that IMB-MPI1 and the MPI builds take from
#   MPI_Alloc_mem lies K bytes past a page of a mapping of its own, alike
#   in both programs (K1,K2: send buffers at K1, receive buffers at K2;
#   bench/allocmem, built here with each library's mpicc and preloaded;
#   without it glibc's malloc places them by each process's allocation
#   history, see docs/mpi-comparison.md),
#   TABLE_ONLY=1 with OUT of an earlier run prints its table again,
#   VERDICT_BENCH ("Uniband Biband"), VERDICT_FROM (1024), TOLERANCE (5, in
#   percent): what the verdict section judges (the benchmarks must also be
#   in BENCHMARKS; TOLERANCE=3 judges "within 3%").
# With both libraries, mpbench's columns are divided by the best library's
# median at each size and, in two more columns, by each library's.
# At NP above the host's CPUs MPICH polls without yielding and takes minutes
# per pass: leave its configurations out (CONFIGS) or lower MSGLOG and TIME.
set -euo pipefail

ROUNDS=${ROUNDS:-9}
NP=${NP:-2}
MSGLOG=${MSGLOG:-0:22}
TIME=${TIME:-1}
BENCHMARKS=${BENCHMARKS:-"PingPong PingPing Sendrecv Exchange Allreduce Bcast Alltoall Allgather Reduce Barrier"}
ALL="mpbench-shm mpbench-tcp imb-ompi-shm imb-ompi-tcp imb-mpich-shm imb-mpich-tcp mpi-ompi-shm mpi-mpich-shm"
[ -n "${BASE_OMPI:-}" ] && ALL="$ALL base-ompi-shm"
[ -n "${BASE:-}" ] && ALL="$ALL base-shm base-tcp"
# Not in the default list (CONFIGS names them): the copy path without single copy.
COPY="mpbench-shm-copy imb-ompi-shm-copy"
[ -n "${BASE:-}" ] && COPY="$COPY base-shm-copy"
CONFIGS=${CONFIGS:-$ALL}
OUT=${OUT:-$(mktemp -d /tmp/mpbench-compare-imb.XXXXXX)}
# The old names native-X of mpbench-X: renamed, unless TABLE_ONLY reads an
# OUT whose files carry the old name.
renamed=""
for c in $CONFIGS; do
	case $c in
	native-*) [ -n "${TABLE_ONLY:-}" ] && compgen -G "$OUT/$c.*.txt" >/dev/null || c=mpbench-${c#native-} ;;
	esac
	renamed="$renamed $c"
done
CONFIGS=$renamed
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
log() { printf '%s\n' "$*" >&2; }
tol=$(awk -v p="${TOLERANCE:-5}" 'BEGIN { if (p !~ /^[0-9.]+$/ || p + 0 <= 0 || p + 0 >= 100) exit 1; print p / 100 }') ||
	{ log "TOLERANCE=${TOLERANCE:-}: want a percentage between 0 and 100, e.g. 5"; exit 2; }
case $NP in "" | *[!0-9]* | 0) log "NP=$NP: want a number of ranks, 1 or more" && exit 2 ;; esac
case $ROUNDS in "" | *[!0-9]* | 0) log "ROUNDS=$ROUNDS: want a number of rounds, 1 or more" && exit 2 ;; esac
[[ $MSGLOG =~ ^[0-9]+(:[0-9]+)?$ ]] || { log "MSGLOG=$MSGLOG: want IMB's -msglog, MIN:MAX or MAX (powers of two), e.g. 0:22"; exit 2; }
awk -v t="$TIME" 'BEGIN { exit !(t ~ /^[0-9]*\.?[0-9]+$/ && t + 0 > 0) }' || { log "TIME=$TIME: want IMB's -time in seconds, above 0, e.g. 1"; exit 2; }
case ${BIND:-} in "" | core) ;; *) log "BIND=$BIND: want core, or leave it unset for each launcher's default" && exit 2 ;; esac
if [ -n "${ALLOCMEM_SHIFT:-}" ]; then
	for k in ${ALLOCMEM_SHIFT//,/ } ""; do
		case $k in "") ;; *[!0-9]*) k=4096 ;; esac
		[ "${k:-0}" -lt 4096 ] && [ -n "${ALLOCMEM_SHIFT##*,}" ] && [ -n "${ALLOCMEM_SHIFT%%,*}" ] ||
			{ log "ALLOCMEM_SHIFT=$ALLOCMEM_SHIFT: want bytes past a page, 0-4095, or such offsets separated by commas (send, receive)"; exit 2; }
	done
	amin=${ALLOCMEM_MIN:-262144}
	case $amin in *[!0-9]* | "" | 0) log "ALLOCMEM_MIN=$amin: want a size in bytes, 1 or more" && exit 2 ;; esac
fi

# Configurations whose programs are missing are left out, with a reason.
keep=""
for c in $CONFIGS; do
	case $c in
	imb-ompi-*) [ -x "${IMB_OMPI:-}" ] || { log "leaving out $c: IMB_OMPI is not an executable IMB-MPI1 built with Open MPI"; continue; } ;;
	imb-mpich-*) [ -x "${IMB_MPICH:-}" ] || { log "leaving out $c: IMB_MPICH is not an executable IMB-MPI1 built with MPICH"; continue; } ;;
	base-ompi-*) [ -x "${BASE_OMPI:-}" ] || { log "leaving out $c: BASE_OMPI is not an executable mpbench built with -tags mpi"; continue; } ;;
	*ompi*) command -v mpirun.openmpi >/dev/null || { log "leaving out $c: mpirun.openmpi not found"; continue; } ;;
	*mpich*) command -v mpiexec.mpich >/dev/null || { log "leaving out $c: mpiexec.mpich not found"; continue; } ;;
	mpbench-* | native-*) ;;
	base-*) [ -x "${BASE:-}" ] || { log "leaving out $c: BASE is not an executable mpbench"; continue; } ;;
	*) log "unknown configuration $c; known: $ALL $COPY"; exit 2 ;;
	esac
	keep="$keep $c"
done
set -- $keep
n=$#
[ "$n" -gt 0 ] || { log "no configuration left to run"; exit 2; }
configs=("$@")

if [ -z "${TABLE_ONLY:-}" ]; then
	log "building mpbench into $OUT"
	(cd "$here" && go build -o "$OUT/mpbench" ./cmd/mpbench)
	case " $keep " in *" mpi-ompi-shm "*) (cd "$here" && go build -tags mpi -o "$OUT/mpbench-ompi" ./cmd/mpbench) ;; esac
	case " $keep " in *" mpi-mpich-shm "*) (cd "$here" && go build -tags mpi,mpich -o "$OUT/mpbench-mpich" ./cmd/mpbench) ;; esac
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	# shellcheck disable=SC2206 # the list is words
	imbargs=(-npmin "$NP" -msglog "$MSGLOG" -time "$TIME" $BENCHMARKS)
	to=(timeout "${JOB_TIMEOUT:-3600}") # one job at most an hour by default
	ompi=("${to[@]}" mpirun.openmpi --oversubscribe -np "$NP")
	mpich=("${to[@]}" mpiexec.mpich)
	[ "${BIND:-}" = core ] && ompi+=(--bind-to core) && mpich+=(-bind-to core)
	if [ -n "${ALLOCMEM_SHIFT:-}" ]; then
		for lib in openmpi mpich; do
			short=${lib/openmpi/ompi}
			case " $keep " in *-$short-*) ;; *) continue ;; esac
			so="$OUT/allocmem-$lib.so"
			"mpicc.$lib" -shared -fPIC -O2 -o "$so" "$here/bench/allocmem/allocmem.c" -ldl ||
				{ log "ALLOCMEM_SHIFT: building bench/allocmem with mpicc.$lib failed"; exit 2; }
			if [ $lib = openmpi ]; then
				ompi+=(-x "LD_PRELOAD=$so" -x "ALLOCMEM_SHIFT=$ALLOCMEM_SHIFT" -x "ALLOCMEM_MIN=$amin")
			else
				mpich+=(-genv LD_PRELOAD "$so" -genv ALLOCMEM_SHIFT "$ALLOCMEM_SHIFT" -genv ALLOCMEM_MIN "$amin")
			fi
		done
	fi
	mpich+=(-n "$NP")
	ompi_shm=(--mca pml ob1 --mca btl vader,self)
	ompi_tcp=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
	run_one() { # config outfile
		case $1 in
		mpbench-shm) "${to[@]}" "$OUT/mpbench" run -np "$NP" --transport shm "${imbargs[@]}" ;;
		mpbench-tcp) "${to[@]}" "$OUT/mpbench" run -np "$NP" --transport tcp "${imbargs[@]}" ;;
		mpbench-shm-copy) MPBENCH_SHM_CMA=-1 "${to[@]}" "$OUT/mpbench" run -np "$NP" --transport shm "${imbargs[@]}" ;;
		base-shm-copy) MPBENCH_SHM_CMA=-1 "${to[@]}" "$BASE" run -np "$NP" --transport shm "${imbargs[@]}" ;;
		base-shm) "${to[@]}" "$BASE" run -np "$NP" --transport shm "${imbargs[@]}" ;;
		base-tcp) "${to[@]}" "$BASE" run -np "$NP" --transport tcp "${imbargs[@]}" ;;
		imb-ompi-shm) "${ompi[@]}" "${ompi_shm[@]}" "$IMB_OMPI" "${imbargs[@]}" ;;
		imb-ompi-tcp) "${ompi[@]}" "${ompi_tcp[@]}" "$IMB_OMPI" "${imbargs[@]}" ;;
		imb-ompi-shm-copy) "${ompi[@]}" "${ompi_shm[@]}" --mca btl_vader_single_copy_mechanism none "$IMB_OMPI" "${imbargs[@]}" ;;
		imb-mpich-shm) "${mpich[@]}" "$IMB_MPICH" "${imbargs[@]}" ;;
		imb-mpich-tcp) MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo "${mpich[@]}" "$IMB_MPICH" "${imbargs[@]}" ;;
		mpi-ompi-shm) "${ompi[@]}" "${ompi_shm[@]}" "$OUT/mpbench-ompi" run -thread_level single "${imbargs[@]}" ;;
		mpi-mpich-shm) "${mpich[@]}" "$OUT/mpbench-mpich" run -thread_level single "${imbargs[@]}" ;;
		base-ompi-shm) "${ompi[@]}" "${ompi_shm[@]}" "$BASE_OMPI" run -thread_level single "${imbargs[@]}" ;;
		esac >"$2.part" 2>"$2.err"
		local st=$?
		if [ $st -ne 0 ] && grep -q "^# All processes entering MPI_Finalize" "$2.part"; then
			log "  $1 ended with status $st after its last row (stuck in MPI_Finalize?): its rows are kept"
			st=0
		fi
		[ $st -eq 0 ] && mv "$2.part" "$2" && { [ -s "$2.err" ] || rm -f "$2.err"; }
	}
	for pass in $(seq 0 "$ROUNDS"); do
		for i in $(seq 0 $((n - 1))); do
			c=${configs[$(((i + pass) % n))]}
			f="$OUT/$c.$pass.txt"
			[ "$pass" -eq 0 ] && f="$OUT/warmup-$c.txt"
			log "pass $pass/$ROUNDS: $c"
			if ! run_one "$c" "$f"; then
				log "  $c failed in pass $pass (its output: $f.part, $f.err)"
			fi
		done
	done
fi

cfg=$(IFS=,; echo "${configs[*]}")
has() { case " $keep " in *" $1 "*) return 0 ;; esac; return 1; }
lib() { # config prefix and medium: the IMB configurations present
	local out="" c
	for c in imb-ompi-$1 imb-mpich-$1; do has "$c" && out="$out|$c"; done
	echo "${out#|}"
}
own() { # medium: mpbench's configuration on it, by its name or its old one
	if has "native-$1"; then echo "native-$1"; else echo "mpbench-$1"; fi
}
ratios=""
for m in shm tcp; do
	b=$(lib "$m")
	o=$(own "$m")
	has "$o" && [ -n "$b" ] && ratios="$ratios,$o=$b"
	# With both libraries, against each one too (the best one's column
	# above mixes them size by size).
	case $b in *"|"*) for l in ${b//|/ }; do has "$o" && ratios="$ratios,$o=$l"; done ;; esac
	has "base-$m" && [ -n "$b" ] && ratios="$ratios,base-$m=$b"
	has "$o" && has "base-$m" && ratios="$ratios,$o=base-$m"
done
o=$(own shm-copy)
has "$o" && has imb-ompi-shm-copy && ratios="$ratios,$o=imb-ompi-shm-copy"
has base-shm-copy && has imb-ompi-shm-copy && ratios="$ratios,base-shm-copy=imb-ompi-shm-copy"
has "$o" && has base-shm-copy && ratios="$ratios,$o=base-shm-copy"
has mpi-ompi-shm && has imb-ompi-shm && ratios="$ratios,mpi-ompi-shm=imb-ompi-shm"
has mpi-mpich-shm && has imb-mpich-shm && ratios="$ratios,mpi-mpich-shm=imb-mpich-shm"
has base-ompi-shm && has imb-ompi-shm && ratios="$ratios,base-ompi-shm=imb-ompi-shm"
has base-ompi-shm && has mpi-ompi-shm && ratios="$ratios,mpi-ompi-shm=base-ompi-shm"
# The verdicts: each MPI build (and BASE_OMPI's) against IMB-MPI1 on its library.
verdicts=""
for v in mpi-ompi-shm=imb-ompi-shm mpi-mpich-shm=imb-mpich-shm base-ompi-shm=imb-ompi-shm; do
	has "${v%=*}" && has "${v#*=}" && verdicts="$verdicts,$v"
done
vbench=$(echo ${VERDICT_BENCH:-Uniband Biband} | tr ' ' ,)
if [ -n "${verdicts}" ]; then
	judged=""
	for v in ${vbench//,/ }; do case " $BENCHMARKS " in *" $v "*) judged="$judged $v" ;; esac; done
	[ -n "$judged" ] || log "no verdicts: BENCHMARKS has none of VERDICT_BENCH ($vbench); add them to BENCHMARKS, or set VERDICT_BENCH"
fi
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), NP $NP, MSGLOG $MSGLOG, TIME $TIME, $ROUNDS rounds after a warm-up; outputs in $OUT"
cd "$here" && go run ./bench/imbtable -dir "$OUT" -configs "$cfg" -ratios "${ratios#,}" -step 3 -paired \
	-verdict "${verdicts#,}" -verdict-bench "$vbench" -verdict-from "${VERDICT_FROM:-1024}" -tolerance "$tol"
