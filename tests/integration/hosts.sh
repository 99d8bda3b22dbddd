#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Where ranks go from the hosts a user gives, read as Open MPI 4.1's
# mpirun reads them: a host named twice has two slots (--host a,a,b and
# PBS nodefiles); --host with --hostfile picks among the hostfile's nodes
# and refuses one it lacks; IPv6 addresses, bare or in brackets with
# slots. The names are never resolved: simulated nodes with such names
# run all the same.
. "$top_srcdir/tests/integration/lib.sh"

a="${prefix}a" b="${prefix}b" c="${prefix}c"
# shellcheck disable=SC2016 # expanded by each rank's shell
app='echo "$HNP_RANK $HNP_NODE"'

# placed WHAT EXPECTED: the job succeeded and rank r ran on the r-th node
# of EXPECTED (space-separated).
placed() {
    expect_status 0 "$1"
    local got
    got=$(sort -n "$tmp/out" | cut -d' ' -f2 | paste -sd' ')
    [ "$got" = "$2" ] || fail "$1: ranks ran on '$got', want '$2'"
}

# A repeated host is one slot a mention: 3 ranks, two on a.
run_hnp --host "$a,$a,$b" sh -c "$app"
placed "--host a,a,b" "$a $a $b"
# ... and a fourth rank does not fit without --oversubscribe.
run_hnp -n 4 --host "$a,$b,$a" true
expect_status 1 "-n 4 --host a,b,a"
expect_in "$tmp/err" "3 slots" "the slots of --host a,b,a are counted"

# A PBS nodefile: each node once per slot.
printf '%s\n' "$a" "$a" "$b" "$b" "$b" "$c" >"$tmp/nodefile"
run_hnp --hostfile "$tmp/nodefile" sh -c "$app"
placed "a PBS nodefile" "$a $a $b $b $b $c"
# A count after the node was listed is refused, as Open MPI refuses it.
printf '%s\n' "$a" "$a slots=2" >"$tmp/mixed"
run_hnp --hostfile "$tmp/mixed" true
expect_status 1 "a hostfile listing a node, then giving its count"
expect_in "$tmp/err" "$tmp/mixed:2: $a is listed before" "the line is named"

# --host picks among the hostfile's nodes, in its own order: a bare name
# keeps the hostfile's slots, a count in --host replaces them.
printf '%s slots=2\n' "$a" "$b" "$c" >"$tmp/hostfile"
run_hnp --hostfile "$tmp/hostfile" --host "$c,$a" sh -c "$app"
placed "--hostfile with --host c,a" "$c $c $a $a"
run_hnp --hostfile "$tmp/hostfile" --host "$b:1,$a:3" sh -c "$app"
placed "--hostfile with --host b:1,a:3" "$b $a $a $a"
# A --host name the hostfile lacks is refused, naming it; nothing starts.
run_hnp --hostfile "$tmp/hostfile" --host "$a,${prefix}z" true
expect_status 1 "--host naming a node the hostfile lacks"
expect_in "$tmp/err" "--host names ${prefix}z, which hostfile $tmp/hostfile does not list" \
    "the missing node is named"
assert_no_leftovers "--host filtering the hostfile"

# IPv6: bare (no slot count can follow its colons), or in brackets with
# slots; the node is the address without brackets.
v6a="${prefix}::1" v6b="${prefix}::2"
run_hnp --host "$v6a,[$v6b]:2" sh -c "$app"
placed "--host with IPv6 addresses" "$v6a $v6b $v6b"
printf '%s slots=2\n[%s]\n' "$v6a" "$v6b" >"$tmp/v6hosts"
run_hnp --hostfile "$tmp/v6hosts" sh -c "$app"
placed "a hostfile with IPv6 addresses" "$v6a $v6a $v6b"
assert_no_leftovers "IPv6 hosts"
echo "PASS"
