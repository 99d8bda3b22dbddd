#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# PMIx_Spawn, the call under Open MPI's MPI_Comm_spawn, through hnp's PMIx
# server (tests/integration/pmix-spawn.c): rank 0 of a job spawns copies
# of the program, standalone and in a DVM. The children run in the free
# slots, on the parent's node and across simulated nodes, with the
# environment and directory they were given; their output comes with the
# parent's (--tag-output names their job); their exit status is hnp's, an
# abort among them ends the family, and hnp waits for children whose
# parent has exited;
# a spawn that cannot be done (no such program, a host outside the
# allocation, no free slot) returns an error to
# the parent at once and hnp names the cause; nothing is left behind.
# Skipped where the pmix component or libpmix's headers are missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

! pmix_missing >/dev/null || skip "$(pmix_missing)"
build_pmix pmix-spawn
prog="$tmp/pmix-spawn"
cd "$tmp"

# children_ok N JOB WHAT: N children of job JOB said what they were given.
children_ok() {
    [ "$(grep -c "^\[$2,[0-9]*\]<stdout>:child [0-9]* of $1 on ${prefix}n[0-9]*: SPAWN_TEST=given cwd=$tmp\$" "$tmp/out")" = "$1" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$3: not $1 children of job $2 with their environment"; }
    expect_in "$tmp/out" "^\[1,0\]<stdout>:spawned $1 children: named$" "$3"
}

# ---------------------------------------------------------- standalone
run_hnp --tag-output -n 1 --host "${prefix}n1:2" "$prog" 1
expect_status 0 "one child on the parent's node"
children_ok 1 2 "one child on the parent's node"
run_hnp --tag-output -N 1 --host "${prefix}n1:3,${prefix}n2:3" "$prog" 4
expect_status 0 "4 children on 2 nodes"
children_ok 4 2 "4 children on 2 nodes"
[ "$(grep -c "^\[2,.*child .* on ${prefix}n2:" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out"; fail "4 children on 2 nodes: not 2 on the second node"; }
run_hnp --tag-output -N 1 --host "${prefix}n1:3,${prefix}n2:3" "$prog" 2 "${prefix}n2"
expect_status 0 "2 children on the host asked for"
children_ok 2 2 "2 children on the host asked for"
[ "$(grep -c "^\[2,.*child .* on ${prefix}n2:" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out"; fail "PMIX_HOST ${prefix}n2 not honoured"; }
assert_no_leftovers "spawned jobs"
assert_no_files_left "spawned jobs"

# The parent's processes exit first: hnp waits for the children, whose
# output still comes, and exits 0 once they have.
run_hnp --tag-output -n 1 --host "${prefix}n1:3" "$prog" 2 "" "" outlive
expect_status 0 "children outliving their parent"
[ "$(grep -c "^\[2,[01]\]<stdout>:child [01] outlived its parent$" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out" "$tmp/err"; fail "hnp did not wait for the children of a parent that exited"; }
assert_no_leftovers "children outliving their parent"

# A child's abort ends the family with its status, and hnp names it.
run_hnp -n 1 --host "${prefix}n1:3" "$prog" 2 "" "" abort
expect_status 5 "a child's abort"
expect_in "$tmp/err" "job 2 (spawned by job 1): rank 0 on node ${prefix}n1 called abort with exit code 5: child 0 gives up" \
    "a child's abort"
assert_no_leftovers "a child's abort"

# A child's exit status is hnp's: the children run "false" here.
run_hnp -n 1 --host "${prefix}n1:2" "$prog" 1 "" /bin/false
[ "$status" = 1 ] || { cat "$tmp/err"; fail "a child's exit status 1 became hnp's $status"; }
# (the parent may be ended before it says the spawn went well: its
# child's failure ends the family, and may come first)
expect_in "$tmp/err" "job 2 (spawned by job 1): rank 0 (pid [0-9]*) on node ${prefix}n1 exited with status 1" \
    "a failing child named"
assert_no_leftovers "a failing child"

# A signal hnp forwards reaches the jobs spawned too: SIGTERM ends
# children that would sleep on (their parent has exited), and hnp exits
# 128 + 15 instead of waiting for them.
printf '#!/bin/sh\necho "ready child"\nexec sleep 300\n' >"$tmp/sleeper"
chmod +x "$tmp/sleeper"
start_hnp -N 1 --host "${prefix}n1:2,${prefix}n2:3" "$prog" 2 "${prefix}n2" "$tmp/sleeper"
wait_ready 2 600
kill -TERM "$(pgrep -P "$hnp_pid")"
finish
expect_status 143 "SIGTERM to hnp with spawned children"
assert_no_leftovers "SIGTERM to hnp with spawned children"

# ------------------------------------------------------------ refusals
# expect_refused ARGS... -- PATTERN: the parent learns of the failure
# (prints it, exits 3) and hnp's line names the cause.
expect_refused() {
    local pattern=${*: -1} what=$1
    shift
    run_hnp "${@:1:$#-1}"
    [ "$status" = 3 ] || { cat "$tmp/out" "$tmp/err"; fail "$what: hnp exited $status, not the parent's 3"; }
    expect_in "$tmp/out" "^spawn failed: " "$what: the parent got no error"
    expect_in "$tmp/err" "the spawn of rank 0 of job 1 failed: $pattern" "$what: hnp"
    assert_no_leftovers "$what"
}
expect_refused "no such program" -n 1 --host "${prefix}n1:2" "$prog" 1 "" "$tmp/nothere" \
    "no such program: $tmp/nothere"
expect_refused "a host outside the allocation" -n 1 --host "${prefix}n1:2" "$prog" 1 "${prefix}n9" \
    "host ${prefix}n9 is not in the allocation"
expect_refused "no free slot" --host "${prefix}n1:2,${prefix}n2:2" -N 1 "$prog" 3 \
    "no free slot for the 3 processes asked for: 2 of the 4 slots"
assert_no_files_left "refused spawns"

# With --oversubscribe a spawn goes onto nodes whose slots are all taken
# (as under mpirun --oversubscribe), instead of "no free slot".
run_hnp --tag-output --oversubscribe -n 1 --host "${prefix}n1:1" "$prog" 2
expect_status 0 "2 children on a full node with --oversubscribe"
children_ok 2 2 "2 children on a full node with --oversubscribe"
assert_no_leftovers "2 children on a full node with --oversubscribe"

# ------------------------------------------------------------------ DVM
uri="$tmp/dvm.uri"
timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 2):2" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }
run_hnp --dvm-uri "$uri" --tag-output -n 1 "$prog" 3
expect_status 0 "3 children in a DVM"
[ "$(grep -c "^\[[0-9]*,[0-9]*\]<stdout>:child [0-9]* of 3 on ${prefix}n[12]: SPAWN_TEST=given cwd=$tmp\$" "$tmp/out")" = 3 ] ||
    { cat "$tmp/out" "$tmp/err"; fail "3 children in a DVM"; }
run_hnp --dvm-uri "$uri" -n 1 "$prog" 4
[ "$status" = 3 ] || { cat "$tmp/out" "$tmp/err"; fail "no free slot in a DVM: status $status"; }
expect_in "$tmp/err" "no free slot for the 4 processes asked for: 3 of the 4 slots" "no free slot in a DVM"
run_hnp --dvm-uri "$uri" --oversubscribe -n 4 "$prog" 2
expect_status 0 "2 children in a full DVM with --oversubscribe"
[ "$(grep -c "^child [01] of 2 on ${prefix}n[12]: SPAWN_TEST=given" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out" "$tmp/err"; fail "2 children in a full DVM with --oversubscribe"; }
run_hnp --dvm-uri "$uri" --dvm-stop
assert_no_leftovers "spawns in a DVM"
assert_no_files_left "spawns in a DVM"
