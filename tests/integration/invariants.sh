#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The resource invariants of the scalable launch, measured at 128 nodes: a
# daemon holds at most δ + 1 + k connections (spawn children, spawn
# parent, routing neighbours), and the HNP O(δ + k), never O(N).
. "$top_srcdir/tests/integration/lib.sh"

# counts ARGS...: run a 128-node job with --timing; sets hnp_conns and
# daemon_conns from its report.
counts() {
    run_hnp --timing "$@" -N 1 --host "$(hosts 128)" true
    expect_status 0 "128 nodes: $*"
    hnp_conns=$(sed -n 's/.*connections held by the HNP (max) *\([0-9]*\).*/\1/p' "$tmp/err")
    daemon_conns=$(sed -n 's/.*connections held by a daemon (max) *\([0-9]*\).*/\1/p' "$tmp/err")
    [ -n "$hnp_conns" ] && [ -n "$daemon_conns" ] || { cat "$tmp/err"; fail "no counts in --timing"; }
}

# prsh δ=4, flood, radix k=4: the paper's bound for the daemons, and the
# HNP holds its spawn children and routing children only.
counts --mca plm prsh --mca plm_prsh_spawning_degree 4 --mca exchange flood \
    --mca routed radix --mca routed_radix_degree 4
[ "$daemon_conns" -le $((4 + 1 + 4)) ] || fail "a daemon held $daemon_conns connections (bound 9)"
[ "$hnp_conns" -le $((4 + 4)) ] || fail "the HNP held $hnp_conns connections (bound 8)"
# The daemons' start-up figures: connected to the parent comes before
# joined (the welcome applied), and both were measured.
conn=$(sed -n 's/.*daemon exec to connected (median) *\([0-9.]*\) ms.*/\1/p' "$tmp/err")
joined=$(sed -n 's/.*daemon start-up (median) *\([0-9.]*\) ms.*/\1/p' "$tmp/err")
awk -v c="$conn" -v j="$joined" 'BEGIN { exit !(c > 0 && c <= j) }' ||
    fail "start-up: exec to connected '$conn' ms, exec to joined '$joined' ms"

# δ = 0: the spawn tree is the routing tree (binomial): log2 N neighbours.
counts --mca plm prsh --mca plm_prsh_spawning_degree 0 --mca exchange flood \
    --mca routed binomial
[ "$daemon_conns" -le 9 ] || fail "binomial: a daemon held $daemon_conns connections"
[ "$hnp_conns" -le 8 ] || fail "binomial: the HNP held $hnp_conns connections"

# The vanilla launch is the star the paper measured against: every daemon
# calls the HNP.
counts --mca plm rsh --mca exchange gather_scatter --mca routed direct
[ "$hnp_conns" -ge 128 ] || fail "rsh: the HNP held only $hnp_conns connections"
assert_no_leftovers "invariants"
echo "PASS"
