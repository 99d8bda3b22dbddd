#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The endpoint data a connect carries (tests/mpi/ompi_spawn_all.c): after
# MPI_Comm_spawn every parent rank and every child exchange a message
# with every process of the other job, with parents on nodes without
# children and children on nodes without parents, standalone and in a
# DVM. Each process needs every peer's endpoint; the connect brought
# them, so no daemon asks another node for a process's data (the pmi
# verbose output says which direct-modex requests were answered on the
# node and which were asked of another node). With
# pmi_pmix_connect_cards_wait 0 (a connect without data) the same job
# works by asking the peers' nodes, which the test sees too.
# Skipped where the pmix component or Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn_all
prog="$tmp/ompi_spawn_all"
VERBOSE=(--mca pmi_base_verbose 5)

# all_talked NPARENTS NCHILDREN WHAT: every process heard from every peer.
all_talked() {
    local p=$1 c=$2 what=$3
    [ "$(grep -c "^parent [0-9]* of $p on .*: $c of $c children answered right$" "$tmp/out")" = "$p" ] &&
        [ "$(grep -c "^child [0-9]* of $c on .*: $p of $p parents answered right$" "$tmp/out")" = "$c" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$what: not every process heard from every peer"; }
}
# children_on_nodes "NODE... " WHAT: the nodes the children ran on.
children_on_nodes() {
    local got
    got=$(sed -n "s/^child [0-9]* of [0-9]* on ${prefix}\(n[0-9]*\):.*/\1/p" "$tmp/out" | sort -u | tr '\n' ' ')
    [ "$got" = "$1" ] || { cat "$tmp/out"; fail "$2: children on '$got', expected on '$1'"; }
}
# no_remote_dmodex LOG WHAT: the direct-modex requests were all answered
# on their node, from what the connect brought.
no_remote_dmodex() {
    if grep -q "direct modex: the data of rank .* asked of its node" "$1"; then
        grep "direct modex" "$1" | head -20
        fail "$2: a daemon asked another node for a process's endpoint data"
    fi
    expect_in "$1" "direct modex: the data of rank [0-9]* of .* answered here, from a connect" "$2"
}

# Parents on nodes 1 and 2, one a node; all 4 children on node 3 (which
# has a parent rank too): ranks 0 and 1 need every child's endpoint.
run_hnp "${OMPI_X[@]}" "${OMPI_SHM_TCP[@]}" "${VERBOSE[@]}" -N 1 --host "$(hosts 3):5" \
    "$prog" 4 "${prefix}n3"
expect_status 0 "4 children on node 3"
all_talked 3 4 "4 children on node 3"
children_on_nodes "n3 " "4 children on node 3"
no_remote_dmodex "$tmp/err" "4 children on node 3"

# Parents on nodes 1 and 2 only, children on nodes 3 and 4 only (daemons
# on every node of the allocation): nobody shares a node with a peer.
run_hnp "${OMPI_X[@]}" "${OMPI_SHM_TCP[@]}" "${VERBOSE[@]}" --mca plm_base_daemons_on_all_nodes 1 \
    -n 2 --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:3,${prefix}n4:3" "$prog" 5
expect_status 0 "5 children apart from the parents"
all_talked 2 5 "5 children apart from the parents"
children_on_nodes "n3 n4 " "5 children apart from the parents"
no_remote_dmodex "$tmp/err" "5 children apart from the parents"
assert_no_leftovers "children apart from the parents"

# The same without the data in the connect: it works, by asking.
run_hnp "${OMPI_X[@]}" "${OMPI_SHM_TCP[@]}" "${VERBOSE[@]}" --mca plm_base_daemons_on_all_nodes 1 \
    --mca pmi_pmix_connect_cards_wait 0 \
    -n 2 --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:3,${prefix}n4:3" "$prog" 5
expect_status 0 "a connect without data"
all_talked 2 5 "a connect without data"
expect_in "$tmp/err" "direct modex: the data of rank [0-9]* of .* asked of its node" "a connect without data"
assert_no_leftovers "a connect without data"
assert_no_files_left "spawns whose processes all talk"

# ------------------------------------------------------------------- DVM
# In the foreground (in the background of this shell), so that the
# daemons' verbose output stays in its log.
uri="$tmp/dvm.uri"
timeout -k 5 300 "$HNP" --dvm --report-uri "$uri" "${VERBOSE[@]}" \
    --host "${prefix}n1:1,${prefix}n2:1,${prefix}n3:3,${prefix}n4:3" >"$tmp/dvm.log" 2>&1 &
dvm_pid=$!
for _ in $(seq 1200); do
    [ -s "$uri" ] || ! kill -0 "$dvm_pid" 2>/dev/null && break
    sleep 0.1
done
[ -s "$uri" ] || { cat "$tmp/dvm.log"; fail "the DVM did not write $uri"; }
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" "${OMPI_SHM_TCP[@]}" -n 2 "$prog" 5
expect_status 0 "5 children apart from the parents in a DVM"
all_talked 2 5 "5 children apart from the parents in a DVM"
children_on_nodes "n3 n4 " "5 children apart from the parents in a DVM"
run_hnp --dvm-uri "$uri" --dvm-stop
wait "$dvm_pid" || fail "the DVM ended with status $?"
no_remote_dmodex "$tmp/dvm.log" "5 children apart from the parents in a DVM"
assert_no_leftovers "spawns whose processes all talk, in a DVM"
assert_no_files_left "spawns whose processes all talk, in a DVM"
