#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A parameter value a component refuses (routed_radix_degree 0, a
# negative exchange_flood_batch_delay or plm_prsh_seq) ends hnp before
# anything starts, with the parameter named: never an error message
# followed by a job run with another component, and an exit status of 0.
# So does a negative number of seconds for the core (a timeout, a grace
# period, a heartbeat), from the command line or the environment.
. "$top_srcdir/tests/integration/lib.sh"

# refused WHAT PARAMETER VALUE [MCA...]: hnp exits 1 before launch, names
# the parameter and the value, and no rank ran.
refused() {
    local what=$1 param=$2 value=$3
    shift 3
    run_hnp --mca "$param" "$value" "$@" -N 1 --host "$(hosts 2)" echo ran
    expect_status 1 "$what"
    expect_in "$tmp/err" "$param = $value" "$what: the parameter and value are named"
    ! grep -q ran "$tmp/out" || fail "$what: ranks ran: $(cat "$tmp/out")"
    assert_no_leftovers "$what"
}

refused "routed_radix_degree 0" routed_radix_degree 0
refused "routed_radix_degree 1 with routed radix" routed_radix_degree 1 --mca routed radix
refused "a negative flood delay" exchange_flood_batch_delay -1 --mca exchange flood
refused "a negative prsh seq" plm_prsh_seq -1 --mca plm prsh
refused "a negative prsh rem" plm_prsh_rem -0.5 --mca plm prsh

for param in plm_base_launch_timeout plm_base_launch_warn \
        oob_tcp_handshake_timeout rte_kill_grace rte_heartbeat_interval; do
    run_hnp --mca "$param" -1 -N 1 --host "$(hosts 2)" echo ran
    expect_status 1 "$param -1"
    expect_in "$tmp/err" "parameter $param: value \"-1\" (from command line)" \
        "$param -1: the parameter, the value and its source are named"
    expect_in "$tmp/err" "expected a number of seconds, 0 or more" \
        "$param -1: what is expected is said"
    ! grep -q ran "$tmp/out" || fail "$param -1: ranks ran: $(cat "$tmp/out")"
done
HNP_MCA_rte_kill_grace=-2.5 run_hnp -N 1 --host "$(hosts 2)" echo ran
expect_status 1 "rte_kill_grace -2.5 from the environment"
expect_in "$tmp/err" "value \"-2.5\" (from environment HNP_MCA_rte_kill_grace)" \
    "the environment variable is named"
assert_no_leftovers "negative seconds"

# A value for a component left out of the selection does not matter.
run_hnp --mca routed_radix_degree 0 --mca routed binomial -N 1 --host "$(hosts 2)" echo ran
expect_status 0 "routed_radix_degree 0 with routed binomial"
[ "$(grep -c ran "$tmp/out")" = 2 ] || fail "binomial: two ranks expected: $(cat "$tmp/out")"
assert_no_leftovers "an unused component's value"
run_hnp --mca plm_prsh_seq -1 --mca plm rsh -N 1 --host "$(hosts 2)" echo ran
expect_status 0 "plm_prsh_seq -1 with plm rsh"
[ "$(grep -c ran "$tmp/out")" = 2 ] || fail "rsh: two ranks expected: $(cat "$tmp/out")"
assert_no_leftovers "an unused launcher's value"
echo "PASS"
