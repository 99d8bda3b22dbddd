#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The applications' key-value fence at scale: 1024 processes on 64 nodes,
# ~1 KB each, over both exchange components.
. "$top_srcdir/tests/integration/lib.sh"

for exchange in gather_scatter flood; do
    run_hnp --mca exchange "$exchange" -N 16 --host "$(hosts 64)" \
        "$top_builddir/tests/pmi/pmi_fence" "$prefix"
    expect_status 0 "1024 processes, exchange $exchange"
    [ "$(grep -c 'values of 2 others ok' "$tmp/out")" = 1024 ] ||
        fail "exchange $exchange: $(grep -vc 'others ok' "$tmp/out") ranks got wrong values"
done
assert_no_leftovers "PMI fences"
echo "PASS"
