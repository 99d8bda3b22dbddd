#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A DVM's daemons load their pmi components (libpmix among them) while the
# DVM starts, so that its first job starts as fast as the next ones: once
# the contact file is written and before any job, every daemon has the
# pmix component mapped. With pmi_base_preload off they load it at their
# first job, as a standalone hnp's daemons do.
. "$top_srcdir/tests/integration/lib.sh"

[ "${HNP_DLOPEN:-yes}" = yes ] ||
    skip "hnp built with --disable-dlopen has its components from its start: a daemon loads none"
uri="$tmp/dvm.uri"

# maps_pmix NODE: whether that node's daemon has the pmix component mapped
maps_pmix() {
    local pid
    pid=$(daemon_pid "${prefix}$1")
    [ -n "$pid" ] || fail "no daemon on node $1"
    grep -q 'mca_pmi_pmix' "/proc/$pid/maps"
}

# start_dvm [ARGS...]: a DVM on 3 nodes, its contact file written
start_dvm() {
    rm -f "$uri"
    timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize \
        --host "$(hosts 3)" "$@" >"$tmp/dvm.log" 2>&1 ||
        { cat "$tmp/dvm.log"; fail "hnp --dvm $* failed"; }
}

stop_dvm() {
    run_hnp --dvm-uri "$uri" --dvm-stop
    expect_status 0 "--dvm-stop"
}

# The default: loaded before the DVM is ready.
start_dvm
for n in 1 2 3; do
    maps_pmix "n$n" || { stop_dvm; fail "the daemon on n$n has not loaded the pmix component before the first job"; }
done
run_hnp --dvm-uri "$uri" -N 1 sh -c 'echo "ran $PMIX_RANK"'
expect_status 0 "a shell job in the preloaded DVM"
[ "$(grep -c '^ran [0-2]$' "$tmp/out")" = 3 ] || { stop_dvm; fail "the job's 3 ranks did not all run: $(cat "$tmp/out")"; }
stop_dvm

# Turned off: nothing loaded until a job needs it.
start_dvm --mca pmi_base_preload 0
maps_pmix n2 && { stop_dvm; fail "pmi_base_preload 0: the daemon on n2 loaded the pmix component before any job"; }
run_hnp --dvm-uri "$uri" -N 1 /bin/true
expect_status 0 "/bin/true in a DVM without preloading"
maps_pmix n2 || { stop_dvm; fail "pmi_base_preload 0: a DVM's daemon loads every component at its first job, and n2 did not"; }
stop_dvm

assert_no_leftovers "the DVMs"
assert_no_files_left "the DVMs"
echo "PASS"
