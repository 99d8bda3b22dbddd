#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Exit statuses propagate, the first failure kills the rest, and hnp says
# which rank on which node failed and why.
. "$top_srcdir/tests/integration/lib.sh"

# All succeed.
run_hnp -N 2 --host "$(hosts 2)" true
expect_status 0 "all ranks exit 0"

# Rank 3 exits 7 while the others sleep: hnp exits 7, names rank and node,
# and the sleepers are killed.
run_hnp -N 2 --host "$(hosts 3)" sh -c '[ "$HNP_RANK" = 3 ] && exit 7; exec sleep 60' "$prefix"
expect_status 7 "rank 3 exits 7"
expect_in "$tmp/err" "rank 3 .*on node ${prefix}n2 exited with status 7" "failure report"
assert_no_leftovers "rank 3 exits 7"

# A rank killed by a signal: 128 + signal.
run_hnp -N 1 --host "$(hosts 2)" sh -c '[ "$HNP_RANK" = 1 ] && kill -9 $$; exec sleep 60' "$prefix"
expect_status 137 "rank 1 killed by SIGKILL"
expect_in "$tmp/err" "rank 1 .*on node ${prefix}n2 was killed by signal 9" "signal report"
assert_no_leftovers "killed rank"

# A program that does not exist: rank, node and reason, not a hang.
run_hnp -N 1 --host "$(hosts 2)" ./no-such-program-"$prefix"
expect_status 127 "missing program"
expect_in "$tmp/err" "rank [01] on node ${prefix}n[12] could not start ./no-such-program-$prefix: No such file or directory" \
    "missing program report"
assert_no_leftovers "missing program"

# A file that is not executable.
printf 'not a program\n' >"$tmp/notexec"
run_hnp -N 1 --host "$(hosts 1)" "$tmp/notexec"
expect_status 126 "non-executable program"
expect_in "$tmp/err" "Permission denied" "permission report"
assert_no_leftovers "non-executable"
echo "PASS"
