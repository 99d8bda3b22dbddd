#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Signals sent to hnp reach every process; a second SIGINT kills at once.
. "$top_srcdir/tests/integration/lib.sh"

# wait_lines N: until $tmp/out has N lines (the processes are ready).
wait_lines() {
    for _ in $(seq 100); do
        [ "$(wc -l <"$tmp/out")" -ge "$1" ] && return 0
        sleep 0.1
    done
    cat "$tmp/err"; fail "the processes did not start"
}

# SIGUSR1 is forwarded: every process traps it and says so.
start_hnp -N 2 --host "$(hosts 2)" sh -c \
    'trap "echo usr1 \$HNP_RANK; exit 0" USR1; echo ready; sleep 60 & wait' "$prefix"
wait_lines 4
kill -USR1 "$(pgrep -P "$hnp_pid")"
finish
expect_status 0 "SIGUSR1 handled by every process"
[ "$(grep -c '^usr1 ' "$tmp/out")" = 4 ] || fail "SIGUSR1 reached $(grep -c '^usr1 ' "$tmp/out") of 4"
assert_no_leftovers "SIGUSR1"

# SIGTERM reaches the processes, which die of it: 128 + 15.
start_hnp -N 1 --host "$(hosts 2)" sh -c 'echo ready; exec sleep 60' "$prefix"
wait_lines 2
kill -TERM "$(pgrep -P "$hnp_pid")"
finish
expect_status 143 "SIGTERM"
expect_in "$tmp/err" "killed by signal 15" "SIGTERM reported"
assert_no_leftovers "SIGTERM"

# A job ended by SIGTERM (or SIGINT, SIGHUP) exits 128 + the signal, even
# when its processes catch it and exit 0: a script must see that the job
# was stopped, not that it succeeded.
for sig in TERM HUP INT; do
    start_hnp -N 1 --host "$(hosts 2)" sh -c \
        "trap 'echo caught \$HNP_RANK; exit 0' $sig; echo ready; while :; do sleep 0.1; done" "$prefix"
    wait_lines 2
    kill -"$sig" "$(pgrep -P "$hnp_pid")"
    finish
    [ "$(grep -c '^caught ' "$tmp/out")" = 2 ] || fail "SIG$sig did not reach both processes"
    expect_status $((128 + $(kill -l "$sig"))) "SIG$sig, then the processes exit 0"
    assert_no_leftovers "SIG$sig caught by the processes"
done

# Processes that ignore SIGINT: the first interrupt does not end the job,
# the second kills everything at once.
start_hnp -N 1 --host "$(hosts 2)" sh -c 'trap "" INT; echo ready; sleep 60; sleep 60' "$prefix"
wait_lines 2
kill -INT "$(pgrep -P "$hnp_pid")"
sleep 0.5
kill -0 "$hnp_pid" 2>/dev/null || fail "the first SIGINT ended a job whose processes ignore it"
kill -INT "$(pgrep -P "$hnp_pid")"
finish
expect_status 130 "second SIGINT"
assert_no_leftovers "second SIGINT"
echo "PASS"
