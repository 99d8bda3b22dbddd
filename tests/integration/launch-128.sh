#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# 128 simulated nodes started by the flat launcher (rsh: the HNP starts
# every daemon; prsh.sh has the tree): one daemon each, every rank once, a
# distinct node for every rank.
. "$top_srcdir/tests/integration/lib.sh"

run_hnp --mca plm rsh --timing -N 1 --host "$(hosts 128)" \
    sh -c 'echo "$HNP_RANK $HNP_NODE"' "$prefix"
expect_status 0 "128 nodes"
expect_one_rank_per_node 128
expect_in "$tmp/err" "all processes exited" "--timing report"
assert_no_leftovers "128 nodes"
echo "PASS"
