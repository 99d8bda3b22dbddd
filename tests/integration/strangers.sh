#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Connections that never authenticate cannot stop or slow a job: 1100
# silent ones against an HNP limited to 1024 descriptors, a peer speaking
# HTTP (dropped at its first bytes, not at the handshake deadline), and a
# stranger still connected when the job ends (not waited for as if it
# were a daemon), and a flood of strangers that say a hello and no proof
# during a launch (it succeeds).
. "$top_srcdir/tests/integration/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed for the stranger"
STRANGER="$top_srcdir/tests/integration/stranger.py"

# An agent that leaves the HNP's URI (from the daemon's arguments) where
# the stranger finds it, and waits for the stranger to have connected.
# The agent's words are the remote command's, quoted for a shell.
cat >"$tmp/agent" <<AGENT
#!/bin/sh
if [ ! -e "$tmp/uri" ]; then
    echo "\$*" >"$tmp/uri.\$\$" && mv -f "$tmp/uri.\$\$" "$tmp/uri"
fi
while [ ! -e "$tmp/go" ]; do sleep 0.05; done
exec "$AGENT" "\$@"
AGENT
chmod +x "$tmp/agent"

reset_run() { rm -f "$tmp/uri" "$tmp/go" "$tmp/done" "$tmp/status"; }

# hnp_in_background LIMIT ARGS...: hnp with at most LIMIT descriptors, its
# exit status into $tmp/status.
hnp_in_background() {
    local limit=$1
    shift
    (
        ulimit -n "$limit"
        export HNP_MCA_plm_rsh_agent="$tmp/agent"
        run_hnp "$@"
        echo "$status" >"$tmp/status"
    ) &
    hnp_job=$!
}

finish_run() {
    wait "$hnp_job" || true
    touch "$tmp/go" "$tmp/done"
    wait "$stranger_job" || fail "the stranger failed: $(cat "$tmp/stranger")"
    status=$(cat "$tmp/status")
}

# 1. 1100 silent connections held from before the daemons start.
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 1200 ]; then
    echo "skipping the flood: the hard descriptor limit is $hard"
else
    reset_run
    started=$SECONDS
    hnp_in_background 1024 --mca oob_tcp_handshake_timeout 120 \
        --host "$(hosts 64)" -N 1 /bin/true
    timeout 120 python3 "$STRANGER" "$tmp/uri" flood 1100 "$tmp/go" \
        "$tmp/done" >"$tmp/stranger" 2>&1 &
    stranger_job=$!
    finish_run
    took=$((SECONDS - started))
    expect_status 0 "64 nodes with 1100 silent connections at the HNP"
    cat "$tmp/stranger"
    # Without the guard the daemons wait for the strangers' handshake
    # deadline (120 s here); with it, the oldest strangers make room.
    [ "$took" -lt 60 ] || fail "64 nodes took $took s under the flood"
    lines=$(grep -c "dropped" "$tmp/err" || true)
    [ "$lines" -le 40 ] || { head -50 "$tmp/err"; fail "$lines warning lines: not rate-limited"; }
    expect_in "$tmp/err" "not shown" "the count of warnings not shown"
    assert_no_leftovers "the flood"
fi

# 2. HTTP at the HNP's port: dropped at once, not after the deadline.
reset_run
hnp_in_background 1024 --mca oob_tcp_handshake_timeout 120 --host "$(hosts 4)" -N 1 /bin/true
took=$(timeout 60 python3 "$STRANGER" "$tmp/uri" http) || fail "the HTTP client failed"
touch "$tmp/go"
stranger_job=$hnp_job
finish_run
expect_status 0 "4 nodes after an HTTP request"
expect_in "$tmp/err" "bad magic.*GET " "the warning about the HTTP client"
awk -v t="$took" 'BEGIN { exit !(t < 25) }' ||
    fail "the HTTP client was held $took s (the handshake deadline was 120 s)"

# 3. A stranger still connected when the job ends is no daemon to wait for.
reset_run
started=$SECONDS
hnp_in_background 1024 --mca oob_tcp_handshake_timeout 120 --host "$(hosts 4)" -N 1 /bin/true
timeout 120 python3 "$STRANGER" "$tmp/uri" flood 3 "$tmp/go" "$tmp/done" \
    >"$tmp/stranger" 2>&1 &
stranger_job=$!
finish_run
expect_status 0 "4 nodes with 3 silent connections till the end"
if grep -q "still open" "$tmp/err"; then
    cat "$tmp/err"
    fail "silent connections counted as daemons at the end of the job"
fi
[ $((SECONDS - started)) -lt 60 ] ||
    fail "hnp took $((SECONDS - started)) s: it waited for the strangers (120 s)"
assert_no_leftovers "strangers at the end"

# 4. A hello flood: 1,000 connections a second from four loopback
# addresses, each with a well-formed hello naming one of the job's vpids
# and never a proof, from a second before the daemons start until the job
# ends (20,000 at most, 60 s at most). Strangers can slow the launch, not
# fail it: the real daemons' hellos must still be answered, and their
# proofs taken.
reset_run
rm -f "$tmp/flood-go"
hnp_in_background 4096 --host "$(hosts 64)" -N 1 sh -c 'echo "$HNP_RANK $HNP_NODE"'
timeout -k 5 90 python3 "$STRANGER" "$tmp/uri" hellos 1000 60 20000 64 \
    "$tmp/flood-go" "$tmp/done" >"$tmp/stranger" 2>&1 &
stranger_job=$!
for _ in $(seq 300); do [ -e "$tmp/flood-go" ] && break; sleep 0.1; done
touch "$tmp/go"
finish_run
cat "$tmp/stranger"
expect_status 0 "64 nodes under a hello flood"
expect_one_rank_per_node 64
assert_no_leftovers "the hello flood"
