#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Name publishing through the PMIx server: Open MPI's MPI_Publish_name,
# MPI_Lookup_name and MPI_Unpublish_name across two nodes, and a PMIx
# client's lookups with PMIX_WAIT as Open MPI's connect/accept makes them
# (answered by a later publish, or "not found" at PMIX_TIMEOUT); values
# of every PMIx type given back as they were published; lookups and
# publishes answered at the same moment, many times over, none lost; a
# spawned job and its parent seeing each other's names (one family);
# standalone and in a DVM. Skipped where the pmix component or Open MPI
# is missing.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
build_ompi ompi_names
build_pmix pmix-names

# check NP WHAT LINE: every rank printed LINE.
check() {
    expect_status 0 "$2"
    [ "$(grep -c "^rank [0-9]*: $3$" "$tmp/out")" = "$1" ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$2: not every rank passed"; }
}

run_hnp "${OMPI_X[@]}" -N 1 --host "$(hosts 2)" "$tmp/ompi_names" standalone
check 2 "Open MPI names across 2 nodes" "names ok"
run_hnp -N 2 --host "$(hosts 2)" "$tmp/pmix-names"
check 4 "PMIx lookups that wait, 4 ranks on 2 nodes" "pmix names ok"
# each rank's waiting lookup and its publish answered at the same moment,
# 100 times: libpmix 4.2 queues a lookup's reply where its callback is
# called, so one called off libpmix's thread lost a reply now and then
run_hnp -N 8 --host "$(hosts 2)" "$tmp/pmix-names" race
check 16 "PMIx lookups and publishes answered together, 16 ranks on 2 nodes" "pmix race ok"
# a value of each type in one publish, each looked up as it was published,
# on the publisher's node and on the other
run_hnp -N 2 --host "$(hosts 2)" "$tmp/pmix-names" types
check 4 "PMIx values of every type, 4 ranks on 2 nodes" "pmix types ok"
# a spawned job sees its parent's names, and the parent its child's
HNP_TEST_TIMEOUT=300 run_hnp -n 1 --host "${prefix}n1:2" "$tmp/pmix-names" family
expect_status 0 "names within a job family"
expect_in "$tmp/out" "^family ok: from-the-parent$" "a spawned job's lookup of its parent's name"

uri="$tmp/dvm.uri"
timeout -k 5 300 "$HNP" --dvm --report-uri "$uri" --daemonize \
    --host "$(hosts 2)" >"$tmp/dvm.log" 2>&1 ||
    { cat "$tmp/dvm.log"; fail "hnp --dvm did not start"; }
for job in 1 2; do
    # the same name in two jobs one after the other: the first job's
    # went with it
    run_hnp --dvm-uri "$uri" "${OMPI_X[@]}" -N 1 "$tmp/ompi_names" in-dvm
    check 2 "Open MPI names in a DVM, job $job" "names ok"
done
run_hnp --dvm-uri "$uri" -N 1 "$tmp/pmix-names"
check 2 "PMIx lookups that wait, in a DVM" "pmix names ok"
run_hnp --dvm-uri "$uri" -N 8 --oversubscribe "$tmp/pmix-names" race
check 16 "PMIx lookups and publishes answered together, in a DVM" "pmix race ok"
HNP_TEST_TIMEOUT=300 run_hnp --dvm-uri "$uri" -n 1 "$tmp/pmix-names" family
expect_status 0 "names within a job family, in a DVM"
expect_in "$tmp/out" "^family ok: from-the-parent$" "a spawned job's lookup of its parent's name, in a DVM"
timeout -k 5 60 "$HNP" --dvm-uri "$uri" --dvm-stop || fail "--dvm-stop failed"
assert_no_leftovers "name publishing over PMIx"
echo "PASS"
