#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The PMI server against the clients MPI libraries really use, through
# tests/pmi/pmi-serve (one node, N processes):
#  - MPICH's PMI-1 client, inside an MPI program built with MPICH's mpicc:
#    start-up, collectives, finalize; then MPI_Abort reaching the server;
#  - Slurm's libpmi2 (MPICH's PMI-2 client) when pmi2.h and -lpmi2 exist.
# A part whose client is not installed is skipped; if none can run, the
# test is (exit 77).
set -eu

: "${top_srcdir:?run me through make check, or set top_srcdir}"
: "${top_builddir:?run me through make check, or set top_builddir}"
serve="$top_builddir/tests/pmi/pmi-serve"
src="$top_srcdir/tests/pmi"
ran=0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-pmi-test.XXXXXX")
# UCX, under MPICH, sometimes finds "no such device" when several processes
# start on this machine at once; shared memory is all they need here.
export UCX_TLS=sm,self
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
    echo "FAIL: $*"
    [ -f "$tmp/out" ] && sed 's/^/  | /' "$tmp/out"
    exit 1
}

# MPICH's mpicc by its own name, not Open MPI's (whose libmpi speaks PMIx
# instead), whichever the mpicc alternative points at.
if command -v mpicc.mpich >/dev/null 2>&1 &&
   mpicc.mpich -o "$tmp/hello" "$src/mpi_hello.c" 2>"$tmp/out"; then
    "$serve" -n 4 -t 60 "$tmp/hello" >"$tmp/out" 2>&1 ||
        fail "4 MPICH processes under pmi-serve"
    [ "$(grep -c 'of 4: sum 6$' "$tmp/out")" = 4 ] ||
        fail "not every MPICH rank reported"
    if "$serve" -n 3 -t 60 "$tmp/hello" abort >"$tmp/out" 2>&1; then
        fail "MPI_Abort went unnoticed"
    fi
    grep -q 'rank 1 aborted the job (exit code 7)' "$tmp/out" ||
        fail "MPI_Abort did not reach the server as an abort"
    echo "MPICH (PMI-1): start-up, collectives, finalize and abort work"
    ran=$((ran + 1))
else
    echo "MPICH's mpicc.mpich is not installed: skipping the PMI-1 client"
fi

cc=${CC:-cc}
if $cc -o "$tmp/pmi2" "$src/pmi2_client.c" -lpmi2 >"$tmp/out" 2>&1; then
    "$serve" -n 3 -t 60 "$tmp/pmi2" >"$tmp/out" 2>&1 ||
        fail "3 libpmi2 processes under pmi-serve"
    [ "$(grep -c '^pmi2 rank [0-2] of 3: .* ok$' "$tmp/out")" = 3 ] ||
        fail "not every PMI-2 rank reported"
    echo "libpmi2 (PMI-2): init, fence, gets, node attributes, finalize work"
    ran=$((ran + 1))
else
    echo "Slurm's libpmi2 is not installed: skipping the PMI-2 client"
fi

[ "$ran" -gt 0 ] || exit 77
