#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's mapping and binding options, one command line each, checked
# against where every rank runs: its node and local rank (the HNP's map),
# the binding --report-bindings prints, and the CPUs the rank itself sees.
# The nodes have the topologies of tests/topo (hwloc_base_topo_file): the
# daemons compute and report bindings on them and apply the part this
# machine has, so the rank's own view is checked against that part.
. "$top_srcdir/tests/integration/lib.sh"

big="$top_srcdir/tests/topo/2sock-4numa-smt2.xml"   # 2 x (2 NUMA x 4 cores x 2)
small="$top_srcdir/tests/topo/1sock-4core.xml"      # 4 cores, 1 thread each
n1="${prefix}n1" n2="${prefix}n2"
# shellcheck disable=SC2016 # expanded by each rank's shell
app='echo "R $HNP_RANK $HNP_NODE $HNP_LOCAL_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)"'

own=$(grep Cpus_allowed_list /proc/self/status | cut -f2)
expand() { # "0-2,5" -> "0 1 2 5"
    local part
    for part in ${1//,/ }; do
        case $part in *-*) seq -s' ' "${part%-*}" "${part#*-}" ;; *) echo "$part" ;; esac
    done | paste -sd' '
}
# The CPUs a rank bound to LIST on the file's topology really gets: those
# of LIST this machine lets us use, else (none of them) all of ours.
real_view() {
    local c got=""
    for c in $(expand "$1"); do
        case " $(expand "$own") " in *" $c "*) got="$got $c" ;; esac
    done
    [ -n "$got" ] && expand "$(echo $got | tr ' ' ',')" || expand "$own"
}

mapped() { # ARGS...: run the job on the big topology
    HNP_MCA_hwloc_base_topo_file="${topo:-$big}" run_hnp --report-bindings "$@" sh -c "$app" "$prefix"
    expect_status 0 "$*"
}
expect_rank() { # RANK NODE LOCAL_RANK WHAT
    grep -q "^R $1 $2 $3 " "$tmp/out" || {
        cat "$tmp/out"; fail "$4: rank $1 should run on $2 as local rank $3"
    }
}
expect_bound() { # RANK NODE REPORT WHAT
    grep -qF "[$2:" "$tmp/err" && grep -F "] MCW rank $1 " "$tmp/err" | grep -qF -- "$3" || {
        cat "$tmp/err"; fail "$4: rank $1 should be reported '$3'"
    }
}
expect_view() { # RANK CPUS(on the file) WHAT
    local seen
    seen=$(sed -n "s/^R $1 [^ ]* [^ ]* //p" "$tmp/out")
    [ "$(expand "$seen")" = "$(real_view "$2")" ] ||
        fail "$3: rank $1 runs on CPUs $seen, expected $(real_view "$2")"
}

S0="[../../../../../../../..]"
ALL8="[BB/BB/BB/BB/BB/BB/BB/BB]"

# --- Mapping
mapped --map-by ppr:2:socket --host "$n1,$n2"
expect_rank 7 "$n2" 3 "ppr:2:socket makes 2 x 2 sockets a node"
expect_bound 2 "$n1" ": $S0$ALL8" "ppr:2:socket, third rank on socket 1"
expect_view 2 16-31 "ppr:2:socket"

mapped --map-by ppr:1:numa --host "$n1"
expect_rank 3 "$n1" 3 "ppr:1:numa: one on each of 4 NUMA nodes"
expect_bound 1 "$n1" ": [../../../../BB/BB/BB/BB]$S0" "ppr:1:numa"

mapped --map-by core -n 3 --host "$n1:3"
expect_bound 1 "$n1" "bound to socket 0[core 1[hwt 0-1]]: [../BB/" "map-by core"
expect_view 0 0-1 "map-by core"
expect_view 1 2-3 "map-by core"

mapped --map-by socket -n 4 --host "$n1:4"
expect_bound 1 "$n1" ": $S0$ALL8" "map-by socket: round robin over the sockets"
expect_bound 2 "$n1" ": $ALL8$S0" "map-by socket"

mapped --map-by socket --rank-by core -n 4 --host "$n1:4"
expect_bound 1 "$n1" ": $ALL8$S0" "rank-by core: both first ranks on socket 0"
expect_bound 2 "$n1" ": $S0$ALL8" "rank-by core"

mapped --map-by numa -n 4 --host "$n1:4"
expect_bound 1 "$n1" ": [../../../../BB/BB/BB/BB]$S0" "map-by numa"

mapped --map-by hwthread -n 2 --host "$n1:2"
expect_bound 1 "$n1" "bound to socket 0[core 0[hwt 1]]: [.B/" "map-by hwthread"
expect_view 1 1 "map-by hwthread"

mapped --map-by slot:PE=2 -n 2 --host "$n1:2"
expect_bound 1 "$n1" "bound to socket 0[core 2[hwt 0-1]], socket 0[core 3[hwt 0-1]]: [../../BB/BB/" "slot:PE=2"

mapped --cpus-per-proc 2 -n 2 --host "$n1:2"
expect_bound 1 "$n1" "bound to socket 0[core 4[hwt 0-1]], socket 0[core 5[hwt 0-1]]:" "--cpus-per-proc 2 (numa:PE=2)"

mapped --map-by node -n 4 --host "$n1:2,$n2:2"
expect_rank 1 "$n2" 0 "map-by node"
expect_rank 2 "$n1" 1 "map-by node"

# by slot: 3 ranks on n1, 1 on n2; numbered one node in turn
mapped --rank-by node -n 4 --host "$n1:3,$n2:3"
expect_rank 1 "$n2" 0 "rank-by node"
expect_rank 3 "$n1" 2 "rank-by node"

mapped --map-by node --rank-by slot -n 4 --host "$n1:2,$n2:2"
expect_rank 1 "$n1" 1 "map-by node, rank-by slot"
expect_rank 2 "$n2" 0 "map-by node, rank-by slot"

printf '%s\n' "# a rankfile" "rank 0=$n2 slot=1:0-1" "rank 1=$n1 slot=0,3" \
    "rank 2=+n0 slot=0:*" >"$tmp/rf"
mapped --rankfile "$tmp/rf" --host "$n1,$n2"
expect_rank 0 "$n2" 0 "rankfile"
expect_rank 2 "$n1" 1 "rankfile, +n0"
expect_bound 0 "$n2" "bound to socket 1[core 0[hwt 0-1]], socket 1[core 1[hwt 0-1]]: $S0[BB/BB/" "rankfile socket:cores"
expect_bound 1 "$n1" "bound to socket 0[core 0[hwt 0-1]], socket 0[core 3[hwt 0-1]]: [BB/../../BB/" "rankfile cores"
expect_bound 2 "$n1" ": $ALL8$S0" "rankfile socket:*"
expect_view 1 0-1,6-7 "rankfile"

HNP_MCA_hwloc_base_topo_file="$big" run_hnp --display-map --display-allocation -n 3 --host "$n1:2,$n2:2" true
expect_status 0 "--display-map --display-allocation"
expect_in "$tmp/out" "ALLOCATED NODES" "--display-allocation"
expect_in "$tmp/out" "^	$n2: slots=2 " "--display-allocation lists the slots"
expect_in "$tmp/out" "JOB MAP" "--display-map"
expect_in "$tmp/out" "Data for node: $n2	Num slots: 2	Max slots: 0	Num procs: 1" "--display-map's nodes"
expect_in "$tmp/out" "Process rank: 2 Bound: N/A" "--display-map's ranks"

# --- Binding
mapped --bind-to hwthread -n 2 --host "$n1:2"
expect_bound 1 "$n1" "bound to socket 0[core 0[hwt 1]]:" "bind-to hwthread"
mapped --bind-to core -n 2 --host "$n1:2"
expect_bound 1 "$n1" "bound to socket 0[core 1[hwt 0-1]]:" "bind-to core"
mapped --bind-to socket -n 2 --host "$n1:2"
expect_bound 1 "$n1" ": $S0$ALL8" "bind-to socket"
mapped --bind-to numa -n 2 --host "$n1:2"
expect_bound 1 "$n1" ": [../../../../BB/BB/BB/BB]$S0" "bind-to numa"
mapped --bind-to none -n 2 --host "$n1:2"
expect_bound 1 "$n1" "is not bound (or bound to all available processors)" "bind-to none is reported"
expect_view 1 "$own" "bind-to none"
mapped -n 2 --host "$n1:2"
expect_bound 0 "$n1" "is not bound" "--report-bindings alone reports unbound ranks"
mapped --use-hwthread-cpus --map-by slot:PE=2 -n 2 --host "$n1:2"
expect_bound 1 "$n1" "bound to socket 0[core 1[hwt 0-1]]: [../BB/" "use-hwthread-cpus: PE counts hardware threads"
mapped --cpu-list 2,5 --bind-to cpu-list:ordered -n 2 --host "$n1:2"
expect_bound 0 "$n1" "bound to socket 0[core 2[hwt 0-1]]:" "cpu-list:ordered"
expect_bound 1 "$n1" "bound to socket 0[core 5[hwt 0-1]]:" "cpu-list:ordered"
mapped --cpu-list 2,5 -n 2 --host "$n1:2"
expect_bound 1 "$n1" "bound to socket 0[core 2[hwt 0-1]], socket 0[core 5[hwt 0-1]]:" "cpu-list"

# On a node of 4 cores without threads, whose first cores this machine
# has: the rank sees the very CPUs it is reported on.
topo=$small mapped --bind-to core -n 2 --host "$n1:2"
expect_bound 1 "$n1" "bound to socket 0[core 1[hwt 0]]: [./B/./.]" "bind-to core, small node"
expect_view 0 0 "bind-to core, small node"
expect_view 1 1 "bind-to core, small node"
topo=$small mapped --bind-to core:overload-allowed -n 5 --host "$n1:5"
expect_bound 4 "$n1" "bound to socket 0[core 0[hwt 0]]: [B/././.]" "overload-allowed"
HNP_MCA_hwloc_base_topo_file="$small" run_hnp --bind-to core -n 5 --host "$n1:5" true
expect_status 1 "more ranks than cores"
expect_in "$tmp/err" "bind-to core: 5 processes but 4 cores" "overload refused"
HNP_MCA_hwloc_base_topo_file="$small" run_hnp --bind-to core:if-supported -n 5 --host "$n1:5" true
expect_status 0 "if-supported runs unbound"

# Refused before launch, naming what is wrong.
run_hnp --map-by core:PE=2 -n 1 true
expect_status 1 "core:PE=2"
expect_in "$tmp/err" "cannot give a rank several CPUs" "core:PE refused"
run_hnp --map-by board -n 1 true
expect_status 1 "--map-by board"
expect_in "$tmp/err" "option --map-by expects slot, node, core" "unknown mapping named"
run_hnp --bind-to cpu-list -n 1 true
expect_status 1 "cpu-list without --cpu-list"
printf 'rank 0=%s\n' "$n1" >"$tmp/rf2"
run_hnp --rankfile "$tmp/rf2" -n 2 --host "$n1" true
expect_status 1 "a rank missing from the rankfile"
expect_in "$tmp/err" "no line places rank 1" "missing rank named"

assert_no_leftovers "mapping and binding"
echo "PASS: mapping and binding options"
