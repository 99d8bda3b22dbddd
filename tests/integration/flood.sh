#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The flood exchange (Algorithm 2) with real daemons: under plm rsh (a flat
# spawn tree) with every routing topology, on 1, 2, 16 and 37 nodes, and
# under plm prsh (a δ = 2 spawn tree) when it is built. Every rank runs once
# on its node, every daemon completes phase 2, nothing is left behind.
. "$top_srcdir/tests/integration/lib.sh"

app='echo "rank=$HNP_RANK node=$HNP_NODE"'

check_flood() { # NODES PER_NODE WHAT ARGS...
    local nodes=$1 per=$2 what=$3 np=$(($1 * $2))
    shift 3
    run_hnp --timing --mca exchange flood --mca exchange_base_verbose 5 "$@" \
        -N "$per" --host "$(hosts "$nodes")" sh -c "$app" "$prefix"
    expect_status 0 "$what"
    expect_in "$tmp/err" "selected exchange component flood" "$what"
    # The HNP's own table, then every daemon's (each reports when complete).
    expect_in "$tmp/err" "flood: all-gather 0 done at vpid 0: $((nodes + 1)) entries" "$what"
    expect_in "$tmp/err" "contact table complete everywhere" "$what"
    [ "$(wc -l <"$tmp/out")" = "$np" ] || fail "$what: $np lines expected: $(cat "$tmp/out")"
    for r in $(seq 0 $((np - 1))); do
        expect_in "$tmp/out" "^rank=$r node=${prefix}n$((r / per + 1))\$" "$what: rank $r"
    done
    assert_no_leftovers "$what"
}

for routed in direct radix binomial; do
    for nodes in 1 2 16 37; do
        per=$((nodes < 37 ? 2 : 1))
        check_flood "$nodes" "$per" "rsh, routed $routed, $nodes nodes" \
            --mca plm rsh --mca routed "$routed"
    done
done

if "$top_builddir/bin/hnp-info" 2>/dev/null | grep -q "component prsh "; then
    check_flood 37 1 "prsh δ=2, 37 nodes" \
        --mca plm prsh --mca plm_prsh_spawning_degree 2
    check_flood 37 2 "prsh δ=2, routed binomial, 37 nodes" \
        --mca plm prsh --mca plm_prsh_spawning_degree 2 --mca routed binomial
else
    echo "plm prsh is not built: its runs are skipped"
fi
echo "PASS"
