#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# 5,000 small jobs in one DVM (hnp --dvm) from 4 clients at once, half of
# them /bin/true (PMI-1/2 alone), half a shell (PMI-1/2 and a PMIx
# namespace): every one ends well, and neither the HNP nor a daemon grows
# in memory (RSS, within 1 MB) or descriptors from job 100 to job 5,000:
# what a job holds is released at its end.
. "$top_srcdir/tests/integration/lib.sh"

address_sanitized && skip "the daemons are built with AddressSanitizer: their memory says nothing"
uri="$tmp/dvm.uri"
jobs_total=${HNP_DVM_FLAT_JOBS:-5000}

timeout -k 5 900 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 4)" \
    >"$tmp/dvm.log" 2>&1 || { cat "$tmp/dvm.log"; fail "hnp --dvm failed"; }
hnp=$(sed -n 's/^pid //p' "$uri")
daemon=$(daemon_pid "${prefix}n2")
[ -n "$daemon" ] || fail "no daemon on node 2"

# figures PID: its resident memory (kB) and open descriptors
figures() { echo "$(awk '/^VmRSS/ { print $2 }' "/proc/$1/status") $(ls "/proc/$1/fd" | wc -l)"; }

# client_loop N FIRST: N jobs one after another, in turns /bin/true and sh
client_loop() {
    local i bad=0
    for i in $(seq "$2" $(($2 + $1 - 1))); do
        if [ $((i % 2)) = 0 ]; then
            timeout -k 5 120 "$HNP" --dvm-uri "$uri" -q -N 1 /bin/true || bad=$((bad + 1))
        else
            timeout -k 5 120 "$HNP" --dvm-uri "$uri" -q -N 1 sh -c 'exit 0' || bad=$((bad + 1))
        fi
    done
    echo "$bad" >"$tmp/bad.$2"
}

# 4 clients at once: N jobs in all
clients() {
    local each=$(($1 / 4)) c
    for c in 0 1 2 3; do client_loop "$each" $((c * each + $2)) & done
    wait
    [ "$(cat "$tmp"/bad.* | paste -sd+ | bc)" = 0 ] ||
        fail "$(cat "$tmp"/bad.* | paste -sd+ | bc) jobs of $1 failed"
    rm -f "$tmp"/bad.*
}

started=$SECONDS
clients 100 0
read -r hnp_rss0 hnp_fds0 <<<"$(figures "$hnp")"
read -r d_rss0 d_fds0 <<<"$(figures "$daemon")"
clients $((jobs_total - 100)) 100
read -r hnp_rss1 hnp_fds1 <<<"$(figures "$hnp")"
read -r d_rss1 d_fds1 <<<"$(figures "$daemon")"
echo "after 100 jobs: HNP $hnp_rss0 kB $hnp_fds0 fds, daemon $d_rss0 kB $d_fds0 fds"
echo "after $jobs_total jobs: HNP $hnp_rss1 kB $hnp_fds1 fds, daemon $d_rss1 kB $d_fds1 fds ($((SECONDS - started)) s)"
[ "$hnp_fds1" = "$hnp_fds0" ] || fail "the HNP's descriptors grew from $hnp_fds0 to $hnp_fds1"
[ "$d_fds1" = "$d_fds0" ] || fail "a daemon's descriptors grew from $d_fds0 to $d_fds1"
[ $((hnp_rss1 - hnp_rss0)) -le 1024 ] || fail "the HNP grew from $hnp_rss0 kB to $hnp_rss1 kB"
[ $((d_rss1 - d_rss0)) -le 1024 ] || fail "a daemon grew from $d_rss0 kB to $d_rss1 kB"
run_hnp --dvm-uri "$uri" --dvm-jobs
grep -q running "$tmp/out" && fail "a job is still listed: $(cat "$tmp/out")"
run_hnp --dvm-uri "$uri" --dvm-stop
expect_status 0 "--dvm-stop"
assert_no_leftovers "$jobs_total jobs and --dvm-stop"
assert_no_files_left "$jobs_total jobs and --dvm-stop"
echo "PASS"
