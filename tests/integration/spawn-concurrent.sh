#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Spawns at once onto nodes without a daemon (a standalone hnp starts one
# for each, one growth at a time): 2 Open MPI ranks on node 1 each call
# MPI_Comm_spawn alone (MPI_COMM_SELF, right after a barrier;
# tests/mpi/ompi_spawn.c "each") with info "host" naming node 2 and node
# 3: both are served, each child on its node. Both onto node 2: one
# daemon is started, both are served. Node 2's daemon cannot start: both
# spawns fail at once naming it (the second, waiting in line, as no more
# daemons can be started) and the job goes on. hnp ending (--timeout)
# while one growth hangs and a spawn waits in line leaves nothing behind,
# and under valgrind nothing leaked. MPICH's PMI-1 and PMI-2 spawns (at
# the protocol) from 2 ranks at once onto nodes 2 and 3 likewise.
# Skipped where Open MPI is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_spawn
prog="$tmp/ompi_spawn"
n1="${prefix}n1" n2="${prefix}n2" n3="${prefix}n3"
VERBOSE=(--mca rte_base_verbose 1)

# served RANK NODE WHAT: rank RANK's child ran on NODE and answered.
served() {
    expect_in "$tmp/out" "^parent $1: 1 children onto $2, 1 answered right$" "$3"
}
# children_on NODE COUNT WHAT
children_on() {
    [ "$(grep -c "^child 0 of 1 on $1: got 0 ok$" "$tmp/out")" = "$2" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$3: not $2 children on $1"; }
}
# daemons_added COUNT WHAT: the HNP started COUNT growths of one daemon.
daemons_added() {
    [ "$(grep -c '^\[hnp:rte\] adding 1 daemons' "$tmp/err")" = "$1" ] ||
        { cat "$tmp/err"; fail "$2: not $1 daemons added"; }
}

what="2 ranks spawning at once onto nodes 2 and 3"
run_hnp "${VERBOSE[@]}" "${OMPI_X[@]}" -n 2 --host "$n1:2,$n2:1,$n3:1" \
    "$prog" each 1 "$n2,$n3"
expect_status 0 "$what"
served 0 "$n2" "$what"
served 1 "$n3" "$what"
children_on "$n2" 1 "$what"
children_on "$n3" 1 "$what"
daemons_added 2 "$what"
assert_no_leftovers "$what"

what="2 ranks spawning at once onto node 2"
run_hnp "${VERBOSE[@]}" "${OMPI_X[@]}" -n 2 --host "$n1:2,$n2:2,$n3:1" \
    "$prog" each 1 "$n2"
expect_status 0 "$what"
served 0 "$n2" "$what"
served 1 "$n2" "$what"
children_on "$n2" 2 "$what"
daemons_added 1 "$what"
assert_no_leftovers "$what"

# MPICH's spawns at the protocol (tests/pmi/pmi_dyn "each", as MPICH's
# libpmi writes them): 2 ranks at once, PMI-1 and PMI-2, onto nodes 2
# and 3.
dyn="$top_builddir/tests/pmi/pmi_dyn"
for v in 1 2; do
    what="2 ranks spawning at once with PMI-$v onto nodes 2 and 3"
    run_hnp "${VERBOSE[@]}" -n 2 --host "$n1:2,$n2:1,$n3:1" "$dyn" "each$v" \
        "$dyn" "$n2,$n3"
    expect_status 0 "$what"
    expect_in "$tmp/out" "^rank 0: spawn$v onto $n2 ok$" "$what"
    expect_in "$tmp/out" "^rank 1: spawn$v onto $n3 ok$" "$what"
    for node in "$n2" "$n3"; do
        [ "$(grep -c "^child 0 appnum 0 node $node cwd .*: spawned ok$" "$tmp/out")" = 1 ] ||
            { cat "$tmp/out" "$tmp/err"; fail "$what: no child on $node"; }
    done
    ! grep -q "FAIL" "$tmp/out" || { cat "$tmp/out"; fail "$what: a check failed"; }
    daemons_added 2 "$what"
    assert_no_leftovers "$what"
done

# Children that end at once, before a daemon without ranks of theirs
# says it started them (it is stopped here, as a busy node would be):
# the spawn is answered, not refused as "ended before its processes
# started". PMI-1 at the protocol (pmi_dyn spawnlate1), daemons on all
# three nodes from the launch.
what="a spawn whose children end before node 3's daemon reports"
late="$tmp/late"
mkdir -p "$late"
timeout -k 5 120 "$HNP" --mca plm_base_daemons_on_all_nodes 1 -n 1 \
    --host "$n1:1,$n2:1,$n3:1" "$dyn" spawnlate1 "$dyn" "$n2" "$late" \
    >"$tmp/out" 2>"$tmp/err" &
hnp_job=$!
for _ in $(seq 1200); do [ -e "$late/ready" ] && break; sleep 0.1; done
[ -e "$late/ready" ] || { kill "$hnp_job"; fail "$what: the parent never ran"; }
d3=$(ps -u "$(id -u)" -o pid=,args= | awk -v n="$n3" \
    '$2 ~ /hnpd$/ && $0 ~ ("--node " n " ") { print $1 }')
[ -n "$d3" ] || { kill "$hnp_job"; fail "$what: no daemon on $n3"; }
kill -STOP $d3
touch "$late/go"
for _ in $(seq 1200); do grep -q "^parent: \|FAIL" "$tmp/out" && break; sleep 0.1; done
kill -CONT $d3
status=0
wait "$hnp_job" || status=$?
expect_status 0 "$what"
expect_in "$tmp/out" "^parent: spawnlate1 ok$" "$what"
expect_in "$tmp/out" "^child 0 appnum 0 node $n2 cwd .*: spawned ok$" "$what"
assert_no_leftovers "$what"

# Node 2's daemon cannot start: the growth fails, the spawn waiting in
# line fails in its turn with the reason (no daemon is started after one
# could not be), neither hangs, and the job ends well: its ranks spawn
# over MPI_COMM_SELF and handle the error, so it asks that a failed spawn
# not end it (spawn-fail.sh: by default it does).
what="2 ranks spawning at once onto node 2, whose daemon cannot start"
HNP_AGENT_DOWN="$n2" run_hnp --mca plm_rsh_retries 1 \
    --mca pmi_pmix_spawn_failure_ends_job 0 "${OMPI_X[@]}" -n 2 \
    --host "$n1:2,$n2:2" "$prog" each 1 "$n2"
expect_status 0 "$what"
expect_in "$tmp/out" "^parent 0: spawn onto $n2 failed" "$what"
expect_in "$tmp/out" "^parent 1: spawn onto $n2 failed" "$what"
expect_in "$tmp/err" "the spawn of rank [01] of job 1 failed: the daemon for node $n2 (vpid 2) could not be started" \
    "$what"
expect_in "$tmp/err" "the spawn of rank [01] of job 1 failed: no more daemons can be started: the daemon for node $n2 (vpid 2) could not be started" \
    "$what"
assert_no_leftovers "$what"

# The agent for node 2 hangs: hnp's --timeout ends the job while that
# growth is under way and the other rank's spawn onto node 2 waits in
# line (it cannot have come after that growth: it never ends). Nothing
# is left behind, and (under valgrind, where it runs) hnp frees all.
slow="$tmp/slow-agent"
printf '#!/bin/sh\n[ "$1" = "%s" ] && exec sleep 600\nexec "%s" "$@"\n' \
    "$n2" "$AGENT" >"$slow"
chmod +x "$slow"
what="hnp ending while a spawn waits in line"
wrap=()
if command -v valgrind >/dev/null 2>&1; then
    wrap=(valgrind -q --leak-check=full --show-leak-kinds=definite,indirect
          --errors-for-leak-kinds=definite,indirect --error-exitcode=99
          --log-file="$tmp/valgrind")
fi
status=0
timeout -k 5 300 "${wrap[@]}" "$HNP" "${VERBOSE[@]}" --timeout 20 \
    --mca plm_rsh_agent "$slow" --mca plm_base_launch_timeout 600 \
    "${OMPI_X[@]}" -n 2 --host "$n1:2,$n2:2" "$prog" each 1 "$n2" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" = 124 ] || { cat "$tmp/err" "$tmp/valgrind" 2>/dev/null; fail "$what: status $status, not 124"; }
expect_in "$tmp/err" "waits for the daemons being started" "$what"
if [ ${#wrap[@]} -gt 0 ] && [ -s "$tmp/valgrind" ]; then
    cat "$tmp/valgrind"
    fail "$what: valgrind found errors or leaks"
fi
assert_no_leftovers "$what"
assert_no_files_left "spawns at once"
