#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's MPI_Comm_spawn with the "add-host" and "add-hostfile" info
# keys (PMIX_ADD_HOST, PMIX_ADD_HOSTFILE; tests/mpi/ompi_spawn.c): the
# added nodes are where the children go, standalone and in a DVM, each
# side sends a message and gets it back, all disconnect. A node of the
# allocation without a daemon that add-host names gets one first (as for
# PMIX_HOST: spawn-grow.sh); one named by add-hostfile, or outside the
# allocation, is refused at once: the spawn returns an error to the
# parent, which goes on, and hnp names the node. Nothing is left behind. Skipped where the pmix component or Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn
prog="$tmp/ompi_spawn"

# added_ok N NODE WHAT: the parent and its N children, all on NODE, each
# got their answer.
added_ok() {
    expect_status 0 "$3"
    expect_in "$tmp/out" "parent: $1 children, $1 answered right$" "$3"
    [ "$(grep -c "child [0-9]* of $1 on ${prefix}n$2: got [0-9]* ok$" "$tmp/out")" = "$1" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$3: not $1 children on node $2"; }
}
# refused NODE KEY WHAT: the spawn failed at once, the parent went on,
# and hnp named the node and the key that added it.
refused() {
    expect_status 0 "$3"
    expect_in "$tmp/out" "parent: spawn failed" "$3"
    expect_in "$tmp/err" "the spawn of rank 0 of job [0-9]* failed: cannot add node ${prefix}n$1 ($2) to the .*: it runs no daemon" "$3"
}

# Standalone: a rank on each node (-N 1), the children on the node added.
run_hnp "${OMPI_X[@]}" -N 1 --host "${prefix}n1:1,${prefix}n2:3" \
    "$prog" 2 "${prefix}n2" add-host
added_ok 2 2 "add-host ${prefix}n2"
# The same from a hostfile, named from the parent's directory.
printf '%s slots=3\n' "${prefix}n2" >"$tmp/added"
run_hnp "${OMPI_X[@]}" -N 1 --host "${prefix}n1:1,${prefix}n2:3" \
    --wdir "$tmp" "$prog" 2 added add-hostfile
added_ok 2 2 "add-hostfile naming ${prefix}n2"
# A node of the allocation where no rank, hence no daemon, is: add-host
# has its daemon started; add-hostfile does not (refused), nor add-host
# of a node outside the allocation.
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    "$prog" 1 "${prefix}n2" add-host
added_ok 1 2 "add-host of a node of the allocation without a daemon"
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    "$prog" 1 "${prefix}n3" add-host
refused 3 PMIX_ADD_HOST "add-host of a node outside the allocation"
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    "$prog" 1 "$tmp/added" add-hostfile
refused 2 PMIX_ADD_HOSTFILE "add-hostfile of a node without a daemon"
assert_no_leftovers "spawns with add-host"
assert_no_files_left "spawns with add-host"

# A DVM over 2 nodes: the parent on node 1, its children on node 2.
uri="$tmp/dvm.uri"
timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 2):2" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -n 1 --host "${prefix}n1" \
    "$prog" 2 "${prefix}n2" add-host
added_ok 2 2 "add-host ${prefix}n2 in a DVM"
# A node the DVM does not hold.
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -n 1 "$prog" 1 "${prefix}n3" add-host
refused 3 PMIX_ADD_HOST "add-host of a node outside the DVM"
run_hnp --dvm-uri "$uri" --dvm-stop
assert_no_leftovers "spawns with add-host in a DVM"
