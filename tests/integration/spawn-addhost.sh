#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's MPI_Comm_spawn with the "add-host", "add-hostfile" and
# "hostfile" info keys (PMIX_ADD_HOST, PMIX_ADD_HOSTFILE, PMIX_HOSTFILE;
# tests/mpi/ompi_spawn.c): the children go to the nodes named, standalone
# and in a DVM, each side sends a message and gets it back, all
# disconnect. A node without a daemon that a key names gets one first (as
# for PMIX_HOST: spawn-grow.sh): a node of the allocation, from any key;
# a node outside it, from add-host or add-hostfile, which adds it to the
# allocation (in a DVM: to the DVM), as mpirun and PRRTE do; a later spawn
# onto it, or in a DVM a later job, uses the same daemon (the agent is
# asked once for the node). A node outside the allocation named by "host"
# or "hostfile", and a hostfile that is not there, fail the spawn at once:
# the parent gets the error and goes on, hnp names the node or file and
# the key, and no daemon is started. Nothing is left behind. Skipped where
# the pmix component or Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn mpi_ring
prog="$tmp/ompi_spawn"

# The agent, logging each node it is asked to start a daemon on.
agent="$tmp/counting-agent"
printf '#!/bin/sh\necho "$1" >>"%s"\nexec "%s" "$@"\n' "$tmp/agent.log" "$AGENT" >"$agent"
chmod +x "$agent"
export HNP_MCA_plm_rsh_agent="$agent"

# added_ok N NODE WHAT: the parent and its N children, all on NODE, each
# got their answer (the children of each spawn, with a second key).
added_ok() {
    expect_status 0 "$3"
    expect_in "$tmp/out" "parent: $1 children, $1 answered right$" "$3"
    [ "$(grep -c "child [0-9]* of $1 on ${prefix}n$2: got [0-9]* ok$" "$tmp/out")" = \
        "$(($1 * $(grep -c "^parent: $1 children" "$tmp/out")))" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$3: not $1 children on node $2"; }
}
# daemons_started NODE COUNT WHAT: the agent was asked COUNT times for
# node NODE.
daemons_started() {
    [ "$(grep -cx "${prefix}n$1" "$tmp/agent.log" 2>/dev/null)" = "$2" ] ||
        { cat "$tmp/agent.log" "$tmp/err"; fail "$3: not $2 daemon(s) started on node $1"; }
}
# refused PATTERN WHAT: the spawn failed at once, the parent went on,
# and hnp said why (PATTERN).
refused() {
    expect_status 0 "$2"
    expect_in "$tmp/out" "parent: spawn failed" "$2"
    expect_in "$tmp/err" "the spawn of rank 0 of job [0-9]* failed: $1" "$2"
}
fresh() { rm -f "$tmp/agent.log"; }

# Standalone: a rank on each node (-N 1), the children on the node added.
fresh
run_hnp "${OMPI_X[@]}" -N 1 --host "${prefix}n1:1,${prefix}n2:3" \
    "$prog" 2 "${prefix}n2" add-host
added_ok 2 2 "add-host ${prefix}n2"
# The same from a hostfile, named from the parent's directory.
printf '%s slots=3\n' "${prefix}n2" >"$tmp/added"
run_hnp "${OMPI_X[@]}" -N 1 --host "${prefix}n1:1,${prefix}n2:3" \
    --wdir "$tmp" "$prog" 2 added add-hostfile
added_ok 2 2 "add-hostfile naming ${prefix}n2"
# A node of the allocation where no rank, hence no daemon, is: each key
# has its daemon started, once.
for key in add-host add-hostfile hostfile; do
    fresh
    name="${prefix}n2"
    [ "$key" = add-host ] || name=added
    run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
        --wdir "$tmp" "$prog" 1 "$name" "$key"
    added_ok 1 2 "$key of a node of the allocation without a daemon"
    daemons_started 2 1 "$key of a node of the allocation without a daemon"
done
# A node outside the allocation: add-host adds it (its slots from the
# key), a daemon starts there, and a second spawn naming it with "host"
# runs on the same daemon.
fresh
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    "$prog" 2 "${prefix}n9:4" add-host host
added_ok 2 9 "add-host of a node outside the allocation, then host"
expect_in "$tmp/out" "^parent: 2 children, 2 answered right$" "two spawns onto the added node"
[ "$(grep -c "^parent: 2 children, 2 answered right$" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out" "$tmp/err"; fail "two spawns onto the added node: not both answered"; }
daemons_started 9 1 "add-host of a node outside the allocation, then host"
[ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "add-host outside the allocation: hnp said something"; }
# The same from add-hostfile (its slots from the file), then "hostfile".
printf '%s slots=4\n' "${prefix}n8" >"$tmp/outside"
fresh
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    --wdir "$tmp" "$prog" 2 outside add-hostfile hostfile
added_ok 2 8 "add-hostfile of a node outside the allocation, then hostfile"
[ "$(grep -c "^parent: 2 children, 2 answered right$" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out" "$tmp/err"; fail "two spawns onto the node added from a file: not both answered"; }
daemons_started 8 1 "add-hostfile of a node outside the allocation, then hostfile"
assert_no_leftovers "spawns with add-host"
assert_no_files_left "spawns with add-host"

# Refused at once, no daemon started: "host" or "hostfile" naming a node
# outside the allocation, a hostfile or add-hostfile that is not there.
printf '%s\n' "${prefix}n7" >"$tmp/stranger"
fresh
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    "$prog" 1 "${prefix}n7" host
refused "host ${prefix}n7 is not in the allocation (PMIX_HOST ${prefix}n7;" \
    "host naming a node outside the allocation"
fresh
run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
    --wdir "$tmp" "$prog" 1 stranger hostfile
refused "host ${prefix}n7 is not in the allocation (PMIX_HOSTFILE stranger;" \
    "hostfile naming a node outside the allocation"
daemons_started 7 0 "hostfile naming a node outside the allocation"
for key in hostfile add-hostfile; do
    upper=PMIX_$(echo "$key" | tr a-z- A-Z_)
    run_hnp "${OMPI_X[@]}" -n 1 --host "${prefix}n1:2,${prefix}n2:2" \
        --wdir "$tmp" "$prog" 1 nothere "$key"
    refused "$upper nothere: cannot open hostfile $tmp/nothere: No such file or directory" \
        "$key that is not there"
done
assert_no_leftovers "refused spawns with host keys"
assert_no_files_left "refused spawns with host keys"

# A DVM over 2 nodes: the parent on node 1, its children on node 2.
fresh
uri="$tmp/dvm.uri"
timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 2):2" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -n 1 --host "${prefix}n1" \
    "$prog" 2 "${prefix}n2" add-host
added_ok 2 2 "add-host ${prefix}n2 in a DVM"
# A node the DVM does not hold: added to the DVM, with a daemon, which a
# second spawn and a later job use. A job held inside MPI meanwhile
# (tests/mpi/mpi_ring.c's gate) goes on well once the DVM has grown.
( status=0
  timeout -k 5 240 "$HNP" --dvm-uri "$uri" "${OMPI_X[@]}" -N 1 \
      "$tmp/mpi_ring" gate "$tmp/held" >"$tmp/held.out" 2>"$tmp/held.err" || status=$?
  echo "$status" >"$tmp/held.status" ) &
held=$!
for _ in $(seq 2400); do
    [ -e "$tmp/held.in.0" ] && [ -e "$tmp/held.in.1" ] && break
    [ ! -e "$tmp/held.status" ] || { cat "$tmp/held.out" "$tmp/held.err"; fail "the held job ended early"; }
    sleep 0.1
done
[ -e "$tmp/held.in.1" ] || fail "the held job's ranks are not inside MPI after 240 s"
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -n 1 "$prog" 2 "${prefix}n3:4" add-host host
touch "$tmp/held.go"
wait "$held" || true
[ "$(cat "$tmp/held.status")" = 0 ] && [ "$(grep -c "ring ok, allreduce 1 ok" "$tmp/held.out")" = 2 ] ||
    { cat "$tmp/held.out" "$tmp/held.err"; fail "the job held while the DVM grew did not end well"; }
added_ok 2 3 "add-host of a node outside the DVM, then host"
[ "$(grep -c "^parent: 2 children, 2 answered right$" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out" "$tmp/err"; fail "two spawns onto the node added to the DVM: not both answered"; }
run_hnp --dvm-uri "$uri" -n 2 --host "${prefix}n3:2" hostname
expect_status 0 "a job on the node added to the DVM"
[ "$(grep -cx "${prefix}n3" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out" "$tmp/err"; fail "a job on the node added to the DVM: not 2 ranks on it"; }
daemons_started 3 1 "add-host of a node outside the DVM"
# "host" naming a node the DVM does not hold is refused.
run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -n 1 "$prog" 1 "${prefix}n5" host
refused "host ${prefix}n5 is not in the DVM (PMIX_HOST ${prefix}n5;" \
    "host naming a node outside the DVM"
daemons_started 5 0 "host naming a node outside the DVM"
run_hnp --dvm-uri "$uri" --dvm-stop
assert_no_leftovers "spawns with add-host in a DVM"
