#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# plm_prsh_model=auto: two greedy launches through the local agent costing
# SEQ = 0.05 s and REM = 0.2 s leave an estimate for the agent in
# ~/.hnp/launch-model (HOME is private to the test), hnp-info shows it,
# and the second launch, built on the estimate, still runs every rank.
. "$top_srcdir/tests/integration/lib.sh"

export HNP_AGENT_SEQ=0.05 HNP_AGENT_REM=0.2
model="$HOME/.hnp/launch-model"
nodes=16

calibrated_run() {
    run_hnp --host "$(hosts $nodes)" -np $nodes --mca plm prsh \
        --mca plm_prsh_tree greedy --mca plm_prsh_model auto \
        sh -c 'echo "rank $HNP_RANK $0"' "$prefix"
    expect_status 0 "calibrated run $1"
    [ "$(grep -c '^rank ' "$tmp/out")" = $nodes ] ||
        { cat "$tmp/out" "$tmp/err"; fail "run $1: not every rank ran"; }
    [ -f "$model" ] || { cat "$tmp/err"; fail "run $1 left no $model"; }
}

# within [lo, hi]
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

calibrated_run 1
calibrated_run 2
cat "$model"
line=$(grep -v '^#' "$model" | grep -F "$AGENT") || fail "no line for $AGENT"
seq=$(printf '%s\n' "$line" | cut -f2)
rem=$(printf '%s\n' "$line" | cut -f3)
runs=$(printf '%s\n' "$line" | cut -f4)
[ "$runs" = 2 ] || fail "expected 2 runs folded in, got '$runs'"
# The agent's delays are sleeps, which a starved machine stretches (REM
# came out at 2.5 s and SEQ at 0.019 s under a load of 150): the bounds
# say the estimate is of the right order, not that the machine was idle.
in_range "$seq" 0.005 0.5 || fail "SEQ estimate $seq is not near 0.05"
in_range "$rem" 0.1 5 || fail "REM estimate $rem is not near 0.2"

timeout 60 "$top_builddir/bin/hnp-info" >"$tmp/info" 2>&1 || fail "hnp-info failed"
expect_in "$tmp/info" "launch model (~/.hnp/launch-model)" "hnp-info"
expect_in "$tmp/info" "agent $AGENT" "hnp-info"
timeout 60 "$top_builddir/bin/hnp-info" --parsable >"$tmp/info" 2>&1 ||
    fail "hnp-info --parsable failed"
expect_in "$tmp/info" "^launch-model:$AGENT:seq:$seq" "hnp-info --parsable"
expect_in "$tmp/info" "^launch-model:$AGENT:rem:$rem" "hnp-info --parsable"

# --plan with plm_prsh_model=auto plans for the estimate, as a launch would.
timeout 60 "$top_builddir/bin/hnp" --plan --host "$(hosts $nodes)" --mca plm prsh \
    --mca plm_prsh_tree greedy --mca plm_prsh_model auto >"$tmp/plan" 2>&1 ||
    { cat "$tmp/plan"; fail "--plan with the estimate failed"; }
expect_in "$tmp/plan" "model SEQ $(printf '%g' "$seq") s, REM $(printf '%g' "$rem") s" \
    "--plan uses the estimate"
# ... whatever the tree the launch would build: --plan ranks them all.
timeout 60 "$top_builddir/bin/hnp" --plan --host "$(hosts $nodes)" --mca plm prsh \
    --mca plm_prsh_model auto >"$tmp/plan" 2>&1 ||
    { cat "$tmp/plan"; fail "--plan with the estimate and the default tree failed"; }
expect_in "$tmp/plan" "model SEQ $(printf '%g' "$seq") s, REM $(printf '%g' "$rem") s" \
    "--plan with the default tree uses the estimate"
# A damaged file is ignored with a warning, and the next run rewrites it.
echo "not a model" >"$model"
calibrated_run 3
expect_in "$tmp/err" "launch model ignored" "a warning about the damaged file"
grep -q "^$AGENT	" "$model" || fail "the damaged file was not rewritten"
assert_no_leftovers "calibration"
echo "ok: seq $seq rem $rem"
