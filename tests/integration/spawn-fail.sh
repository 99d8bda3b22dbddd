#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A failed MPI_Comm_spawn of Open MPI (tests/mpi/ompi_spawn.c) in a parent
# job of several ranks: Open MPI 4 returns the error to the spawn's root
# alone, and its other ranks wait for the root in the spawn's
# connect/accept forever (mpirun.openmpi hangs the same way). hnp ends
# such a job at once, naming the cause and why the job ends: a
# program that is not there (collective over MPI_COMM_WORLD, two ranks on
# one node), a host outside the allocation (three ranks over two nodes),
# and a node whose daemon cannot start. Nothing is left behind. Skipped where the pmix component
# or Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn
prog="$tmp/ompi_spawn"

# ended OTHERS CAUSE WHAT: hnp named the cause and ended job 1, whose
# OTHERS other ranks would have waited forever, with an error.
ended() {
    expect_status 255 "$3"
    expect_in "$tmp/err" "the spawn of rank 0 of job 1 failed: $2" "$3"
    expect_in "$tmp/err" "job 1 ends: Open MPI 4 tells the failure of the MPI_Comm_spawn of its rank 0 to that rank alone: the job's $1 other ranks\{0,1\} would wait" "$3"
    assert_no_leftovers "$3"
}

run_hnp "${OMPI_X[@]}" -n 2 --host "${prefix}n1:2" "$prog" missing-all
ended 1 "no such program: ./no-such-program-here" "a collective spawn of a missing program"
run_hnp "${OMPI_X[@]}" -n 3 --host "${prefix}n1:2,${prefix}n2:1" "$prog" 1 "${prefix}n3"
ended 2 "host ${prefix}n3 is not in the allocation" "a collective spawn onto a host outside the allocation"
HNP_AGENT_DOWN="${prefix}n3" run_hnp --mca plm_rsh_retries 1 "${OMPI_X[@]}" \
    -n 2 --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:2" "$prog" 1 "${prefix}n3"
ended 1 "the daemon for node ${prefix}n3 (vpid 3) could not be started" \
    "a collective spawn onto a node whose daemon cannot start"
assert_no_files_left "failed collective spawns"
