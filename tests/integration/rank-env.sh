#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every rank, whatever its MPI, is told who it is under the names scripts
# read with hnp, Open MPI's mpirun and MPICH's Hydra; the pmi components'
# scratch directories leave nothing behind in $TMPDIR.
. "$top_srcdir/tests/integration/lib.sh"

scratch="$tmp/scratch"
mkdir -p "$scratch"
vars='HNP_RANK HNP_SIZE HNP_LOCAL_RANK HNP_LOCAL_SIZE OMPI_COMM_WORLD_RANK
OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_LOCAL_SIZE
OMPI_COMM_WORLD_NODE_RANK MPI_LOCALRANKID MPI_LOCALNRANKS'
# shellcheck disable=SC2016 # expanded by each rank's shell
app='line="$HNP_NODE"; for v in '"$(echo $vars)"'; do eval "line=\"\$line $v=\${$v-unset}\""; done; echo "$line"'

# 5 ranks by slot on 2 nodes of 3 slots: 3 on the first, 2 on the second.
TMPDIR="$scratch" run_hnp -n 5 --host "${prefix}n1:3,${prefix}n2:3" \
    sh -c "$app" "$prefix"
expect_status 0 "rank variables"
n1="${prefix}n1" n2="${prefix}n2"
while read -r rank node lrank lsize; do
    expect_in "$tmp/out" "^$node HNP_RANK=$rank HNP_SIZE=5 HNP_LOCAL_RANK=$lrank HNP_LOCAL_SIZE=$lsize OMPI_COMM_WORLD_RANK=$rank OMPI_COMM_WORLD_SIZE=5 OMPI_COMM_WORLD_LOCAL_RANK=$lrank OMPI_COMM_WORLD_LOCAL_SIZE=$lsize OMPI_COMM_WORLD_NODE_RANK=$lrank MPI_LOCALRANKID=$lrank MPI_LOCALNRANKS=$lsize\$" \
        "rank $rank's variables"
done <<LIST
0 $n1 0 3
1 $n1 1 3
2 $n1 2 3
3 $n2 0 2
4 $n2 1 2
LIST
[ "$(wc -l <"$tmp/out")" = 5 ] || fail "5 lines expected, got $(wc -l <"$tmp/out")"
assert_no_leftovers "rank variables"
left=$(ls -A "$scratch")
[ -z "$left" ] || fail "left behind in TMPDIR: $left"

# Daemons started as srun's tasks carry their own task's SLURM_PROCID and
# the like (here inherited through the agent, as srun sets them): each rank
# sees its own numbers, and nothing of the daemon's task.
# shellcheck disable=SC2016 # expanded by each rank's shell
slurm_app='echo "$HNP_RANK $SLURM_PROCID $SLURM_LOCALID $SLURM_NTASKS $SLURM_NPROCS ${SLURM_TASK_PID-unset} ${SLURM_GTIDS-unset}"'
SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NTASKS=2 SLURM_NPROCS=2 SLURM_TASK_PID=4242 SLURM_GTIDS=0 \
    run_hnp -n 5 --host "${prefix}n1:3,${prefix}n2:3" sh -c "$slurm_app"
expect_status 0 "rank variables under a daemon started by srun"
[ "$(sort -n "$tmp/out" | paste -sd'|')" = "0 0 0 5 5 unset unset|1 1 1 5 5 unset unset|2 2 2 5 5 unset unset|3 3 0 5 5 unset unset|4 4 1 5 5 unset unset" ] ||
    fail "the ranks' SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS are not their own: $(sort -n "$tmp/out" | paste -sd'|')"
assert_no_leftovers "Slurm task variables"
echo "PASS"
