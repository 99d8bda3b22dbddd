#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Spawns onto a node without ranks on the real test cluster (sshd and
# Slurm in network namespaces, contrib/testcluster): with
# plm_base_daemons_on_all_nodes, an Open MPI parent of one rank on node 1
# (tests/mpi/ompi_spawn.c) spawns children onto node 3 over ssh (plm rsh
# and prsh) and under salloc (plm slurm, one srun for every node); also
# without it, where node 3's daemon is started for the spawn (over ssh,
# and under salloc by one more srun step: there onto nodes 3 and 2, named
# out of the allocation's order); each side sends a message and gets it
# back. Under salloc, a node where that step hangs (its slurmd frozen) or
# cannot start (its slurmd stopped) fails the spawn alone: the parent gets
# the error and ends, hnp names the node, nothing is left; add-host of a
# node outside Slurm's allocation is refused, naming it. Needs root and namespaces; counted as
# skipped where they cannot be made.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
cluster_up 3
build_ompi ompi_spawn
prog="$tmp/ompi_spawn"
all=(--mca plm_base_daemons_on_all_nodes 1 -x OMPI_MCA_mpi_yield_when_idle=1)

# on_node3 N WHAT: the parent and its N children, all on node 3, each got
# their answer.
on_node3() {
    expect_status 0 "$2"
    expect_in "$tmp/out" "^parent: $1 children, $1 answered right$" "$2"
    [ "$(grep -c "^child [0-9]* of $1 on node3: got [0-9]* ok$" "$tmp/out")" = "$1" ] ||
        fail "$2: not $1 children on node3: $(cat "$tmp/out" "$tmp/err")"
}

for plm in rsh prsh; do
    run_hnp --mca plm "$plm" --mca plm_rsh_agent ssh "${all[@]}" -n 1 \
        --host node1:2,node2:2,node3:2 "$prog" 2 node3
    on_node3 2 "plm $plm over ssh"
    # without it, the spawn has node 3's daemon started over ssh
    run_hnp --mca plm "$plm" --mca plm_rsh_agent ssh \
        -x OMPI_MCA_mpi_yield_when_idle=1 -n 1 \
        --host node1:2,node2:2,node3:2 "$prog" 2 node3
    on_node3 2 "plm $plm over ssh, node 3's daemon started for the spawn"
done
status=0
timeout -k 5 120 salloc -N 3 "$HNP" --mca plm slurm "${all[@]}" -n 1 \
    "$prog" 1 node3 >"$tmp/out" 2>"$tmp/err" || status=$?
on_node3 1 "plm slurm under salloc -N 3"

# Under salloc without plm_base_daemons_on_all_nodes: only node 1 has a
# daemon (one srun step); the spawn's nodes get theirs from one more step
# over them, which numbers them in the allocation's order whatever order
# the spawn named them in.
slurm_x=(--mca plm slurm -x OMPI_MCA_mpi_yield_when_idle=1)
status=0
timeout -k 5 120 salloc -N 3 "$HNP" "${slurm_x[@]}" -n 1 "$prog" 2 node3,node2 \
    >"$tmp/out" 2>"$tmp/err" || status=$?
what="plm slurm under salloc -N 3, daemons of nodes 3 and 2 started for the spawn"
expect_status 0 "$what"
expect_in "$tmp/out" "^parent: 2 children, 2 answered right$" "$what"
for n in 2 3; do
    [ "$(grep -c "^child [0-9]* of 2 on node$n: got [0-9]* ok$" "$tmp/out")" = 1 ] ||
        fail "$what: not 1 child on node$n: $(cat "$tmp/out" "$tmp/err")"
done

# The srun processes of job $1 still alive on this machine: none once the
# job has ended (hnp's steps end with it).
sruns_of_job() {
    local p
    for p in $(pgrep -x srun || true); do
        tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" |
            grep -qx "SLURM_JOB_ID=$1" && echo "$p"
    done
    return 0
}

# nothing_left WHAT: no srun of the last job and no daemon on the nodes.
nothing_left() {
    local left=""
    for _ in $(seq 100); do
        left=$(echo $(sruns_of_job "$(cat "$tmp/jobid")") $(cluster_daemons))
        [ -z "$left" ] && break
        sleep 0.1
    done
    [ -z "$left" ] || { ps -o pid,args -p "${left// /,}"; fail "$1: processes left"; }
}

# add-host of a node outside Slurm's allocation: srun cannot start a
# daemon there, so the spawn is refused at once, naming the node.
status=0
timeout -k 5 120 salloc -w node1,node2 bash -c \
    "echo \$SLURM_JOB_ID >'$tmp/jobid'
     exec '$HNP' ${slurm_x[*]} -n 1 '$prog' 1 node3 add-host" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
what="plm slurm under salloc -w node1,node2, add-host of node 3"
expect_status 0 "$what"
expect_in "$tmp/out" "^parent: spawn failed" "$what"
expect_in "$tmp/err" "node node3 is outside the batch system's allocation" "$what"
nothing_left "$what"

# Node 3's slurmd frozen (SIGSTOP) once the allocation is granted: the
# step for the spawn hangs. Its daemon has not called back within
# plm_base_launch_timeout: the spawn fails alone, the step is stopped, and
# once the node answers again nothing of the job is left.
pidf=/run/hnp-testcluster/slurm/slurmd.node3.pid
status=0
timeout -k 5 120 salloc -N 3 bash -c \
    "echo \$SLURM_JOB_ID >'$tmp/jobid'
     kill -STOP \$(cat $pidf) || exit 99
     exec '$HNP' ${slurm_x[*]} --mca plm_base_launch_timeout 5 -n 1 '$prog' 1 node3" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
kill -CONT "$(cat "$pidf")"
what="plm slurm, a step that hangs on node 3"
expect_status 0 "$what"
expect_in "$tmp/out" "^parent: spawn failed" "$what"
expect_in "$tmp/err" "the spawn of rank 0 of job 1 failed: the daemon for node node3 (vpid 2) did not call back within plm_base_launch_timeout" "$what"
nothing_left "$what"

# Node 3's slurmd stopped once the allocation is granted: the step for
# the spawn cannot start there. The spawn fails alone and at once: the
# parent gets the error and ends, hnp says which node and why.
status=0
timeout -k 5 120 salloc -N 3 bash -c \
    "echo \$SLURM_JOB_ID >'$tmp/jobid'
     kill \$(cat /run/hnp-testcluster/slurm/slurmd.node3.pid) || exit 99
     exec '$HNP' ${slurm_x[*]} -n 1 '$prog' 1 node3" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
what="plm slurm, a step that cannot start on node 3"
expect_status 0 "$what"
expect_in "$tmp/out" "^parent: spawn failed" "$what"
expect_in "$tmp/err" "the spawn of rank 0 of job 1 failed: the daemon for node node3 (vpid 2) could not be started: the command" "$what"
expect_in "$tmp/err" "srun" "$what: srun's words"
nothing_left "$what"
timeout 120 bash "$tc" up 3 >/dev/null 2>&1 || fail "the cluster did not come back"
