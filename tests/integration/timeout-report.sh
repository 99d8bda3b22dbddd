#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --timeout with --report-state-on-timeout and --get-stack-traces: before
# the job is killed, hnp prints every rank's node, pid and state, and the
# stack of each rank still running, taken by gdb on its node and labelled
# with its rank and node; where gdb is not in the node's PATH, it says so,
# and one that hangs is stopped at the time limit.
# The status is --timeout's, 124, and nothing is left running.
. "$top_srcdir/tests/integration/lib.sh"

# Rank 0 sleeps in sleep(1); rank 1 exits 0 at once.
app='if [ "$HNP_RANK" = 0 ]; then exec sleep 60; else exit 0; fi'
rank0_pid() { sed -n "s/^hnp:   rank 0 on node ${prefix}n1: pid \([0-9]*\), running\$/\1/p" "$tmp/err"; }

if command -v gdb >/dev/null; then
    run_hnp --timeout 3 --report-state-on-timeout --get-stack-traces \
        -N 1 --host "$(hosts 2)" sh -c "$app" "$prefix"
    expect_status 124 "timeout with reports"
    expect_in "$tmp/err" "^hnp: the state of the job's 2 ranks:" "the state's heading"
    [ -n "$(rank0_pid)" ] || { cat "$tmp/err"; fail "rank 0 not shown running with its pid"; }
    expect_in "$tmp/err" "^hnp:   rank 1 on node ${prefix}n2: pid [0-9]*, exited with status 0\$" \
        "rank 1 shown exited"
    expect_in "$tmp/err" "^hnp: stack of rank 0 (pid $(rank0_pid)) on node ${prefix}n1:\$" \
        "rank 0's stack labelled"
    # sleep waits in nanosleep (clock_nanosleep or nanosleep, by libc).
    sed -n '/^hnp: stack of rank 0/,$p' "$tmp/err" | grep -q '^hnp:   #[0-9].*nanosleep' ||
        { cat "$tmp/err"; fail "no frame of sleep in rank 0's stack"; }
    grep -q "stack of rank 1" "$tmp/err" && fail "a stack for a rank that had exited"
    expect_in "$tmp/err" "ran longer than --timeout 3 s; killing it" "the timeout's message"
    assert_no_leftovers "timeout with stacks"
    pgrep -f "gdb.*-p $(rank0_pid)" && fail "gdb left running"
fi

# No gdb in the daemons' PATH: each running rank's stack says so.
mkdir "$tmp/bin"
for tool in sh sleep timeout; do ln -s "$(command -v "$tool")" "$tmp/bin/$tool"; done
PATH="$tmp/bin" run_hnp --timeout 2 --get-stack-traces -N 1 --host "$(hosts 2)" \
    sh -c "$app" "$prefix"
expect_status 124 "timeout without gdb"
expect_in "$tmp/err" "^hnp: rank 0 on node ${prefix}n1: no stack: gdb is not installed on node ${prefix}n1 (not found in PATH)\$" \
    "gdb missing said"
grep -q "the state of the job" "$tmp/err" && fail "states printed without --report-state-on-timeout"
assert_no_leftovers "timeout without gdb"

# A gdb that does not finish is stopped at the time limit (10 s): what it
# said comes with a note, and it is not left behind.
printf '#!/bin/sh\necho "fake frame for $*"\nexec sleep 100\n' >"$tmp/bin/gdb"
chmod +x "$tmp/bin/gdb"
started=$SECONDS
PATH="$tmp/bin" run_hnp --timeout 2 --get-stack-traces -N 1 --host "$(hosts 2)" \
    sh -c "$app" "$prefix"
expect_status 124 "a gdb that hangs"
expect_in "$tmp/err" "^hnp:   fake frame for -nx -batch -p [0-9]* -ex thread apply all bt\$" \
    "what the hanging gdb said"
expect_in "$tmp/err" "^hnp:   (gdb did not finish within 10.0 s: stopped)\$" "the time limit's note"
# Waited for, the fake gdb would hold the job 100 s.
[ $((SECONDS - started)) -lt 90 ] || fail "a hanging gdb held the job $((SECONDS - started)) s"
assert_no_leftovers "a gdb that hangs"

# Without the options, --timeout kills at once, saying nothing more.
run_hnp --timeout 1 -N 1 --host "$(hosts 2)" sh -c "$app" "$prefix"
expect_status 124 "plain timeout"
grep -q "state of the job\|stack of rank" "$tmp/err" && fail "reports without the options"

# The reports need --timeout.
run_hnp --get-stack-traces -N 1 --host "$(hosts 1)" true
expect_status 1 "--get-stack-traces alone"
expect_in "$tmp/err" "--get-stack-traces acts when --timeout expires" "the missing --timeout named"
assert_no_leftovers "timeout-report"
echo "PASS"
