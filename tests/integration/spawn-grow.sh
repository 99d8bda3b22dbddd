#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A standalone hnp starts daemons where its job has ranks; a spawn onto a
# node of the allocation without one has a daemon started there first,
# which joins the running runtime (as Open MPI's mpirun does): an Open MPI
# parent (tests/mpi/ompi_spawn.c) of one rank on node 1 spawns children
# onto node 2 with plm prsh and rsh, with no host onto the nodes after
# its own when its node is full, a parent over two nodes onto nodes 3
# and 4 (whose routing parents are daemons, not the HNP); each side sends
# a message and gets it back, all disconnect, nothing is left behind.
# --timing counts such a spawn from its request, the daemon's start in it.
# MPICH's PMI-1 and PMI-2 spawns (at the protocol) with info "host"
# naming a node without a daemon likewise. A daemon that cannot start
# fails that spawn alone, at once, naming the node, and the job goes on;
# so does one whose agent hangs, after plm_base_launch_timeout. The same
# under exchange flood, named or chosen by itself: children on one and on
# two added nodes, a daemon that cannot start, and a parent of 257 ranks
# whose job gets flood by default. Skipped where the pmix component or
# Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn
prog="$tmp/ompi_spawn"

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
        { cat "$tmp/out" "$tmp/err"; fail "$3: not $2 children on node $1"; }
}

for plm in prsh rsh; do
    run_hnp --mca plm "$plm" "${OMPI_X[@]}" -n 1 \
        --host "${prefix}n1:2,${prefix}n2:2" "$prog" 2 "${prefix}n2"
    spawned_ok 2 "2 children on the node without a daemon, plm $plm"
    children_on 2 2 "2 children on the node without a daemon, plm $plm"
    [ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "plm $plm: hnp said something"; }
done
# --timing of such a spawn counts from the request, the added daemon's
# start included: each daemon here takes 2 s to start (the agent's
# remote start-up), so the children cannot have started sooner.
HNP_AGENT_REM=2 run_hnp --timing "${OMPI_X[@]}" -n 1 \
    --host "${prefix}n1:2,${prefix}n2:2" "$prog" 2 "${prefix}n2"
spawned_ok 2 "--timing of a spawn onto a node without a daemon"
line=$(grep "^hnp: timing of the spawn of job 2 by rank 0 of job 1, 2 processes on 1 nodes: request received at [0-9.]* s; since then, children started [0-9.]* s, connected" "$tmp/err") ||
    { cat "$tmp/err"; fail "no timing line for the spawn onto a node without a daemon"; }
echo "$line" | awk '{ s = $(NF - 4); exit !(s + 0 >= 2) }' ||
    fail "the spawn's children started before their daemon could: $line"
# No host, and no free slot where the daemons are: the allocation's other
# nodes get daemons, in its order, and the children their slots.
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:1,${prefix}n2:2,${prefix}n3:2" \
    "$prog" 3
spawned_ok 3 "3 children, no host, no free slot on the parent's node"
children_on 2 2 "3 children, no host, no free slot on the parent's node"
children_on 3 1 "3 children, no host, no free slot on the parent's node"
# A parent over two nodes; the daemons of nodes 3 and 4 hang below
# running daemons in the routing tree.
run_hnp --mca routed binomial "${OMPI_X[@]}" -n 2 \
    --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:1,${prefix}n4:1" \
    "$prog" 2 "${prefix}n3,${prefix}n4"
spawned_ok 2 "a parent on 2 nodes, children on 2 more"
children_on 3 1 "a parent on 2 nodes, children on 2 more"
children_on 4 1 "a parent on 2 nodes, children on 2 more"
assert_no_leftovers "spawns onto nodes without a daemon"
assert_no_files_left "spawns onto nodes without a daemon"

# MPICH's spawn at the protocol (tests/pmi/pmi_dyn, as in pmi-spawn.sh):
# PMI-1 and PMI-2, info "host" naming node 2, which has no daemon.
dyn="$top_builddir/tests/pmi/pmi_dyn"
wdir="$tmp/wdir"
mkdir -p "$wdir"
cd "$tmp"
for v in 1 2; do
    run_hnp --tag-output -n 1 --host "${prefix}n1:3,${prefix}n2:4" \
        "$dyn" "spawn$v" "$dyn" "$wdir" "${prefix}n2"
    expect_status 0 "PMI-$v spawn onto the node without a daemon"
    expect_in "$tmp/out" "^\[1,0\]<stdout>:parent: spawn$v ok$" "PMI-$v spawn onto the node without a daemon"
    [ "$(grep -c "^\[2,[01]\]<stdout>:child [01] appnum 0 node ${prefix}n2 cwd $wdir: spawned ok$" "$tmp/out")" = 2 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "PMI-$v: not 2 children on ${prefix}n2"; }
    ! grep -q "FAIL" "$tmp/out" || { cat "$tmp/out"; fail "PMI-$v: a check failed"; }
done
assert_no_leftovers "PMI spawns onto the node without a daemon"

# The daemon of node 2 cannot start: the spawn fails at once, hnp names
# the node, the parent goes on and the job ends well.
HNP_AGENT_DOWN="${prefix}n2" run_hnp --mca plm_rsh_retries 1 "${OMPI_X[@]}" \
    -n 1 --host "${prefix}n1:2,${prefix}n2:2" "$prog" 1 "${prefix}n2"
expect_status 0 "a spawn whose daemon cannot start"
expect_in "$tmp/out" "^parent: spawn failed" "a spawn whose daemon cannot start"
expect_in "$tmp/err" "the spawn of rank 0 of job 1 failed: the daemon for node ${prefix}n2 (vpid 2) could not be started" \
    "a spawn whose daemon cannot start"
assert_no_leftovers "a spawn whose daemon cannot start"

# The agent for node 2 neither fails nor starts the daemon: after
# plm_base_launch_timeout the spawn fails, naming the node, the agent is
# killed, and the job ends well.
slow="$tmp/slow-agent"
printf '#!/bin/sh\n[ "$1" = "%s" ] && exec sleep 600\nexec "%s" "$@"\n' \
    "${prefix}n2" "$AGENT" >"$slow"
chmod +x "$slow"
run_hnp --mca plm_rsh_agent "$slow" --mca plm_base_launch_timeout 3 \
    "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" "$prog" 1 "${prefix}n2"
expect_status 0 "a spawn whose daemon never calls back"
expect_in "$tmp/out" "^parent: spawn failed" "a spawn whose daemon never calls back"
expect_in "$tmp/err" "the daemon for node ${prefix}n2 (vpid 2) did not call back within plm_base_launch_timeout (3 s)" \
    "a spawn whose daemon never calls back"
assert_no_leftovers "a spawn whose daemon never calls back"

# Under exchange flood too (its grow hook): the children's all-gathers,
# MPI_Init's fence among them, count the added daemons, and the parent's
# after the spawn; plm prsh and rsh, one added node and two.
for plm in prsh rsh; do
    run_hnp --mca exchange flood --mca plm "$plm" "${OMPI_X[@]}" -n 1 \
        --host "${prefix}n1:2,${prefix}n2:2" "$prog" 1 "${prefix}n2"
    spawned_ok 1 "a child on a node without a daemon under exchange flood, plm $plm"
    children_on 2 1 "a child on a node without a daemon under exchange flood, plm $plm"
    [ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "flood, plm $plm: hnp said something"; }
    run_hnp --mca exchange flood --mca plm "$plm" --mca routed binomial \
        "${OMPI_X[@]}" -n 2 \
        --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:1,${prefix}n4:1" \
        "$prog" 2 "${prefix}n3,${prefix}n4"
    spawned_ok 2 "children on 2 added nodes under exchange flood, plm $plm"
    children_on 3 1 "children on 2 added nodes under exchange flood, plm $plm"
    children_on 4 1 "children on 2 added nodes under exchange flood, plm $plm"
done
# flood chosen by itself, as it is for large jobs under plm prsh
# (exchange_flood_min_nodes, here 2 instead of 2,048, with a spawn tree
# that is not flat): the same spawn.
flood_default=(--mca plm prsh --mca plm_prsh_spawning_degree 1
    --mca exchange_flood_min_nodes 2 --mca routed binomial "${OMPI_X[@]}" -n 2
    --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:1,${prefix}n4:1"
    "$prog" 2 "${prefix}n3,${prefix}n4")
run_hnp --plan "${flood_default[@]}"
expect_in "$tmp/out" "^exchange: flood (offered for 2 daemons" "the exchange chosen"
run_hnp "${flood_default[@]}"
spawned_ok 2 "children on 2 added nodes, flood chosen by itself"
children_on 3 1 "children on 2 added nodes, flood chosen by itself"
children_on 4 1 "children on 2 added nodes, flood chosen by itself"
# A daemon that cannot start under flood: its vpid is never counted, so
# the parent's all-gathers after the failed spawn (MPI_Finalize's) end.
HNP_AGENT_DOWN="${prefix}n2" run_hnp --mca exchange flood --mca plm_rsh_retries 1 \
    "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" "$prog" 1 "${prefix}n2"
expect_status 0 "a spawn whose daemon cannot start, under exchange flood"
expect_in "$tmp/out" "^parent: spawn failed" "a spawn whose daemon cannot start, under exchange flood"
expect_in "$tmp/err" "the daemon for node ${prefix}n2 (vpid 2) could not be started" \
    "a spawn whose daemon cannot start, under exchange flood"
assert_no_leftovers "spawns onto nodes without a daemon under exchange flood"
assert_no_files_left "spawns onto nodes without a daemon under exchange flood"

# At the size where flood is the default with no parameter: 257 daemons,
# where a connection per daemon would take more than a quarter of the
# HNP's 1,024 descriptors. A parent of 257 ranks, one a node, spawns 2
# children onto the 2 nodes left, which get daemons.
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 1024 ]; then
    echo "skipped the 257-node spawn: the hard descriptor limit is $hard"
else
    big=(--host "$(hosts 259)" "${OMPI_X[@]}" -n 257 "$prog" 2
        "${prefix}n258,${prefix}n259")
    ( ulimit -n 1024; run_hnp --plan "${big[@]}"; echo "$status" >"$tmp/status" )
    expect_in "$tmp/out" "^exchange: flood (offered for 257 daemons" "the exchange chosen for 257 nodes"
    rm -f "$tmp/status"
    ( ulimit -n 1024; HNP_TEST_TIMEOUT=600 run_hnp "${big[@]}"; echo "$status" >"$tmp/status" )
    status=$(cat "$tmp/status" 2>/dev/null) || fail "the 257-node spawn did not finish"
    spawned_ok 2 "2 children on added nodes beside 257 daemons, flood by default"
    children_on 258 1 "2 children on added nodes beside 257 daemons, flood by default"
    children_on 259 1 "2 children on added nodes beside 257 daemons, flood by default"
    assert_no_leftovers "the 257-node spawn"
fi
