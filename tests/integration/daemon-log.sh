#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A daemon's warnings, once it has joined and let go of its agent's
# stderr, reach the HNP's stderr with its node's name; the verbose output
# asked for reaches it too; with log_output=file:PATH each daemon writes
# PATH.NODE instead.
. "$top_srcdir/tests/integration/lib.sh"

# start_job ARGS...: a job whose ranks say they are ready, then wait for
# $tmp/stop; returns once the ranks of 3 nodes are ready.
start_job() {
    rm -f "$tmp/stop"
    : >"$tmp/out" # not the last job's lines, whenever the redirection runs
    : >"$tmp/err"
    timeout -k 5 90 "$HNP" --host "$(hosts 3)" -N 1 "$@" sh -c \
        'echo ready; while [ ! -e "$1" ]; do sleep 0.1; done' "$prefix" \
        "$tmp/stop" >"$tmp/out" 2>"$tmp/err" &
    hnp_pid=$!
    wait_ready 3 300
}
finish() {
    touch "$tmp/stop"
    status=0
    wait "$hnp_pid" || status=$?
}

# kill_sentinel NODE: SIGKILL the sentinel of node NODE's daemon (a child
# of the daemon, with its command line): a real warning of a daemon that
# has long left its agent.
kill_sentinel() {
    local p
    for p in $(pgrep -f -- "hnpd --vpid [0-9]* --node ${prefix}n$1 "); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = hnp-sentinel ] && kill -KILL "$p"
    done
    return 0
}

# wait_for FILE PATTERN: until a line of FILE matches (20 s at most).
wait_for() {
    for _ in $(seq 200); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

sentinel_warning="warning: the sentinel (pid [0-9]*) ended"

# A warning after joining, on the HNP's stderr with the node's name.
start_job
kill_sentinel 2
wait_for "$tmp/err" "^hnpd\[${prefix}n2\]: $sentinel_warning" ||
    { cat "$tmp/err"; fail "the daemon's warning did not reach the HNP"; }
finish
expect_status 0 "a daemon's warning does not end the job"
grep -q "${prefix}n[13]" "$tmp/err" && { cat "$tmp/err"; fail "other nodes warned"; }
assert_no_leftovers "a daemon's warning"

# Verbosity asked for on the command line applies to the daemons, whose
# verbose output (here, from their component selection while joining)
# reaches the HNP too.
run_hnp --host "$(hosts 2)" -N 1 --mca exchange_base_verbose 10 true
expect_status 0 "verbose daemons"
for n in 1 2; do
    expect_in "$tmp/err" "^\[hnpd\[${prefix}n$n\]:exchange\] selected " \
        "verbose output of the daemon of node $n"
done
assert_no_leftovers "verbose daemons"

# log_output=file:PATH: the HNP writes PATH, each daemon PATH.NODE, with
# what it logs from the welcome on (the HNP's values come in it).
start_job --mca log_output "file:$tmp/log" --mca exchange_base_verbose 10
kill_sentinel 3
wait_for "$tmp/log.${prefix}n3" "^hnpd\[${prefix}n3\]: $sentinel_warning" ||
    { ls -l "$tmp"; cat "$tmp"/log*; fail "the warning is not in node 3's log file"; }
finish
expect_status 0 "log_output to files"
expect_in "$tmp/log" "^\[hnp:exchange\] selected " "the HNP's own log file"
for n in 1 2 3; do
    expect_in "$tmp/log.${prefix}n$n" "^\[hnpd\[${prefix}n$n\]:exchange\] selected " \
        "node $n's log file"
done
grep -q "hnpd" "$tmp/err" "$tmp/log" && { cat "$tmp/err" "$tmp/log"; fail "daemon messages outside their files"; }
assert_no_leftovers "log_output to files"
echo "PASS"
