#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What a user of mpirun expects of a job: several programs in one job,
# environment and working directory, tagged and saved output, a time limit.
. "$top_srcdir/tests/integration/lib.sh"

# MPMD: two app contexts, consecutive ranks, each its own program.
run_hnp --host "${prefix}n1:2,${prefix}n2:4" -n 2 sh -c 'echo "A $HNP_RANK"' "$prefix" \
    : -n 4 sh -c 'echo "B $HNP_RANK $HNP_SIZE"' "$prefix"
expect_status 0 "MPMD"
[ "$(sort "$tmp/out" | paste -sd' ')" = "A 0 A 1 B 2 6 B 3 6 B 4 6 B 5 6" ] ||
    fail "MPMD ranks: $(sort "$tmp/out" | paste -sd' ')"
# Each program's ranks get its number from PMI (MPI_APPNUM): a PMI-1
# init and get_appnum over PMI_FD, in bash.
appnum='printf "cmd=init pmi_version=1 pmi_subversion=1\n" >&$PMI_FD
read -r -u $PMI_FD reply
printf "cmd=get_appnum\n" >&$PMI_FD
read -r -u $PMI_FD reply
printf "cmd=finalize\n" >&$PMI_FD
read -r -u $PMI_FD done
echo "$HNP_RANK ${reply#cmd=appnum }"'
run_hnp --host "${prefix}n1:2,${prefix}n2:2" -n 1 bash -c "$appnum" "$prefix" \
    : -n 2 bash -c "$appnum" "$prefix" : -n 1 bash -c "$appnum" "$prefix"
expect_status 0 "MPMD appnum"
[ "$(sort "$tmp/out" | paste -sd' ')" = "0 appnum=0 1 appnum=1 2 appnum=1 3 appnum=2" ] ||
    fail "MPMD appnums: $(sort "$tmp/out" | paste -sd' ')"
run_hnp --host "$(hosts 2)" -n 1 true : ./prog-without-n
expect_status 1 "MPMD without -n"
expect_in "$tmp/err" "needs -n" "MPMD without -n explains"

# -x forwards hnp's value or sets one; --wdir sets the directory.
mkdir "$tmp/work"
HNP_TEST_VAR=from-hnp run_hnp -x HNP_TEST_VAR -x OTHER=set --wdir "$tmp/work" \
    -N 1 --host "$(hosts 2)" sh -c 'echo "$HNP_TEST_VAR $OTHER $(pwd)"' "$prefix"
expect_status 0 "-x and --wdir"
[ "$(sort -u "$tmp/out")" = "from-hnp set $tmp/work" ] || fail "-x/--wdir: $(cat "$tmp/out")"
# -x of a variable hnp does not have: warned of, and the job runs without
# it, as under mpirun (scripts pass -x LD_LIBRARY_PATH whether or not it is
# set).
unset_var=NOT_SET_ANYWHERE_"$prefix"
run_hnp -x "$unset_var" -N 1 --host "$(hosts 1)" \
    sh -c "echo \"ran \${$unset_var-unset}\"" "$prefix"
expect_status 0 "-x of an unset variable"
expect_in "$tmp/err" "$unset_var is not set in hnp's environment" "-x unset warns"
[ "$(cat "$tmp/out")" = "ran unset" ] || fail "-x unset: $(cat "$tmp/out")"
# A program named without a '/' is looked for in PATH, then in the working
# directory, as mpirun does: PATH first (a "true" of the directory does
# not hide /bin/true).
mkdir -p "$tmp/here"
printf '#!/bin/sh\necho "here $HNP_RANK"\n' >"$tmp/here/prog_$prefix"
printf '#!/bin/sh\necho "not from PATH"\n' >"$tmp/here/true"
chmod +x "$tmp/here/prog_$prefix" "$tmp/here/true"
cd "$tmp/here"
run_hnp -N 1 --host "$(hosts 2)" "prog_$prefix" "$prefix"
cd - >/dev/null
expect_status 0 "a program in the working directory"
[ "$(sort "$tmp/out" | paste -sd' ')" = "here 0 here 1" ] ||
    fail "a program in the working directory: $(cat "$tmp/out")"
run_hnp --wdir "$tmp/here" -N 1 --host "$(hosts 1)" "prog_$prefix" "$prefix"
expect_status 0 "a program in --wdir"
expect_in "$tmp/out" "^here 0$" "a program in --wdir ran"
run_hnp --wdir "$tmp/here" -N 1 --host "$(hosts 1)" true "$prefix"
expect_status 0 "true, in PATH and in the working directory"
[ ! -s "$tmp/out" ] || fail "the working directory's true ran before PATH's: $(cat "$tmp/out")"
assert_no_leftovers "programs in the working directory"

run_hnp --wdir "$tmp/missing" -N 1 --host "$(hosts 1)" true
[ "$status" != 0 ] || fail "a missing --wdir must fail"
expect_in "$tmp/err" "working directory $tmp/missing: No such file or directory" "--wdir named"
assert_no_leftovers "--wdir"

# --tag-output and --output-filename.
run_hnp --tag-output --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c 'echo "out $HNP_RANK"; echo "err $HNP_RANK" >&2' "$prefix"
expect_status 0 "tagged output"
for r in 0 1 2 3; do
    expect_in "$tmp/out" "^\[1,$r\]<stdout>:out $r\$" "tagged stdout of rank $r"
    expect_in "$tmp/err" "^\[1,$r\]<stderr>:err $r\$" "tagged stderr of rank $r"
    [ "$(cat "$tmp/of/1/rank.$r/stdout")" = "out $r" ] || fail "output file of rank $r"
    [ "$(cat "$tmp/of/1/rank.$r/stderr")" = "err $r" ] || fail "error file of rank $r"
done

# --timeout ends a job that runs too long, with a message, and status 124.
run_hnp --timeout 1 -N 1 --host "$(hosts 2)" sh -c 'exec sleep 60' "$prefix"
expect_status 124 "--timeout"
expect_in "$tmp/err" "ran longer than --timeout 1 s" "timeout message"
assert_no_leftovers "--timeout"

# --bind-to core binds local rank i to core i, and --report-bindings says
# so in Open MPI's words; more processes than cores is refused, never
# silently unbound.
if [ "$(nproc)" -ge 2 ]; then
    run_hnp --bind-to core --report-bindings -N 2 --host "$(hosts 2)" \
        sh -c 'echo "$HNP_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)"' "$prefix"
    expect_status 0 "--bind-to core"
    for r in 0 1 2 3; do
        expect_in "$tmp/err" "^\[${prefix}n$((r / 2 + 1)):[0-9]*\] MCW rank $r bound to socket [0-9]*\[core [0-9]*\[hwt " \
            "binding of rank $r reported, as mpirun writes it (no \"hnp: \")"
        cpus=$(sed -n "s/^$r //p" "$tmp/out")
        case $cpus in *[,-]*|"") fail "rank $r runs on CPUs '$cpus', not one core's" ;; esac
    done
    [ "$(sed -n 's/^[01] //p' "$tmp/out" | sort -u | wc -l)" = 2 ] ||
        fail "local ranks 0 and 1 share a core: $(cat "$tmp/out")"
    run_hnp --bind-to core -N 64 --host "$(hosts 1)" true
    expect_status 1 "--bind-to core with more processes than cores"
    expect_in "$tmp/err" "bind-to core: 64 processes but" "binding failure named"
    # hwloc's binding is a module of its own, loaded only for --bind-to:
    # one that cannot be found ends the job with its name and where it was
    # looked for, and a job that does not bind runs without it.
    if [ "${HNP_DLOPEN:-yes}" = yes ]; then
        # (lib.sh puts the module's directory last in the path)
        HNP_MCA_mca_base_component_path="${HNP_MCA_mca_base_component_path%:*}" \
            run_hnp --bind-to core -N 1 --host "$(hosts 1)" true
        expect_status 1 "--bind-to core without the binding module"
        expect_in "$tmp/err" "node ${prefix}n1: hnp_bind_hwloc.so is in no directory of the component path '" \
            "missing binding module named"
        HNP_MCA_mca_base_component_path="${HNP_MCA_mca_base_component_path%:*}" \
            run_hnp -N 2 --host "$(hosts 2)" true
        expect_status 0 "a job that does not bind, without the binding module"
    fi
    assert_no_leftovers "--bind-to"
fi

# Oversubscription is refused with the number of slots, unless asked for.
run_hnp -n 5 --host "${prefix}n1:2,${prefix}n2:2" true
expect_status 1 "too many processes"
expect_in "$tmp/err" "5 processes requested but the 2 nodes have 4 slots" "slots named"
run_hnp -n 5 --oversubscribe --host "${prefix}n1:2,${prefix}n2:2" true
expect_status 0 "--oversubscribe"
echo "PASS"
