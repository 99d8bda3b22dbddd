#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Correctness at scale: 2,048 simulated nodes started by plm prsh, once
# with the flood exchange and once with gather_scatter; 2,048 ranks, one a
# node, each printing a line; every line arrives, once.
#
# Opt-in, as it takes a few minutes on two cores: HNP_TEST_SCALE=1 runs
# it (`HNP_TEST_SCALE=1 make check TESTS=tests/integration/scale.sh`; CI
# runs it so, in a job of its own, whenever the variable is set), and
# HNP_TEST_SCALE_NODES sets the number of nodes (default 2048). Skipped,
# saying why, where the machine lacks the memory, the processes or the
# descriptors the job needs.
#
# On a machine shared by 2,048 daemons a process may wait many seconds for
# a CPU: heartbeats, the handshake deadline and the launch deadline are
# made generous, since what is tested is that every rank runs and is
# heard, not how fast.
. "$top_srcdir/tests/integration/lib.sh"

[ -n "${HNP_TEST_SCALE:-}" ] && [ "${HNP_TEST_SCALE}" != 0 ] ||
    skip "set HNP_TEST_SCALE=1 to run (a few minutes on two cores)"
nodes=${HNP_TEST_SCALE_NODES:-2048}

# Per node: a daemon, its sentinel, the rank, and the agent's shell while
# it starts: 4 processes. Measured (PSS, one node's share): hnpd 0.9 MB,
# the sentinel 0.8 MB, the rank's shell 0.1 MB; with the kernel's share
# (page tables, socket buffers) 4 MB a node is a safe estimate.
procs_needed=$((4 * nodes + 200))
mem_needed_kb=$((4096 * nodes))
# The HNP holds a connection per daemon under gather_scatter, and a few
# descriptors of its own.
fds_needed=$((nodes + 256))

avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
[ "${avail_kb:-0}" -ge "$mem_needed_kb" ] ||
    skip "$nodes nodes need about $((mem_needed_kb / 1024)) MB (4 MB a node);" \
         "$((${avail_kb:-0} / 1024)) MB available"
running=$(ps -e --no-headers | wc -l)
pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
[ $((pid_max - running)) -ge "$procs_needed" ] ||
    skip "$nodes nodes need $procs_needed processes (4 a node); pid_max is" \
         "$pid_max and $running run already"
max_procs=$(ulimit -u)
if [ "$max_procs" != unlimited ]; then
    mine=$(ps -u "$(id -u)" --no-headers | wc -l)
    [ $((max_procs - mine)) -ge "$procs_needed" ] ||
        skip "$nodes nodes need $procs_needed processes (4 a node); ulimit -u" \
             "is $max_procs and this user runs $mine already"
fi
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$fds_needed" ]; then
    ulimit -n "$fds_needed" 2>/dev/null ||
        skip "$nodes nodes need $fds_needed descriptors in the HNP; ulimit -n" \
             "is $(ulimit -n) (hard $(ulimit -Hn))"
fi

export HNP_TEST_TIMEOUT=${HNP_TEST_TIMEOUT:-900}
for exchange in flood gather_scatter; do
    what="$nodes nodes, plm prsh, exchange $exchange"
    started=$SECONDS
    run_hnp --mca plm prsh --mca exchange "$exchange" \
        --mca rte_heartbeat_interval 20 --mca rte_heartbeat_misses 10 \
        --mca plm_base_launch_timeout 600 --mca oob_tcp_handshake_timeout 120 \
        -N 1 --host "$(hosts "$nodes")" sh -c 'echo "$HNP_RANK $HNP_NODE"'
    expect_status 0 "$what"
    [ "$(wc -l <"$tmp/out")" = "$nodes" ] ||
        fail "$what: $nodes lines expected, $(wc -l <"$tmp/out") arrived"
    expect_one_rank_per_node "$nodes"
    assert_no_leftovers "$what"
    echo "$what: $((SECONDS - started)) s"
done
echo "PASS"
