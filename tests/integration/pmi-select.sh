#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The pmi components a job uses: the HNP's active list goes to every
# daemon; a rank that initialized and did not finalize is reported; with
# none active non-MPI programs still run; an Open MPI
# program is refused before launch by an hnp without a pmix component,
# naming the program, while a script is not. Which components a job sets
# up follows from its programs: a program that links only the C runtime
# and can neither run another program nor load a library gets the PMI-1/2
# server and no PMIx server; a script gets both.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

# shellcheck disable=SC2016 # expanded by each rank's shell
show='echo "$OMPI_COMM_WORLD_RANK fd=${PMI_FD-none}"'

run_hnp --mca pmi simple -n 2 --host "$(hosts 2)" sh -c "$show" "$prefix"
expect_status 0 "--mca pmi simple"
expect_in "$tmp/out" "^0 fd=[0-9]" "rank 0 served PMI"
expect_in "$tmp/out" "^1 fd=[0-9]" "rank 1 served PMI"

# A rank that initializes PMI and exits without finalizing fails the job,
# named, whatever its exit status; its peer that finalized does not.
# shellcheck disable=SC2016 # expanded by each rank's shell
talk='say() { printf "%s\n" "$1" >&"$PMI_FD"; read -r answer <&"$PMI_FD"; }
say "cmd=init pmi_version=1 pmi_subversion=1"
[ "$HNP_RANK" = 0 ] && say "cmd=finalize"
exit 0'
run_hnp -n 2 --host "$(hosts 2)" bash -c "$talk" "$prefix"
[ "$status" != 0 ] || fail "a rank that did not finalize went unnoticed"
expect_in "$tmp/err" "rank 1 on node ${prefix}n2 exited without finalizing (MPI_Init was called, MPI_Finalize was not)" \
    "the rank that did not finalize"
if grep -q "rank 0 on node.*without finalizing" "$tmp/err"; then
    fail "rank 0 finalized but was reported"
fi

run_hnp --mca pmi ^simple -n 2 --host "$(hosts 2)" sh -c "$show" "$prefix"
expect_status 0 "no pmi component"
expect_in "$tmp/out" "^0 fd=none$" "rank 0 without PMI"
expect_in "$tmp/out" "^1 fd=none$" "rank 1 without PMI"

# What a rank was given, told by a program that links only the C runtime
# and by a shell.
if command -v "${CC:-cc}" >/dev/null 2>&1 && ! ompi_missing >/dev/null; then
    mkdir -p "$tmp/plain"
    cat >"$tmp/plain/plain.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    printf("%s pmi=%s pmix=%s\n", getenv("HNP_RANK"),
           getenv("PMI_FD") != NULL ? "yes" : "no",
           getenv("PMIX_NAMESPACE") != NULL ? "yes" : "no");
    return 0;
}
C
    "${CC:-cc}" -o "$tmp/plain/plain" "$tmp/plain/plain.c" || fail "cc plain.c"
    run_hnp --timing -N 2 --host "$(hosts 2)" "$tmp/plain/plain" "$prefix"
    expect_status 0 "a plain program"
    [ "$(grep -c ' pmi=yes pmix=no$' "$tmp/out")" = 4 ] ||
        fail "a plain program is served PMI-1/2 alone: $(cat "$tmp/out")"
    expect_in "$tmp/err" "pmi set-up (median)" "--timing shows the pmi set-up"
    # shellcheck disable=SC2016 # expanded by each rank's shell
    run_hnp -N 2 --host "$(hosts 2)" sh -c \
        'echo "$HNP_RANK pmi=${PMI_FD:+yes} pmix=${PMIX_NAMESPACE:+yes}"' "$prefix"
    expect_status 0 "a shell"
    [ "$(grep -c ' pmi=yes pmix=yes$' "$tmp/out")" = 4 ] ||
        fail "a shell is served both: $(cat "$tmp/out")"
fi

run_hnp --mca pmi nosuch -n 1 --host "$(hosts 1)" true
[ "$status" != 0 ] || fail "an unknown pmi component was accepted"
expect_in "$tmp/err" "nosuch" "the unknown component named"

command -v mpicc.openmpi >/dev/null 2>&1 || {
    assert_no_leftovers "pmi selection"
    assert_no_files_left "pmi selection"
    skip "mpicc.openmpi is not installed: the pre-launch check not run"
}
mkdir -p "$tmp/prog"
cat >"$tmp/prog/ring.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
C
mpicc.openmpi -o "$tmp/prog/ring" "$tmp/prog/ring.c" || fail "mpicc.openmpi"
cd "$tmp/prog"
run_hnp --mca pmi simple -n 2 --host "$(hosts 2)" ./ring "$prefix"
[ "$status" != 0 ] || fail "an Open MPI program ran without a pmix component"
expect_in "$tmp/err" "hnp: error: ./ring is an Open MPI program (it links libmpi.so.40, which needs PMIx); this hnp has no pmix component" \
    "the refusal"
[ ! -s "$tmp/out" ] || fail "the refused program printed: $(cat "$tmp/out")"
# Found in PATH like execvp does.
PATH="$tmp/prog:$PATH" run_hnp --mca pmi simple -n 1 --host "$(hosts 1)" \
    ring "$prefix"
expect_in "$tmp/err" "ring is an Open MPI program" "the refusal through PATH"
# Found in the working directory, as the daemons find it.
run_hnp --mca pmi simple -n 1 --host "$(hosts 1)" ring "$prefix"
[ "$status" != 0 ] || fail "an Open MPI program in the working directory ran without a pmix component"
expect_in "$tmp/err" "hnp: error: ring is an Open MPI program" "the refusal in the working directory"
run_hnp --mca pmi simple -n 1 --host "$(hosts 1)" sh -c true "$prefix"
expect_status 0 "a script under --mca pmi simple"
assert_no_leftovers "pmi selection"
assert_no_files_left "pmi selection"
echo "PASS"
