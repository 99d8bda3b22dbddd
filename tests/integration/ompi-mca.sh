#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's own MCA parameters (--mca btl self,tcp and the like) go to the
# ranks as OMPI_MCA_<name>=<value>, as under mpirun, with no warning, from
# every source of parameters; the OMPI_MCA_* variables of hnp's environment
# reach ranks on nodes whose daemons start with an empty environment (as
# over ssh); a name that is neither hnp's nor plausibly Open MPI's is still
# warned of with suggestions.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

# An agent that starts the daemons as ssh would: with an environment of
# their own (a login's), not hnp's.
cat >"$tmp/bare-agent" <<AGENT
#!/bin/sh
exec env -i PATH=/usr/bin:/bin HOME="\$HOME" TMPDIR="\$TMPDIR" \\
    HNPTEST_MARK="\$HNPTEST_MARK" HNP_AGENT_LOCKDIR="\$HNP_AGENT_LOCKDIR" \\
    "$AGENT" "\$@"
AGENT
chmod +x "$tmp/bare-agent"
bare=(--mca plm_rsh_agent "$tmp/bare-agent")

# shellcheck disable=SC2016 # expanded by each rank's shell
show='echo "$HNP_RANK btl=${OMPI_MCA_btl-unset} pml=${OMPI_MCA_pml-unset} coll=${OMPI_MCA_coll_tuned_use_dynamic_rules-unset} osc=${OMPI_MCA_osc-unset} env=${OMPI_MCA_mpi_yield_when_idle-unset} hnp_var=${HNP_TEST_OTHER-unset}"'

expect_no_warning() { # WHAT
    if grep -q "unknown parameter\|warning" "$tmp/err"; then
        cat "$tmp/err"; fail "$1: warned"
    fi
}

# Every source: --mca, --gmca, HNP_MCA_*, --tune, ~/.hnp/mca-params.conf,
# and OMPI_MCA_* of the environment; daemons with an empty environment.
mkdir -p "$HOME/.hnp"
echo "osc = ^ucx" >"$HOME/.hnp/mca-params.conf"
echo "coll_tuned_use_dynamic_rules = 1" >"$tmp/tune"
OMPI_MCA_mpi_yield_when_idle=1 HNP_MCA_pml=ob1 HNP_TEST_OTHER=not-passed \
    run_hnp "${bare[@]}" --mca btl self,tcp --tune "$tmp/tune" \
    -N 1 --host "$(hosts 2)" sh -c "$show" "$prefix"
expect_status 0 "Open MPI's parameters from every source"
expect_no_warning "Open MPI's parameters from every source"
for r in 0 1; do
    expect_in "$tmp/out" "^$r btl=self,tcp pml=ob1 coll=1 osc=^ucx env=1 hnp_var=unset$" \
        "rank $r got Open MPI's parameters (and no other variable of hnp's)"
done
run_hnp "${bare[@]}" --gmca btl ^openib -n 1 --host "$(hosts 1)" sh -c "$show" "$prefix"
expect_status 0 "--gmca"
expect_in "$tmp/out" "^0 btl=^openib " "--gmca reached the rank"
rm "$HOME/.hnp/mca-params.conf"

# --mca beats OMPI_MCA_* of the environment, which beats a file; -x beats
# them all.
echo "pml = cm" >"$tmp/tune"
OMPI_MCA_btl=self OMPI_MCA_pml=ucx run_hnp "${bare[@]}" --mca btl tcp \
    --tune "$tmp/tune" -n 1 --host "$(hosts 1)" sh -c "$show" "$prefix"
expect_in "$tmp/out" "^0 btl=tcp pml=ucx " "--mca over the environment over --tune"
run_hnp --mca btl tcp -x OMPI_MCA_btl=self -n 1 --host "$(hosts 1)" sh -c "$show" "$prefix"
expect_in "$tmp/out" "^0 btl=self " "-x over --mca"

# Neither hnp's nor Open MPI's: warned, with what was meant.
run_hnp --mca btlx tcp --mca plm_rsh_agnet ssh -n 1 --host "$(hosts 1)" true
expect_status 0 "unknown names"
expect_in "$tmp/err" "unknown parameter 'btlx' (set by command line)" "an unknown name"
expect_in "$tmp/err" "unknown parameter 'plm_rsh_agnet' (set by command line); did you mean plm_rsh_agent" \
    "a misspelled name of hnp's"
assert_no_leftovers "Open MPI's parameters"

# A real Open MPI rank: its btl framework says what it does.
why=$(ompi_missing) && skip "$why"
build_ompi mpi_ring
run_hnp "${bare[@]}" --mca btl self,tcp --mca btl_base_verbose 100 \
    --mca btl_tcp_if_include lo -N 1 --host "$(hosts 2)" "$tmp/mpi_ring" "$prefix"
expect_status 0 "--mca btl self,tcp --mca btl_base_verbose 100"
expect_no_warning "--mca btl self,tcp --mca btl_base_verbose 100"
expect_in "$tmp/err" "select: initializing btl component tcp" "the ranks' btl verbose lines"
if grep -q "btl component vader" "$tmp/err"; then
    fail "--mca btl self,tcp: vader was used all the same"
fi
[ "$(grep -c "ring ok, allreduce 1 ok" "$tmp/out")" = 2 ] ||
    { cat "$tmp/out"; fail "the Open MPI ranks did not finish"; }
assert_no_leftovers "Open MPI with --mca btl"
echo "PASS"
