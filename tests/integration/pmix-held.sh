#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A job that ends while one of its ranks waits for another node's data
# (a direct-modex request held there: PMIx_Get of a key never put) ends
# cleanly, and the daemons serve the next PMIx job. The daemon used to
# answer libpmix's record of that request after the job's namespace was
# deregistered, which had freed it: libpmix's thread then hung on a lock
# in freed memory, PMIx_server_finalize waited for it, and hnp killed the
# daemon 10 s after the job ("did not leave after the shutdown"); in a
# daemon that had freed the memory otherwise it crashed in libpmix, at
# its exit or at a later job's end. Skipped without the pmix component.
. "$top_srcdir/tests/integration/lib.sh"

! pmix_missing >/dev/null || skip "$(pmix_missing)"
build_pmix pmix-held

gate="$tmp/gate"
# held_job LOG: once rank 0's request is held on rank 1's node (its
# daemon says so in LOG, at pmi_base_verbose 5), rank 1 exits with 7.
held_job() {
    local log=$1
    for _ in $(seq 600); do
        grep -q "direct modex: rank 1 of .* asked of this node" "$log" && break
        sleep 0.1
    done
    grep -q "direct modex: rank 1 of .* asked of this node" "$log" ||
        { cat "$tmp/out" "$log"; fail "rank 0's request for rank 1's data never reached rank 1's node"; }
    touch "$gate"
    finish
    rm -f "$gate"
    expect_status 7 "a job whose rank 1 exits while rank 0 waits for its data"
    expect_in "$tmp/err" "rank 1 (pid [0-9]*) on node ${prefix}n2 exited with status 7" "the rank named"
}
# no_daemon_trouble WHAT FILE: the daemons left as told, none died, and
# libpmix answered them in time.
no_daemon_trouble() {
    if grep -E "did not leave|died|not answer|did not release" "$2"; then
        fail "$1: the daemons did not end the request cleanly"
    fi
}

# Standalone: the daemons leave at once.
start_hnp --mca pmi_base_verbose 5 -N 1 --host "${prefix}n1,${prefix}n2" "$tmp/pmix-held" "$gate"
held_job "$tmp/err"
no_daemon_trouble "standalone" "$tmp/err"
assert_no_leftovers "standalone"

# In a DVM the same daemons then run other PMIx jobs. Its daemons write
# their logs to files of their own (PATH.NODE).
uri="$tmp/dvm.uri"
dvm_log="$tmp/dvm.log"
timeout -k 5 300 "$HNP" --dvm --report-uri "$uri" --daemonize --mca pmi_base_verbose 5 \
    --mca log_output "file:$tmp/dlog" --host "${prefix}n1:2,${prefix}n2:2" >"$dvm_log" 2>&1 ||
    { cat "$dvm_log"; fail "hnp --dvm failed"; }
start_hnp --dvm-uri "$uri" -N 1 "$tmp/pmix-held" "$gate"
held_job "$tmp/dlog.${prefix}n2"
for round in 1 2 3; do
    run_hnp --dvm-uri "$uri" -N 2 "$tmp/pmix-held"
    expect_status 0 "PMIx job $round after the held request"
    [ "$(grep -c "^fenced [0-3] of 4$" "$tmp/out")" = 4 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "PMIx job $round: not 4 ranks fenced"; }
done
status=0
timeout -k 5 60 "$HNP" --dvm-uri "$uri" --dvm-stop || status=$?
[ "$status" = 0 ] || fail "--dvm-stop ended with $status"
for log in "$dvm_log" "$tmp/dlog.${prefix}n1" "$tmp/dlog.${prefix}n2"; do
    no_daemon_trouble "in a DVM" "$log"
done
assert_no_leftovers "the DVM"
assert_no_files_left "the DVM"
echo "PASS"
