#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What an Open MPI rank pays for the size of its job under hnp: with the
# job's data in libpmix's shared store (gds ds21, once a node), a rank's
# anonymous memory after MPI_Init does not grow with the job (<= 0.3 kB a
# rank of the job, as under mpirun); with a private copy in every rank
# (gds hash) it grew by some 2.4 kB a rank of the job. Each rank prints its
# RssAnon and the store its server named (tests/mpi/ompi_memory.c); the
# medians of a job of 8 nodes x 4 and one of 64 nodes x 4 give the slope.
# A daemon grows by at most 5 kB a rank of the job (some 3.7 kB: libpmix's
# record of each rank and, after the fence, of its modex data; it grew by
# 7 kB while hnp registered the node and proc maps). The shared store's
# files hold at most 2 MB a node (two segments of 256 kB and 1 MB, and a
# few pages; libpmix's own segments, 4 MB each, held 8 MB).
# The slope is a count of pages, not a time: it does not depend on the
# machine's speed.
#
# With HNP_TEST_SCALE=1 (alone: it loads the whole machine) the large job
# is 256 nodes x 4 ranks (HNP_TEST_OMPI_NODES), skipped, saying why, where
# the machine lacks the memory or the processes for it. Measured: a job of
# 64 nodes x 4 took 1.1 GB of the machine (4.2 MB a rank: its private
# pages, its shared-memory segments, its share of its daemon); the
# daemons grow by some 3.7 kB a rank of the job each.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
small=8
large=64
scale_opts=()
if [ -n "${HNP_TEST_SCALE:-}" ] && [ "${HNP_TEST_SCALE}" != 0 ]; then
    large=${HNP_TEST_OMPI_NODES:-256}
    # Hundreds of daemons and a thousand ranks on a few cores: a process
    # may wait seconds for a CPU (as in scale.sh), between a rank's
    # connect to its PMIx server and its hello too (libpmix's server
    # drops a connection silent for pmi_pmix_hello_timeout).
    scale_opts=(--mca rte_heartbeat_interval 20 --mca rte_heartbeat_misses 10
                --mca plm_base_launch_timeout 600
                --mca oob_tcp_handshake_timeout 120
                --mca oob_tcp_max_handshakes "$((large + 64))"
                --mca pmi_pmix_hello_timeout 60)
fi
ppn=4
# A node: a daemon, its sentinel, 4 ranks (each some 20 MB resident with
# Open MPI's libraries, most of it shared) and the agent's shell. Memory:
# 6 MB a rank, and 5 kB a rank of the job in each daemon.
procs_needed=$((7 * large + 100))
mem_needed_kb=$((ppn * large * 6 * 1024 + large * ppn * large * 5))
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
[ "${avail_kb:-0}" -ge "$mem_needed_kb" ] ||
    skip "$large nodes x $ppn Open MPI ranks need about" \
         "$((mem_needed_kb / 1024)) MB; $((${avail_kb:-0} / 1024)) MB available"
running=$(ps -e --no-headers | wc -l)
pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
[ $((pid_max - running)) -ge "$procs_needed" ] ||
    skip "$large nodes need $procs_needed processes; pid_max is $pid_max" \
         "and $running run already"

build_ompi ompi_memory
export HNP_TEST_TIMEOUT=${HNP_TEST_TIMEOUT:-$((120 + 2 * large))}

# probe NODES: run the probe on NODES x $ppn ranks, check that every rank
# reported; set $median (the ranks' median RssAnon, kB), $daemon (the
# median of their daemons', as each rank read its parent's) and $stores
# (the stores the ranks were handed, one a line).
probe() {
    local nodes=$1 np=$(($1 * ppn)) what="$1 nodes x $ppn Open MPI ranks"
    run_hnp "${OMPI_X[@]}" ${scale_opts[@]+"${scale_opts[@]}"} -N "$ppn" \
        --host "$(hosts "$nodes")" "$tmp/ompi_memory"
    expect_status 0 "$what"
    [ "$(grep -c "^memory rank [0-9]* of $np: anon [0-9]* store " "$tmp/out")" = "$np" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$what: not every rank reported"; }
    assert_no_leftovers "$what"
    median=$(awk '/^memory rank/ { print $7 }' "$tmp/out" | sort -n |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    daemon=$(awk '/^memory rank/ { print $11 }' "$tmp/out" | sort -n |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    stores=$(awk '/^memory rank/ { print $9 }' "$tmp/out" | sort -u)
    shm=$(awk '/^memory rank/ { print $13 }' "$tmp/out" | sort -n | tail -n 1)
}

probe "$small"
anon_small=$median stores_small=$stores daemon_small=$daemon
probe "$large"
anon_large=$median stores_large=$stores daemon_large=$daemon
echo "the shared store's files on a node: $shm kB at $((large * ppn)) ranks"
[ "$shm" -ge 0 ] && [ "$shm" -le 2048 ] ||
    fail "the shared store's files hold $shm kB on a node with" \
         "$((large * ppn)) ranks in the job; 2048 at most expected"
ranks=$(((large - small) * ppn))
# 0.3 kB a rank of the job, in tenths of a kB
slope_tenths=$(((anon_large - anon_small) * 10 / ranks))
echo "a rank's RssAnon: $anon_small kB at $((small * ppn)) ranks," \
     "$anon_large kB at $((large * ppn)): $slope_tenths tenths of a kB a rank"
echo "stores handed to the ranks:" $stores_small $stores_large
[ "$slope_tenths" -le 3 ] ||
    fail "a rank's anonymous memory grows by $slope_tenths tenths of a kB" \
         "a rank of the job ($anon_small kB at $((small * ppn)) ranks," \
         "$anon_large kB at $((large * ppn))); 3 at most expected"
# The daemon: libpmix's record of every rank of the job (1.9 kB a rank)
# and of every rank's modex data after the fence (1.8 kB); the
# temporaries of the job's registration are handed back to the system.
# In tenths of a kB, as the ranks'.
daemon_tenths=$(((daemon_large - daemon_small) * 10 / ranks))
echo "its daemon's RssAnon: $daemon_small kB at $((small * ppn)) ranks," \
     "$daemon_large kB at $((large * ppn)): $daemon_tenths tenths of a kB a rank"
[ "$daemon_tenths" -le 50 ] ||
    fail "a daemon's anonymous memory grows by $daemon_tenths tenths of a kB" \
         "a rank of the job; 50 at most expected"
# The store in use: the server handed every rank a shared one first.
printf '%s\n' "$stores_small" "$stores_large" | grep -Evq '^ds(21|12)(,|$)' &&
    fail "a rank was not handed the shared store (ds21/ds12) first:" \
         $stores_small $stores_large
echo "PASS"
