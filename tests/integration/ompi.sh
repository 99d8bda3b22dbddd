#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Unmodified Open MPI programs under hnp, through its PMIx server (the pmi
# pmix component): a ring, an allreduce and a barrier from 1 to 64 ranks
# (16 simulated nodes, each exchange), the direct modex, shared memory
# within a node, MPI_Abort, a rank that leaves without MPI_Finalize,
# MPICH and Open MPI jobs with the defaults, mpi4py, and the refusal of an Open MPI
# program where only the PMI-1/2 server is selected. Skipped where the
# pmix component or Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi mpi_ring ompi_node

# check_ring NP WHAT: every rank reports its ring and allreduce correct.
check_ring() {
    local np=$1 sum=$(($1 * ($1 - 1) / 2))
    expect_status 0 "$2"
    [ "$(grep -c "of $np: ring ok, allreduce $sum ok" "$tmp/out")" = "$np" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$2: not every rank got the right results"; }
}

# check_shm NP PER_NODE WHAT: every rank found PER_NODE ranks on its node,
# all of them sharing memory.
check_shm() {
    expect_status 0 "$3"
    [ "$(grep -c "of $1 on ${prefix}n[0-9]*: $2 on the node, shared memory ok" "$tmp/out")" = "$1" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$3: shared memory not right on every rank"; }
}

# ------------------------------------------------------- ring, allreduce
run_hnp "${OMPI_X[@]}" -n 1 "$tmp/mpi_ring" "$prefix"
check_ring 1 "1 Open MPI rank"
run_hnp "${OMPI_X[@]}" -n 4 --host "${prefix}n1:4" "$tmp/mpi_ring" "$prefix"
check_ring 4 "4 Open MPI ranks on 1 node"
for exchange in gather_scatter flood; do
    run_hnp "${OMPI_X[@]}" --mca exchange "$exchange" -N 4 --host "$(hosts 16)" "$tmp/mpi_ring" "$prefix"
    check_ring 64 "64 Open MPI ranks on 16 nodes, exchange $exchange"
done
# The direct modex: no data in MPI_Init's fence, each rank's data asked of
# its daemon when a peer first needs it, across nodes. One rank a node:
# with two, a rank's early get of its neighbour's key can race the
# neighbour's commit inside libpmix 4.2 (the server finds the key's
# remote-scope copy and answers "not found" without asking us), and
# MPI_Init fails with "PML add procs failed"; mpirun.openmpi fails the
# same way, 17 runs in 40 on one node with these two settings.
run_hnp "${OMPI_X[@]}" -x OMPI_MCA_pmix_base_async_modex=1 -x OMPI_MCA_pmix_base_collect_data=0 \
    -N 1 --host "$(hosts 8)" "$tmp/mpi_ring" "$prefix"
check_ring 8 "8 Open MPI ranks on 8 nodes, direct modex"
assert_no_leftovers "Open MPI jobs"
assert_no_files_left "Open MPI jobs"

# ----------------------------------------------------------- shared memory
# One node, vader or nothing; two nodes, vader within and TCP between.
run_hnp "${OMPI_X[@]}" "${OMPI_SHM_ONLY[@]}" -n 4 --host "${prefix}n1:4" "$tmp/ompi_node"
check_shm 4 4 "4 ranks on 1 node over vader alone"
run_hnp "${OMPI_X[@]}" "${OMPI_SHM_TCP[@]}" -N 2 --host "$(hosts 2)" "$tmp/ompi_node"
check_shm 4 2 "2 nodes of 2 ranks over vader and TCP"
awk '{ print $6 }' "$tmp/out" | sort | uniq -c | awk '$1 != 2 { exit 1 }' ||
    fail "2 nodes of 2 ranks: not 2 ranks a host name: $(cat "$tmp/out")"

# ----------------------------------------------------------------- binding
# The binding is hnp's (none by default): Open MPI's own policy, as a
# site's openmpi-mca-params.conf may set it, does not rebind the ranks in
# MPI_Init (hnp tells Open MPI it bound them at launch, as mpirun does).
mine=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
case $mine in
    *[-,]*)
        run_hnp "${OMPI_X[@]}" -x OMPI_MCA_hwloc_base_binding_policy=core \
            -n 2 --host "${prefix}n1:2" "$tmp/ompi_node" cpus
        expect_status 0 "Open MPI ranks with Open MPI's binding policy core"
        [ "$(grep -c "^rank [01] cpus $mine\$" "$tmp/out")" = 2 ] ||
            { cat "$tmp/out"; fail "Open MPI bound the ranks itself (hnp's binding: none; this shell's CPUs: $mine)"; }
        ;;
    *) echo "one CPU here: whether Open MPI rebinds cannot be seen" ;;
esac

# --------------------------------------------------------------- failures
# MPI_Abort(MPI_COMM_WORLD, 7) in rank 1: hnp exits 7, nothing remains.
run_hnp "${OMPI_X[@]}" -N 2 --host "$(hosts 2)" "$tmp/mpi_ring" abort 1 7 "$prefix"
expect_status 7 "Open MPI's MPI_Abort"
expect_in "$tmp/err" "rank 1 on node ${prefix}n1 called abort with exit code 7$" "Open MPI's abort reported"
# Open MPI's placeholder for no message is not a message.
if grep -q "N/A" "$tmp/err"; then cat "$tmp/err"; fail "MPI_Abort reported with N/A"; fi
assert_no_leftovers "Open MPI's MPI_Abort"
assert_no_files_left "Open MPI's MPI_Abort"

# Rank 2 leaves without MPI_Finalize (exit status 0): the job fails, and
# hnp names the rank, as mpirun does.
run_hnp "${OMPI_X[@]}" -N 2 --host "$(hosts 2)" "$tmp/ompi_node" nofinalize 2
[ "$status" != 0 ] || fail "a rank that left without MPI_Finalize went unnoticed (exit 0)"
grep -Eiq "rank 2\b.*finaliz|finaliz.*rank 2\b" "$tmp/err" ||
    { cat "$tmp/err"; fail "the rank that left without MPI_Finalize is not named"; }
assert_no_leftovers "a rank without MPI_Finalize"
assert_no_files_left "a rank without MPI_Finalize"

# MPI_INFO_ENV: the working directory (--wdir, else hnp's), as mpirun
# gives it.
build_ompi info_env
mkdir -p "$tmp/wd"
run_hnp "${OMPI_X[@]}" --wdir "$tmp/wd" -N 1 --host "$(hosts 2)" "$tmp/info_env"
expect_status 0 "MPI_INFO_ENV"
for r in 0 1; do
    expect_in "$tmp/out" "^$r wdir=$tmp/wd$" "MPI_INFO_ENV's wdir of rank $r"
done
run_hnp "${OMPI_X[@]}" -n 1 --host "$(hosts 1)" "$tmp/info_env"
expect_in "$tmp/out" "^0 wdir=$(pwd -P)$" "MPI_INFO_ENV's wdir without --wdir"

# ------------------------------------------------- MPICH beside Open MPI
# Both protocols served by one hnp build with its defaults (no --mca pmi):
# an MPICH job (PMI-1) right after the Open MPI ones above (PMIx), and an
# Open MPI job after it. Each its own job: an MPI_COMM_WORLD speaks one
# protocol.
if command -v mpicc.mpich >/dev/null; then
    mpicc.mpich -O2 -o "$tmp/mpich_ring" "$top_srcdir/tests/mpi/mpi_ring.c" || fail "mpicc.mpich failed"
    UCX_TLS=sm,self run_hnp -x UCX_TLS -N 2 --host "$(hosts 2)" "$tmp/mpich_ring" "$prefix"
    check_ring 4 "an MPICH job with the defaults"
    run_hnp "${OMPI_X[@]}" -N 2 --host "$(hosts 2)" "$tmp/mpi_ring" "$prefix"
    check_ring 4 "an Open MPI job after an MPICH one, with the defaults"
else
    echo "MPICH's mpicc.mpich is not installed: skipping MPICH beside Open MPI"
fi

# ------------------------------------------------------------------ mpi4py
# Debian's mpi4py, on Open MPI: python links no MPI itself.
if /usr/bin/python3 -c 'import mpi4py' 2>/dev/null; then
    run_hnp "${OMPI_X[@]}" -N 2 --host "$(hosts 2)" /usr/bin/python3 -m mpi4py.bench helloworld
    expect_status 0 "mpi4py helloworld"
    for n in 1 2; do
        [ "$(grep -c "^Hello, World! I am process [0-3] of 4 on ${prefix}n$n\.$" "$tmp/out")" = 2 ] ||
            fail "mpi4py helloworld: not 2 processes of 4 on ${prefix}n$n: $(cat "$tmp/out")"
    done
    run_hnp "${OMPI_X[@]}" -N 2 --host "$(hosts 2)" /usr/bin/python3 -m mpi4py.bench ringtest
    expect_status 0 "mpi4py ringtest"
    expect_in "$tmp/out" "(4 processes, 1 bytes)" "mpi4py ringtest"
else
    echo "mpi4py is not installed for /usr/bin/python3: skipping its part"
fi
assert_no_leftovers "MPICH, Open MPI and mpi4py jobs"
assert_no_files_left "MPICH, Open MPI and mpi4py jobs"

# ------------------------------------------------- PMIx needed, not there
# Only the PMI-1/2 server selected: an Open MPI program would run as
# singletons; hnp refuses it before anything starts, naming it. The agent
# is wrapped to count the daemons started: none.
cat >"$tmp/counting-agent" <<AGENT
#!/bin/sh
echo "\$*" >>"$tmp/agent-calls"
exec "$AGENT" "\$@"
AGENT
chmod +x "$tmp/counting-agent"
run_hnp --mca plm_rsh_agent "$tmp/counting-agent" --mca pmi simple \
    -N 2 --host "$(hosts 2)" "$tmp/mpi_ring" "$prefix"
[ "$status" != 0 ] || fail "an Open MPI program ran with --mca pmi simple"
expect_in "$tmp/err" "mpi_ring" "the refused program is named"
grep -qi "pmix" "$tmp/err" || fail "the refusal does not say PMIx is missing: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "--mca pmi simple: the program ran: $(cat "$tmp/out")"
[ ! -e "$tmp/agent-calls" ] || fail "--mca pmi simple: daemons were started: $(cat "$tmp/agent-calls")"
assert_no_leftovers "the refused Open MPI program"
assert_no_files_left "the refused Open MPI program"
echo "PASS"
