#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The out-of-tree example plm `batch`, as a third party would use it:
#   1. install this build tree into a scratch directory,
#   2. build contrib/example-plm with its own Makefile against that
#      installation, found through pkg-config only, and install it and
#      its stand-in batch command,
#   3. run a job of 32 ranks on 16 simulated nodes with the installed hnp,
#      every daemon started by the stand-in (no stdin: the secret in a
#      file) and told who it is by the component: every rank runs once on
#      its node, under the task its daemon was, and nothing is left behind
#      (no process, no secret file),
#   4. a node whose batch command fails: the job fails naming it, and its
#      unread secret is removed,
#   5. a daemon outside the batch system, and a secret file others could
#      read, are refused with words.
# Exit status: 0 pass, 1 fail, 77 skip.
. "$top_srcdir/tests/integration/lib.sh"

command -v pkg-config >/dev/null 2>&1 || skip "pkg-config is not installed"
command -v "${CC:-cc}" >/dev/null 2>&1 || skip "no C compiler (${CC:-cc})"
. "$top_srcdir/tests/integration/example-lib.sh"

# --- 1. A staged install.
stage_install
for h in hnp_plm.h hnp_rte.h hnp_mca.h hnp_param.h hnp_log.h hnp_errors.h; do
    [ -n "$(staged "$h" -type f)" ] || fail "make install did not install $h"
done
hnp=$(staged hnp -type f -path '*/bin/hnp')
hnpd=$(staged hnpd -type f -path '*/bin/hnpd')
[ -n "$hnp" ] && [ -n "$hnpd" ] || fail "make install did not install hnp and hnpd"

# --- 2. The example, built from the installed headers alone.
build_example example-plm
components=$tmp/components
plain_make 30 "$tmp/example-plm" install COMPONENTDIR="$components" \
    install-batch BINDIR="$tmp/batch-bin" \
    >"$tmp/cinstall.log" 2>&1 || fail_log "$tmp/cinstall.log" "make install of the example failed"
[ -f "$components/mca_plm_batch.so" ] || fail "no mca_plm_batch.so in $components"
batch=$tmp/batch-bin/example-batch-run
[ -x "$batch" ] || fail "make install-batch did not install example-batch-run"

# The installed programs and components, and the example. A daemon loads
# its plm before hnp's parameters reach it, so the component path comes
# from the environment, which the batch command passes on.
compdir=$(dirname "$(staged mca_plm_rsh.so -type f)")
export HNP_MCA_mca_base_component_path="$compdir:$components"
secrets=$tmp/secrets
mkdir -p "$secrets"
batch_opts=(--mca plm batch --mca plm_batch_command "$batch"
            --mca plm_base_secret_dir "$secrets")

"$info" --parsable >"$tmp/list.out" 2>"$tmp/list.err" ||
    fail_log "$tmp/list.err" "hnp-info --parsable failed"
grep -qx 'mca:plm:batch:version:1\.0\.0' "$tmp/list.out" ||
    fail_log "$tmp/list.out" "hnp-info does not list plm batch version 1.0.0"

# run_batch ARGS...: the installed hnp, as run_hnp runs the build tree's.
run_batch() {
    status=0
    timeout -k 5 120 "$hnp" "${batch_opts[@]}" "$@" >"$tmp/out" 2>"$tmp/err" ||
        status=$?
}

# No secret file, and no directory for them, once hnp has gone.
expect_no_secrets() {
    [ -z "$(ls -A "$secrets")" ] || fail "$1: secrets left behind: $(ls -AR "$secrets")"
}

# --- 3. 32 ranks on 16 nodes. Each prints its rank, its node, the batch
# task its daemon was, and its daemon's command line.
app='echo "$HNP_RANK $HNP_NODE $EXAMPLE_BATCH_RANK $(tr "\0" " " </proc/$PPID/cmdline)"'
run_batch -N 2 --host "$(hosts 16)" sh -c "$app"
expect_status 0 "a 16-node job through plm batch"
[ "$(wc -l <"$tmp/out")" = 32 ] || fail "32 lines expected: $(cat "$tmp/out")"
for r in $(seq 0 31); do
    n=$((r / 2 + 1))
    expect_in "$tmp/out" "^$r ${prefix}n$n $((n - 1)) " "rank $r on node $n, task $((n - 1))"
done
# Told who they are by the plm; the secret in a file, never on the line.
grep -v -- "--plm batch --secret-file $secrets/" "$tmp/out" &&
    fail "a daemon was not started with --plm batch and a secret file"
grep -e "--vpid" -e "--node" "$tmp/out" && fail "a daemon was told its vpid or node"
for f in $(sed 's/.*--secret-file \([^ ]*\).*/\1/' "$tmp/out" | sort -u); do
    [ ! -e "$f" ] || fail "the daemons left their secret file $f"
done
assert_no_leftovers "a 16-node job through plm batch"
expect_no_secrets "a 16-node job through plm batch"

# --- 4. Node 5's batch command fails: its secret goes, the job says why.
cat >"$tmp/batch-down" <<SCRIPT
#!/bin/sh
case \$1 in ${prefix}n5) echo "batch: node \$1 is down" >&2; exit 3 ;; esac
exec "$batch" "\$@"
SCRIPT
chmod +x "$tmp/batch-down"
batch_opts[5]=$tmp/batch-down
run_batch -N 1 --host "$(hosts 8)" true
expect_status 1 "a node whose batch command fails"
expect_in "$tmp/err" "node ${prefix}n5 (vpid 5) could not be started" "the node is named"
expect_in "$tmp/err" "batch: node ${prefix}n5 is down" "the batch system's words are shown"
assert_no_leftovers "a node whose batch command fails"
expect_no_secrets "a node whose batch command fails"

# --- 5. The daemon refuses what is not its launcher's.
status=0
timeout 30 "$hnpd" --plm batch --parent 0 --parent-uri tcp://127.0.0.1:1 \
    </dev/null >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 1 "hnpd --plm batch outside the batch system"
expect_in "$tmp/err" "plm batch cannot tell this daemon who it is: not a task of the batch system" \
    "hnpd outside the batch system"
echo 00112233445566778899aabbccddeeff >"$tmp/open-secret"
chmod 644 "$tmp/open-secret"
status=0
timeout 30 "$hnpd" --vpid 1 --node "${prefix}n1" --parent 0 --parent-uri tcp://127.0.0.1:1 \
    --secret-file "$tmp/open-secret" </dev/null >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 1 "hnpd with a secret file others can read"
expect_in "$tmp/err" "secret file $tmp/open-secret is not a file of this user's that only this user can read" \
    "a readable secret file"
[ ! -e "$tmp/open-secret" ] || fail "hnpd left a secret file it refused"
assert_no_leftovers "hnpd refusing to start"
echo "PASS"
