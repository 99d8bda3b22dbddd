#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Ctrl-Z: SIGTSTP to hnp stops the processes, then hnp; SIGCONT (fg)
# continues them. The stop lasts longer than the heartbeats allow, and the
# job still ends well: nobody counts the time the job was stopped.
. "$top_srcdir/tests/integration/lib.sh"

# Every rank counts to 40, a tenth of a second a step, into a file.
export COUNTER_DIR="$tmp"
timeout -k 5 90 "$HNP" --mca rte_heartbeat_interval 0.5 --mca rte_heartbeat_misses 3 -N 1 --host "$(hosts 2)" sh -c \
    'i=0; while [ $i -lt 40 ]; do i=$((i + 1)); echo $i >"$COUNTER_DIR/c.$HNP_RANK"; echo $i; sleep 0.1; done' \
    "$prefix" >"$tmp/out" 2>"$tmp/err" &
timeout_pid=$!
counts() { cat "$tmp/c.0" "$tmp/c.1" 2>/dev/null | paste -sd' '; }
for _ in $(seq 100); do
    [ "$(wc -w <<<"$(counts)")" = 2 ] && break
    sleep 0.1
done
hnp_pid=$(pgrep -P "$timeout_pid")
kill -TSTP "$hnp_pid"
for _ in $(seq 100); do
    [ "$(ps -o stat= -p "$hnp_pid" | cut -c1)" = T ] && break
    sleep 0.1
done
[ "$(ps -o stat= -p "$hnp_pid" | cut -c1)" = T ] || fail "hnp did not stop"
sleep 1
before=$(counts)
sleep 4
after=$(counts)
kill -CONT "$hnp_pid"
status=0
wait "$timeout_pid" || status=$?
expect_status 0 "stopped for 5 s, then continued"
set -- $before $after
[ $(($3 - $1)) -le 1 ] && [ $(($4 - $2)) -le 1 ] ||
    fail "the processes ran on while hnp was stopped: counters $before, then $after"
[ "$(wc -l <"$tmp/out")" = 80 ] || fail "$(wc -l <"$tmp/out") lines of 80"
assert_no_leftovers "Ctrl-Z, fg"
