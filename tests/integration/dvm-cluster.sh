#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A DVM (hnp --dvm) on the real test cluster (contrib/testcluster: sshd
# and Slurm in network namespaces): over ssh, and under salloc -N 4 with
# plm slurm. Into each, a job on every node, an MPICH job and an Open MPI
# job (and an Open MPI job that spawns 3 children), each where it is
# installed; then --dvm-stop leaves nothing. Needs
# root and namespaces; skipped where they cannot be made.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

cluster_up 4
uri="$tmp/dvm.uri"
app='echo "$HNP_RANK $HNP_NODE $(hostname)"'

mpich=""
if command -v mpicc.mpich >/dev/null; then
    mpicc.mpich -O2 -o "$tmp/mpich_ring" "$top_srcdir/tests/mpi/mpi_ring.c" || fail "mpicc.mpich failed"
    mpich=yes
else
    echo "note: no MPICH job: mpicc.mpich is missing"
fi
ompi=""
if why=$(ompi_missing); then
    echo "note: no Open MPI job: $why"
else
    mpicc.openmpi -O2 -o "$tmp/ompi_ring" "$top_srcdir/tests/mpi/mpi_ring.c" || fail "mpicc.openmpi failed"
    mpicc.openmpi -O2 -o "$tmp/ompi_spawn" "$top_srcdir/tests/mpi/ompi_spawn.c" || fail "mpicc.openmpi failed"
    ompi=yes
fi

# jobs WHERE: the jobs of this test, submitted into the DVM of $uri
jobs() {
    run_hnp --dvm-uri "$uri" -N 1 sh -c "$app"
    expect_status 0 "$1: a job on every node"
    awk '$2 != $3 { exit 1 }' "$tmp/out" || fail "$1: a process on the wrong node: $(cat "$tmp/out")"
    [ "$(cut -d' ' -f3 "$tmp/out" | sort | paste -sd' ')" = "node1 node2 node3 node4" ] ||
        fail "$1: not one process per node: $(cat "$tmp/out")"
    if [ -n "$mpich" ]; then
        UCX_TLS=sm,self,tcp run_hnp --dvm-uri "$uri" --oversubscribe -N 2 "$tmp/mpich_ring" cluster
        expect_status 0 "$1: MPICH"
        [ "$(grep -c "of 8: ring ok, allreduce 28 ok" "$tmp/out")" = 8 ] ||
            fail "$1: MPICH: not 8 good ranks: $(cat "$tmp/out" "$tmp/err")"
    fi
    if [ -n "$ompi" ]; then
        run_hnp --dvm-uri "$uri" --oversubscribe -N 2 "$tmp/ompi_ring" cluster
        expect_status 0 "$1: Open MPI"
        [ "$(grep -c "of 8: ring ok, allreduce 28 ok" "$tmp/out")" = 8 ] ||
            fail "$1: Open MPI: not 8 good ranks: $(cat "$tmp/out" "$tmp/err")"
        # MPI_Comm_spawn: one parent rank, 3 children in the free slots of
        # the other nodes (a slot a node)
        run_hnp --dvm-uri "$uri" -n 1 \
            -x OMPI_MCA_btl_tcp_if_include="$HNP_TESTCLUSTER_SUBNET" "$tmp/ompi_spawn" 3
        expect_status 0 "$1: Open MPI's MPI_Comm_spawn"
        grep -q "^parent: 3 children, 3 answered right$" "$tmp/out" ||
            fail "$1: Open MPI's MPI_Comm_spawn: $(cat "$tmp/out" "$tmp/err")"
    fi
}

# ------------------------------------------------------------ over ssh
timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize --mca plm rsh \
    --mca plm_rsh_agent ssh --host 'node[1-4]' >"$tmp/dvm.log" 2>&1 ||
    { cat "$tmp/dvm.log"; fail "a DVM over ssh did not start"; }
jobs "a DVM over ssh"
run_hnp --dvm-uri "$uri" --dvm-stop
expect_status 0 "--dvm-stop over ssh"
[ -e "$uri" ] && fail "the file is left after --dvm-stop"

# ------------------------------------------------------ under salloc
status=0
timeout -k 5 300 salloc -N 4 bash -c "
    '$HNP' --dvm --report-uri '$uri' --daemonize --mca plm slurm || exit 10
    $(declare -f jobs run_hnp expect_status fail)
    HNP='$HNP' uri='$uri' tmp='$tmp' app='$app' mpich='$mpich' ompi='$ompi'
    HNP_TESTCLUSTER_SUBNET='$HNP_TESTCLUSTER_SUBNET'
    jobs 'a DVM under salloc' || exit 11
    '$HNP' --dvm-uri '$uri' --dvm-stop || exit 12
" >"$tmp/salloc.out" 2>&1 || status=$?
[ "$status" = 0 ] || { cat "$tmp/salloc.out"; fail "a DVM under salloc -N 4: status $status"; }
# Nothing of the DVMs is left: no daemon, no rank (the cluster's own
# munged and Slurm daemons run on until it goes down).
ours() { leftovers | xargs -r ps -o pid=,comm= -p 2>/dev/null | awk '$2 !~ /^(munged|slurmctld|slurmd|sshd)$/ { print $1 }'; }
for _ in $(seq 50); do [ -z "$(ours)" ] && break; sleep 0.1; done
[ -z "$(ours)" ] || { ps -o pid,args -p "$(ours | paste -sd,)"; fail "processes left behind by the DVMs"; }
echo "PASS"
