#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Comm_spawn_multiple of MPICH at the protocol (Debian's MPICH cannot
# spawn): tests/pmi/pmi_dyn asks for a spawn as MPICH's libpmi writes it,
# PMI-1 (mcmd=spawn blocks) and PMI-2 (cmd=spawn), with a preput key
# (PARENT_ROOT_PORT_NAME) and info keys (wdir, host; hosts for the second
# program, which runs on its own node, not the first's); the children, the
# same program, check that they were told they were spawned (PMI_SPAWNED,
# spawner-jobid), read the preput key from their kvs and report their
# appnum, node and directory. A spawn of a missing program and one on a
# host outside the allocation are refused with the cause, at once.
# Standalone and in a DVM.
. "$top_srcdir/tests/integration/lib.sh"

dyn="$top_builddir/tests/pmi/pmi_dyn"
cd "$tmp"
wdir="$tmp/wdir"
mkdir -p "$wdir"

# check VERSION JOB WHAT: the parent's spawn and refusals, three children
# of job JOB: two of the first program on node 2 in $wdir, one of the
# second on node 1.
check() {
    local v=$1 job=$2
    expect_status 0 "$3"
    expect_in "$tmp/out" "^\[1,0\]<stdout>:parent: spawn$v ok$" "$3: the spawn"
    [ "$(grep -c "^\[$job,[01]\]<stdout>:child [01] appnum 0 node ${prefix}n2 cwd $wdir: spawned ok$" "$tmp/out")" = 2 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$3: not 2 children of the first program on ${prefix}n2 in $wdir"; }
    expect_in "$tmp/out" "^\[$job,2\]<stdout>:child 2 appnum 1 node ${prefix}n1 cwd .*: spawned ok$" \
        "$3: the child of the second program"
    expect_in "$tmp/out" "^\[1,0\]<stdout>:parent: missing program refused: no.such.program:./no/such/program" \
        "$3: a missing program refused"
    expect_in "$tmp/out" "^\[1,0\]<stdout>:parent: unknown host refused: host.no-such-node-of-this-job.is.not.in.the.\(allocation\|DVM\)" \
        "$3: an unknown host refused"
    expect_in "$tmp/err" "spawn of rank 0 of job 1 failed: no such program: /no/such/program" \
        "$3: hnp names the cause"
    ! grep -q "FAIL" "$tmp/out" || { cat "$tmp/out"; fail "$3: a check failed"; }
}

for v in 1 2; do
    run_hnp --tag-output -N 1 --host "${prefix}n1:3,${prefix}n2:4" \
        "$dyn" "spawn$v" "$dyn" "$wdir" "${prefix}n2" "${prefix}n1"
    check "$v" 2 "PMI-$v spawn, standalone"
done
assert_no_leftovers "PMI spawns, standalone"

uri="$tmp/dvm.uri"
timeout -k 5 300 "$HNP" --dvm --report-uri "$uri" --daemonize \
    --host "${prefix}n1:3,${prefix}n2:4" >"$tmp/dvm.log" 2>&1 ||
    { cat "$tmp/dvm.log"; fail "hnp --dvm did not start"; }
job=0
for v in 1 2; do
    # each submission and each spawn takes a job id
    run_hnp --dvm-uri "$uri" --tag-output -N 1 "$dyn" "spawn$v" "$dyn" \
        "$wdir" "${prefix}n2" "${prefix}n1"
    job=$((job + 2))
    sed -i "s/^\[$((job - 1)),/[1,/; s/^\[$job,/[2,/" "$tmp/out"
    sed -i "s/job $((job - 1)) failed/job 1 failed/" "$tmp/err"
    check "$v" 2 "PMI-$v spawn in a DVM"
done
timeout -k 5 60 "$HNP" --dvm-uri "$uri" --dvm-stop || fail "--dvm-stop failed"
assert_no_leftovers "PMI spawns"
echo "PASS"
