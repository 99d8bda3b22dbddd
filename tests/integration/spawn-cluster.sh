#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Spawns onto a node without ranks on the real test cluster (sshd and
# Slurm in network namespaces, contrib/testcluster): with
# plm_base_daemons_on_all_nodes, an Open MPI parent of one rank on node 1
# (tests/mpi/ompi_spawn.c) spawns children onto node 3 over ssh (plm rsh
# and prsh) and under salloc (plm slurm, one srun for every node); over
# ssh also without it (node 3's daemon is started for the spawn); each
# side sends a message and gets it back. Needs root and namespaces;
# counted as skipped where they cannot be made.
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
