#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A daemon that dies during an Open MPI job, killed (SIGKILL) or stopped
# (SIGSTOP, then killed by hnp or its spawn parent once it is given up
# on): nothing of the job stays on any node. Its PMIx server's directory,
# the job's directories (Open MPI's session directories in them) and Open
# MPI's shared-memory segments (4 MB a rank, /dev/shm by default) go with
# it, removed by its sentinel once its ranks are gone. Compared: the
# entries of this test's TMPDIR, and those of /dev/shm and /tmp whose names
# carry this test's node names or the daemons' pids.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi mpi_ring

# The names in /dev/shm and /tmp (any depth in /dev/shm: Open MPI's
# segments, hnp's directories) that this run made: they carry the node
# names of this test or the pid of one of its daemons.
made_here() {
    local pids=$1
    {
        find /dev/shm -name "*${prefix}*" 2>/dev/null
        for pid in $pids; do
            find /dev/shm /tmp -maxdepth 1 \( -name "hnp-*-$pid-*" -o \
                -name "hnp-pmix.$pid.*" \) 2>/dev/null
        done
        find "$TMPDIR" -mindepth 1 2>/dev/null
    } | sort -u
}

# segments N: Open MPI's shared-memory segments of this test, wherever.
segments() { find /dev/shm -name "vader_segment.${prefix}*" 2>/dev/null | wc -l; }

for how in KILL STOP; do
    # Every rank sleeps after MPI_Init (rank 99 never aborts).
    # Heartbeats find the stopped daemon within ten seconds; shorter ones
    # lost a daemon during MPI_Init on a loaded machine ("no heartbeat for
    # 2 s"), before any signal was sent.
    start_hnp "${OMPI_X[@]}" --mca plm rsh --mca rte_heartbeat_interval 1 \
        --mca rte_heartbeat_misses 10 -N 2 --host "$(hosts 2)" \
        "$tmp/mpi_ring" abort 99 0 "$prefix"
    for _ in $(seq 300); do
        [ "$(segments)" -ge 4 ] && break
        sleep 0.1
    done
    [ "$(segments)" -ge 4 ] || { cat "$tmp/err"; fail "SIG$how: the ranks did not get through MPI_Init"; }
    pids="$(daemon_pid "${prefix}n1") $(daemon_pid "${prefix}n2")"
    victim=$(daemon_pid "${prefix}n2")
    [ -n "$victim" ] || fail "SIG$how: the daemon of ${prefix}n2 was not found"
    during=$(made_here "$pids" | wc -l)
    kill -"$how" "$victim"
    finish
    [ "$status" != 0 ] || fail "SIG$how of a daemon: the job did not fail"
    assert_no_leftovers "SIG$how of a daemon during an Open MPI job"
    left=""
    for _ in $(seq 100); do
        left=$(made_here "$pids")
        [ -z "$left" ] && break
        sleep 0.1
    done
    [ -z "$left" ] || fail "SIG$how of a daemon: left behind: $left"
    echo "SIG$how: $during entries of the job during the run, none after"
done
echo "PASS"
