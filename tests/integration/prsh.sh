#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# plm prsh, the tree spawn: every daemon is started by its parent in the
# spawn tree (δ-ary, or the routing tree for δ = 0), every rank runs once
# on its node, a launch failure deep in the tree ends the job and names the
# node, and nothing is left behind.
. "$top_srcdir/tests/integration/lib.sh"

[ -r /proc/self/cmdline ] || skip "needs /proc to see who started a daemon"

# Each rank prints its node and the --parent its daemon was started with:
# the vpid of the process that spawned that daemon.
app='p=$(tr "\0" "\n" </proc/$PPID/cmdline | sed -n "/^--parent\$/{n;p;}")
echo "$HNP_RANK $HNP_NODE $p"'

kary_parent() { echo $(( ($1 - 1) / $2 )); }        # VPID K
binomial_parent() {                                 # VPID
    local high=1
    while [ $((high * 2)) -le "$1" ]; do high=$((high * 2)); done
    echo $(($1 - high))
}

# check_tree NODES PARENT_FN [PARENT_ARG] -- HNP_ARGS...: one rank a node
# (daemon vpid = rank + 1), each on its own node, each daemon started by
# the parent the tree gives it.
check_tree() {
    local nodes=$1 parent_fn=$2 arg=${3:-}
    shift 3
    local what="prsh $* on $nodes nodes"
    run_hnp --mca plm prsh "$@" -N 1 --host "$(hosts "$nodes")" \
        sh -c "$app" "$prefix"
    expect_status 0 "$what"
    [ "$(wc -l <"$tmp/out")" = "$nodes" ] ||
        fail "$what: $nodes lines expected: $(cat "$tmp/out")"
    for r in $(seq 0 $((nodes - 1))); do
        local v=$((r + 1))
        expect_in "$tmp/out" "^$r ${prefix}n$v $($parent_fn "$v" $arg)\$" \
            "$what: rank $r"
    done
    assert_no_leftovers "$what"
}

# δ = 2 and 3 at the tree's boundaries: δ (the HNP spawns all), δ + 1 (the
# first daemon that spawns), δ² + δ + 1 (two full levels below the HNP's
# children), and a prime, 37, that fills no level. For δ = 2 the agent is
# named on hnp's command line only, as with a real ssh, which passes no
# environment: the daemons that spawn know it from their welcome.
unset HNP_MCA_plm_rsh_agent
for n in 2 3 7 37; do
    check_tree "$n" kary_parent 2 --mca plm_prsh_spawning_degree 2 \
        --mca plm_rsh_agent "$AGENT"
done
export HNP_MCA_plm_rsh_agent="$AGENT"
# The paper's name for δ.
for n in 3 4 13 37; do
    check_tree "$n" kary_parent 3 --mca prsh_spawning_degree 3
done

# δ = 0: the routing tree, radix (k = 3) and binomial.
for n in 3 4 13 37; do
    check_tree "$n" kary_parent 3 --mca plm_prsh_spawning_degree 0 \
        --mca routed radix --mca routed_radix_degree 3
done
for n in 3 7 8 37; do
    check_tree "$n" binomial_parent "" --mca plm_prsh_spawning_degree 0 \
        --mca routed binomial
done

# One agent at a time: a tree's daemons stay attached to their agents for
# the job, so each must free its slot when it joins, or a node's second
# child never starts.
check_tree 13 kary_parent 3 --mca plm_prsh_spawning_degree 3 \
    --mca plm_rsh_num_concurrent 1
# And no more of a node's children than that keep their agents alive:
# with one place, the first child of each spawning node (vpids 1, 4, 7,
# 10, 13) stays attached, and the others detach.
run_hnp --mca plm prsh --mca plm_prsh_spawning_degree 3 \
    --mca plm_rsh_num_concurrent 1 -N 1 --host "$(hosts 13)" \
    sh -c 'tr "\0" " " </proc/$PPID/cmdline | grep -q -- " --attached " && echo "$HNP_RANK"; :'
expect_status 0 "one place, attached daemons"
[ "$(sort -n "$tmp/out" | paste -sd' ')" = "0 3 6 9 12" ] ||
    fail "attached daemons with one place: ranks $(sort -n "$tmp/out" | paste -sd' '), 0 3 6 9 12 expected"

# Named by nobody, prsh is the launcher.
run_hnp --mca plm_base_verbose 1 -N 1 --host "$(hosts 2)" true
expect_status 0 "default launcher"
expect_in "$tmp/err" "selected plm component prsh" "prsh is the default plm"

# A node deep in the tree is down: with δ = 2, vpid 5 is daemon 2's to
# start. The job fails, naming the node, the command (with daemon 2 as the
# parent) and the agent's words, and every daemon and process goes.
HNP_AGENT_DOWN="${prefix}n5" run_hnp --mca plm prsh \
    --mca plm_prsh_spawning_degree 2 --mca plm_rsh_retries 1 \
    -N 1 --host "$(hosts 12)" sh -c 'sleep 30; :' "$prefix"
[ "$status" != 0 ] || fail "a node down deep in the tree must fail the job"
expect_in "$tmp/err" "node ${prefix}n5" "the missing node is named"
expect_in "$tmp/err" "Connection refused" "the agent's output is shown"
expect_in "$tmp/err" "command: .*${prefix}n5.*'--parent' '2'" \
    "the command shows daemon 2 started it"
assert_no_leftovers "node down deep in the tree"

# 128 nodes with the default δ.
run_hnp --mca plm prsh --timing -N 1 --host "$(hosts 128)" \
    sh -c 'echo "$HNP_RANK $HNP_NODE"' "$prefix"
expect_status 0 "128 nodes"
expect_one_rank_per_node 128
expect_in "$tmp/err" "all processes exited" "--timing report"
assert_no_leftovers "128 nodes"
echo "PASS"
