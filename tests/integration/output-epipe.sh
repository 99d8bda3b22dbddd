#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A reader that goes away (`hnp ... | head`) ends the job as it ends any
# program writing into a pipe: the processes are ended and hnp exits with
# 141 (128 + SIGPIPE), promptly, leaving nothing behind.
. "$top_srcdir/tests/integration/lib.sh"

# pipe_to_head WHAT ARGS...: hnp ARGS with its stdout into `head -n 1`.
# The ranks never end by themselves: a job that did not end on the
# broken pipe is stopped by timeout, and its status (124) says so; no
# clock is read, which a loaded machine would make lie.
pipe_to_head() {
    local what=$1
    shift
    timeout -k 5 120 "$HNP" "$@" 2>"$tmp/err" | head -n 1 >"$tmp/out"
    status=${PIPESTATUS[0]}
    expect_status 141 "$what"
    expect_in "$tmp/out" "$prefix" "$what: the first line"
    assert_no_leftovers "$what"
}

pipe_to_head "hnp | head -n 1" -N 2 --host "$(hosts 2)" yes "$prefix"
pipe_to_head "--tag-output" -N 2 --host "$(hosts 2)" --tag-output yes "$prefix"
pipe_to_head "--output-filename" -N 2 --host "$(hosts 2)" \
    --output-filename "$tmp/files" yes "$prefix"
[ -n "$(find "$tmp/files" -name stdout -size +0)" ] || fail "--output-filename: nothing saved"

# hnp's stderr read by head: the same.
timeout -k 5 120 "$HNP" -N 2 --host "$(hosts 2)" sh -c 'yes "$0" >&2' "$prefix" \
    2>&1 >/dev/null | head -n 1 >"$tmp/out"
status=${PIPESTATUS[0]}
expect_status 141 "hnp 2>&1 >/dev/null | head -n 1"
assert_no_leftovers "stderr into head"
