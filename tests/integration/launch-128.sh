#!/bin/bash
# 128 simulated nodes: one daemon each, every rank once, a distinct node for
# every rank; and the HNP never holds more connections than it must.
. "$top_srcdir/tests/integration/lib.sh"

run_hnp --timing -N 1 --host "$(hosts 128)" sh -c 'echo "$HNP_RANK $HNP_NODE"' "$prefix"
expect_status 0 "128 nodes"
[ "$(wc -l <"$tmp/out")" = 128 ] || fail "128 lines expected, got $(wc -l <"$tmp/out")"
[ "$(cut -d' ' -f1 "$tmp/out" | sort -n | uniq | wc -l)" = 128 ] || fail "ranks repeated"
[ "$(cut -d' ' -f2 "$tmp/out" | sort -u | wc -l)" = 128 ] || fail "nodes repeated"
expect_in "$tmp/err" "all processes exited" "--timing report"
assert_no_leftovers "128 nodes"
echo "PASS"
