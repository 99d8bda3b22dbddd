#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's MPI_Comm_spawn under hnp (tests/mpi/ompi_spawn.c): the parent
# spawns 1 and N children on its node, across nodes (children where the
# parent has no rank: their namespace registered on the parent's daemon
# for the connect) and on 3 nodes; each side sends a message and gets it
# back, then all disconnect. A spawn of a program that is not there
# returns MPI_ERR_SPAWN to the parent at once, hnp names the cause, and
# nothing is left behind. mpi4py's MPIPoolExecutor(max_workers=3).map
# across 2 nodes and "python3 -m mpi4py.futures script.py" on 2 nodes
# (where Debian's python3-mpi4py is installed), and a
# spawn inside a DVM. Skipped where the pmix component or Open MPI is
# missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn
prog="$tmp/ompi_spawn"

# spawned_ok N WHAT: the parent and its N children each got their answer.
spawned_ok() {
    expect_status 0 "$2"
    expect_in "$tmp/out" "^\[1,0\]<stdout>:parent: $1 children, $1 answered right$" "$2"
    [ "$(grep -c "^\[2,[0-9]*\]<stdout>:child [0-9]* of $1 on ${prefix}n[0-9]*: got [0-9]* ok$" "$tmp/out")" = "$1" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$2: not $1 children answered"; }
}
# children_on NODE COUNT WHAT
children_on() {
    [ "$(grep -c "child .* on ${prefix}n$1: got" "$tmp/out")" = "$2" ] ||
        { cat "$tmp/out"; fail "$3: not $2 children on node $1"; }
}

run_hnp "${OMPI_X[@]}" --tag-output -n 1 --host "${prefix}n1:2" "$prog" 1
spawned_ok 1 "1 child on the parent's node"
run_hnp "${OMPI_X[@]}" --tag-output -n 1 --host "${prefix}n1:4" "$prog" 3
spawned_ok 3 "3 children on the parent's node"
# Two parent ranks, one a node; the children on node 2 alone, where
# parent rank 1 is, and then on node 1 alone: node 1's daemon (then node
# 2's) hosts parents only and must know the children's namespace.
run_hnp "${OMPI_X[@]}" --tag-output -N 1 --host "${prefix}n1:1,${prefix}n2:3" "$prog" 2
spawned_ok 2 "2 children on the other node"
children_on 2 2 "2 children on the other node"
run_hnp "${OMPI_X[@]}" --tag-output -N 1 --host "${prefix}n1:3,${prefix}n2:1" "$prog" 2 "${prefix}n1"
spawned_ok 2 "2 children on host ${prefix}n1"
children_on 1 2 "2 children on host ${prefix}n1"
run_hnp "${OMPI_X[@]}" --tag-output -N 2 --host "$(hosts 3):4" "$prog" 6
spawned_ok 6 "6 children on 3 nodes"
for n in 1 2 3; do children_on "$n" 2 "6 children on 3 nodes"; done
assert_no_leftovers "Open MPI spawns"
assert_no_files_left "Open MPI spawns"

# A missing program: MPI_Comm_spawn returns MPI_ERR_SPAWN, hnp says why.
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2" "$prog" missing
expect_status 0 "a spawn of a missing program"
expect_in "$tmp/out" "^spawn of a missing program: failed" "a spawn of a missing program"
expect_in "$tmp/err" "the spawn of rank 0 of job 1 failed: no such program: ./no-such-program-here" \
    "a spawn of a missing program"
assert_no_leftovers "a spawn of a missing program"

# ---------------------------------------------------------------- mpi4py
if /usr/bin/python3 -c 'import mpi4py.futures' 2>/dev/null; then
    run_hnp "${OMPI_X[@]}" -N 1 --host "${prefix}n1:2,${prefix}n2:3" \
        /usr/bin/python3 "$top_srcdir/tests/integration/spawn-pool.py"
    expect_status 0 "MPIPoolExecutor(max_workers=3).map"
    expect_in "$tmp/out" "^squares 0 1 4 9 16 25 36 49 64 81 100 121$" "MPIPoolExecutor's results"
    expect_in "$tmp/out" "^worker nodes 2$" "MPIPoolExecutor's workers on 2 nodes"
    assert_no_leftovers "MPIPoolExecutor"
    # "python3 -m mpi4py.futures script.py": rank 0 runs the script, the
    # job's other 3 processes (on 2 nodes) are its pool. (mpi4py 3.1's
    # -m mpi4py.futures never spawns: with one process its pool is a
    # thread of rank 0.)
    run_hnp "${OMPI_X[@]}" -N 2 --host "$(hosts 2):2" /usr/bin/python3 -m mpi4py.futures \
        "$top_srcdir/tests/integration/futures-script.py" 3
    expect_status 0 "python3 -m mpi4py.futures"
    expect_in "$tmp/out" "^script squares 0 1 4 9 16 25 36 49 64 81 100 121 144 169 196 225 256 289 324 361 400 441 484 529$" \
        "python3 -m mpi4py.futures's results"
    expect_in "$tmp/out" "^script workers 3 nodes 2$" "python3 -m mpi4py.futures's 3 workers on 2 nodes"
    assert_no_leftovers "python3 -m mpi4py.futures"
    # Debian ships none of mpi4py's demo programs (python3-mpi4py and
    # python-mpi4py-doc 3.1.4 hold the module and HTML only)
    ls -d /usr/share/doc/python*-mpi4py*/demo* >/dev/null 2>&1 ||
        echo "note: no mpi4py demo programs installed (Debian ships none): not run"
else
    echo "note: Debian's python3-mpi4py is not installed: no MPIPoolExecutor test"
fi

# ------------------------------------------------------------------- DVM
uri="$tmp/dvm.uri"
timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 2):2" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -N 1 "$prog" 2
expect_status 0 "2 children in a DVM"
expect_in "$tmp/out" "^parent: 2 children, 2 answered right$" "2 children in a DVM"
run_hnp --dvm-uri "$uri" --dvm-stop
assert_no_leftovers "Open MPI spawns in a DVM"
assert_no_files_left "Open MPI spawns in a DVM"
