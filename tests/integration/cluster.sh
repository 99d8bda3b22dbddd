#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# hnp on a real small cluster: network namespaces with real sshd and Slurm
# (contrib/testcluster). rsh and prsh over ssh, slurm under salloc, with
# both exchanges and every routing; each process must run on the node it
# was mapped to; an Open MPI program over ssh and under Slurm, and its
# MPI_Comm_spawn over ssh. Then a
# failure per launcher. Needs root and namespaces;
# counted as skipped where they cannot be made.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

cluster_up 4
# The daemons run from this build tree, which every node sees; they need
# no library path (the runtime is in the programs).
agent=ssh
app='echo "$HNP_RANK $HNP_NODE $(hostname)"'

# every_node_right WHAT: one line a node, each ran where it was mapped.
every_node_right() {
    expect_status 0 "$1"
    [ "$(wc -l <"$tmp/out")" = 4 ] || fail "$1: 4 lines expected: $(cat "$tmp/out")"
    awk '$2 != $3 { exit 1 }' "$tmp/out" || fail "$1: a process ran on the wrong node: $(cat "$tmp/out")"
    [ "$(cut -d' ' -f3 "$tmp/out" | sort | paste -sd' ')" = "node1 node2 node3 node4" ] ||
        fail "$1: not one process per node: $(cat "$tmp/out")"
}

for exchange in gather_scatter flood; do
    for routed in direct radix binomial; do
        for plm in rsh prsh; do
            run_hnp --mca plm "$plm" --mca plm_rsh_agent "$agent" --mca exchange "$exchange" \
                --mca routed "$routed" -N 1 --host 'node[1-4]' sh -c "$app"
            every_node_right "$plm over ssh, $exchange, $routed"
        done
        status=0
        timeout -k 5 90 salloc -N 4 "$HNP" --mca exchange "$exchange" --mca routed "$routed" \
            sh -c "$app" >"$tmp/out" 2>"$tmp/err" || status=$?
        every_node_right "slurm under salloc, $exchange, $routed"
    done
done

# Under Slurm, --host in another order than the allocation: the ranks go
# in --host's order, each on the node it was mapped to; and each rank
# sees its own SLURM_PROCID, SLURM_LOCALID and SLURM_NTASKS, not those
# of the daemon's srun task.
status=0
timeout -k 5 90 salloc -N 4 "$HNP" --host node3,node1,node4,node2 -N 1 \
    sh -c "$app"' $SLURM_PROCID $SLURM_LOCALID $SLURM_NTASKS' \
    >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 0 "slurm, --host in another order than the allocation"
[ "$(sort -n "$tmp/out" | paste -sd'|')" = "0 node3 node3 0 0 4|1 node1 node1 1 0 4|2 node4 node4 2 0 4|3 node2 node2 3 0 4" ] ||
    fail "slurm, --host node3,node1,node4,node2: $(sort -n "$tmp/out" | paste -sd'|')"

# A daemon stopped (SIGSTOP) over real ssh: once the heartbeats give up on
# it, its spawn parent has it killed (ssh NODE kill -KILL PID, or its
# agent's group), and nothing of the job stays on that node.
nap="60.$$" # a rank's sleep no other test's can be taken for
for plm in rsh prsh; do
    start_hnp --mca plm "$plm" --mca plm_rsh_agent "$agent" \
        --mca rte_heartbeat_interval 0.5 --mca rte_heartbeat_misses 3 \
        -N 1 --host 'node[1-4]' sh -c "echo ready; exec sleep $nap"
    wait_ready 4 100
    stopped=$(daemon_pid node3)
    [ -n "$stopped" ] || { cat "$tmp/err"; fail "$plm over ssh: no daemon found on node3"; }
    kill -STOP "$stopped"
    finish
    [ "$status" != 0 ] || fail "$plm over ssh: a stopped daemon must fail the job"
    for _ in $(seq 50); do
        [ -d "/proc/$stopped" ] || break
        sleep 0.1
    done
    if [ -d "/proc/$stopped" ]; then
        kill -KILL "$stopped" 2>/dev/null || true
        cat "$tmp/err"
        fail "$plm over ssh: the stopped daemon on node3 outlived hnp"
    fi
    [ -z "$(pgrep -f "sleep $nap" || true)" ] ||
        fail "$plm over ssh: a rank outlived the stopped daemon: $(pgrep -af "sleep $nap")"
done

# An Open MPI program (PMIx) over real ssh and under Slurm: 2 ranks a
# node, each node's pair over shared memory, the nodes over TCP on the
# cluster's network; where this hnp has no pmix component, skipped. The
# allocation gives each node one slot: two ranks a node oversubscribe it.
if why=$(ompi_missing); then
    echo "skipping Open MPI on the cluster: $why"
else
    build_ompi mpi_ring
    run_hnp --mca plm rsh --mca plm_rsh_agent "$agent" -N 2 --host 'node[1-4]' \
        "$tmp/mpi_ring" cluster
    expect_status 0 "Open MPI over ssh"
    [ "$(grep -c "of 8: ring ok, allreduce 28 ok" "$tmp/out")" = 8 ] ||
        fail "Open MPI over ssh: not 8 good ranks: $(cat "$tmp/out" "$tmp/err")"
    status=0
    timeout -k 5 90 salloc -N 4 "$HNP" --mca plm slurm --oversubscribe -N 2 \
        "$tmp/mpi_ring" cluster \
        >"$tmp/out" 2>"$tmp/err" || status=$?
    expect_status 0 "Open MPI under salloc -N 4, plm slurm"
    [ "$(grep -c "of 8: ring ok, allreduce 28 ok" "$tmp/out")" = 8 ] ||
        fail "Open MPI under salloc: not 8 good ranks: $(cat "$tmp/out" "$tmp/err")"
    # MPI_Comm_spawn over real ssh: a parent rank a node spawns 4 children
    # into the free slots of the 4 nodes; a message each way, disconnect.
    build_ompi ompi_spawn
    run_hnp --mca plm rsh --mca plm_rsh_agent "$agent" --tag-output -N 1 --host 'node[1-4]:2' \
        -x OMPI_MCA_btl_tcp_if_include="$HNP_TESTCLUSTER_SUBNET" "$tmp/ompi_spawn" 4
    expect_status 0 "Open MPI's MPI_Comm_spawn over ssh"
    expect_in "$tmp/out" "^\[1,0\]<stdout>:parent: 4 children, 4 answered right$" \
        "Open MPI's MPI_Comm_spawn over ssh"
    [ "$(grep -o "child [0-9]* of 4 on node[1-4]: got [0-9]* ok" "$tmp/out" | awk '{ print $6 }' | sort -u | wc -l)" -ge 2 ] ||
        fail "Open MPI's MPI_Comm_spawn over ssh: the children are not on several nodes: $(cat "$tmp/out")"
fi

# A node whose sshd is stopped: the job fails naming it and ssh's words.
kill "$(cat /run/hnp-testcluster/ssh/sshd.node3.pid)"
for plm in rsh prsh; do
    run_hnp --mca plm "$plm" --mca plm_rsh_agent "$agent" --mca plm_rsh_retries 0 \
        -N 1 --host 'node[1-4]' true
    [ "$status" != 0 ] || fail "$plm: a node without sshd must fail the job"
    expect_in "$tmp/err" "node3" "$plm: the node is named"
    expect_in "$tmp/err" "Connection refused" "$plm: ssh's own words"
done
timeout 120 bash "$tc" up 4 >/dev/null 2>&1 || fail "the cluster did not come back"

# A node set DOWN in Slurm inside the allocation: srun's words, non-zero,
# and the node named. Its slurmd is stopped first, so that the node looks
# as a failed one does (not responding) as well as set DOWN.
kill "$(cat /run/hnp-testcluster/slurm/slurmd.node3.pid)"
status=0
timeout -k 5 90 salloc -N 4 bash -c \
    "scontrol update nodename=node3 state=down reason=hnp-test && exec '$HNP' true" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
scontrol update nodename=node3 state=resume >/dev/null 2>&1 || true
timeout 120 bash "$tc" up 4 >/dev/null 2>&1 || fail "the cluster did not come back"
[ "$status" != 0 ] || fail "slurm: a node set DOWN must fail the job"
expect_in "$tmp/err" "srun" "slurm: srun's words are shown"
expect_in "$tmp/err" "Slurm reports a node of the allocation failed: node3 (down: hnp-test)" \
    "slurm: the node set DOWN is named"

# A node set DOWN while the ranks run: Slurm ends the processes of every
# node, and the first death hnp hears of may be any node's; the node that
# failed is named, first.
rm -f "$tmp"/started.*
status=0
(
    for _ in $(seq 300); do
        [ "$(ls "$tmp"/started.* 2>/dev/null | wc -l)" = 4 ] && break
        sleep 0.1
    done
    scontrol update nodename=node2 state=down reason=hnp-test-running
) &
downer=$!
timeout -k 5 90 salloc -N 4 "$HNP" -N 1 sh -c "touch $tmp/started.\$HNP_RANK; exec sleep 60" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
wait "$downer" || true
scontrol update nodename=node2 state=resume >/dev/null 2>&1 || true
[ "$status" != 0 ] || fail "slurm: a node set DOWN while the ranks run must fail the job"
grep -m1 "^hnp: error:" "$tmp/err" | grep -q "failed: node2 (down: hnp-test-running)" ||
    { cat "$tmp/err"; fail "slurm: the node set DOWN while the ranks ran is not named first"; }

# scancel -s USR1 (or #SBATCH --signal=USR1@T) signals the step's
# processes, the daemons among them: they live on and pass it to the ranks,
# which trap it here; the job ends 0 with every rank's word.
rm -f "$tmp"/started.*
cat >"$tmp/rank-usr1.sh" <<RANK
#!/bin/sh
trap 'echo "usr1 \$HNP_RANK"; exit 0' USR1
touch "$tmp/started.\$HNP_RANK"
while :; do sleep 0.1; done
RANK
cat >"$tmp/job-usr1.sh" <<JOB
#!/bin/bash
"$HNP" -N 1 "$tmp/rank-usr1.sh" &
hnp=\$!
for _ in \$(seq 300); do
    [ "\$(ls "$tmp"/started.* 2>/dev/null | wc -l)" = 4 ] && break
    sleep 0.1
done
scancel -s USR1 "\$SLURM_JOB_ID"
wait \$hnp
JOB
chmod +x "$tmp/rank-usr1.sh" "$tmp/job-usr1.sh"
status=0
timeout -k 5 90 salloc -N 4 "$tmp/job-usr1.sh" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 0 "scancel -s USR1: the job lives on"
[ "$(sort -u "$tmp/out" | grep -c '^usr1 ')" = 4 ] ||
    { cat "$tmp/err"; fail "scancel -s USR1: every rank must trap it: $(cat "$tmp/out")"; }

# scancel of the allocation ends hnp, with a message and a failure status.
status=0
timeout -k 5 90 salloc -N 4 bash -c \
    "'$HNP' sleep 30 & sleep 3; scancel \$SLURM_JOB_ID; wait \$!" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" != 0 ] || fail "scancel: hnp must fail"
expect_in "$tmp/err" "hnp: error:" "scancel: hnp says what happened"

# Nothing of any job is left on the nodes (cluster_daemons: lib.sh).
for _ in $(seq 50); do
    [ -n "$(cluster_daemons)" ] || break
    sleep 0.1
done
left=$(cluster_daemons | paste -sd, -)
[ -z "$left" ] || { ps -o pid,args -p "$left"; fail "daemons left on the cluster"; }
echo "PASS"
