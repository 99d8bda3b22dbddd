#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Several app contexts (`hnp -n 1 a : -n 1 b`), as Open MPI's mpirun runs
# them: -x and --wdir belong to the context they are given in, and no
# other; so do --host and --hostfile: each context is placed on its own
# hosts, one without any over all of the job's. A relative --wdir is hnp's working
# directory's, also where a daemon starts elsewhere, as over ssh.
. "$top_srcdir/tests/integration/lib.sh"

mkdir -p "$tmp/work/sub"
work=$(cd "$tmp/work" && pwd -P)
here=$(pwd -P)
# shellcheck disable=SC2016 # expanded by each rank's shell
show='echo "$0 $(pwd -P) Q=${Q-unset} R=${R-unset}"'

# lines_are WHAT EXPECTED...: the job succeeded and printed exactly these
# lines, in any order.
lines_are() {
    local what=$1
    shift
    expect_status 0 "$what"
    [ "$(sort "$tmp/out")" = "$(printf '%s\n' "$@" | sort)" ] ||
        fail "$what: got '$(sort "$tmp/out" | paste -sd'|')', want '$(printf '%s|' "$@")'"
}

# -x and --wdir after the ':' are the second context's only.
run_hnp --oversubscribe -n 1 sh -c "$show" A : -n 1 -x Q=1 --wdir "$work" sh -c "$show" B
lines_are "-x and --wdir in the second context" "A $here Q=unset R=unset" "B $work Q=1 R=unset"

# ... and those before the first program are the first context's only.
run_hnp --oversubscribe -x R=2 --wdir "$work" -n 1 sh -c "$show" A : -n 1 sh -c "$show" B
lines_are "-x and --wdir in the first context" "A $work Q=unset R=2" "B $here Q=unset R=unset"

# Each context its own: three contexts, three places.
run_hnp --oversubscribe -n 1 -x Q=a sh -c "$show" A : -n 1 --wdir "$work/sub" sh -c "$show" B \
    : -n 1 -x R=c sh -c "$show" C
lines_are "three contexts" "A $here Q=a R=unset" "B $work/sub Q=unset R=unset" "C $here Q=unset R=c"

# --host and --hostfile are the context's own: each context on its hosts,
# as under mpirun; the same in two contexts shares its slots.
run_hnp -n 1 --host "${prefix}n1:2" true : -n 1 --host "${prefix}n1:2" true
expect_status 0 "the same --host in two contexts"
# shellcheck disable=SC2016 # expanded by each rank's shell
where='echo "$HNP_RANK $HNP_NODE $0"'
run_hnp -n 1 -H "${prefix}n1" sh -c "$where" a : -n 2 -H "${prefix}n2:2" sh -c "$where" b
lines_are "-H per context" "0 ${prefix}n1 a" "1 ${prefix}n2 b" "2 ${prefix}n2 b"
printf '%s slots=2\n%s\n' "${prefix}n3" "${prefix}n4" >"$tmp/hf"
run_hnp -n 2 -H "${prefix}n1,${prefix}n2" sh -c "$where" a : -n 3 --hostfile "$tmp/hf" sh -c "$where" b
lines_are "--hostfile in the second context" "0 ${prefix}n1 a" "1 ${prefix}n2 a" \
    "2 ${prefix}n3 b" "3 ${prefix}n3 b" "4 ${prefix}n4 b"
# A context that names no hosts goes over all the job's, in the slots the
# others left; the map shows each rank's context.
run_hnp --display-map -n 1 -H "${prefix}n1:2" true : -n 2 -H "${prefix}n2:2" true : -n 1 true
expect_status 0 "a context without hosts"
expect_in "$tmp/out" "App: 0 Process rank: 0 " "the map names context 0"
expect_in "$tmp/out" "App: 1 Process rank: 2 " "the map names context 1"
expect_in "$tmp/out" "App: 2 Process rank: 3 " "the map names context 2"
[ "$(grep -c "Data for node: ${prefix}n1.*Num procs: 2" "$tmp/out")" = 1 ] ||
    { cat "$tmp/out"; fail "the context without hosts is not in the free slot of ${prefix}n1"; }
run_hnp -n 1 -H "${prefix}n1" true : -n 3 -H "${prefix}n2:2" true
expect_status 1 "a context with too few slots"
expect_in "$tmp/err" "app context 2 (true): 3 processes requested but the 1 node has 2 slots" \
    "the context short of slots is named"
assert_no_leftovers "app contexts"

# A relative --wdir, with daemons that start in the home directory as
# they do over ssh: it is hnp's working directory's.
cat >"$tmp/ssh-like" <<EOF
#!/bin/sh
cd "\$HOME" || exit 1
exec "$AGENT" "\$@"
EOF
chmod +x "$tmp/ssh-like"
status=0
(cd "$tmp/work" && timeout -k 5 120 "$HNP" --mca plm_rsh_agent "$tmp/ssh-like" \
    --host "$(hosts 2)" -N 1 --wdir sub sh -c "$show" R \
    >"$tmp/out" 2>"$tmp/err") || status=$?
lines_are "a relative --wdir, daemons started in HOME" "R $work/sub Q=unset R=unset" \
    "R $work/sub Q=unset R=unset"
assert_no_leftovers "a relative --wdir"
echo "PASS"
