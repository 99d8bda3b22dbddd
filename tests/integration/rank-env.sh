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
echo "PASS"
