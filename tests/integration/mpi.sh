#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# MPI programs built against an unmodified MPICH run under hnp: they find
# their peers through the PMI wire protocol the daemons serve, the fences
# going through either exchange component.
. "$top_srcdir/tests/integration/lib.sh"

command -v mpicc.mpich >/dev/null || skip "MPICH's mpicc.mpich is not installed (contrib/install-deps.sh installs it)"
mpicc.mpich -O2 -o "$tmp/mpi_ring" "$top_srcdir/tests/mpi/mpi_ring.c" || fail "mpicc.mpich failed"
# UCX, under MPICH, sometimes finds "no such device" when dozens of
# processes start on this machine at once; its shared-memory transport is
# all the simulated nodes need.
export UCX_TLS=sm,self

# check_run NP WHAT: every rank reports its ring and allreduce correct.
check_run() {
    local np=$1 sum=$(($1 * ($1 - 1) / 2))
    expect_status 0 "$2"
    [ "$(grep -c "ring ok, allreduce $sum ok" "$tmp/out")" = "$np" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$2: not every rank got the right results"; }
}

run_hnp -n 1 "$tmp/mpi_ring" "$prefix"
check_run 1 "1 process"
run_hnp -n 4 --host "${prefix}n1:4" "$tmp/mpi_ring" "$prefix"
check_run 4 "4 processes on 1 node"
for exchange in gather_scatter flood; do
    run_hnp --mca exchange "$exchange" -N 4 --host "$(hosts 16)" "$tmp/mpi_ring" "$prefix"
    check_run 64 "64 processes on 16 nodes, exchange $exchange"
done
assert_no_leftovers "MPI jobs"

# MPI_Abort(MPI_COMM_WORLD, 7) in rank 1: hnp exits 7 and kills the rest.
run_hnp -N 2 --host "$(hosts 2)" "$tmp/mpi_ring" abort 1 7 "$prefix"
expect_status 7 "MPI_Abort"
expect_in "$tmp/err" "rank 1 on node ${prefix}n1 called abort with exit code 7" "abort reported"
assert_no_leftovers "MPI_Abort"
echo "PASS"
