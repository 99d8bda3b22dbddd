#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The out-of-tree example component, as a third party would use it:
#   1. install this build tree into a scratch directory,
#   2. build contrib/example-component with its own Makefile against that
#      installation, found through pkg-config only,
#   3. install the .so into a scratch component directory,
#   4. check that the installed hnp-info lists `routed chain` with its
#      version and path, and shows its parameter.
# Exit status: 0 pass, 1 fail, 77 skip.
set -eu

: "${top_srcdir:?top_srcdir must be set by the test harness}"
: "${top_builddir:?top_builddir must be set by the test harness}"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v pkg-config >/dev/null 2>&1 || skip "pkg-config is not installed"
command -v "${CC:-cc}" >/dev/null 2>&1 || skip "no C compiler (${CC:-cc})"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) is not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-example.XXXXXX")
# Copies of a read-only source tree (make distcheck) are read-only too.
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

. "$top_srcdir/tests/integration/example-lib.sh"

# --- 1. A staged install.
stage_install
for h in hnp_mca.h hnp_routed.h hnp_param.h hnp_log.h hnp_tree.h hnp_errors.h; do
    [ -n "$(staged "$h" -type f)" ] || fail "make install did not install $h"
done

# --- 2. Build the example in a copy, as someone who only has the
# installation would.
build_example example-component

# --- 3. Its own install target, into a directory of our choosing.
components=$tmp/components
plain_make 30 "$tmp/example-component" install COMPONENTDIR="$components" \
    >"$tmp/cinstall.log" 2>&1 || fail_log "$tmp/cinstall.log" "make install of the example failed"
so=$components/mca_routed_chain.so
[ -f "$so" ] || fail "make install did not put mca_routed_chain.so in $components"

# --- 4. The installed hnp-info.
run_info() {
    timeout 30 "$info" --mca mca_base_component_path "$components" "$@"
}

run_info --parsable >"$tmp/list.out" 2>"$tmp/list.err" ||
    fail_log "$tmp/list.err" "hnp-info --parsable failed"
grep -qx 'mca:routed:chain:version:1\.0\.0' "$tmp/list.out" ||
    fail_log "$tmp/list.out" "hnp-info does not list routed chain version 1.0.0"
# The path as hnp-info prints it may be spelled differently (a resolved
# symbolic link in TMPDIR), so compare files, not strings.
physical() { (cd "$(dirname "$1")" 2>/dev/null && echo "$(pwd -P)/${1##*/}"); }
path=$(sed -n 's/^mca:routed:chain:path://p' "$tmp/list.out" | head -n 1)
if [ -z "$path" ] || [ "$(physical "$path")" != "$(physical "$so")" ]; then
    fail_log "$tmp/list.out" "hnp-info does not say chain came from $so"
fi
if grep -q '^mca:routed:chain:failed:' "$tmp/list.out"; then
    fail_log "$tmp/list.out" "hnp-info reports that chain failed to load"
fi

run_info --parsable --param routed chain >"$tmp/param.out" 2>"$tmp/param.err" ||
    fail_log "$tmp/param.err" "hnp-info --param routed chain failed"
grep -qx 'mca:routed:chain:param:routed_chain_priority:value:1' "$tmp/param.out" ||
    fail_log "$tmp/param.out" "hnp-info does not show routed_chain_priority = 1"

# A value set on the command line reaches the component's parameter.
run_info --parsable --param routed chain --mca routed_chain_priority 90 \
    >"$tmp/param90.out" 2>"$tmp/param90.err" ||
    fail_log "$tmp/param90.err" "hnp-info --mca routed_chain_priority 90 failed"
grep -qx 'mca:routed:chain:param:routed_chain_priority:value:90' "$tmp/param90.out" ||
    fail_log "$tmp/param90.out" "routed_chain_priority 90 from --mca is not shown"

# --- 5. Jobs routed by chain, with the build tree's hnp: the component
# comes from ~/.hnp/components, which each daemon reads in its own HOME.
# With it on every node the job runs; with one node lacking it, the job
# fails and the HNP says which node and why, not only that its daemon went.
mark="t$$x"
home=$tmp/home
mkdir -p "$home/.hnp/components" "$tmp/bare-home"
cp "$so" "$home/.hnp/components/"
# Without chain, n3 also holds hnp still for a second, as a loaded machine
# may: n3's reason and its parent's notice that n3 went then reach hnp
# together, and hnp must still give the reason. (Only hnp: timeout, left
# running, still ends it.)
cat >"$tmp/agent" <<AGENT
#!/bin/sh
if [ "\$1" = "${mark}n3" ] && [ -e "$tmp/n3-bare" ]; then
    export HOME="$tmp/bare-home"
    hnp=\$(pgrep -f -- "^[^ ]*/bin/hnp .*${mark}n\[" | paste -sd' ' -)
    if [ -n "\$hnp" ] && kill -STOP \$hnp; then
        (sleep 1; kill -CONT \$hnp) >/dev/null 2>&1 </dev/null &
    fi
fi
exec "$top_builddir/contrib/local-agent/hnp-local-agent" "\$@"
AGENT
chmod +x "$tmp/agent"
cpath=$(printf '%s:' "$top_builddir"/components/*/*/.libs)
leftovers() { pgrep -f -- "$mark" || true; }
trap 'for p in $(leftovers); do kill -KILL "$p" 2>/dev/null || true; done
      chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
run_chain() {
    status=0
    HOME=$home timeout -k 5 60 "$top_builddir/bin/hnp" \
        --mca mca_base_component_path "$cpath~/.hnp/components" \
        --mca plm_rsh_agent "$tmp/agent" --mca oob_tcp_if_include 127.0.0.1/8 \
        --mca plm prsh --mca plm_prsh_spawning_degree 2 --mca routed chain \
        --host "${mark}n[1-5]" -N 1 echo up >"$tmp/job.out" 2>"$tmp/job.err" ||
        status=$?
    for _ in $(seq 50); do
        [ -z "$(leftovers)" ] && return 0
        sleep 0.1
    done
    fail "processes left behind: $(leftovers | tr '\n' ' ')"
}
run_chain
[ "$status" = 0 ] || fail_log "$tmp/job.err" "a job routed by chain failed"
[ "$(grep -c '^up$' "$tmp/job.out")" = 5 ] ||
    fail_log "$tmp/job.out" "a job routed by chain did not run 5 ranks"
touch "$tmp/n3-bare"
run_chain
# 1, hnp's own failure; not timeout's 124 or 137 after a hang.
[ "$status" = 1 ] || fail_log "$tmp/job.err" "a node without chain must fail the job with status 1, not $status"
grep -q "node ${mark}n3 (vpid 3) could not join the job: .*routed component 'chain'" \
    "$tmp/job.err" || fail_log "$tmp/job.err" "the HNP does not say that n3 lacks chain"

echo "PASS: routed chain built out of tree, listed from $so, runs a job"
exit 0
