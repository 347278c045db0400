#!/bin/bash
# Does this host's MPICH hang in MPI_Finalize on UCX's TCP transport?
#
# MPICH 3.4-4.1 (ch4:ucx) disconnects its UCX endpoints in MPI_Finalize and
# then waits in a PMI barrier. Flushing a UCX TCP endpoint that has sent
# anything needs the peer to answer (a PUT acknowledgement), which it does
# only while it makes progress: a rank that answered its peer before its own
# disconnect, and then got through its own, blocks in the barrier, and the
# peer spins for ever waiting for its answer. finalize.c makes that order
# likely: rank 1 receives rank 0's last message late, together with rank
# 0's flush. Two ranks on this host, no testbed, no launch agent.
#
# Usage: bench/mpichfinalize/run.sh   (RUNS=10 DELAYS="0 200" LIMIT=15)
# Prints, per delay, how many of RUNS jobs were still in MPI_Finalize after
# LIMIT seconds, and for the first such job each rank's state and the
# bytes left unread on its TCP sockets.
set -u
RUNS=${RUNS:-10}
DELAYS=${DELAYS:-"0 200"}
LIMIT=${LIMIT:-15}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/mpichfinalize.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mpicc.mpich -O2 -o "$tmp/finalize" "$here/finalize.c" || exit 2
echo "# $(mpiexec.mpich --version | awk '/Version:/ {print "MPICH", $2; exit}'), UCX_TLS=tcp,self, $RUNS runs per delay, a job still running after $LIMIT s counts as hung; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for d in $DELAYS; do
    hung=0
    for i in $(seq "$RUNS"); do
        UCX_TLS=tcp,self mpiexec.mpich -n 2 "$tmp/finalize" "$d" >"$tmp/out" 2>&1 &
        job=$!
        for _ in $(seq $((LIMIT * 10))); do
            kill -0 $job 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 $job 2>/dev/null; then
            hung=$((hung + 1))
            ranks=$(pgrep -f "^$tmp/finalize")
            if [ $hung -eq 1 ]; then
                for p in $ranks; do
                    r=$(tr '\0' '\n' </proc/$p/environ | sed -n 's/^PMI_RANK=//p')
                    echo "#   delay $d, run $i: rank $r state $(awk '{print $3}' /proc/$p/stat), in $(cat /proc/$p/wchan), cpu $(awk '{print $14 + $15}' /proc/$p/stat) ticks, unread bytes on its TCP sockets: $(ss -tnp | awk -v p="pid=$p," 'index($0, p) {printf "%s ", $2}')"
                done
            fi
            kill -KILL $job $ranks $(pgrep -f "^/usr/bin/hydra_pmi_proxy .*--control-port" -P $job) 2>/dev/null
        fi
        wait $job 2>/dev/null
    done
    echo "delay ${d} ms: $hung of $RUNS jobs hung in MPI_Finalize"
done
