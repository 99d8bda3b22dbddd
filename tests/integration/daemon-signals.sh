#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# SIGUSR1 and SIGUSR2 sent to the daemons (a batch system signalling the
# step, as scancel -s USR1 does) reach the ranks and end no daemon.
. "$top_srcdir/tests/integration/lib.sh"

# The daemons of this test, and their sentinels (whose command line is
# their daemon's): every process a batch system would signal in the step
# but the ranks.
daemons() { pgrep -f -- "--node ${prefix}n" || true; }

for plm in rsh prsh; do
    for sig in USR1 USR2; do
        start_hnp --mca plm "$plm" -N 2 --host "$(hosts 3)" sh -c \
            "trap 'echo got-$sig \$HNP_RANK; exit 0' $sig; echo ready; while :; do sleep 0.1; done" \
            "$prefix"
        wait_ready 6 100
        pids=$(daemons)
        [ "$(echo "$pids" | wc -w)" -ge 3 ] || fail "$plm: daemons not found: $pids"
        kill -"$sig" $pids
        finish
        expect_status 0 "$plm: SIG$sig sent to the daemons"
        got=$(grep -c "^got-$sig " "$tmp/out" || true)
        [ "$got" = 6 ] || { cat "$tmp/out" "$tmp/err"; fail "$plm: SIG$sig reached $got of 6 ranks"; }
        if grep -qi "died\|lost\|sentinel" "$tmp/err"; then
            cat "$tmp/err"; fail "$plm: a daemon was lost to SIG$sig"
        fi
        assert_no_leftovers "$plm: SIG$sig to the daemons"
    done
done
echo "PASS"
