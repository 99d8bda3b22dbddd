#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An attacker on the cluster network (tests/integration/mitm.c) between
# daemon 1 and the HNP: the job's secret never appears on the wire, a
# connector's handshake recorded from a real job and replayed to the HNP is
# refused with the job unharmed, and a well-formed frame injected into the
# established connection without the key is refused (the connection ends
# with a warning naming the peer and the bad MAC) and never acted upon.
. "$top_srcdir/tests/integration/lib.sh"

MITM="$top_builddir/tests/integration/hnp-mitm"
[ -x "$MITM" ] || skip "$MITM is not built"

# The agent: node 1's connection to its parent (the HNP) goes through the
# attacker; the secret the HNP writes on the agent's stdin is kept for the
# sniffing check below.
cat >"$tmp/agent" <<AGENT
#!/bin/sh
IFS= read -r secret || exit 1
printf '%s\n' "\$secret" >"$tmp/secret"
case "\$1" in
${prefix}n1)
    port=\$(printf '%s\n' "\$@" | sed -n 's/.*tcp:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' | head -n 1)
    echo "\$port" >"$tmp/hnp-port"
    "$MITM" forward "$tmp/proxy-port" "\$port" "$tmp/wire" \$HNPTEST_MITM_MODE \
        2>"$tmp/mitm-err" &
    echo \$! >"$tmp/mitm-pid"
    for _ in \$(seq 100); do [ -s "$tmp/proxy-port" ] && break; sleep 0.05; done
    proxy=\$(cat "$tmp/proxy-port")
    for a do
        shift
        set -- "\$@" "\$(printf '%s' "\$a" | sed "s|tcp://127.0.0.1:\$port|tcp://127.0.0.1:\$proxy|")"
    done
    ;;
esac
{ printf '%s\n' "\$secret"; exec cat; } | exec "$AGENT" "\$@"
AGENT
chmod +x "$tmp/agent"
export HNP_MCA_plm_rsh_agent="$tmp/agent"

# The attacker ends when both sides of its connection have.
mitm_done() {
    local pid
    pid=$(cat "$tmp/mitm-pid" 2>/dev/null) || return 0
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill "$pid" 2>/dev/null || true
    rm -f "$tmp/mitm-pid" "$tmp/proxy-port" "$tmp/hnp-port"
}

# (c) Sniffing a whole job: its output is there (the proxy saw the
# traffic), the secret, in bytes or in hex, is not.
export HNPTEST_MITM_MODE=
run_hnp --mca plm rsh --host "$(hosts 2)" -N 1 echo sniffed-output
expect_status 0 "a job seen by a sniffer"
mitm_done
[ -s "$tmp/secret" ] || fail "the agent did not see the secret"
"$MITM" find "$(printf '%s' sniffed-output | od -An -tx1 | tr -d ' \n')" "$tmp/wire" ||
    fail "the sniffer saw none of the job's traffic"
status=0
"$MITM" find "$(cat "$tmp/secret")" "$tmp/wire" || status=$?
[ "$status" = 1 ] || fail "the job's secret crossed the network (find: $status)"
assert_no_leftovers "a sniffed job"

# (a) Replaying daemon 1's recorded handshake (and first frames) to the HNP
# while the job runs: refused, and the job ends as it would have.
rm -f "$tmp/wire" "$tmp/wire.c2s"
status=0
timeout -k 5 120 "$HNP" --mca plm rsh --host "$(hosts 2)" -N 1 \
    sh -c 'sleep 3; echo "done $HNP_RANK"' >"$tmp/out" 2>"$tmp/err" &
hnp_pid=$!
for _ in $(seq 300); do
    [ -f "$tmp/wire.c2s" ] && [ "$(wc -c <"$tmp/wire.c2s")" -ge 100 ] && break
    sleep 0.05
done
[ -s "$tmp/hnp-port" ] || fail "the attacker never saw daemon 1 connect"
"$MITM" replay "$(cat "$tmp/hnp-port")" "$tmp/wire.c2s" >"$tmp/replay" ||
    fail "the replay could not run"
wait "$hnp_pid" || status=$?
expect_status 0 "a job whose handshake was replayed"
[ "$(sort "$tmp/out" | paste -sd' ')" = "done 0 done 1" ] ||
    fail "the job's output changed: $(cat "$tmp/out")"
[ "$(cat "$tmp/replay")" = closed ] ||
    fail "the HNP kept the replayed connection open"
expect_in "$tmp/err" "failed handshake: no proof" "the replayed handshake"
mitm_done
assert_no_leftovers "a replayed handshake"

# (b) A FAILURE frame (exit status 42) injected into daemon 1's established
# connection: the HNP does not act on it. Losing the connection ends the
# job, naming the peer and the bad MAC.
export HNPTEST_MITM_MODE=inject
run_hnp --mca plm rsh --host "$(hosts 2)" -N 1 sh -c 'sleep 2; echo late'
mitm_done
expect_in "$tmp/mitm-err" "injected" "the injection"
[ "$status" != 42 ] || fail "the HNP acted on the forged frame (status 42)"
! grep -q "forged by the man in the middle" "$tmp/err" ||
    fail "the HNP acted on the forged frame: $(cat "$tmp/err")"
expect_in "$tmp/err" "peer 1 .*bad MAC" "the injected frame"
assert_no_leftovers "an injected frame"
