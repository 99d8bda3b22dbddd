#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The out-of-tree example observer `pmi trace`, as a site would use it:
#   1. install this build tree into a scratch directory: the three examples
#      (routed, plm, pmi) are installed under the documentation directory;
#   2. build each installed example with its own Makefile against that
#      installation, found through pkg-config only;
#   3. run a job of 16 ranks on 8 simulated nodes with the observer on the
#      component path: it serves no interface, yet every daemon loads it
#      and calls each of its hooks (init, job_start, child_setup,
#      child_started, child_exited, job_end, finalize), and its job_start
#      sees hnp's one numbering of nodes (node n is daemon n's, from 1,
#      and named as hnp names it); each rank gets the variable its
#      child_setup sets.
# Exit status: 0 pass, 1 fail, 77 skip.
. "$top_srcdir/tests/integration/lib.sh"

command -v pkg-config >/dev/null 2>&1 || skip "pkg-config is not installed"
command -v "${CC:-cc}" >/dev/null 2>&1 || skip "no C compiler (${CC:-cc})"
[ "${HNP_DLOPEN:-yes}" = yes ] || skip "hnp built with --disable-dlopen loads no component of a third party"
. "$top_srcdir/tests/integration/example-lib.sh"

# --- 1. A staged install, with the examples under the documentation
# directory.
stage_install
for ex in example-component example-plm example-pmi; do
    dir=$(find "$dest" -type d -path "*/doc/*/examples/$ex" | head -n 1)
    [ -n "$dir" ] && [ -f "$dir/Makefile" ] && [ -f "$dir/README.md" ] ||
        fail "make install did not install the example $ex under the documentation directory"
    # --- 2. Each builds from the installed copy and headers alone.
    build_example "$ex" "$dir"
done

components=$tmp/components
plain_make 30 "$tmp/example-pmi" install COMPONENTDIR="$components" \
    >"$tmp/cinstall.log" 2>&1 || fail_log "$tmp/cinstall.log" "make install of the example observer failed"
[ -f "$components/mca_pmi_trace.so" ] || fail "no mca_pmi_trace.so in $components"
export HNP_MCA_mca_base_component_path="$HNP_MCA_mca_base_component_path:$components"

# --- 3. 16 ranks on 8 nodes, each rank printing its rank, its node's name
# and what the observer gave it.
trace=$tmp/trace
mkdir -p "$trace"
run_hnp --mca pmi_trace_dir "$trace" -N 2 --host "$(hosts 8)" --oversubscribe \
    sh -c 'echo "$HNP_RANK $HNP_NODE $PMI_TRACE_NODE"'
expect_status 0 "a job with the observer"
[ "$(wc -l <"$tmp/out")" = 16 ] || fail "16 lines expected: $(cat "$tmp/out")"
assert_no_leftovers "a job with the observer"

for n in $(seq 1 8); do
    log=$trace/${prefix}n$n.log
    [ -f "$log" ] || { ls -l "$trace"; cat "$tmp/err"; fail "the observer was not loaded on node $n (no $log)"; }
    # The daemon is gone (no leftovers): its finalize has been logged.
    for hook in init job_start child_setup child_started child_exited job_end finalize; do
        expect_in "$log" "^$hook " "node $n calls the observer's $hook"
    done
    [ "$(grep -c '^child_setup ' "$log")" = 2 ] || fail "node $n: 2 child_setup expected: $(cat "$log")"
    [ "$(grep -c '^child_exited ' "$log")" = 2 ] || fail "node $n: 2 child_exited expected: $(cat "$log")"
    # One numbering: node n is run by daemon n.
    expect_in "$log" "^job_start job=1 vpid=$n node=$n of 8 ranks=16 local=2$" "node $n's job_start"
    expect_in "$tmp/out" "^[0-9]* ${prefix}n$n $n$" "the ranks of node $n get PMI_TRACE_NODE=$n"
    [ "$(sed -n 1p "$log" | cut -d' ' -f1)" = init ] || fail "node $n: init is not the first hook: $(cat "$log")"
    [ "$(sed -n '$p' "$log" | cut -d' ' -f1)" = finalize ] || fail "node $n: finalize is not the last hook: $(cat "$log")"
done
echo "PASS: the installed examples build out of tree; the observer saw every hook on 8 nodes"
