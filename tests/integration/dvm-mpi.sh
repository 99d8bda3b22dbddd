#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# MPI in one DVM (hnp --dvm) on 8 simulated nodes of 4 slots: MPICH through
# pmi simple and Open MPI through pmi pmix (a namespace a job), each across
# every slot; then 24 jobs of 1 to 32 ranks (MPICH, Open MPI, shell) from 4
# clients at once, side by side where they fit: every rank's line and
# every status right, nothing of a job left once its client has returned;
# MPI_Abort ending its job alone, an MPICH job on every slot after
# MPICH's; nothing at all after --dvm-stop. The programs are compiled
# once. Each MPI is skipped where it is missing. HNP_TEST_DVM_MPI_NODES
# and HNP_TEST_DVM_MPI_JOBS ask for more (16 and 300: 1 to 64 ranks).
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

kinds=(shell)
if command -v mpicc.mpich >/dev/null; then
    mpicc.mpich -O2 -o "$tmp/mpich_ring" "$top_srcdir/tests/mpi/mpi_ring.c" || fail "mpicc.mpich failed"
    kinds+=(mpich)
else
    echo "note: MPICH's mpicc.mpich is missing: no MPICH job"
fi
if why=$(ompi_missing); then
    echo "note: $why: no Open MPI job"
else
    mpicc.openmpi -O2 -o "$tmp/ompi_ring" "$top_srcdir/tests/mpi/mpi_ring.c" || fail "mpicc.openmpi failed"
    kinds+=(ompi)
fi
[ "${#kinds[@]}" -gt 1 ] || skip "neither MPICH nor Open MPI is installed"
export UCX_TLS=sm,self   # as mpi.sh: MPICH's UCX on simulated nodes
nodes=${HNP_TEST_DVM_MPI_NODES:-8}
jobs=${HNP_TEST_DVM_MPI_JOBS:-24}
slots=$((4 * nodes))
uri="$tmp/dvm.uri"
timeout -k 5 300 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts "$nodes"):4" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }

# run_job KIND NP TAG OUT: one job of NP ranks, its output in OUT; prints
# nothing, returns the client's status. TAG marks its processes.
run_job() {
    local kind=$1 np=$2 tag=$3 out=$4
    case $kind in
    mpich) timeout -k 5 300 "$HNP" --dvm-uri "$uri" -q -n "$np" "$tmp/mpich_ring" "$tag" ;;
    ompi) timeout -k 5 300 "$HNP" --dvm-uri "$uri" -q "${OMPI_X[@]}" -n "$np" "$tmp/ompi_ring" "$tag" ;;
    shell) timeout -k 5 300 "$HNP" --dvm-uri "$uri" -q -n "$np" sh -c 'echo "rank $HNP_RANK of $HNP_SIZE: shell ok"' "$tag" ;;
    esac >"$out" 2>"$out.err"
}

# check_job KIND NP TAG OUT STATUS: every rank's line, status 0, and none
# of its processes left.
check_job() {
    local np=$2 tag=$3 out=$4 sum=$(($2 * ($2 - 1) / 2)) want
    [ "$5" = 0 ] || { cat "$out" "$out.err"; echo "FAIL: $1 job $tag of $np ranks: status $5"; return 1; }
    if [ "$1" = shell ]; then want="of $np: shell ok"; else want="of $np: ring ok, allreduce $sum ok"; fi
    [ "$(grep -c "$want" "$out")" = "$np" ] ||
        { cat "$out" "$out.err"; echo "FAIL: $1 job $tag of $np ranks: not every rank's line"; return 1; }
    if pgrep -f -- "$tag\$" >/dev/null; then
        echo "FAIL: $1 job $tag: processes left after its client returned"; return 1
    fi
}

# ---------------------------------------------- each MPI on every slot
for kind in "${kinds[@]}"; do
    status=0; run_job "$kind" "$slots" "${prefix}-one-$kind" "$tmp/one.out" || status=$?
    check_job "$kind" "$slots" "${prefix}-one-$kind" "$tmp/one.out" "$status" || fail "$slots ranks of $kind"
done

# ------------------------------------------------- the jobs, 4 clients
# Every kind meets every size (7 sizes, 3 kinds: 21 pairs in 24 jobs):
# one rank, one node, a few nodes, most, every slot.
sizes=(1 2 3 5 8 12 "$slots")
client() { # C: jobs C, C+4, C+8, ...
    local i kind np status
    for i in $(seq "$1" 4 $((jobs - 1))); do
        kind=${kinds[$((i % ${#kinds[@]}))]}
        np=${sizes[$((i % ${#sizes[@]}))]}
        status=0; run_job "$kind" "$np" "${prefix}-j$i" "$tmp/j$i.out" || status=$?
        check_job "$kind" "$np" "${prefix}-j$i" "$tmp/j$i.out" "$status" >>"$tmp/failures" 2>&1 || true
    done
}
started=$SECONDS
for c in 0 1 2 3; do client "$c" & done
wait
echo "$jobs jobs on $nodes nodes in $((SECONDS - started)) s"
[ -s "$tmp/failures" ] && { head -50 "$tmp/failures"; fail "$(grep -c '^FAIL' "$tmp/failures") of $jobs jobs wrong"; }
# ------------------------------------------------- MPI_Abort
# MPI_Abort(MPI_COMM_WORLD, 7) in rank 1: its client exits 7, its ranks
# go; then a job of the same MPI on every slot, the aborted job's nodes
# among them, runs right. Open MPI's, three times: its ranks are killed
# before their daemon has read their connections' end, and a daemon that
# deregistered them one by one left libpmix unable to read the next
# job's connections on those descriptors (the next job hung in MPI_Init,
# 1 run in 6).
abort_job() { # KIND
    local x=()
    [ "$1" = ompi ] && x=("${OMPI_X[@]}")
    run_hnp --dvm-uri "$uri" "${x[@]}" -N 2 "$tmp/${1}_ring" abort 1 7 "${prefix}-abort-$1"
    expect_status 7 "MPI_Abort in a $1 job"
    expect_in "$tmp/err" "rank 1 on node .* called abort with exit code 7" "the abort reported"
    for _ in $(seq 50); do pgrep -f -- "${prefix}-abort-$1\$" >/dev/null || return 0; sleep 0.1; done
    fail "ranks of the aborted $1 job left"
}
abort_then_job() { # KIND
    abort_job "$1"
    status=0; run_job "$1" "$slots" "${prefix}-after" "$tmp/after.out" || status=$?
    check_job "$1" "$slots" "${prefix}-after" "$tmp/after.out" "$status" ||
        fail "a $1 job after an MPI_Abort"
}
[[ " ${kinds[*]} " == *" mpich "* ]] && abort_then_job mpich
if [[ " ${kinds[*]} " == *" ompi "* ]]; then
    for _ in 1 2 3; do abort_then_job ompi; done
fi

run_hnp --dvm-uri "$uri" --dvm-stop
expect_status 0 "--dvm-stop"
assert_no_leftovers "$jobs jobs and --dvm-stop"
assert_no_files_left "$jobs jobs and --dvm-stop"
echo "PASS"
