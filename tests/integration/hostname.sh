#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every simulated node has its own host name, as on a cluster: the local
# agent runs each node in a UTS namespace named after it, so `hostname` in
# a process prints its node (and Open MPI's shared-memory segments, named
# after the host, do not collide across nodes). A node that is this
# machine is still started without the agent, under this machine's name.
# Where the agent cannot make namespaces it keeps this machine's name and
# says so once; a name longer than a host name may be falls back the same.
. "$top_srcdir/tests/integration/lib.sh"

unset HNP_AGENT_HOSTNAME
me=$(hostname)
probe=$("$AGENT" "${prefix}probe" hostname 2>"$tmp/probe.err") || fail "the agent failed: $(cat "$tmp/probe.err")"
if [ "$probe" != "${prefix}probe" ]; then
    # Only a fallback the agent explains is a reason to skip.
    grep -q "keep this machine's host name" "$tmp/probe.err" ||
        fail "the agent gave node ${prefix}probe the host name '$probe' and said nothing"
    skip "the agent cannot give nodes their own host names here: $(cat "$tmp/probe.err")"
fi
[ "$(hostname)" = "$me" ] || fail "the agent renamed this machine"

# Three nodes: each process prints its rank, the node hnp mapped it to
# and its host name; the names are the nodes'.
# shellcheck disable=SC2016 # for the processes' shell
run_hnp -N 1 --host "$(hosts 3)" sh -c 'echo "$HNP_RANK $HNP_NODE $(hostname)"'
expect_status 0 "hostname on 3 nodes"
expect_one_rank_per_node 3
awk '$2 != $3 { exit 1 }' "$tmp/out" || fail "a host name is not its node's: $(cat "$tmp/out")"
[ "$(cut -d' ' -f3 "$tmp/out" | sort | paste -sd' ')" = "${prefix}n1 ${prefix}n2 ${prefix}n3" ] ||
    fail "the host names are not the 3 nodes': $(cat "$tmp/out")"
[ ! -s "$tmp/err" ] || fail "hostname on 3 nodes said something: $(cat "$tmp/err")"

# The same through the tree launcher, whose daemons start each other from
# inside their own nodes' namespaces.
# shellcheck disable=SC2016
run_hnp --mca plm prsh -N 1 --host "$(hosts 6)" sh -c 'echo "$HNP_RANK $HNP_NODE $(hostname)"'
expect_status 0 "hostname on 6 nodes, prsh"
awk '$2 != $3 { exit 1 }' "$tmp/out" || fail "prsh: a host name is not its node's: $(cat "$tmp/out")"

# This machine, by its name, is started without the agent and keeps it.
run_hnp -n 1 --host "$me" hostname
expect_status 0 "a job on this machine"
[ "$(cat "$tmp/out")" = "$me" ] || fail "this machine's node printed '$(cat "$tmp/out")', not $me"
assert_no_leftovers "hostname jobs"

# A name too long for a host name: this machine's, said once for the run
# (one lock directory), never a failure.
long=${prefix}$(printf 'x%.0s' $(seq 70))
export HNP_AGENT_LOCKDIR=$tmp/locks-long
for i in 1 2; do
    got=$("$AGENT" "$long" hostname 2>"$tmp/long.err$i") || fail "a long node name failed the launch"
    [ "$got" = "$me" ] || fail "a long node name gave host name '$got', not this machine's"
done
expect_in "$tmp/long.err1" "keep this machine's host name: '$long' is longer" "the fallback is said"
[ ! -s "$tmp/long.err2" ] || fail "the fallback was said twice: $(cat "$tmp/long.err2")"
# HNP_AGENT_HOSTNAME=keep: this machine's name, without a word.
got=$(HNP_AGENT_HOSTNAME=keep "$AGENT" "${prefix}n1" hostname 2>"$tmp/keep.err")
[ "$got" = "$me" ] && [ ! -s "$tmp/keep.err" ] || fail "HNP_AGENT_HOSTNAME=keep: '$got' $(cat "$tmp/keep.err")"
status=0
HNP_AGENT_HOSTNAME=yes "$AGENT" "${prefix}n1" true 2>"$tmp/err" || status=$?
[ "$status" = 255 ] || fail "HNP_AGENT_HOSTNAME=yes accepted"
expect_in "$tmp/err" "HNP_AGENT_HOSTNAME=yes: expected 'node' (the default) or 'keep'" "a bad value is named"
echo "PASS"
