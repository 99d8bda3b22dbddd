#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Output of every process arrives complete, each process's lines in order,
# no line of one process cut into another's; stderr stays stderr.
. "$top_srcdir/tests/integration/lib.sh"

# 8 ranks x 2000 lines of ~100 bytes each, written as fast as possible.
app='i=0; while [ $i -lt 2000 ]; do echo "r$HNP_RANK l$i xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; i=$((i+1)); done; echo "err$HNP_RANK" >&2'
run_hnp -N 2 --host "$(hosts 4)" sh -c "$app" "$prefix"
expect_status 0 "output job"
[ "$(wc -l <"$tmp/out")" = 16000 ] || fail "16000 lines expected, got $(wc -l <"$tmp/out")"
bad=$(grep -cv '^r[0-7] l[0-9]* x\{85\}$' "$tmp/out" || true)
[ "$bad" = 0 ] || fail "$bad lines were cut or mixed"
for r in 0 1 2 3 4 5 6 7; do
    grep "^r$r " "$tmp/out" | cut -d' ' -f2 | tr -d l | awk 'NR-1 != $1 {exit 1}' ||
        fail "lines of rank $r out of order"
    expect_in "$tmp/err" "^err$r\$" "stderr of rank $r"
done

# A large output from one rank (8 MB, no newline until the end) arrives whole.
run_hnp -N 1 --host "$(hosts 1)" sh -c 'head -c 8388608 /dev/zero | tr "\0" a; echo' "$prefix"
expect_status 0 "large output"
[ "$(wc -c <"$tmp/out")" = 8388609 ] || fail "8 MB + newline expected, got $(wc -c <"$tmp/out") bytes"
# 1 MB from each of 256 ranks (128 nodes) arrives whole: 16384 lines of
# 64 bytes naming their rank.
# (hnp's own status: the pipe's would be uniq's)
timeout -k 5 120 "$HNP" -N 2 --host "$(hosts 128)" sh -c \
    'yes "$(printf "%-63s" "$HNP_RANK-")" | head -n 16384' \
    "$prefix" 2>"$tmp/err" | cut -d- -f1 | sort -n | uniq -c >"$tmp/counts" &&
    status=${PIPESTATUS[0]} || status=${PIPESTATUS[0]}
expect_status 0 "256 ranks x 1 MB"
[ "$(wc -l <"$tmp/counts")" = 256 ] || { head -n 5 "$tmp/counts"; cat "$tmp/err"; fail "output of $(wc -l <"$tmp/counts") ranks, expected 256"; }
awk '$1 != 16384 { exit 1 }' "$tmp/counts" || fail "some rank's 16384 lines did not all arrive: $(awk '$1 != 16384' "$tmp/counts" | head -3)"

# A slow reader of hnp's output slows the job down: 100 MB through a
# reader that starts 2 s late arrive whole, and the daemon never holds more
# than a few MB of it.
timeout -k 5 120 "$HNP" --timing -N 1 --host "$(hosts 1)" \
    sh -c 'head -c 100000000 /dev/zero' "$prefix" 2>"$tmp/err" |
    (sleep 2; wc -c >"$tmp/count") && status=${PIPESTATUS[0]} || status=${PIPESTATUS[0]}
expect_status 0 "slow reader"
[ "$(cat "$tmp/count")" = 100000000 ] || fail "100 MB expected, got $(cat "$tmp/count")"
rss=$(sed -n 's/.*daemon peak RSS (max) *\([0-9]*\) kB/\1/p' "$tmp/err")
[ -n "$rss" ] || fail "no daemon peak RSS in --timing"
if address_sanitized; then
    echo "note: AddressSanitizer build, daemon peak RSS $rss kB not checked"
else
    [ "$rss" -lt 65536 ] || fail "daemon peak RSS $rss kB with a slow reader"
fi
assert_no_leftovers "output"
echo "PASS"
