#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Merged output never splits a line: ranks writing fast through
# --tag-output give whole lines, each with its own rank's tag. A line
# longer than 64 KiB comes in marked pieces (each but the last ends with a
# backslash), every piece tagged; a last line without a newline is ended
# before another rank's output.
. "$top_srcdir/tests/integration/lib.sh"

# 8 ranks, 20,000 lines of 110 bytes each, as fast as awk writes them.
run_hnp -N 2 --host "$(hosts 4)" --tag-output awk -v mark="$prefix" \
    'BEGIN { r = ENVIRON["HNP_RANK"]; pad = sprintf("%090d", 0)
             for (i = 0; i < 20000; i++) printf "%d %06d %s\n", r, i, pad }'
expect_status 0 "8 ranks writing fast"
awk '
    $0 !~ /^\[1,[0-9]+\]<stdout>:[0-9]+ [0-9]+ 0+$/ || length($3) != 90 { bad++; next }
    { tag = $1; sub(/^\[1,/, "", tag); sub(/\].*/, "", tag)
      own = $1; sub(/^.*:/, "", own)
      if (own != tag || $2 + 0 != seen[tag] + 0) { bad++; next }
      seen[tag]++ }
    END { for (r in seen) if (seen[r] == 20000) full++
          printf "%d %d\n", bad, full }' "$tmp/out" >"$tmp/verdict"
read -r bad full <"$tmp/verdict"
[ "$bad" = 0 ] || { grep -v '^\[1,[0-9]*\]<stdout>:[0-9]* [0-9]* 0*$' "$tmp/out" | head -3 | cut -c1-200
                    fail "$bad lines cut or mixed"; }
[ "$full" = 8 ] || fail "$full of 8 ranks had all 20000 lines"

# A 150,000-byte line from rank 0 while rank 1 writes short lines: it
# may be cut at 64 KiB, and each piece but the last then ends with a
# backslash; every line is tagged. Rank 1's last line has no newline and
# rank 0 writes after it: it is ended there.
run_hnp -N 1 --host "$(hosts 2)" --tag-output sh -c \
    'if [ "$HNP_RANK" = 0 ]; then sleep 1; head -c 150000 /dev/zero | tr "\0" x; echo
     else seq 3000; printf "no newline %s" "$0"; fi' "$prefix"
expect_status 0 "a long line"
grep -v '^\[1,[01]\]<stdout>:' "$tmp/out" | head -3 | cut -c1-100 | grep . &&
    fail "a line without its tag"
expect_in "$tmp/out" "^\[1,1\]<stdout>:no newline $prefix\$" "the last line of rank 1, whole"
[ "$(grep '^\[1,1\]' "$tmp/out" | sed 's/^\[1,1\]<stdout>://' | head -n 3000 | paste -sd' ')" = \
  "$(seq 3000 | paste -sd' ')" ] || fail "rank 1's lines"
grep '^\[1,0\]' "$tmp/out" | sed 's/^\[1,0\]<stdout>://' >"$tmp/long"
grep -v '^x*\\\?$' "$tmp/long" | head -c 200 | grep . && fail "rank 0's long line mixed"
[ "$(head -n -1 "$tmp/long" | grep -vc '\\$')" = 0 ] || fail "an unmarked cut"
[ "$(tr -cd x <"$tmp/long" | wc -c)" = 150000 ] || fail "the long line lost bytes"
assert_no_leftovers "line integrity"
