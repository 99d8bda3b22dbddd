#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A parameter value a component refuses (routed_radix_degree 0, a
# negative exchange_flood_batch_delay) ends hnp before anything starts,
# with the parameter named: never an error message followed by a job run
# with another component, and an exit status of 0.
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

# A value for a component left out of the selection does not matter.
run_hnp --mca routed_radix_degree 0 --mca routed binomial -N 1 --host "$(hosts 2)" echo ran
expect_status 0 "routed_radix_degree 0 with routed binomial"
[ "$(grep -c ran "$tmp/out")" = 2 ] || fail "binomial: two ranks expected: $(cat "$tmp/out")"
assert_no_leftovers "an unused component's value"
echo "PASS"
