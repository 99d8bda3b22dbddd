#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# contrib/testcluster for real: four nodes in network namespaces, each with
# its own sshd and slurmd; ssh and srun reach every node under its own host
# name; a second up changes nothing; down leaves nothing behind. Skipped
# where namespaces cannot be made (not root, or a container without
# CAP_SYS_ADMIN and CAP_NET_ADMIN).
#
# The test owns the cluster: it takes down one that was up before it.
#
# Exit status: 0 pass, 1 fail, 77 skip (automake's convention).
set -euo pipefail

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
TC="$top_srcdir/contrib/testcluster/testcluster.sh"
N=4
STATE=/run/hnp-testcluster
out=$(mktemp -d "${TMPDIR:-/tmp}/hnp-testcluster.XXXXXX")
built=0

# Whatever happened, the cluster goes: a failed test must not leave
# namespaces and daemons on the machine.
cleanup() {
    if [ "$built" = 1 ] && ! timeout -k 5 120 bash "$TC" down >"$out/cleanup" 2>&1; then
        echo "cleanup: testcluster.sh down failed:"
        cat "$out/cleanup"
    fi
    rm -rf "$out"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*"
    exit 1
}

# tc LIMIT ARGS...: testcluster.sh under a time limit, its output in
# $out/tc; sets $status.
tc() {
    local limit=$1
    shift
    status=0
    timeout -k 5 "$limit" bash "$TC" "$@" >"$out/tc" 2>&1 || status=$?
}

expect_ok() { # WHAT: the last tc succeeded
    if [ "$status" != 0 ]; then
        cat "$out/tc"
        fail "$1 exited $status"
    fi
}

step_up() {
    built=1
    # Long enough for apt-get on a fresh machine.
    tc 600 up "$N"
    if [ "$status" = 77 ]; then
        built=0
        tail -n 1 "$out/tc"   # testcluster: SKIP: why
        exit 77
    fi
    expect_ok "testcluster.sh up $N"
    cat "$out/tc"
    tc 30 env
    expect_ok "testcluster.sh env"
    # shellcheck disable=SC1091 # written by testcluster.sh env
    . "$out/tc"
}

step_ssh() {
    local k got
    for k in $(seq "$N"); do
        got=$(timeout 30 ssh "node$k" hostname </dev/null 2>"$out/err") ||
            { cat "$out/err"; fail "ssh node$k hostname failed"; }
        [ "$got" = "node$k" ] || fail "ssh node$k hostname answered '$got'"
    done
    echo "PASS: ssh nodeK hostname answers nodeK, K = 1..$N"
}

step_srun() {
    local got want
    want=$(seq -f 'node%g' -s ' ' "$N")
    # A job waits forever for a node that is down: hence the limit.
    got=$(timeout 60 srun -N "$N" hostname </dev/null 2>"$out/err" | sort | paste -sd' ' -) ||
        { cat "$out/err"; fail "srun -N $N hostname failed"; }
    [ "$got" = "$want" ] || fail "srun -N $N hostname answered '$got', not '$want'"
    echo "PASS: srun -N $N hostname answers $want"
}

daemon_pids() { cat "$STATE"/ssh/*.pid "$STATE"/munge/*.pid "$STATE"/slurm/*.pid | sort; }

# A second up reconciles: everything already runs, so nothing restarts.
step_up_again() {
    local before after
    before=$(daemon_pids)
    tc 120 up "$N"
    expect_ok "a second testcluster.sh up $N"
    after=$(daemon_pids)
    [ "$before" = "$after" ] || fail "a second up restarted daemons"
    tc 30 status
    expect_ok "testcluster.sh status"
    echo "PASS: a second up changes nothing; status is all there"
}

# What down must leave: none of our namespaces, links, daemons, files.
leftovers() {
    ip netns list | grep -o '^hnptc-[^ ]*' || true
    ip -o link show | grep -Eo '^[0-9]+: hnptc[^:@]*' || true
    pgrep -af -- "$STATE/" || true
    grep -n 'hnp-testcluster' /etc/hosts || true
    ls -d "$STATE" /etc/ssh/ssh_config.d/hnp-testcluster.conf 2>/dev/null || true
}

step_down() {
    tc 120 down
    expect_ok "testcluster.sh down"
    cat "$out/tc"
    built=0
    [ -z "$(leftovers)" ] || { leftovers; fail "left behind after down (above)"; }
    tc 60 down
    expect_ok "testcluster.sh down when nothing is up"
    tc 30 status
    [ "$status" = 3 ] || { cat "$out/tc"; fail "status after down exited $status, not 3"; }
    echo "PASS: down leaves nothing, and a second down is fine"
}

step_up
step_ssh
step_srun
step_up_again
step_down
