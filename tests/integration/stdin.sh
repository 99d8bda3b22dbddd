#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# hnp's stdin goes to rank 0 (or all ranks, or none); the others read end of
# file; large input arrives whole.
. "$top_srcdir/tests/integration/lib.sh"

# run_hnp_in FILE ARGS...: run_hnp with FILE as stdin.
run_hnp_in() {
    local input=$1
    shift
    status=0
    timeout -k 5 60 "$HNP" "$@" <"$input" >"$tmp/out" 2>"$tmp/err" || status=$?
}

printf 'first line\nsecond line\n' >"$tmp/two"
run_hnp_in "$tmp/two" -N 2 --host "$(hosts 2)" sh -c 'echo "$HNP_RANK: $(cat | paste -sd+)"' "$prefix"
expect_status 0 "stdin to rank 0"
expect_in "$tmp/out" "^0: first line+second line\$" "rank 0 reads hnp's stdin"
for r in 1 2 3; do expect_in "$tmp/out" "^$r: \$" "rank $r reads end of file"; done

run_hnp_in "$tmp/two" --stdin all -N 1 --host "$(hosts 3)" sh -c 'echo "$HNP_RANK: $(wc -l)"' "$prefix"
expect_status 0 "--stdin all"
for r in 0 1 2; do expect_in "$tmp/out" "^$r: 2\$" "rank $r reads all of stdin"; done

run_hnp_in "$tmp/two" --stdin none -N 1 --host "$(hosts 2)" sh -c 'echo "$HNP_RANK: $(wc -l)"' "$prefix"
expect_status 0 "--stdin none"
for r in 0 1; do expect_in "$tmp/out" "^$r: 0\$" "rank $r reads nothing"; done

run_hnp_in "$tmp/two" --stdin 1 -N 1 --host "$(hosts 2)" sh -c 'echo "$HNP_RANK: $(wc -l)"' "$prefix"
expect_in "$tmp/out" "^1: 2\$" "--stdin 1"
run_hnp_in "$tmp/two" --stdin 9 -N 1 --host "$(hosts 2)" true
expect_status 1 "--stdin of a rank that does not exist"
expect_in "$tmp/err" "the job has ranks 0 to 1" "bad --stdin rank explained"

# 20 MB through a pipe arrives whole and in order at rank 0.
head -c 20000000 /dev/urandom >"$tmp/big"
want=$(md5sum <"$tmp/big")
status=0
cat "$tmp/big" | timeout -k 5 60 "$HNP" -N 1 --host "$(hosts 1)" md5sum >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 0 "20 MB of stdin"
[ "$(head -n 1 "$tmp/out")" = "$want" ] || fail "stdin arrived changed: $(cat "$tmp/out") vs $want"
assert_no_leftovers "stdin"
echo "PASS"
