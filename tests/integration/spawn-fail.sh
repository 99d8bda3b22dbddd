#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A failed MPI_Comm_spawn of Open MPI (tests/mpi/ompi_spawn.c) in a parent
# job of several ranks: Open MPI 4 returns the error to the spawn's root
# alone, and its other ranks wait for the root in the spawn's
# connect/accept forever (mpirun.openmpi hangs the same way). hnp ends
# such a job at once, naming the cause and why the job ends: a
# program that is not there (collective over MPI_COMM_WORLD, two ranks on
# one node), a host outside the allocation (three ranks over two nodes),
# a node whose daemon cannot start, and in a DVM, which ends that job
# alone and takes the next. Nothing is left behind. Skipped where the pmix component
# or Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn
prog="$tmp/ompi_spawn"

# ended OTHERS CAUSE WHAT: hnp named the cause and ended job 1, whose
# OTHERS other ranks would have waited forever, with an error.
ended() {
    expect_status 1 "$3"
    expect_in "$tmp/err" "the spawn of rank 0 of job 1 failed: $2" "$3"
    expect_in "$tmp/err" "rank 0 on node ${prefix}n1 called abort with exit code 1: hnp ends job 1 for it: its MPI_Comm_spawn failed, and Open MPI 4 tells that to the spawn's root alone: the job's $1 other ranks\{0,1\} would wait" "$3"
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

# A DVM ends that job alone and runs the next.
uri="$tmp/dvm.uri"
timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 2):2" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -N 1 "$prog" missing-all
expect_status 1 "a failed collective spawn in a DVM"
expect_in "$tmp/err" "called abort with exit code 1: hnp ends job [0-9]* for it: its MPI_Comm_spawn failed" \
    "a failed collective spawn in a DVM"
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -n 1 "$prog" 1
expect_status 0 "a spawn in the DVM after a failed one"
expect_in "$tmp/out" "^parent: 1 children, 1 answered right$" "a spawn in the DVM after a failed one"
run_hnp --dvm-uri "$uri" --dvm-stop
assert_no_leftovers "failed collective spawns in a DVM"
assert_no_files_left "failed collective spawns in a DVM"
