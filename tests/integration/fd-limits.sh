#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The HNP's descriptors are planned before launch: a 512-node job runs
# within 256 descriptors (the flood exchange is chosen at that size, so
# the HNP keeps connections to its tree neighbours only); a job that
# cannot fit is refused before anything starts, with the figures; and
# hnp --plan shows both, and that 4,096 nodes fit in 1,024 descriptors;
# the exchange chosen by default follows the HNP's descriptor limit;
# a node whose daemon cannot hold its ranks is refused before they start.
. "$top_srcdir/tests/integration/lib.sh"

hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 1024 ]; then
    skip "the hard descriptor limit is $hard; 1024 are needed"
fi

# 1. 512 nodes, 256 descriptors, the default components.
( ulimit -n 256; run_hnp --host "$(hosts 512)" -N 1 /bin/true; echo "$status" >"$tmp/status" )
status=$(cat "$tmp/status")
expect_status 0 "512 nodes with ulimit -n 256"
assert_no_leftovers "512 nodes with ulimit -n 256"

# 2. Every daemon connected to the HNP cannot fit: refused before launch.
( ulimit -n 256; run_hnp --mca plm rsh --host "$(hosts 512)" -N 1 /bin/true; echo "$status" >"$tmp/status" )
status=$(cat "$tmp/status")
expect_status 1 "512 nodes under plm rsh with ulimit -n 256"
expect_in "$tmp/err" "refusing to launch: 512 daemons" "the refusal"
expect_in "$tmp/err" "of a limit of 256: 512 connections to daemons" "the refusal's figures"
if grep -q "cannot create a pipe\|died\|did not call back" "$tmp/err"; then
    cat "$tmp/err"
    fail "the refused job started daemons"
fi
[ -z "$(pgrep -f -- "${prefix}n" || true)" ] || fail "daemons started for a refused job"
assert_no_leftovers "the refused job"

# 3. --plan: 4,096 nodes in 1,024 descriptors by default...
( ulimit -n 1024; run_hnp --plan --host "$(hosts 4096)" -N 1 /bin/true; echo "$status" >"$tmp/status" )
status=$(cat "$tmp/status")
expect_status 0 "--plan of 4096 nodes"
expect_in "$tmp/out" "^exchange: flood (offered for 4096 daemons" "the exchange chosen for 4096 nodes"
line=$(grep "^descriptors in the HNP:" "$tmp/out") || fail "no descriptor plan in --plan"
need=$(echo "$line" | sed -n 's/^descriptors in the HNP: \([0-9]*\) descriptors at most, of a limit of 1024:.*/\1/p')
[ -n "$need" ] && [ "$need" -le 1024 ] || fail "4096 nodes do not plan within 1024: $line"
case $line in *"NOT fit"*) fail "4096 nodes do not fit: $line" ;; esac

# ...and a small job keeps gather_scatter; gather_scatter at 4,096 would not fit.
run_hnp --plan --host "$(hosts 8)" -N 1 /bin/true
expect_in "$tmp/out" "^exchange: gather_scatter (offered for 8 daemons" "the exchange chosen for 8 nodes"
( ulimit -n 1024; run_hnp --plan --mca exchange gather_scatter --host "$(hosts 4096)" -N 1 /bin/true; echo "$status" >"$tmp/status" )
expect_in "$tmp/out" "4096 connections to daemons.*does NOT fit" "gather_scatter at 4096 nodes"

# ...and where the HNP's descriptors hold a connection per daemon four
# times over, 1,024 nodes keep gather_scatter, whose daemons use less CPU;
# with a limit of 1,024 they get flood, and from 2,048 nodes on flood runs
# whatever the limit.
if [ "$hard" = unlimited ] || [ "$hard" -ge 8192 ]; then
    ( ulimit -n 8192; run_hnp --plan --host "$(hosts 1024)" -N 1 /bin/true; echo "$status" >"$tmp/status" )
    expect_in "$tmp/out" "^exchange: gather_scatter (offered for 1024 daemons" "the exchange chosen for 1024 nodes with 8192 descriptors"
    ( ulimit -n 8192; run_hnp --plan --host "$(hosts 2048)" -N 1 /bin/true; echo "$status" >"$tmp/status" )
    expect_in "$tmp/out" "^exchange: flood (offered for 2048 daemons" "the exchange chosen for 2048 nodes with 8192 descriptors"
fi
( ulimit -n 1024; run_hnp --plan --host "$(hosts 1024)" -N 1 /bin/true; echo "$status" >"$tmp/status" )
expect_in "$tmp/out" "^exchange: flood (offered for 1024 daemons" "the exchange chosen for 1024 nodes with 1024 descriptors"

# 4. A node's ranks are checked against its daemon's limit before any
# starts: 200 ranks on one node under ulimit -n 300 (3 descriptors a rank
# and more in the daemon) are refused with the figures, not started until
# a pipe cannot be made half-way.
( ulimit -n 300; run_hnp --host "${prefix}n1:200" -n 200 sh -c 'echo started'; echo "$status" >"$tmp/status" )
status=$(cat "$tmp/status")
expect_status 1 "200 ranks on one node with ulimit -n 300"
expect_in "$tmp/err" "refusing to start its ranks: 200 ranks on this node need about [0-9]* descriptors in its daemon, more than its limit of 300" "the daemon's refusal"
[ ! -s "$tmp/out" ] || fail "ranks started on a node that cannot hold them: $(wc -l <"$tmp/out") lines"
assert_no_leftovers "the ranks refused by the daemon"
