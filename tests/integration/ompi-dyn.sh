#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's dynamic processes beyond one MPI_Comm_spawn
# (tests/mpi/ompi_dyn.c), standalone and in a DVM:
# - MPI_Comm_spawn_multiple of two programs with their own arguments and
#   each its own host: each child runs on its command's node with its
#   command's program and arguments;
# - children (a job of 2) that spawn grandchildren (a job of 2);
# - two jobs spawned apart that meet through MPI_Publish_name and
#   MPI_Lookup_name, connect, send a message each way and disconnect,
#   all on one node (whose daemon registers each one's namespace for the
#   other and for the parent) and on two;
# - --timing's line for a spawn: request received, children started,
#   connected;
# - in a DVM, a submitted MPMD job whose contexts have their own hosts.
# Skipped where the pmix component or Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_dyn
prog="$tmp/ompi_dyn"
other="$tmp/ompi_dyn_other"
cp "$prog" "$other"

# multiple_ok WHAT: 2 children "alpha 1" of ompi_dyn on node 2, one
# "beta 2 3" of ompi_dyn_other on node 3.
multiple_ok() {
    expect_status 0 "$1"
    expect_in "$tmp/out" "^parent: spawn_multiple, 3 answered right$" "$1"
    [ "$(grep -c "^multiple child [01] of 3: ompi_dyn alpha 1 on ${prefix}n2$" "$tmp/out")" = 2 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$1: not 2 children of the first command on node 2"; }
    [ "$(grep -c "^multiple child 2 of 3: ompi_dyn_other beta 2 3 on ${prefix}n3$" "$tmp/out")" = 1 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$1: the second command's child is not on node 3"; }
}

# The parent on node 1, one rank on each node so that each runs a daemon.
run_hnp "${OMPI_X[@]}" --timing -N 1 --host "$(hosts 3):4" "$prog" multiple "$other" "${prefix}n2" "${prefix}n3"
multiple_ok "spawn_multiple with hosts per command"
# --timing: the spawn's line, its moments in order (request received,
# children started, connected: the connect spans the three daemons)
timing_ok() { # JOB PARENT WHAT
    local line
    line=$(grep "^hnp: timing of the spawn of job $1 by rank 0 of job $2, 3 processes on 2 nodes: request received at [0-9.]* s; since then, children started [0-9.]* s, connected [0-9.]* s$" "$tmp/err") ||
        { cat "$tmp/err"; fail "$3: no timing line for the spawn"; }
    echo "$line" | awk '{ s = $(NF - 4); c = $(NF - 1); exit !(s + 0 > 0 && c + 0 >= s + 0) }' ||
        fail "$3: children connected before they started: $line"
}
timing_ok 2 1 "--timing of a spawn"

run_hnp "${OMPI_X[@]}" -N 1 --host "$(hosts 2):4" "$prog" grand 2 2
expect_status 0 "grandchildren"
expect_in "$tmp/out" "^parent: grand, 2 children answered right$" "grandchildren"
[ "$(grep -c "^grandchild [01]: answered$" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out"; fail "not 2 grandchildren answered"; }

# On one node; then A on node 1 and B on node 2 (the parent's rank 1,
# idle, gives node 2 its daemon).
for where in "${prefix}n1:4" "$(hosts 2):2"; do
    run_hnp "${OMPI_X[@]}" -N 1 --host "$where" "$prog" pair
    expect_status 0 "two spawned jobs connecting ($where)"
    expect_in "$tmp/out" "^pair server: got 42 ok$" "the accepting job ($where)"
    expect_in "$tmp/out" "^pair client: got 43 ok$" "the connecting job ($where)"
    expect_in "$tmp/out" "^parent: pair, 2 answered right$" "the parent of the pair ($where)"
done
assert_no_leftovers "Open MPI's dynamic processes"
assert_no_files_left "Open MPI's dynamic processes"

# ------------------------------------------------------------------- DVM
uri="$tmp/dvm.uri"
timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 3):4" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }
# A submitted MPMD job whose app contexts name their own hosts: each on
# its own (the DVM once placed every context on the first's hosts).
run_hnp --dvm-uri "$uri" -n 1 --host "${prefix}n2" sh -c 'echo "first $(hostname)"' : \
    -n 1 --host "${prefix}n3" sh -c 'echo "second $(hostname)"'
expect_status 0 "an MPMD job of a DVM with hosts per context"
expect_in "$tmp/out" "^first ${prefix}n2$" "an MPMD job of a DVM: the first context"
expect_in "$tmp/out" "^second ${prefix}n3$" "an MPMD job of a DVM: the second context"
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" --timing -n 1 "$prog" multiple "$other" "${prefix}n2" "${prefix}n3"
multiple_ok "spawn_multiple with hosts per command in a DVM"
timing_ok 3 2 "--timing of a spawn in a DVM" # job 1: the MPMD job above
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -n 1 "$prog" grand 2 1
expect_status 0 "grandchildren in a DVM"
expect_in "$tmp/out" "^parent: grand, 2 children answered right$" "grandchildren in a DVM"
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -n 1 "$prog" pair
expect_status 0 "two spawned jobs connecting in a DVM"
expect_in "$tmp/out" "^parent: pair, 2 answered right$" "two spawned jobs connecting in a DVM"
run_hnp --dvm-uri "$uri" --dvm-stop
assert_no_leftovers "Open MPI's dynamic processes in a DVM"
assert_no_files_left "Open MPI's dynamic processes in a DVM"
