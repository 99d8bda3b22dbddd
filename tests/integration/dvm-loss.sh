#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A DVM (hnp --dvm) whose routing tree has inner daemons (8 nodes, radix
# degree 2: vpid 1 routes for 3 and 4, 3 for 7 and 8; daemons started by
# daemons) loses vpid 1 mid-job: the job ends naming it and the daemons
# below it, cut off from the HNP and counted lost at once; the next job
# runs on the nodes still reachable (2, 5, 6) and only there, and
# --dvm-stop leaves nothing behind.
. "$top_srcdir/tests/integration/lib.sh"

uri="$tmp/dvm.uri"
timeout -k 5 300 "$HNP" --dvm --report-uri "$uri" --daemonize \
    --mca plm prsh --mca plm_prsh_spawning_degree 2 \
    --mca routed radix --mca routed_radix_degree 2 --host "$(hosts 8)" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }

start_hnp --dvm-uri "$uri" -N 1 sh -c 'echo "ready $HNP_RANK $HNP_NODE"; exec sleep 60' "$prefix"
wait_ready 8
killed=$(daemon_pid "${prefix}n1")
[ -n "$killed" ] || fail "no daemon on node 1"
kill -KILL "$killed"
finish
[ "$status" != 0 ] || fail "a job that lost a node ended well"
expect_in "$tmp/err" "${prefix}n1 (vpid 1) died" "the dead daemon named"
expect_in "$tmp/err" "lost too: ${prefix}n3, ${prefix}n4, ${prefix}n7, ${prefix}n8" \
    "the daemons cut off below it named"
# what only that daemon could have removed (its scratch directories)
rm -rf "$TMPDIR"/hnp-*-"$killed"-* "$TMPDIR"/hnp-pmix."$killed".*

# The job's end may come before the daemons below noticed their loss:
# the next job must still not be mapped onto them.
run_hnp --dvm-uri "$uri" -N 1 sh -c 'echo "$HNP_RANK $HNP_NODE"'
expect_status 0 "a job after an inner daemon died"
expect_one_rank_per_node 3
[ "$(cut -d' ' -f2 "$tmp/out" | sort | paste -sd' ')" = "${prefix}n2 ${prefix}n5 ${prefix}n6" ] ||
    fail "the job ran elsewhere than on the reachable nodes 2, 5, 6: $(cut -d' ' -f2 "$tmp/out" | paste -sd' ')"
run_hnp --dvm-uri "$uri" --host "${prefix}n4" -n 1 true
[ "$status" != 0 ] || fail "a job ran on node 4, cut off from the HNP"

run_hnp --dvm-uri "$uri" --dvm-stop
expect_status 0 "--dvm-stop"
assert_no_leftovers "an inner daemon lost and --dvm-stop"
echo "PASS"
