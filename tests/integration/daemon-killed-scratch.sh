#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A daemon killed together with its sentinel (as Slurm ends a step: SIGKILL
# to every process of it, for a node set DOWN or scancel) leaves its
# scratch root in /dev/shm behind (hnp-UID-PID-*, its PMIx server's
# directories): nobody was left to remove it. The next daemon that makes
# a root there removes it. Only this test's daemon's root is looked at.
. "$top_srcdir/tests/integration/lib.sh"

[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
start_hnp -N 1 --host "$(hosts 2)" sh -c 'echo ready; exec sleep 60'
wait_ready 2
victim=$(daemon_pid "${prefix}n2")
[ -n "$victim" ] || fail "the daemon of ${prefix}n2 was not found"
sentinel=$(pgrep -P "$victim" -x hnp-sentinel || true)
[ -n "$sentinel" ] || fail "the sentinel of the daemon of ${prefix}n2 was not found"
root=$(ls -d /dev/shm/hnp-"$(id -u)"-"$victim"-* 2>/dev/null | head -n 1)
[ -n "$root" ] || fail "the daemon of ${prefix}n2 made no root in /dev/shm"
kill -KILL "$victim" "$sentinel"
finish
[ "$status" != 0 ] || fail "the job whose daemon was killed did not fail"
assert_no_leftovers "a daemon killed with its sentinel"

# Another job (whose daemons start their PMIx servers: sh may be anything):
# their first roots in /dev/shm remove the dead one's.
run_hnp -N 1 --host "$(hosts 2)" sh -c true
expect_status 0 "the next job"
[ ! -e "$root" ] || fail "$root of the killed daemon is still there: $(ls -R "$root" | head -n 5)"
assert_no_leftovers "the next job"
assert_no_files_left "the next job"
echo PASS
