#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A daemon stopped with SIGSTOP (a hung node): once hnp gives up on it,
# nothing of the job remains on that node. Its spawn parent, hnp itself
# (rsh) or another daemon (prsh), kills it; a stopped process still dies of
# SIGKILL, and its sentinel then ends its ranks.
. "$top_srcdir/tests/integration/lib.sh"

stopped="${prefix}n3"
# prsh with 2 children a daemon: n3 is n1's child, not the HNP's.
for plm in rsh "prsh --mca plm_prsh_spawning_degree 2"; do
    # shellcheck disable=SC2086 # the plm's words
    start_hnp --mca plm $plm --mca rte_heartbeat_interval 0.5 \
        --mca rte_heartbeat_misses 3 -N 1 --host "$(hosts 4)" \
        sh -c 'echo "ready $HNP_RANK"; exec sleep 300' "$prefix"
    wait_ready 4 100
    pid=$(daemon_pid "$stopped")
    [ -n "$pid" ] || fail "$plm: the daemon of $stopped was not found"
    started=$SECONDS
    kill -STOP "$pid"
    finish
    [ "$status" != 0 ] || fail "$plm: a stopped daemon must fail the job"
    expect_in "$tmp/err" "$stopped" "$plm: the stopped node is named"
    echo "$plm: hnp ended after $((SECONDS - started)) s"
    # Left stopped, the daemon and its rank would stay until continued.
    assert_no_leftovers "$plm: a daemon stopped"
done
echo "PASS"
