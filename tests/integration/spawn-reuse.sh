#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A job's end on a node does not disturb another job's ranks connecting
# to that node's PMIx server at the same moment. Here the parent job's
# rank on the second node ends while the children spawned there connect
# (tests/integration/pmix-spawn.c), 20 times. libpmix 4.2 closes a rank's
# socket, when the daemon deregisters the rank, without taking it out of
# its event loop: a child whose connection got that descriptor number was
# never read and waited in PMIx_Init for good (about 1 run in 6 before
# the daemon stopped deregistering ranks one by one). Skipped where the
# pmix component or libpmix's headers are missing.
. "$top_srcdir/tests/integration/lib.sh"

! pmix_missing >/dev/null || skip "$(pmix_missing)"
build_pmix pmix-spawn
cd "$tmp"

for round in $(seq 20); do
    HNP_TEST_TIMEOUT=60 run_hnp -N 1 --host "${prefix}n1:3,${prefix}n2:3" "$tmp/pmix-spawn" 4
    expect_status 0 "round $round: 4 children on 2 nodes"
    [ "$(grep -c "^child [0-3] of 4 on ${prefix}n[12]: " "$tmp/out")" = 4 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "round $round: not 4 children"; }
done
assert_no_leftovers "20 spawns"
assert_no_files_left "20 spawns"
