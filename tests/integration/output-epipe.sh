#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A reader that goes away (`hnp ... | head`) ends the job as it ends any
# program writing into a pipe: the processes are ended and hnp exits with
# 141 (128 + SIGPIPE), promptly, leaving nothing behind.
. "$top_srcdir/tests/integration/lib.sh"

# pipe_to_head WHAT ARGS...: hnp ARGS with its stdout into `head -n 1`.
pipe_to_head() {
    local what=$1 started=$SECONDS
    shift
    timeout -k 5 30 "$HNP" "$@" 2>"$tmp/err" | head -n 1 >"$tmp/out"
    status=${PIPESTATUS[0]}
    expect_status 141 "$what"
    [ $((SECONDS - started)) -lt 25 ] || fail "$what: took $((SECONDS - started)) s"
    expect_in "$tmp/out" "$prefix" "$what: the first line"
    assert_no_leftovers "$what"
}

pipe_to_head "hnp | head -n 1" -N 2 --host "$(hosts 2)" yes "$prefix"
pipe_to_head "--tag-output" -N 2 --host "$(hosts 2)" --tag-output yes "$prefix"
pipe_to_head "--output-filename" -N 2 --host "$(hosts 2)" \
    --output-filename "$tmp/files" yes "$prefix"
[ -n "$(find "$tmp/files" -name stdout -size +0)" ] || fail "--output-filename: nothing saved"

# hnp's stderr read by head: the same.
started=$SECONDS
timeout -k 5 30 "$HNP" -N 2 --host "$(hosts 2)" sh -c 'yes "$0" >&2' "$prefix" \
    2>&1 >/dev/null | head -n 1 >"$tmp/out"
status=${PIPESTATUS[0]}
expect_status 141 "hnp 2>&1 >/dev/null | head -n 1"
[ $((SECONDS - started)) -lt 25 ] || fail "stderr: took $((SECONDS - started)) s"
assert_no_leftovers "stderr into head"
