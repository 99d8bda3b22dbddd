#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every rank runs once, with the right environment, on the node the map
# gives it; output is complete; nothing is left behind. 1, 2 and 16 nodes.
. "$top_srcdir/tests/integration/lib.sh"

app='echo "rank=$HNP_RANK size=$HNP_SIZE lrank=$HNP_LOCAL_RANK lsize=$HNP_LOCAL_SIZE node=$HNP_NODE job=$HNP_JOBID"'

check_job() { # NODES PER_NODE
    local nodes=$1 per=$2 np=$(($1 * $2))
    run_hnp -N "$per" --host "$(hosts "$nodes")" sh -c "$app" "$prefix"
    expect_status 0 "$nodes nodes x $per"
    [ "$(wc -l <"$tmp/out")" = "$np" ] || fail "$np lines expected: $(cat "$tmp/out")"
    for r in $(seq 0 $((np - 1))); do
        local node=$((r / per + 1)) lrank=$((r % per))
        expect_in "$tmp/out" "^rank=$r size=$np lrank=$lrank lsize=$per node=${prefix}n$node job=1\$" \
            "rank $r of $nodes x $per"
    done
    assert_no_leftovers "$nodes x $per"
}

check_job 1 1
check_job 2 3
check_job 16 2

# -n fills each node's slots in turn (slots after ':').
run_hnp -n 5 --host "${prefix}n1:2,${prefix}n2:3" sh -c "$app" "$prefix"
expect_status 0 "-n 5 on 2+3 slots"
expect_in "$tmp/out" "^rank=1 size=5 lrank=1 lsize=2 node=${prefix}n1 " "rank 1 on n1"
expect_in "$tmp/out" "^rank=4 size=5 lrank=2 lsize=3 node=${prefix}n2 " "rank 4 on n2"
assert_no_leftovers "-n 5"

# A hostfile with slots and comments; --map-by node goes round the nodes.
cat >"$tmp/hostfile" <<HOSTS
# two nodes of this test
${prefix}n1 slots=2
${prefix}n2 slots=2   # trailing comment
HOSTS
run_hnp --hostfile "$tmp/hostfile" sh -c "$app" "$prefix"
expect_status 0 "hostfile"
[ "$(wc -l <"$tmp/out")" = 4 ] || fail "one rank per hostfile slot expected"
expect_in "$tmp/out" "^rank=1 size=4 lrank=1 lsize=2 node=${prefix}n1 " "by slot"
run_hnp --hostfile "$tmp/hostfile" --map-by node sh -c "$app" "$prefix"
expect_status 0 "--map-by node"
expect_in "$tmp/out" "^rank=1 size=4 lrank=0 lsize=2 node=${prefix}n2 " "by node"
run_hnp --hostfile "$tmp/no-such-hostfile" true
expect_status 1 "missing hostfile"
expect_in "$tmp/err" "no-such-hostfile" "the missing hostfile is named"

# No host at all: this machine, one slot a core (hwloc), no agent.
run_hnp --mca plm_rsh_agent /nonexistent/agent sh -c 'echo "$HNP_NODE $HNP_SIZE"' "$prefix"
expect_status 0 "no host given"
# hwloc counts cores, nproc hardware threads: the job size lies between
# 1 and nproc, every rank ran here, and there is one line a rank.
size=$(sort -u "$tmp/out" | cut -d' ' -f2)
[ "$(sort -u "$tmp/out")" = "$(hostname) $size" ] && [ "$size" -ge 1 ] &&
    [ "$size" -le "$(nproc)" ] && [ "$(wc -l <"$tmp/out")" = "$size" ] ||
    fail "no host: $(cat "$tmp/out")"
assert_no_leftovers "hostfile"
echo "PASS"
