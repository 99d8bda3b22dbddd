#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A job's daemons start the pmi components its programs use (the PMIx
# server of an Open MPI job) before the launch message arrives, once they
# have started their own daemons (pmi_base_start_early): the launch then
# finds the server up. A job whose programs need no PMIx never loads the
# pmix component; a server that fails to start fails the job with the
# error it always had; turned off, the daemons start it at the launch.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi mpi_ring

# The agent takes its launches one at a time, 1.5 s each, and the HNP
# (rsh: a flat launch) sends the launch once all three daemons are up: the
# first one waits 3 s for it, the second 1.5 s, whatever the machine's
# load; the last one may have it at once.
export HNP_AGENT_SEQ=1.5
early_line="job 1 launched: pmi pmix, started before the launch"

# run_ring ARGS...: the Open MPI ring on 3 nodes, 2 ranks each.
run_ring() {
    run_hnp --mca plm rsh --mca pmi_base_verbose 1 --timing "$@" \
        "${OMPI_X[@]}" -N 2 --host "$(hosts 3)" "$tmp/mpi_ring" "$prefix"
}

# On by default: the first daemons have the server up when the launch
# comes, and --timing shows that part on its own line.
run_ring
expect_status 0 "the Open MPI ring"
[ "$(grep -c 'ring ok' "$tmp/out")" = 6 ] || { cat "$tmp/err"; fail "the ring's 6 ranks did not all report: $(cat "$tmp/out")"; }
grep -q "$early_line" "$tmp/err" ||
    { cat "$tmp/err"; fail "no daemon had its PMIx server up before the launch arrived"; }
# a daemon that says so started it before, in that order
for n in 1 2 3; do
    node="${prefix}n$n"
    grep -q "node $node: $early_line" "$tmp/err" || continue
    started=$(grep -n "node $node: pmi pmix started before the launch" "$tmp/err" | head -n 1 | cut -d: -f1)
    launched=$(grep -n "node $node: job 1 launched" "$tmp/err" | head -n 1 | cut -d: -f1)
    [ -n "$started" ] && [ "$started" -lt "$launched" ] ||
        { cat "$tmp/err"; fail "$node: the launch came before its early start"; }
done
expect_in "$tmp/err" "pmi set-up before the launch (median)" "--timing shows the set-up before the launch"
expect_in "$tmp/err" "pmi set-up (median)" "--timing shows the set-up at the launch"

# Off: every daemon starts it at the launch, as it did.
run_ring --mca pmi_base_start_early 0
expect_status 0 "the Open MPI ring without the early start"
[ "$(grep -c 'job 1 launched: pmi pmix$' "$tmp/err")" = 3 ] ||
    { cat "$tmp/err"; fail "pmi_base_start_early 0: not every daemon started the pmix component at the launch"; }
grep -q "before the launch" "$tmp/err" &&
    { cat "$tmp/err"; fail "pmi_base_start_early 0: something was started before the launch"; }

# A server that cannot start (libpmix has no such data store) fails the
# job with the error it had at the launch, naming the node.
run_ring --mca pmi_pmix_gds nonexistent
[ "$status" = 1 ] || { cat "$tmp/err"; fail "a PMIx server that cannot start: status $status, expected 1"; }
grep -q "node $prefix.*: starting pmi pmix before the launch failed" "$tmp/err" ||
    { cat "$tmp/err"; fail "no daemon tried the server before the launch"; }
grep -q "^hnp: error: node ${prefix}n[1-3]: pmi component pmix: pmix: starting the PMIx server: " "$tmp/err" ||
    { cat "$tmp/err"; fail "the job's error does not say the PMIx server could not start"; }

# A program that needs no PMIx: no daemon maps the pmix component, before
# or after the launch. The ranks wait (sleep, which links no MPI) until
# the daemons are looked at.
unset HNP_AGENT_SEQ
nap="29.$$"
start_hnp --mca pmi_base_verbose 1 -N 1 --host "$(hosts 2)" /bin/sleep "$nap"
for _ in $(seq 300); do
    [ "$(pgrep -c -f -- "^/bin/sleep $nap\$" || true)" -ge 2 ] && break
    sleep 0.1
done
[ "$(pgrep -c -f -- "^/bin/sleep $nap\$" || true)" -ge 2 ] || { kill "$hnp_pid"; finish; cat "$tmp/err"; fail "the sleep job's ranks did not start"; }
for n in 1 2; do
    pid=$(daemon_pid "${prefix}n$n")
    [ -n "$pid" ] || { kill "$hnp_pid"; finish; fail "no daemon on n$n"; }
    if grep -q 'mca_pmi_pmix' "/proc/$pid/maps"; then
        kill "$hnp_pid"; finish
        fail "the daemon on n$n loaded the pmix component for a job of /bin/sleep"
    fi
done
kill -INT "$hnp_pid"
finish
grep -q "pmix" "$tmp/err" && { cat "$tmp/err"; fail "a job of /bin/sleep started pmix: $(grep pmix "$tmp/err")"; }

assert_no_leftovers "the jobs"
assert_no_files_left "the jobs"
echo "PASS"
