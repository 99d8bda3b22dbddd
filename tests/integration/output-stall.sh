#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A reader of hnp's output that stalls (here: sleeps for several heartbeat
# timeouts before it reads anything) holds the processes back; it never
# ends the job, blames a node, or loses a byte.
. "$top_srcdir/tests/integration/lib.sh"

# Heartbeats every 0.5 s, three missed are a failure: the reader sleeps
# four times as long as that. Rank 0 writes 10 MB, more than hnp and the
# daemons hold, so that the rank itself must wait.
timeout -k 5 90 "$HNP" --mca rte_heartbeat_interval 0.5 --mca rte_heartbeat_misses 3 -N 2 --host "$(hosts 2)" \
    sh -c '[ "$HNP_RANK" = 0 ] && yes | head -c 10M; sleep 2' "$prefix" 2>"$tmp/err" |
    { sleep 6; wc -c >"$tmp/out"; }
status=${PIPESTATUS[0]}
expect_status 0 "a reader stalled for 6 s"
[ "$(cat "$tmp/out")" = 10485760 ] || fail "$(cat "$tmp/out") bytes of 10485760 read"
[ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "hnp complained of a stalled reader"; }
assert_no_leftovers "a stalled reader"
