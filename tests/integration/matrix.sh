#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every combination of launcher (rsh, prsh), routing (direct, radix,
# binomial) and exchange (gather_scatter, flood) on node counts at the
# trees' boundaries: δ, δ+1, δ²+δ+1 and a prime, with δ = k = 3.
. "$top_srcdir/tests/integration/lib.sh"

app='echo "$HNP_RANK $HNP_NODE"'
for plm in rsh prsh; do
    for routed in direct radix binomial; do
        for exchange in gather_scatter flood; do
            for n in 3 4 13 37; do
                what="$plm/$routed/$exchange on $n nodes"
                run_hnp --mca plm "$plm" --mca plm_prsh_spawning_degree 3 \
                    --mca routed "$routed" --mca routed_radix_degree 3 \
                    --mca exchange "$exchange" -N 1 --host "$(hosts "$n")" \
                    sh -c "$app" "$prefix"
                expect_status 0 "$what"
                [ "$(wc -l <"$tmp/out")" = "$n" ] || fail "$what: $n lines expected"
                for r in $(seq 0 $((n - 1))); do
                    grep -q "^$r ${prefix}n$((r + 1))\$" "$tmp/out" ||
                        fail "$what: rank $r missing or misplaced: $(cat "$tmp/out")"
                done
            done
        done
    done
done
assert_no_leftovers "the matrix"
echo "PASS"
