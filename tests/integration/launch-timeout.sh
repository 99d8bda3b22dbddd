#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A daemon that never calls back: the launch-timeout message names its
# node, the command that started it and the last lines its agent printed,
# whether hnp started it (rsh) or another daemon did (prsh, deep in the
# tree).
. "$top_srcdir/tests/integration/lib.sh"

# ssh refusing one node's host key, without exiting: the daemon for that
# node never starts. Every other node is started as usual.
missing="${prefix}n3"
cat >"$tmp/picky-agent" <<AGENT
#!/bin/sh
for word; do case \$word in -*) ;; *) break;; esac; done
if [ "\$word" = "$missing" ]; then
    echo "debug1: Connecting to $missing port 22." >&2
    echo "Host key verification failed." >&2
    exec sleep 300
fi
exec "$AGENT" "\$@"
AGENT
chmod +x "$tmp/picky-agent"

# prsh with 1 child a daemon, a chain: n3 is started by n2, itself
# started by n1, which passes n2's word on to the HNP; n4 is never started.
for plm in rsh "prsh --mca plm_prsh_spawning_degree 1"; do
    # shellcheck disable=SC2086 # the plm's words
    run_hnp --mca plm $plm --mca plm_rsh_agent "$tmp/picky-agent" \
        --mca plm_base_launch_timeout 4 -N 1 --host "$(hosts 4)" true
    [ "$status" != 0 ] || fail "$plm: a daemon that never calls back must fail the job"
    expect_in "$tmp/err" "node $missing (vpid 3)" "$plm: the missing node is named"
    expect_in "$tmp/err" "command: .*picky-agent $missing" "$plm: its command is shown"
    expect_in "$tmp/err" "| Host key verification failed\.\$" "$plm: its agent's last line is shown"
    expect_in "$tmp/err" "| debug1: Connecting to $missing" "$plm: the lines before it too"
    case $plm in
    rsh)
        expect_in "$tmp/err" "1 of 4 daemons did not call back" "$plm: timeout message"
        came_up="[124]" ;;
    prsh*)
        expect_in "$tmp/err" "2 of 4 daemons did not call back" "$plm: timeout message"
        expect_in "$tmp/err" "node $missing (vpid 3), started by node ${prefix}n2 (vpid 2)" \
            "$plm: the daemon that started it is named"
        expect_in "$tmp/err" "node ${prefix}n4 (vpid 4): not started, its parent node $missing (vpid 3) did not" \
            "$plm: a daemon below it is said not started"
        came_up="[12]" ;;
    esac
    if grep -q "^  node ${prefix}n$came_up (vpid" "$tmp/err"; then
        cat "$tmp/err"; fail "$plm: a node that came up is listed"
    fi
    assert_no_leftovers "$plm: launch timeout"
done
echo "PASS"
