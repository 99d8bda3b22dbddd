#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What one rank may store with PMI puts (pmi_simple_max_kvs_bytes): past a
# small limit rank 0's puts are refused with the protocol's error, its
# daemon says so once, naming the rank, the node and the parameter, and
# the others and the fence go on.
. "$top_srcdir/tests/integration/lib.sh"

puts="$top_builddir/tests/pmi/pmi_puts"

run_hnp --mca pmi_simple_max_kvs_bytes 4k -N 2 --host "$(hosts 2)" \
    "$puts" 100 100 "$prefix"
expect_status 0 "a rank over its PMI limit, without aborting"
expect_in "$tmp/out" "^rank 0: put [0-9]* refused: cmd=put_result rc=-1 msg=over_the_limit_of_4096_bytes_a_process_may_store$" \
    "rank 0's refused put"
ok=$(sed -n 's/^rank 0: \([0-9]*\) of 100 puts ok$/\1/p' "$tmp/out")
[ -n "$ok" ] && [ "$ok" -gt 0 ] && [ "$ok" -lt 100 ] ||
    fail "rank 0 should have stored some of its puts, not all: $(cat "$tmp/out")"
for r in 1 2 3; do
    expect_in "$tmp/out" "^rank $r: 1 of 1 puts ok$" "rank $r, under its limit"
done
said=$(grep -c "PMI put refused" "$tmp/err" || true)
[ "$said" = 1 ] || { cat "$tmp/err"; fail "the daemon should say once that rank 0 is over its limit, said it $said times"; }
expect_in "$tmp/err" "rank 0 on node ${prefix}n1: PMI put refused.*pmi_simple_max_kvs_bytes = 4096 bytes.*Raise pmi_simple_max_kvs_bytes" \
    "the daemon's message"

# The default is generous: the same job stores everything.
run_hnp -N 2 --host "$(hosts 2)" "$puts" 100 100 "$prefix"
expect_status 0 "the default limit"
expect_in "$tmp/out" "^rank 0: 100 of 100 puts ok$" "rank 0 under the default"
! grep -q "refused" "$tmp/out" "$tmp/err" || fail "a put refused under the default limit: $(cat "$tmp/out" "$tmp/err")"
assert_no_leftovers "PMI kvs limit"
echo "PASS"
