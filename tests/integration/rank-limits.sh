#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# hnp and its daemons raise their own descriptor limit to the hard one;
# the ranks start with the soft limit the user gave hnp, not the raised
# one (nor do the agents, nor the daemons, which raise theirs in turn).
. "$top_srcdir/tests/integration/lib.sh"

hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -le 200 ]; then
    skip "the hard descriptor limit is $hard: no room above a soft limit of 200"
fi

# prsh with one child a daemon: every daemon but the first started by
# another daemon.
for plm in rsh "prsh --mca plm_prsh_spawning_degree 1"; do
    # shellcheck disable=SC2086 # the plm's words
    ( ulimit -Sn 200
      run_hnp --mca plm $plm -N 2 --host "$(hosts 3)" sh -c 'echo "$HNP_RANK $(ulimit -Sn) $(ulimit -Hn)"'
      echo "$status" >"$tmp/status" )
    status=$(cat "$tmp/status")
    expect_status 0 "$plm: ulimit -Sn 200"
    [ "$(wc -l <"$tmp/out")" = 6 ] || fail "$plm: 6 lines expected: $(cat "$tmp/out")"
    if [ "$(cut -d' ' -f2- "$tmp/out" | sort -u)" != "200 $hard" ]; then
        cat "$tmp/out"
        fail "$plm: the ranks must start with the soft limit 200 hnp was given (and the hard limit $hard)"
    fi
    assert_no_leftovers "$plm: ulimit -Sn 200"
done
echo "PASS"
