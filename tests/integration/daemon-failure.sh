#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A daemon that dies, or whose node hangs, ends the job with a message
# naming the node; its processes die with it, the other daemons leave, and
# nothing is left behind.
. "$top_srcdir/tests/integration/lib.sh"

# start_job N RANK ARGS...: a job of N sleepers in the background, each
# running the shell command RANK once it has said it is ready; ready when
# every rank has said so.
start_job() {
    local n=$1 rank=$2
    shift 2
    start_hnp "$@" sh -c "echo ready; $rank" "$prefix"
    wait_ready "$n"
}

# kill_daemon NODE WHAT [RANK]: SIGKILL the daemon of node NODE mid-job.
kill_daemon() {
    start_job 20 "${3:-exec sleep 60}" --mca routed radix --mca routed_radix_degree 4 -N 1 --host "$(hosts 20)"
    kill -KILL "$(daemon_pid "${prefix}n$1")"
    finish
    [ "$status" != 0 ] || fail "$2: the job must fail"
    expect_in "$tmp/err" "daemon on node ${prefix}n$1 (vpid $1) died" "$2: node named"
    assert_no_leftovers "$2"
}
kill_daemon 20 "a leaf daemon killed"
# The ranks' own children too: the parent-death signal reaches the rank
# alone, and its sleep would go on under init.
kill_daemon 7 "a daemon killed: its ranks' children" 'sleep 60; true'

# A daemon told to go (SIGTERM: an HNP that gives up on it, a batch system
# cancelling the step) ends its ranks and leaves nothing in TMPDIR, though
# it serves the shell's ranks both pmi interfaces (a PMIx server: files).
# What the SIGKILLed daemon above could not remove goes first.
rm -rf "${TMPDIR:?}"/*
run_hnp -N 2 --host "$(hosts 2)" sh -c \
    '[ "$HNP_RANK" = 3 ] && kill -TERM "$PPID"; exec sleep 30' "$prefix"
[ "$status" != 0 ] || fail "a daemon ended by SIGTERM: the job must fail"
assert_no_leftovers "a daemon ended by SIGTERM"
assert_no_files_left "a daemon ended by SIGTERM"
kill_daemon 2 "a daemon with routing children killed"

# A hung node (SIGSTOP: its connections stay open) is noticed by the
# heartbeats, and the HNP has it killed (daemon-stopped.sh); were it still
# there to run again, it would find its route gone and clean up.
start_job 6 'exec sleep 60' --mca rte_heartbeat_interval 1 --mca rte_heartbeat_misses 3 \
    --mca routed radix --mca routed_radix_degree 2 -N 1 --host "$(hosts 6)"
stopped=$(daemon_pid "${prefix}n1")
kill -STOP "$stopped"
finish
kill -CONT "$stopped" 2>/dev/null || true
[ "$status" != 0 ] || fail "a hung daemon must fail the job"
expect_in "$tmp/err" "daemon on node ${prefix}n1 (vpid 1) stopped responding" "hung node named"
assert_no_leftovers "a hung daemon"
echo "PASS"
