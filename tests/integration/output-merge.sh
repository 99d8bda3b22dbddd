#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --merge-stderr-to-stdout: a rank's stderr is its stdout (one pipe), so
# what it writes to either reaches hnp's stdout in the order it wrote it,
# tagged <stdout>; hnp's stderr gets none of it.
. "$top_srcdir/tests/integration/lib.sh"

app='for i in 1 2 3; do echo "o$i $HNP_RANK"; echo "e$i $HNP_RANK" >&2; done'

run_hnp --merge-stderr-to-stdout -N 1 --host "$(hosts 2)" sh -c "$app" "$prefix"
expect_status 0 "--merge-stderr-to-stdout"
for r in 0 1; do
    got=$(grep " $r\$" "$tmp/out" | paste -sd' ')
    [ "$got" = "o1 $r e1 $r o2 $r e2 $r o3 $r e3 $r" ] ||
        fail "rank $r: stdout and stderr not merged in order: $got"
done
grep -q "^e" "$tmp/err" && { cat "$tmp/err"; fail "stderr lines still on hnp's stderr"; }

# Tagged, every line is the rank's stdout.
run_hnp --merge-stderr-to-stdout --tag-output -N 1 --host "$(hosts 2)" \
    sh -c "$app" "$prefix"
expect_status 0 "--merge-stderr-to-stdout --tag-output"
[ "$(grep -c '^\[1,[01]\]<stdout>:[oe][123] [01]$' "$tmp/out")" = 12 ] ||
    { cat "$tmp/out"; fail "12 tagged stdout lines expected"; }

# Without it, stderr stays apart.
run_hnp -N 1 --host "$(hosts 2)" sh -c "$app" "$prefix"
expect_status 0 "no option"
[ "$(grep -c '^e' "$tmp/err")" = 6 ] && [ "$(grep -c '^o' "$tmp/out")" = 6 ] ||
    fail "streams mixed without the option"
assert_no_leftovers "output-merge"
echo "PASS"
