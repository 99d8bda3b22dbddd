#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Name publishing (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name)
# through the PMI-1/2 server, spoken as MPICH's libpmi writes it
# (tests/pmi/pmi_dyn): a publish seen by a rank on another node, a second
# publish and a second unpublish refused, an unknown name not found;
# standalone, then in a DVM, where a job sees another job's names only
# with pmi_base_name_scope=session, and a job's names go with it; a PMIx
# client's persistent names seen by PMI (its string; another type refused).
. "$top_srcdir/tests/integration/lib.sh"

dyn="$top_builddir/tests/pmi/pmi_dyn"

# check_names VERSION WHAT: both ranks passed every check.
check_names() {
    expect_status 0 "$2"
    for r in 0 1; do
        expect_in "$tmp/out" "^rank $r: names$1 ok$" "$2, rank $r"
    done
}

# ------------------------------------------------------------ standalone
for v in 1 2; do
    run_hnp -N 1 --host "$(hosts 2)" "$dyn" "names$v" "standalone$v"
    check_names "$v" "PMI-$v names, standalone, 2 nodes"
done

# ------------------------------------------------------------ in a DVM
uri="$tmp/dvm.uri"
# start_dvm [ARGS...]: a DVM of 3 nodes.
start_dvm() {
    timeout -k 5 300 "$HNP" --dvm --report-uri "$uri" --daemonize \
        --host "$(hosts 3)" "$@" >"$tmp/dvm.log" 2>&1 ||
        { cat "$tmp/dvm.log"; fail "hnp --dvm $* did not start"; }
}
stop_dvm() {
    timeout -k 5 60 "$HNP" --dvm-uri "$uri" --dvm-stop ||
        fail "--dvm-stop failed"
}
# across JOBS: a publisher job holds its name while another job looks it
# up; prints what the lookup said into $tmp/lookup.
across_jobs() {
    local dir="$tmp/pub" status_pub=0
    rm -rf "$dir" && mkdir -p "$dir"
    timeout -k 5 120 "$HNP" --dvm-uri "$uri" -n 1 "$dyn" publish1 \
        dvm-svc dvm-port "$dir" >"$tmp/pub.out" 2>&1 &
    local pub=$!
    for _ in $(seq 1200); do
        [ -e "$dir/published" ] && break
        kill -0 "$pub" 2>/dev/null || break
        sleep 0.1
    done
    [ -e "$dir/published" ] || { cat "$tmp/pub.out"; fail "the publisher job did not publish"; }
    run_hnp --dvm-uri "$uri" -n 1 "$dyn" lookup1 dvm-svc
    cp "$tmp/out" "$tmp/lookup"
    expect_status 0 "the looking-up job"
    touch "$dir/done"
    wait "$pub" || status_pub=$?
    [ "$status_pub" = 0 ] || { cat "$tmp/pub.out"; fail "the publisher job ended with $status_pub"; }
    grep -q "^rank 0: publish1 ok$" "$tmp/pub.out" || { cat "$tmp/pub.out"; fail "the publisher job"; }
}

start_dvm
for v in 1 2; do
    run_hnp --dvm-uri "$uri" -N 1 --host "$(hosts 2)" "$dyn" "names$v" "dvm$v"
    check_names "$v" "PMI-$v names in a DVM"
done
across_jobs
expect_in "$tmp/lookup" "^lookup dvm-svc: not found" \
    "another job's name, scoped to its family by default"
stop_dvm

start_dvm --mca pmi_base_name_scope session
across_jobs
expect_in "$tmp/lookup" "^lookup dvm-svc: port=dvm-port$" \
    "another job's name, with pmi_base_name_scope=session"
# the publisher has ended: its name went with it
run_hnp --dvm-uri "$uri" -n 1 "$dyn" lookup1 dvm-svc
expect_status 0 "a lookup after the publisher's end"
expect_in "$tmp/out" "^lookup dvm-svc: not found" "the name of a job that ended"
# a PMIx client's names: its string is a port to PMI, a value of another
# type is refused, not given as the bytes it is kept as
if ! pmix_missing >/dev/null; then
    build_pmix pmix-names
    run_hnp --dvm-uri "$uri" -n 1 "$tmp/pmix-names" persist
    expect_status 0 "a PMIx client's persistent names"
    expect_in "$tmp/out" "^persist ok$" "a PMIx client's persistent publish"
    run_hnp --dvm-uri "$uri" -n 1 "$dyn" lookup1 pmix-str
    expect_status 0 "a PMI lookup of a PMIx string"
    expect_in "$tmp/out" "^lookup pmix-str: port=from-pmix$" "a PMIx client's string, to PMI"
    run_hnp --dvm-uri "$uri" -n 1 "$dyn" lookup1 pmix-int
    expect_status 0 "a PMI lookup of a PMIx integer"
    expect_in "$tmp/out" "^lookup pmix-int: not found (.*bad.name.or.port" \
        "a PMIx client's integer, to PMI"
else
    echo "no pmi pmix component or libpmix-dev: PMIx client's names to PMI not checked"
fi
stop_dvm
assert_no_leftovers "name publishing"
echo "PASS"
