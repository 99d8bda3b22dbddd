#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A daemon slow in its handshake is no dead daemon. On a loaded machine a
# daemon may not run for longer than its peer's handshake deadline; the
# peer then gives up on the connection, and the daemon, reading the
# answer and the close together, took it for the loss of its parent and
# left: 1,024 nodes ended with "the daemon on node ... died" and status
# 1, hiding the job's own status. A handshake that fails so is tried
# again. The stall is injected (oob_tcp_test_stall: daemon 12 does not
# read the answer to its first hello for 7 s, past the 5 s deadline of
# the daemon it joins); rank 500 then exits with 3, and the job says 3.
. "$top_srcdir/tests/integration/lib.sh"

nodes=1024
need_nodes "$nodes"
export HNP_TEST_TIMEOUT=${HNP_TEST_TIMEOUT:-600}

# In the environment, which the daemons inherit through the agent: the
# daemon must have it before it joins (parameters on the wire come after).
export HNP_MCA_oob_tcp_test_stall=12:7
run_hnp --mca pmi simple --mca oob_tcp_handshake_timeout 5 \
    --mca plm_base_launch_timeout 300 \
    --mca rte_heartbeat_interval 20 --mca rte_heartbeat_misses 10 \
    -H "$(hosts $nodes)" -N 1 \
    sh -c '[ "$HNP_RANK" = 500 ] && { sleep 2; exit 3; }; exec sleep 60'
grep -q "handshake timed out" "$tmp/err" ||
    { cat "$tmp/err"; fail "no handshake timed out: the stall was not injected"; }
expect_status 3 "$nodes nodes, rank 500 exits with 3, daemon 12 slow in its handshake"
expect_in "$tmp/err" "rank 500 .*exit" "the failing rank named"
if grep -q "died" "$tmp/err"; then
    cat "$tmp/err"; fail "a daemon slow in its handshake was declared dead"
fi
assert_no_leftovers "$nodes nodes with a slow handshake"
echo "PASS"
