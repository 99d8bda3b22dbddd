#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cost-bench.sh: what a node pays, for an installed hnp and a baseline
# installation, runs interleaved (baseline, tree, baseline, tree, ...):
#
#  1. CPU: /bin/true one rank a node on N simulated nodes (hnp-local-agent,
#     the launch model SEQ:REM), the wall time and the CPU of every process
#     of the run (a cpuacct cgroup holding it; perf stat's inherited
#     task-clock where no cgroup can be made), with the defaults and with
#     each exchange named; the daemons' start-up CPU median (--timing).
#  2. Memory: an Open MPI program that reports after MPI_Init (its
#     anonymous memory and its daemon's: tests/mpi/ompi_memory.c), P ranks
#     a node, on jobs of several sizes; medians; and the memory the files
#     of the shared PMIx store hold on a node. And a `sh -c` job (PMIx
#     served, no MPI) reporting its daemon's anonymous memory.
#
# Medians of each cell, the machine's load during the runs, and one CSV
# line a run (cost.csv in the output directory). --help lists the options.
set -euo pipefail
export LC_ALL=C

ME=cost-bench
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX=""
BASELINE=""
NODES=1024
VARIANTS="default gather_scatter"
MODEL=0.010:0.050
RUNS=3
MEM_RANKS="128 256"
PPN=4
OUTDIR=""
TABLES="cpu memory"
FRESH_NETNS=""

say() { printf '%s: %s\n' "$ME" "$*" >&2; }
die() { say "$*"; exit 1; }

usage() {
    cat <<EOF
usage: $ME --prefix DIR [--baseline DIR] [options]

  --prefix DIR        the hnp installation measured (bin/hnp, bin/hnpd)
  --baseline DIR      an installation to compare with, run interleaved
  -n, --nodes N       nodes of the CPU table (default: $NODES)
  --variants LIST     exchanges of the CPU table: default (none named),
                      gather_scatter, flood (default: $VARIANTS)
  -m, --model SEQ:REM the agent's launch model (default: $MODEL)
  -r, --runs R        runs of each cell (default: $RUNS)
  --ranks LIST        Open MPI job sizes of the memory table
                      (default: $MEM_RANKS), P ranks a node
  -p, --ppn P         ranks a node in the memory table (default: $PPN)
  --tables LIST       cpu, memory or both (default: $TABLES)
  --fresh-netns       each run of the CPU table in a network namespace of
                      its own (root): a run then does not pay for the
                      thousands of sockets the runs before it left in
                      TIME_WAIT, which every later bind(0) on this host
                      searches past (as on a machine that just booted)
  -o, --output DIR    where cost.csv and the runs' output go
                      (default: a new directory under \${TMPDIR:-/tmp})
  -h, --help          this text
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --prefix) PREFIX=$2; shift ;;
        --baseline) BASELINE=$2; shift ;;
        -n | --nodes) NODES=$2; shift ;;
        --variants) VARIANTS=$(tr ',' ' ' <<<"$2"); shift ;;
        -m | --model) MODEL=$2; shift ;;
        -r | --runs) RUNS=$2; shift ;;
        --ranks) MEM_RANKS=$(tr ',' ' ' <<<"$2"); shift ;;
        -p | --ppn) PPN=$2; shift ;;
        --tables) TABLES=$(tr ',' ' ' <<<"$2"); shift ;;
        --fresh-netns) FRESH_NETNS=1 ;;
        -o | --output) OUTDIR=$2; shift ;;
        -h | --help) usage; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
[ -n "$PREFIX" ] || die "--prefix DIR is needed (see --help)"
for p in "$PREFIX" ${BASELINE:+"$BASELINE"}; do
    [ -x "$p/bin/hnp" ] || die "$p/bin/hnp: not an hnp installation"
done
[[ $MODEL =~ ^[0-9.]+:[0-9.]+$ ]] || die "--model: SEQ:REM in seconds expected, not $MODEL"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs: a positive count expected, not $RUNS"
# --fresh-netns: the run's command goes through a new network namespace
# with its loopback up (the simulated nodes talk over 127.0.0.1).
IN_NETNS=()
if [ -n "$FRESH_NETNS" ]; then
    command -v unshare >/dev/null && command -v ip >/dev/null ||
        die "--fresh-netns: unshare (util-linux) and ip (iproute2) are needed"
    unshare --net -- ip link set lo up 2>/dev/null ||
        die "--fresh-netns: cannot make a network namespace here (run as root)"
    IN_NETNS=(unshare --net -- sh -c 'ip link set lo up && exec "$@"' sh)
fi
OUTDIR=${OUTDIR:-$(mktemp -d "${TMPDIR:-/tmp}/cost-bench.XXXXXX")}
mkdir -p "$OUTDIR"
CSV=$OUTDIR/cost.csv
echo "table,tree,variant,size,run,wall_s,cpu_s,startup_ms,rank_anon_kb,daemon_anon_kb,load1,store_kb" >"$CSV"

# The trees in the order they run: baseline first in each pair.
TREES=()
[ -n "$BASELINE" ] && TREES+=("baseline=$BASELINE")
TREES+=("tree=$PREFIX")

agent_of() { # PREFIX: the simulated cluster's remote shell
    local a
    for a in "$1/libexec/hnp/hnp-local-agent" "$1/libexec/hnp-local-agent"; do
        [ -x "$a" ] && { echo "$a"; return; }
    done
    die "$1: no hnp-local-agent"
}
node_list() { seq -f "n%g" 1 "$1" | paste -sd,; }
load1() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -n | awk '$1 != "NA" { v[++n] = $1 } END { print n ? v[int((n + 1) / 2)] : "NA" }'; }

# ---------------------------------------------------------- CPU of a run
CG_ROOT=/sys/fs/cgroup/cpuacct
cgroup_ok() {
    local d=$CG_ROOT/$ME-probe-$$
    mkdir "$d" 2>/dev/null && rmdir "$d"
}
# cpu_run FILE CMD...: run CMD; its CPU in seconds (all its processes,
# orphans included) to FILE.
cpu_run() {
    local file=$1 rc=0
    shift
    if cgroup_ok; then
        local cg=$CG_ROOT/$ME-$$-$RANDOM
        mkdir "$cg"
        sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$cg" "$@" || rc=$?
        # the daemons leave after hnp: wait until the group is empty
        local tries=0
        while [ -s "$cg/cgroup.procs" ] && [ $tries -lt 100 ]; do
            sleep 0.1; tries=$((tries + 1))
        done
        awk '{ printf "%.3f\n", $1 / 1e9 }' "$cg/cpuacct.usage" >"$file"
        rmdir "$cg" 2>/dev/null || true
    else
        perf stat -x, -e task-clock -o "$file.perf" -- "$@" || rc=$?
        awk -F, '$3 == "task-clock" { printf "%.3f\n", $1 / 1000 }' "$file.perf" >"$file"
    fi
    return $rc
}

cpu_table() {
    local seq=${MODEL%%:*} rem=${MODEL##*:} hosts run entry name prefix v
    hosts=$(node_list "$NODES")
    for run in $(seq 1 "$RUNS"); do
        for v in $VARIANTS; do
            for entry in "${TREES[@]}"; do
                name=${entry%%=*} prefix=${entry#*=}
                local args=() out=$OUTDIR/cpu-$name-$v-$run
                [ "$v" = default ] || args=(--mca exchange "$v")
                local started ended l rc=0
                l=$(load1)
                started=$(date +%s.%N)
                HNP_AGENT_SEQ=$seq HNP_AGENT_REM=$rem \
                    cpu_run "$out.cpu" "${IN_NETNS[@]}" \
                    timeout -k 5 900 "$prefix/bin/hnp" \
                    --mca plm_rsh_agent "$(agent_of "$prefix")" \
                    --mca oob_tcp_if_include 127.0.0.1/8 "${args[@]}" \
                    --timing -N 1 --host "$hosts" /bin/true \
                    >"$out.out" 2>"$out.err" || rc=$?
                ended=$(date +%s.%N)
                [ $rc = 0 ] || say "$name $v run $run: hnp exited with $rc (see $out.err)"
                local startup
                startup=$(awk '/daemon start-up \(median\)/ { print $(NF-2) }' "$out.err")
                echo "cpu,$name,$v,$NODES,$run,$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.3f", b - a }'),$(cat "$out.cpu"),${startup:-NA},NA,NA,$l,NA" >>"$CSV"
                say "cpu $name $v run $run: $(tail -n 1 "$CSV")"
            done
        done
    done
}

# ------------------------------------------------------- memory of a job
build_probe() {
    command -v mpicc.openmpi >/dev/null || { say "no mpicc.openmpi: no Open MPI rows"; return 1; }
    mpicc.openmpi -O2 -o "$OUTDIR/ompi_memory" "$HERE/../../tests/mpi/ompi_memory.c"
}

memory_table() {
    local have_ompi=1 run entry name prefix ranks
    build_probe || have_ompi=0
    for run in $(seq 1 "$RUNS"); do
        for ranks in $MEM_RANKS; do
            local nodes=$(((ranks + PPN - 1) / PPN))
            for entry in "${TREES[@]}"; do
                name=${entry%%=*} prefix=${entry#*=}
                local common=(--mca plm_rsh_agent "$(agent_of "$prefix")"
                              --mca oob_tcp_if_include 127.0.0.1/8
                              -N "$PPN" --host "$(node_list "$nodes")")
                local out=$OUTDIR/mem-$name-$ranks-$run l
                if [ $have_ompi = 1 ]; then
                    l=$(load1)
                    timeout -k 5 900 "$prefix/bin/hnp" "${common[@]}" \
                        -x OMPI_MCA_btl_tcp_if_include=lo \
                        -x OMPI_MCA_mpi_yield_when_idle=1 \
                        "$OUTDIR/ompi_memory" >"$out.ompi" 2>"$out.ompi.err" ||
                        say "$name ompi $ranks run $run failed (see $out.ompi.err)"
                    local r d
                    r=$(awk '/^memory rank/ { print $7 }' "$out.ompi" | median)
                    d=$(awk '/^memory rank/ { print $11 }' "$out.ompi" | median)
                    # the shared store's files on a node (NA: not reported)
                    local s
                    s=$(awk '/^memory rank/ { print ($13 == "" ? "NA" : $13) }' "$out.ompi" | median)
                    echo "memory,$name,ompi,$ranks,$run,NA,NA,NA,$r,$d,$l,$s" >>"$CSV"
                    say "memory $name ompi $ranks run $run: $(tail -n 1 "$CSV")"
                fi
                l=$(load1)
                # the daemon's memory once its ranks are up: each rank
                # waits for the others' files before reading it
                timeout -k 5 900 "$prefix/bin/hnp" "${common[@]}" \
                    sh -c 'sleep 2; grep "^RssAnon:" /proc/$PPID/status' \
                    >"$out.sh" 2>"$out.sh.err" ||
                    say "$name sh $ranks run $run failed (see $out.sh.err)"
                d=$(awk '/^RssAnon:/ { print $2 }' "$out.sh" | median)
                echo "memory,$name,sh,$ranks,$run,NA,NA,NA,NA,$d,$l,NA" >>"$CSV"
                say "memory $name sh $ranks run $run: $(tail -n 1 "$CSV")"
            done
        done
    done
}

# ------------------------------------------------------------- summary
cell() { # TABLE TREE VARIANT SIZE COLUMN: the median of the runs
    awk -F, -v t="$1" -v n="$2" -v v="$3" -v s="$4" -v c="$5" \
        '$1 == t && $2 == n && $3 == v && $4 == s { print $c }' "$CSV" | median
}
span() { # TABLE TREE VARIANT SIZE COLUMN: min-max of the runs
    awk -F, -v t="$1" -v n="$2" -v v="$3" -v s="$4" -v c="$5" \
        '$1 == t && $2 == n && $3 == v && $4 == s && $c != "NA" { print $c }' "$CSV" |
        sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print (NR ? lo "-" hi : "NA") }'
}

summary() {
    local entry name v ranks
    echo "load average (1 min) during the runs: $(awk -F, 'NR > 1 { print $11 }' "$CSV" | median) median"
    if [[ " $TABLES " == *" cpu "* ]]; then
        echo
        echo "| $NODES nodes, /bin/true, model $MODEL | wall s (median, range) | CPU s, all processes (median, range) | daemon start-up ms CPU (median) |"
        echo "| --- | --- | --- | --- |"
        for v in $VARIANTS; do
            for entry in "${TREES[@]}"; do
                name=${entry%%=*}
                echo "| $name, $v | $(cell cpu "$name" "$v" "$NODES" 6) ($(span cpu "$name" "$v" "$NODES" 6)) | $(cell cpu "$name" "$v" "$NODES" 7) ($(span cpu "$name" "$v" "$NODES" 7)) | $(cell cpu "$name" "$v" "$NODES" 8) |"
            done
        done
    fi
    if [[ " $TABLES " == *" memory "* ]]; then
        echo
        echo "| ranks ($PPN a node) | tree | hnpd, Open MPI job (kB anon) | a rank (kB anon) | hnpd, sh -c job (kB anon) | shared store, Open MPI job (kB a node) |"
        echo "| --- | --- | --- | --- | --- | --- |"
        for ranks in $MEM_RANKS; do
            for entry in "${TREES[@]}"; do
                name=${entry%%=*}
                echo "| $ranks | $name | $(cell memory "$name" ompi "$ranks" 10) | $(cell memory "$name" ompi "$ranks" 9) | $(cell memory "$name" sh "$ranks" 10) | $(cell memory "$name" ompi "$ranks" 12) |"
            done
        done
    fi
    echo
    echo "runs: $CSV"
}

[[ " $TABLES " == *" cpu "* ]] && cpu_table
[[ " $TABLES " == *" memory "* ]] && memory_table
summary
