#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A rank of an MPI program killed by a signal after MPI_Init (a segfault,
# the OOM killer's SIGKILL) is reported by its signal, and hnp returns 128 +
# the signal, for MPICH and Open MPI programs alike: how the rank died comes
# first, that it had not called MPI_Finalize is a detail.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

# expect_signal MPI WHAT SIGNAL STATUS NAME ARGS...
expect_signal() {
    local mpi=$1 what=$2 signal=$3 want=$4 name=$5
    shift 5
    run_hnp --host "${prefix}n[1-2]:2" -n 4 "$@" "$tmp/mpi_die.$mpi" "$what" 2 "$prefix"
    [ "$status" = "$want" ] ||
        { cat "$tmp/err"; fail "$mpi rank with $what: status $status, not $want"; }
    expect_in "$tmp/err" "rank 2 (pid [0-9]*) on node ${prefix}n2 was killed by signal $signal ($name)" \
        "$mpi rank with $what named by its signal"
    assert_no_leftovers "$mpi rank with $what"
}

ran=0
if command -v mpicc.mpich >/dev/null; then
    mpicc.mpich -O0 -o "$tmp/mpi_die.mpich" "$top_srcdir/tests/mpi/mpi_die.c" ||
        fail "mpicc.mpich failed"
    export UCX_TLS=sm,self
    expect_signal mpich segv 11 139 "Segmentation fault"
    expect_signal mpich kill 9 137 "Killed"
    ran=1
fi
if ! ompi_missing >/dev/null; then
    mpicc.openmpi -O0 -o "$tmp/mpi_die.ompi" "$top_srcdir/tests/mpi/mpi_die.c" ||
        fail "mpicc.openmpi failed"
    expect_signal ompi segv 11 139 "Segmentation fault" "${OMPI_X[@]}"
    expect_signal ompi kill 9 137 "Killed" "${OMPI_X[@]}"
    ran=1
fi
[ "$ran" = 1 ] || skip "neither mpicc.mpich nor an Open MPI with this hnp's pmix component"
echo "PASS"
