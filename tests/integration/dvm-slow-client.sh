#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A client of a DVM that is slow to prove the secret (starved between the
# DVM's answer and its proof, as on a loaded node) is still served: the
# DVM gives a client of its own user a minute at least, whatever
# oob_tcp_handshake_timeout says (2 s here, which the DVM once applied,
# and dropped such a client: "the DVM closed the connection during the
# handshake"). The delay is an LD_PRELOAD of the client's second sendmsg
# (tests/integration/slow-send.c).
. "$top_srcdir/tests/integration/lib.sh"

address_sanitized && skip "an LD_PRELOAD shim cannot go before the sanitizers' runtime"
"${CC:-cc}" -shared -fPIC -o "$tmp/slow-send.so" \
    "$top_srcdir/tests/integration/slow-send.c" -ldl || fail "cannot build slow-send.c"

uri="$tmp/dvm.uri"
timeout -k 5 120 "$HNP" --dvm --report-uri "$uri" --daemonize \
    --mca oob_tcp_handshake_timeout 2 --host "$(hosts 1)" >"$tmp/dvm.log" 2>&1 ||
    { cat "$tmp/dvm.log"; fail "hnp --dvm did not start"; }
LD_PRELOAD="$tmp/slow-send.so" SLOW_SENDMSG_AT=2 SLOW_SENDMSG_SECONDS=6 \
    run_hnp --dvm-uri "$uri" -n 1 echo served
expect_status 0 "a client 6 s late with its proof"
expect_in "$tmp/out" "^served$" "the late client's job"
run_hnp --dvm-uri "$uri" --dvm-stop
expect_status 0 "--dvm-stop"
assert_no_leftovers "a slow client of a DVM"
echo "PASS"
