#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --timestamp-output: every line of a rank starts with the time its daemon
# read it (UTC, ISO 8601 to the microsecond), then <stdout>: or <stderr>:,
# or with --tag-output the tag. The times follow the rank's own pace.
. "$top_srcdir/tests/integration/lib.sh"

ts='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z'
app='echo "a $HNP_RANK"; sleep 1.5; echo "b $HNP_RANK"; echo "e $HNP_RANK" >&2'

# seconds TIMESTAMP: seconds since the epoch, with the fraction.
seconds() { date -u -d "$(echo "$1" | sed 's/T/ /; s/Z$//') UTC" +%s.%N; }

before=$(date -u +%s.%N)
run_hnp --timestamp-output -N 1 --host "$(hosts 2)" sh -c "$app" "$prefix"
after=$(date -u +%s.%N)
expect_status 0 "--timestamp-output"
for r in 0 1; do
    grep -Eq "^$ts<stdout>:a $r\$" "$tmp/out" || { cat "$tmp/out"; fail "rank $r: first line not stamped"; }
    grep -Eq "^$ts<stdout>:b $r\$" "$tmp/out" || { cat "$tmp/out"; fail "rank $r: second line not stamped"; }
    grep -Eq "^$ts<stderr>:e $r\$" "$tmp/err" || { cat "$tmp/err"; fail "rank $r: stderr line not stamped"; }
    a=$(seconds "$(grep -E "<stdout>:a $r\$" "$tmp/out" | cut -c1-27)")
    b=$(seconds "$(grep -E "<stdout>:b $r\$" "$tmp/out" | cut -c1-27)")
    awk -v a="$a" -v b="$b" -v t0="$before" -v t1="$after" \
        'BEGIN { exit !(b - a >= 1.4 && b - a < 10 && a >= t0 - 1 && b <= t1 + 1) }' ||
        fail "rank $r: times $a and $b (run from $before to $after)"
done
[ "$(grep -Evc "^$ts<stdout>:" "$tmp/out")" = 0 ] || fail "a line without its time"

# With --tag-output, the tag follows the time.
run_hnp --timestamp-output --tag-output -N 1 --host "$(hosts 2)" \
    sh -c 'echo "a $HNP_RANK"; echo "e $HNP_RANK" >&2' "$prefix"
expect_status 0 "--timestamp-output --tag-output"
for r in 0 1; do
    grep -Eq "^$ts\[1,$r\]<stdout>:a $r\$" "$tmp/out" || { cat "$tmp/out"; fail "rank $r: stdout not stamped and tagged"; }
    grep -Eq "^$ts\[1,$r\]<stderr>:e $r\$" "$tmp/err" || { cat "$tmp/err"; fail "rank $r: stderr not stamped and tagged"; }
done

# Without it, nothing changes.
run_hnp -N 1 --host "$(hosts 2)" sh -c 'echo "a $HNP_RANK"' "$prefix"
expect_status 0 "no option"
[ "$(sort "$tmp/out" | paste -sd,)" = "a 0,a 1" ] || fail "plain output changed: $(cat "$tmp/out")"
assert_no_leftovers "output-timestamp"
echo "PASS"
