#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Launch failures: hnp stops the job, names each missing node with the exact
# command and the agent's words, exits non-zero, and leaves nothing behind.
. "$top_srcdir/tests/integration/lib.sh"

# A node the agent cannot reach (ssh's "Connection refused", exit 255),
# after the retries.
HNP_AGENT_DOWN="${prefix}n3" run_hnp --mca plm_rsh_retries 1 -N 1 --host "$(hosts 4)" sleep 30
[ "$status" != 0 ] || fail "a node down must fail the job"
expect_in "$tmp/err" "node ${prefix}n3" "the missing node is named"
expect_in "$tmp/err" "Connection refused" "the agent's stderr is shown"
expect_in "$tmp/err" "command: .*hnp-local-agent.*${prefix}n3" "the command is shown"
assert_no_leftovers "node down"

# A node that fails once (as sshd's MaxStartups drops bursts) is retried.
HNP_AGENT_FLAKY="${prefix}n2" run_hnp -N 1 --host "$(hosts 3)" true
expect_status 0 "a flaky node is retried"
assert_no_leftovers "flaky node"

# A daemon that never calls back: the agent hangs. The launch timeout names
# the node and the command.
cat >"$tmp/hanging-agent" <<'AGENT'
#!/bin/sh
exec sleep 300
AGENT
chmod +x "$tmp/hanging-agent"
run_hnp --mca plm_rsh_agent "$tmp/hanging-agent" --mca plm_base_launch_timeout 2 \
    -N 1 --host "$(hosts 2)" true
[ "$status" != 0 ] || fail "a daemon that never calls back must fail the job"
expect_in "$tmp/err" "did not call back within plm_base_launch_timeout" "timeout message"
expect_in "$tmp/err" "node ${prefix}n1" "missing node named"
expect_in "$tmp/err" "command: .*hanging-agent" "command shown"
pgrep -f "$tmp/hanging-agent" >/dev/null && fail "the hanging agent was left running"
assert_no_leftovers "launch timeout"

# A slow launch: after plm_base_launch_warn seconds the nodes still missing
# are named; on a terminal a progress line counts the daemons up.
HNP_AGENT_REM=1.5 run_hnp --mca plm_base_launch_warn 0.5 --timing -N 1 --host "$(hosts 3)" true
expect_status 0 "slow launch"
expect_in "$tmp/err" "have not joined: ${prefix}n1 (started by the HNP)" "missing nodes named"
expect_in "$tmp/err" "slowest daemons to join" "--timing names the slowest daemons"
if command -v script >/dev/null; then
    HNP_AGENT_REM=0.8 timeout 30 script -qec "$HNP -N 1 --host '$(hosts 2)' true" /dev/null \
        >"$tmp/tty" 2>&1 || fail "hnp on a terminal failed: $(cat "$tmp/tty")"
    expect_in "$tmp/tty" "0 of 2 daemons up" "progress line on a terminal"
fi
assert_no_leftovers "slow launch"

# An agent that does not exist at all.
run_hnp --mca plm_rsh_agent "/nonexistent/agent-$prefix" -N 1 --host "$(hosts 1)" true
[ "$status" != 0 ] || fail "a missing agent must fail the job"
expect_in "$tmp/err" "plm_rsh_agent" "the agent parameter is named"
assert_no_leftovers "missing agent"
echo "PASS"
