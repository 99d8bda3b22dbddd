#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# plm_base_daemons_on_all_nodes: a standalone hnp starts a daemon on every
# node of the allocation, also where its job has no rank, as Open MPI's
# mpirun does, so that an Open MPI parent (tests/mpi/ompi_spawn.c) of one
# rank on node 1 spawns children onto node 2: by "host", by "add-host",
# and with no host (the free slots of both nodes, one job over the
# parent's daemon and the other); each side sends a message and gets it
# back, all disconnect, nothing is left behind; MPICH's PMI-1 and PMI-2
# spawns (at the protocol) likewise. (Without the parameter the daemon
# is started when a spawn names the node: spawn-grow.sh.) A node whose
# daemon cannot start ends the launch, naming it. Skipped where the pmix
# component or Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn
prog="$tmp/ompi_spawn"
all=(--mca plm_base_daemons_on_all_nodes 1)

# spawned_ok N WHAT: the parent and its N children each got their answer.
spawned_ok() {
    expect_status 0 "$2"
    expect_in "$tmp/out" "^parent: $1 children, $1 answered right$" "$2"
    [ "$(grep -c "^child [0-9]* of $1 on ${prefix}n[0-9]*: got [0-9]* ok$" "$tmp/out")" = "$1" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$2: not $1 children answered"; }
}
# children_on NODE COUNT WHAT
children_on() {
    [ "$(grep -c "child .* on ${prefix}n$1: got" "$tmp/out")" = "$2" ] ||
        { cat "$tmp/out"; fail "$3: not $2 children on node $1"; }
}

run_hnp "${all[@]}" "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    "$prog" 2 "${prefix}n2"
spawned_ok 2 "2 children on the node without ranks"
children_on 2 2 "2 children on the node without ranks"
# The same from the HNP's own loop over the nodes (plm rsh; prsh, the
# default here, starts daemons along a tree).
run_hnp "${all[@]}" --mca plm rsh "${OMPI_X[@]}" -n 1 \
    --host "${prefix}n1:2,${prefix}n2:2" "$prog" 2 "${prefix}n2"
spawned_ok 2 "2 children on the node without ranks, plm rsh"
children_on 2 2 "2 children on the node without ranks, plm rsh"
run_hnp "${all[@]}" "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    "$prog" 1 "${prefix}n2" add-host
spawned_ok 1 "add-host of the node without ranks"
children_on 2 1 "add-host of the node without ranks"
# No host: the free slots in mapping order, 1 on node 1, 2 on node 2.
run_hnp "${all[@]}" "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" "$prog" 3
spawned_ok 3 "3 children over both nodes"
children_on 1 1 "3 children over both nodes"
children_on 2 2 "3 children over both nodes"
# A parent over two nodes, whose all-gathers the idle third node's
# daemon joins, spawns onto that node.
run_hnp "${all[@]}" "${OMPI_X[@]}" -n 2 --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:2" \
    "$prog" 2 "${prefix}n3"
spawned_ok 2 "a parent on 2 nodes, 2 children on a third"
children_on 3 2 "a parent on 2 nodes, 2 children on a third"
# A job that spawns nothing ends as usual, its idle daemon with it.
run_hnp "${all[@]}" -n 1 --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:1" /bin/echo alone
expect_status 0 "a job beside idle daemons"
expect_in "$tmp/out" "^alone$" "a job beside idle daemons"
assert_no_leftovers "spawns onto nodes without ranks"
assert_no_files_left "spawns onto nodes without ranks"

# MPICH's spawn at the protocol (tests/pmi/pmi_dyn, as in pmi-spawn.sh):
# PMI-1 and PMI-2, info "host" naming node 2, where the parent has no
# rank.
dyn="$top_builddir/tests/pmi/pmi_dyn"
wdir="$tmp/wdir"
mkdir -p "$wdir"
cd "$tmp"
for v in 1 2; do
    run_hnp "${all[@]}" --tag-output -n 1 --host "${prefix}n1:3,${prefix}n2:4" \
        "$dyn" "spawn$v" "$dyn" "$wdir" "${prefix}n2"
    expect_status 0 "PMI-$v spawn onto the node without ranks"
    expect_in "$tmp/out" "^\[1,0\]<stdout>:parent: spawn$v ok$" "PMI-$v spawn onto the node without ranks"
    [ "$(grep -c "^\[2,[01]\]<stdout>:child [01] appnum 0 node ${prefix}n2 cwd $wdir: spawned ok$" "$tmp/out")" = 2 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "PMI-$v: not 2 children on ${prefix}n2"; }
    ! grep -q "FAIL" "$tmp/out" || { cat "$tmp/out"; fail "PMI-$v: a check failed"; }
done
assert_no_leftovers "PMI spawns onto the node without ranks"

# A node without ranks whose daemon cannot start: the launch fails,
# naming it, as for any node of the job.
HNP_AGENT_DOWN="${prefix}n2" run_hnp "${all[@]}" --mca plm_rsh_retries 1 -n 1 \
    --host "${prefix}n1:1,${prefix}n2:1" /bin/echo never
[ "$status" != 0 ] || fail "a launch with a node down succeeded"
expect_in "$tmp/err" "the daemon for node ${prefix}n2 (vpid 2) could not be started" \
    "a node without ranks that is down"
assert_no_leftovers "a node without ranks that is down"
