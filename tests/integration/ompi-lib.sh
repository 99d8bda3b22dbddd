# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced after lib.sh by the tests of Open MPI programs under hnp: what
# they need, and the programs built with Open MPI's own compiler (by its
# name: the mpicc alternative may point at MPICH).

# ompi_missing: why Open MPI programs cannot run under this hnp (printed),
# or nothing (and false).
ompi_missing() {
    if ! command -v mpicc.openmpi >/dev/null; then
        echo "Open MPI's mpicc.openmpi is not installed (contrib/install-deps.sh installs it)"
    elif ! "$top_builddir/bin/hnp-info" --parsable 2>/dev/null | grep -q '^mca:pmi:pmix:'; then
        echo "this hnp has no pmi pmix component (libpmix-dev was missing at configure)"
    else
        return 1
    fi
}

# build_ompi NAME...: tests/mpi/NAME.c built into $tmp/NAME by mpicc.openmpi.
build_ompi() {
    local name
    for name in "$@"; do
        mpicc.openmpi -O2 -o "$tmp/$name" "$top_srcdir/tests/mpi/$name.c" ||
            fail "mpicc.openmpi failed on tests/mpi/$name.c"
    done
}

# What the ranks are told, through -x as on a real cluster (where the
# environment does not travel): TCP on loopback, where every simulated
# node is; and to yield when idle, since dozens of ranks share this
# machine's few cores whatever each simulated node's slots say (busy
# polling ranks would take minutes to get through MPI_Init).
OMPI_X=(-x OMPI_MCA_btl_tcp_if_include=lo -x OMPI_MCA_mpi_yield_when_idle=1)
# Shared memory or nothing: ob1 over vader and self only, so that a job
# of one node works only if vader does.
OMPI_SHM_ONLY=(-x OMPI_MCA_pml=ob1 -x OMPI_MCA_btl=self,vader)
# Shared memory within a node, TCP between nodes.
OMPI_SHM_TCP=(-x OMPI_MCA_pml=ob1 -x OMPI_MCA_btl=self,vader,tcp)
