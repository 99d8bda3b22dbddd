#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Correctness at scale: 2,048 simulated nodes started by plm prsh, once
# with the flood exchange and once with gather_scatter; 2,048 ranks, one a
# node, each printing a line; every line arrives, once.
#
# Run alone, not beside other tests: 2,048 daemons on two cores starve
# everything else on the machine for the half minute they run. So `make
# check` skips it unless HNP_TEST_SCALE=1, and contrib/check.sh runs it
# so, by itself, after the first build's tests. HNP_TEST_SCALE_NODES sets
# the number of nodes (default 2048). Skipped, saying why, where the
# machine lacks the memory, the processes or the descriptors the job
# needs.
#
# Then a third run with the pmix component serving the shell (a PMIx
# server in every daemon, which a shell may need), on as many nodes:
# every rank must see its PMIx rank. libpmix's server holds some 2 kB a
# rank of the job in every daemon (its record of each rank, which its
# shared store wants) and 1.2 MB of its own: on one machine standing in
# for a cluster that grows as the square of the nodes (measured: 1,024
# nodes took 3.4 GB of the machine in the daemons). Where the machine
# lacks the memory the other runs go on and the test is skipped at the
# end, saying why; HNP_TEST_SCALE_PMIX_NODES sets fewer nodes. On a real
# cluster each node pays its own share (some 5.5 MB at 2,048 ranks).
#
# On a machine shared by 2,048 daemons a process may wait many seconds for
# a CPU: heartbeats, the handshake deadline and the launch deadline are
# made generous, since what is tested is that every rank runs and is
# heard, not how fast. So are the HNP's waiting slots: under gather_scatter
# every daemon connects to it at once, and with 128 slots a daemon that
# got no CPU for half a second between its connect and its hello was
# dropped as a silent stranger (once in four CI runs), which ended the job.
. "$top_srcdir/tests/integration/lib.sh"

[ -n "${HNP_TEST_SCALE:-}" ] && [ "${HNP_TEST_SCALE}" != 0 ] ||
    skip "set HNP_TEST_SCALE=1 to run (alone: it loads the whole machine)"
nodes=${HNP_TEST_SCALE_NODES:-2048}

# Per node: a daemon, its sentinel, the rank, and the agent's shell while
# it starts: 4 processes. Measured without pmix: 1.0 GB used by 1,024
# nodes with their ranks, 1 MB a node; 4 MB a node leaves room for the
# kernel's share (page tables, socket buffers) at 2,048.
procs_needed=$((4 * nodes + 200))
mem_needed_kb=$((4096 * nodes))
# The HNP holds a connection per daemon under gather_scatter, as many
# waiting slots (below), and a few descriptors of its own.
fds_needed=$((2 * nodes + 320))

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
# scale_run NODES EXCHANGE PMI [ARGS...]: the shell on NODES nodes, one a
# node; each prints its rank, its node and its PMIx rank ("-" if none).
scale_run() {
    local n=$1 exchange=$2 pmi=$3 started=$SECONDS
    shift 3
    what="$n nodes, plm prsh, exchange $exchange, pmi $pmi"
    run_hnp --mca plm prsh --mca exchange "$exchange" --mca pmi "$pmi" \
        --mca rte_heartbeat_interval 20 --mca rte_heartbeat_misses 10 \
        --mca plm_base_launch_timeout 600 --mca oob_tcp_handshake_timeout 120 \
        --mca oob_tcp_max_handshakes "$((n + 64))" "$@" \
        -N 1 --host "$(hosts "$n")" \
        sh -c 'echo "$HNP_RANK $HNP_NODE ${PMIX_RANK:--}"'
    expect_status 0 "$what"
    [ "$(wc -l <"$tmp/out")" = "$n" ] ||
        fail "$what: $n lines expected, $(wc -l <"$tmp/out") arrived"
    expect_one_rank_per_node "$n"
    # Thousands of daemons, sentinels and agents going at once, with
    # gigabytes to hand back, on two cores: give them two minutes.
    assert_no_leftovers "$what" 120
    echo "$what: $((SECONDS - started)) s"
}

for exchange in flood gather_scatter; do
    scale_run "$nodes" "$exchange" ^pmix
done

# With the pmix component serving: 2 MB a node and 2.5 kB a rank of the
# job in each daemon (measured 1.2 MB and 2.05 kB: 3.4 GB at 1,024 nodes).
pmix_nodes=${HNP_TEST_SCALE_PMIX_NODES:-$nodes}
pmix_needed_kb=$((pmix_nodes * (2048 + 5 * pmix_nodes / 2)))
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
[ "${avail_kb:-0}" -ge "$pmix_needed_kb" ] ||
    skip "the runs without PMIx passed; with the pmix component serving," \
         "$pmix_nodes nodes need about $((pmix_needed_kb / 1024)) MB;" \
         "$((${avail_kb:-0} / 1024)) MB available" \
         "(HNP_TEST_SCALE_PMIX_NODES sets fewer)"
# A rank may wait seconds for a CPU between its connect to the PMIx
# server and its hello.
scale_run "$pmix_nodes" flood pmix,simple --mca pmi_pmix_hello_timeout 60
awk '$3 != $1 { bad++ } END { exit bad > 0 }' "$tmp/out" ||
    fail "$what: a rank without its PMIx rank:" \
         "$(awk '$3 != $1' "$tmp/out" | head -n 3 | paste -sd' ')"
echo "PASS"
