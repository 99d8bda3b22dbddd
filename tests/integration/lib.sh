# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the integration tests: a simulated cluster on this machine.
#
# Daemons are started through the local agent (a stand-in for ssh) with node
# names unique to this test run, so that tests running at the same time
# never see each other's processes; the runtime stays on loopback.
set -eu

: "${top_builddir:?the test harness exports top_builddir}"
: "${top_srcdir:?the test harness exports top_srcdir}"

HNP="$top_builddir/bin/hnp"
AGENT="$top_builddir/contrib/local-agent/hnp-local-agent"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-test.XXXXXX")
prefix="t$$x"                      # node names: ${prefix}n1, ${prefix}n2, ...

# Every process of this test carries HNPTEST_MARK in its environment (not
# HNP_*: the daemons do not pass those on to the processes they start), so
# that it is found even once it has exec'd something without "$prefix" in
# its arguments.
export HNPTEST_MARK="$prefix"

cleanup() {
    # Anything of this test still alive is a bug the test reports; it is
    # killed here all the same so that one failure does not leak into others.
    local p
    for p in $(leftovers); do kill -KILL "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT

export HOME="$tmp/home"
mkdir -p "$HOME"
# The scratch directories of the daemons and of the ranks (libpmix's, Open
# MPI's session directories) go under TMPDIR: one of this test's, so that
# what a job leaves behind is seen (assert_no_files_left).
export TMPDIR="$tmp/scratch"
mkdir -p "$TMPDIR"
export HNP_AGENT_LOCKDIR="$tmp/locks"
export HNP_MCA_plm_rsh_agent="$AGENT"
export HNP_MCA_oob_tcp_if_include="127.0.0.1/8"
# A machine shared with other jobs may not run a daemon for many seconds
# (a test lost a daemon to "no heartbeat for 16 s" at load 300): a daemon
# is declared silent after two minutes here. Tests of the heartbeats give
# their own interval and misses on the command line, which come first.
export HNP_MCA_rte_heartbeat_interval=5
export HNP_MCA_rte_heartbeat_misses=24
# Likewise a starved daemon's libpmix may take more than the default ten
# seconds to register a job with hundreds of ranks (seen at 512 nodes under
# a load of 120): the deadline on libpmix's calls is two minutes here too.
export HNP_MCA_pmi_pmix_call_timeout=120
# The daemons run from the build tree, and so do their components and the
# binding module (runtime/bind/bind.h), which sits beside them once
# installed.
if [ "${HNP_DLOPEN:-yes}" = yes ]; then
    component_path=$(printf '%s:' "$top_builddir"/components/*/*/.libs)
    export HNP_MCA_mca_base_component_path="${component_path}$top_builddir/runtime/.libs"
fi

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# start_hnp ARGS...: hnp in the background, its pid in $hnp_pid, its output
# in $tmp/out and $tmp/err. They are emptied first: the job's own
# redirection may come after a wait for its lines begins, which must not
# count the last job's.
start_hnp() {
    : >"$tmp/out"
    : >"$tmp/err"
    timeout -k 5 60 "$HNP" "$@" >"$tmp/out" 2>"$tmp/err" &
    hnp_pid=$!
}
# finish: wait for the hnp of start_hnp; its exit status in $status.
finish() { status=0; wait "$hnp_pid" || status=$?; }
# wait_ready N [TENTHS]: until N lines of $tmp/out begin with "ready" (the
# ranks are up); after TENTHS tenths of a second (150), the test fails.
wait_ready() {
    for _ in $(seq "${2:-150}"); do
        [ "$(grep -c '^ready' "$tmp/out" || true)" -ge "$1" ] && return 0
        sleep 0.1
    done
    cat "$tmp/err"; fail "the ranks did not start ($1 expected ready)"
}
# daemon_pid NODE: the hnpd of node NODE, not its sentinel (a child of it,
# with the same command line and another name); nothing if there is none.
daemon_pid() {
    local p
    for p in $(pgrep -f -- "hnpd --vpid [0-9]* --node $1 " || true); do
        if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = hnpd ]; then echo "$p"; fi
    done | head -n 1
}

# pmix_missing: says why a PMIx client cannot be built and run here (this
# hnp has no pmix component, or libpmix's pkg-config file is missing);
# returns 1, saying nothing, when it can.
pmix_missing() {
    if ! "$top_builddir/bin/hnp-info" --parsable 2>/dev/null | grep -q '^mca:pmi:pmix:'; then
        echo "this hnp has no pmi pmix component"
    elif ! pkg-config --exists pmix; then
        echo "libpmix's pkg-config file is missing"
    else
        return 1
    fi
}
# build_pmix NAME: tests/integration/NAME.c, a PMIx client, into $tmp/NAME.
build_pmix() {
    "${CC:-cc}" -o "$tmp/$1" "$top_srcdir/tests/integration/$1.c" \
        $(pkg-config --cflags --libs pmix) || fail "cannot build $1.c"
}

# address_sanitized: whether the daemons were built with AddressSanitizer,
# whose shadow memory and quarantine of freed blocks make their memory
# figures say nothing about ours.
address_sanitized() {
    nm -D "$top_builddir/bin/hnpd" 2>/dev/null | grep -q __asan_init
}

# need_nodes N: skip, saying why, unless this machine has the memory (2 MB
# a node: a daemon and its sentinel without pmix) and the processes (3 a
# node, with the agent's shell while it starts) for N simulated nodes.
need_nodes() {
    local procs=$((3 * $1 + 200)) avail_kb pid_max
    avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
    [ "${avail_kb:-0}" -ge $((2048 * $1)) ] ||
        skip "$1 nodes need about $((2 * $1)) MB; $((${avail_kb:-0} / 1024)) MB available"
    pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
    [ $((pid_max - $(ps -e --no-headers | wc -l))) -ge "$procs" ] ||
        skip "$1 nodes need $procs processes; pid_max is $pid_max"
    if [ "$(ulimit -u)" != unlimited ]; then
        [ $(($(ulimit -u) - $(ps -u "$(id -u)" --no-headers | wc -l))) -ge "$procs" ] ||
            skip "$1 nodes need $procs processes (ulimit -u $(ulimit -u))"
    fi
}

# hosts N: a host expression for N simulated nodes of this test.
hosts() { echo "${prefix}n[1-$1]"; }

# run_hnp ARGS...: hnp under a time limit; stdout and stderr to $tmp/out,
# $tmp/err; sets $status.
run_hnp() {
    local limit=${HNP_TEST_TIMEOUT:-120} started=$SECONDS
    status=0
    timeout -k 5 "$limit" "$HNP" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    # 124 and 137 are also statuses hnp itself returns (--timeout, SIGKILL):
    # only the clock tells whether timeout had to stop it.
    if { [ "$status" = 124 ] || [ "$status" = 137 ]; } && [ $((SECONDS - started)) -ge "$limit" ]; then
        tail -n 50 "$tmp/out"
        cat "$tmp/err"
        fail "hnp $* did not finish in time"
    fi
    return 0
}

# The processes of this test still alive: those with the node names in
# their arguments (daemons), and those with the marker in their environment
# (everything they started), but not this shell's own process group (the
# test script, its pipelines and subshells carry the marker too; hnp's
# daemons leave it, and every process they start has a group of its own).
leftovers() {
    local group
    group=$(ps -o pgid= -p $$ | tr -d ' ')
    {
        pgrep -f -- "$prefix" || true
        grep -lzx -- "HNPTEST_MARK=$prefix" /proc/[0-9]*/environ 2>/dev/null |
            sed 's,^/proc/\([0-9]*\)/environ$,\1,' || true
    } | sort -un | xargs -r ps -o pid=,pgid= -p 2>/dev/null |
        awk -v group="$group" -v me=$$ '$1 != me && $2 != group { print $1 }' || true
}

# Wait a little for stragglers (50 looks 0.1 s apart, and SECONDS at
# least where given: thousands of processes ending at once on a loaded
# machine take longer), then fail naming them.
assert_no_leftovers() { # WHAT [SECONDS]
    local until=$((SECONDS + ${2:-0})) started=$SECONDS looks=0
    while [ $looks -lt 50 ] || [ $SECONDS -lt $until ]; do
        looks=$((looks + 1))
        if [ -z "$(leftovers)" ]; then
            [ $((SECONDS - started)) -lt 5 ] ||
                echo "$1: the last processes left after $((SECONDS - started)) s"
            return 0
        fi
        sleep 0.1
    done
    ps -o pid,ppid,args -p "$(leftovers | paste -sd, -)" || true
    fail "processes left behind after: $1"
}

# Nothing of the jobs so far is left in TMPDIR, or in /dev/shm (Open MPI
# names its segments after the node). A daemon that is SIGKILLed cannot
# clean up; every other way out must.
assert_no_files_left() {
    local left
    for _ in $(seq 50); do
        left=$({ ls -A "$TMPDIR"; ls /dev/shm 2>/dev/null | grep -F -- "$prefix"; } | paste -sd' ')
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    fail "left behind after $1: $left"
}

# $tmp/out has lines "RANK NODE" of a job of N ranks, one a node: ranks 0
# to N-1 once each, N distinct nodes.
expect_one_rank_per_node() { # N
    [ "$(cut -d' ' -f1 "$tmp/out" | sort -n | paste -sd' ')" = "$(seq -s' ' 0 $(($1 - 1)))" ] ||
        fail "ranks 0..$(($1 - 1)) once each expected: $(cut -d' ' -f1 "$tmp/out" | sort -n | paste -sd' ' | cut -c1-200)"
    [ "$(cut -d' ' -f2 "$tmp/out" | sort -u | wc -l)" = "$1" ] || fail "nodes repeated"
}

expect_status() {
    [ "$status" = "$1" ] || {
        echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"
        fail "expected exit status $1, got $status ($2)"
    }
}

expect_in() { # FILE PATTERN WHAT
    grep -q -- "$2" "$1" || {
        echo "--- $1"; cat "$1"; fail "$3: no line matches '$2'"
    }
}

# cluster_up N: the real test cluster (contrib/testcluster: sshd and Slurm
# in network namespaces) with N nodes, its environment in this shell and
# no local agent; taken down at exit whatever happens (an up that failed
# leaves what it built for inspection; down with nothing up is harmless).
# Skips where it cannot be made (not root, no namespaces).
cluster_up() {
    local up_status=0
    tc="$top_srcdir/contrib/testcluster/testcluster.sh"
    [ "$(id -u)" = 0 ] || skip "the test cluster needs root"
    trap 'timeout 60 bash "$tc" down >/dev/null 2>&1 || true; cleanup' EXIT
    timeout 300 bash "$tc" up "$1" >"$tmp/up.log" 2>&1 || up_status=$?
    [ "$up_status" = 77 ] && skip "$(tail -n 1 "$tmp/up.log")"
    [ "$up_status" = 0 ] || { cat "$tmp/up.log"; fail "the test cluster did not come up"; }
    eval "$(bash "$tc" env)"
    unset HNP_MCA_plm_rsh_agent
}

# The test cluster's daemons (contrib/testcluster): the hnpd and
# hnp-sentinel processes in its nodes' network namespaces. Other users of
# this machine may run hnp with the same node names (the local agent's
# simulated nodes), outside them.
cluster_daemons() {
    local k p
    for k in 1 2 3 4; do
        for p in $(ip netns pids "${HNP_TESTCLUSTER_NETNS_PREFIX:-hnptc-node}$k" 2>/dev/null || true); do
            case $(cat "/proc/$p/comm" 2>/dev/null) in
            hnpd | hnp-sentinel) echo "$p" ;;
            esac
        done
    done
}
