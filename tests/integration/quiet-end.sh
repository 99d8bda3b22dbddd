#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A clean run ends in silence: 1,024 and 512 simulated nodes whose ranks
# all exit 0 leave stderr empty. The shutdown reaches the daemons down two
# trees in no fixed order; a daemon that took a neighbour's departure for
# a death, or passed the shutdown on to one already gone, printed "peer N
# is unreachable", "cannot ask vpid N to kill the daemon" after runs that
# had succeeded.
. "$top_srcdir/tests/integration/lib.sh"

nodes=1024
need_nodes "$nodes"

# A machine starved of CPU may miss a heartbeat or a deadline that a
# cluster would not, and its launch may be slow enough for the warning
# that names the daemons not yet joined: those are not what is tested.
export HNP_TEST_TIMEOUT=${HNP_TEST_TIMEOUT:-600}
slow=(--mca rte_heartbeat_interval 20 --mca rte_heartbeat_misses 10
      --mca plm_base_launch_timeout 300 --mca plm_base_launch_warn 0
      --mca oob_tcp_handshake_timeout 60)

expect_silence() { # WHAT
    [ ! -s "$tmp/err" ] || {
        echo "--- stderr ($(wc -l <"$tmp/err") lines)"; head -40 "$tmp/err"
        fail "$1: a clean run printed on stderr"
    }
}

for run in 1 2; do
    run_hnp "${slow[@]}" -H "$(hosts $nodes)" -N 1 hostname
    expect_status 0 "$nodes nodes, hostname (run $run)"
    [ "$(wc -l <"$tmp/out")" = "$nodes" ] ||
        fail "$nodes lines expected, $(wc -l <"$tmp/out") arrived"
    expect_silence "$nodes nodes (run $run)"
    assert_no_leftovers "$nodes nodes (run $run)"
done

run_hnp "${slow[@]}" --host "$(hosts 512)" -n 512 sh -c 'echo "$HNP_RANK $HNP_NODE"'
expect_status 0 "512 nodes"
expect_one_rank_per_node 512
expect_silence "512 nodes"
assert_no_leftovers "512 nodes"
echo "PASS"
