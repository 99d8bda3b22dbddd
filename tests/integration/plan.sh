#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# hnp --plan: the launch model's ranking of spawn trees for 1000 processes
# agrees with Table II of paper 001, csv and dot are well formed, nothing
# is launched; and prsh launches along the greedy tree it plans.
. "$top_srcdir/tests/integration/lib.sh"

# An agent that only records that it ran: --plan must never call it.
cat >"$tmp/agent" <<AGENT
#!/bin/sh
echo "\$@" >>"$tmp/agent-called"
exit 1
AGENT
chmod +x "$tmp/agent"

paper=(--mca plm prsh --mca plm_prsh_seq 0.007 --mca plm_prsh_rem 0.172)

# Table II, first scenario (1000 processes, SEQ 0.007 s, REM 0.172 s; the
# table's header says 0.03, but the text, and the flat tree's 7.178 s =
# REM + ~1000 SEQ, say 0.007).
table2='greedy 0.609
16-ary 0.753
32-ary 0.784
8-ary 0.841
64-ary 0.896
4-ary 0.971
128-ary 1.288
2-ary 1.624
256-ary 2.156
512-ary 3.769
flat 7.178'

# Tolerance. Every time in the table is the model's plus 0.020 s (from the
# greedy tree to the flat tree alike: a constant the paper adds, about
# three SEQ), which cancels in the gaps between rows. So the ranking must
# be the table's exactly, each gap to the greedy tree must match to 0.003 s
# (the table rounds to 1 ms, twice per gap, and its times are truncated,
# not rounded), and each time must lie within 0.025 s of the table's.
run_hnp --plan=csv "${paper[@]}" --mca plm_rsh_agent "$tmp/agent" \
    --host "$(hosts 999)"
expect_status 0 "--plan=csv"
head -1 "$tmp/out" | grep -qx 'rank,topology,launch_time_s,gap_s,chosen' ||
    fail "--plan=csv header: $(head -1 "$tmp/out")"
awk -F, 'NR > 1 && NF != 5 { bad = 1 } END { exit bad }' "$tmp/out" ||
    fail "--plan=csv: a row without 5 fields: $(cat "$tmp/out")"
grep -v '^rank\|^[0-9]*,routed' "$tmp/out" | cut -d, -f2,3 | tr , ' ' \
    >"$tmp/ours"
paste -d' ' "$tmp/ours" <(echo "$table2") | awk '
    NR == 1 { g = $2; pg = $4 }
    $1 != $3 { printf "rank %d: ours %s, paper %s\n", NR, $1, $3; bad = 1 }
    { d = ($2 - g) - ($4 - pg); if (d < 0) d = -d
      if (d > 0.003) { printf "%s gap %.3f vs paper %.3f\n", $1, $2 - g,
                       $4 - pg; bad = 1 }
      a = $4 - $2; if (a < 0) a = -a
      if (a > 0.025) { printf "%s %.3f vs paper %.3f\n", $1, $2, $4; bad = 1 } }
    END { if (NR != 11) { print NR " rows"; bad = 1 }; exit bad }' ||
    fail "--plan ranking differs from Table II: $(cat "$tmp/out")"

# A flat launcher builds no tree from the model, but is planned with it
# all the same: the same ranking, the flat tree chosen.
cp "$tmp/out" "$tmp/prsh.csv"
run_hnp --plan=csv --mca plm rsh --mca plm_prsh_seq 0.007 --mca plm_prsh_rem 0.172 \
    --mca plm_rsh_agent "$tmp/agent" --host "$(hosts 999)"
expect_status 0 "--plan=csv with plm rsh"
diff <(cut -d, -f1-4 "$tmp/prsh.csv") <(cut -d, -f1-4 "$tmp/out") >/dev/null ||
    fail "--plan with rsh ranks otherwise than with prsh: $(cat "$tmp/out")"
[ "$(grep -c ',1$' "$tmp/out")" = 1 ] && grep -q '^[0-9]*,flat,.*,1$' "$tmp/out" ||
    fail "--plan with rsh must choose the flat tree alone: $(cat "$tmp/out")"

# The text form names the chosen tree, its shape and the connections.
run_hnp --plan "${paper[@]}" --mca plm_prsh_tree greedy \
    --mca plm_rsh_agent "$tmp/agent" --host "$(hosts 999)"
expect_status 0 "--plan"
expect_in "$tmp/out" '^spawn tree: greedy$' "--plan text"
expect_in "$tmp/out" '^  busiest parent: vpid 0' "--plan text"
expect_in "$tmp/out" '^connections held.*the HNP [0-9]*, the busiest daemon' \
    "--plan text"
expect_in "$tmp/out" '^ *1  greedy .*<- chosen$' "--plan text"

# dot: Graphviz accepts it, or at least it has the shape of a digraph with
# one edge per daemon.
run_hnp --plan=dot "${paper[@]}" --mca plm_prsh_tree greedy \
    --mca plm_rsh_agent "$tmp/agent" --host "$(hosts 999)"
expect_status 0 "--plan=dot"
cp "$tmp/out" "$tmp/plan.dot"
if command -v dot >/dev/null; then
    dot -Tsvg "$tmp/plan.dot" >/dev/null || fail "dot rejects --plan=dot"
fi
head -1 "$tmp/plan.dot" | grep -qx 'digraph spawn_tree {' &&
    tail -1 "$tmp/plan.dot" | grep -qx '}' &&
    [ "$(grep -c -- '-> v' "$tmp/plan.dot")" = 999 ] ||
    fail "--plan=dot is not a digraph of 999 edges"

run_hnp --plan=svg --host "$(hosts 3)"
expect_status 1 "--plan=svg"
[ ! -e "$tmp/agent-called" ] || fail "--plan started an agent"
assert_no_leftovers "--plan"

# A launch on the greedy tree: every rank runs once on its node, and each
# daemon was started by the parent the plan shows.
app='p=$(tr "\0" "\n" </proc/$PPID/cmdline | sed -n "/^--parent\$/{n;p;}")
echo "$HNP_RANK $HNP_NODE $p"'
greedy=(--mca plm prsh --mca plm_prsh_tree greedy --mca plm_prsh_seq 0.01
        --mca plm_prsh_rem 0.05)
run_hnp --plan=dot "${greedy[@]}" --host "$(hosts 37)"
expect_status 0 "--plan=dot, 37 nodes"
cp "$tmp/out" "$tmp/plan37.dot"
run_hnp "${greedy[@]}" -N 1 --host "$(hosts 37)" sh -c "$app" "$prefix"
expect_status 0 "prsh greedy on 37 nodes"
[ "$(wc -l <"$tmp/out")" = 37 ] || fail "greedy: 37 lines expected: $(cat "$tmp/out")"
for r in $(seq 0 36); do
    v=$((r + 1))
    parent=$(sed -n "s/^  v\([0-9]*\) -> v$v .*/\1/p" "$tmp/plan37.dot")
    expect_in "$tmp/out" "^$r ${prefix}n$v $parent\$" "greedy: rank $r"
done
assert_no_leftovers "prsh greedy"
echo "PASS"
