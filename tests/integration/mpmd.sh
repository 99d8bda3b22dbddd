#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Several app contexts (`hnp -n 1 a : -n 1 b`), as Open MPI's mpirun runs
# them: -x and --wdir belong to the context they are given in, and no
# other; --host is the job's, and another one in a later context is
# refused rather than taken for all. A relative --wdir is hnp's working
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

# --host is the job's: the same in two contexts is fine, another is refused.
run_hnp -n 1 --host "${prefix}n1:2" true : -n 1 --host "${prefix}n1:2" true
expect_status 0 "the same --host in two contexts"
run_hnp -n 1 --host "${prefix}n1" true : -n 1 --host "${prefix}n2" true
expect_status 1 "another --host in the second context"
expect_in "$tmp/err" "--host ${prefix}n2 in app context 2" "the context's --host is named"
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
