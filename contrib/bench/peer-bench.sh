#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# peer-bench.sh: hnp beside its peers. The same job, /bin/true once on each
# of N simulated nodes, started by hnp (the greedy prsh tree, and the flat
# rsh for reference), by Open MPI's mpirun (with and without its tree
# spawn) and by MPICH's mpiexec.hydra, all through hnp-local-agent as the
# remote shell under one launch model. It writes peer.csv (one line a run)
# and peer-summary.txt (medians, side by side). See README.md beside this
# file; --help lists the options. Needs root: the nodes get their own host
# names (a UTS namespace each) and addresses (in an /etc/hosts of the
# benchmark's own, in a mount namespace).
set -euo pipefail

# C numbers (decimal points) and sorting whatever the caller's locale.
export LC_ALL=C

readonly ME=peer-bench

# ------------------------------------------------------------- defaults
NODES="64 256 1024"
ALL_LAUNCHERS="hnp-prsh hnp-rsh ompi-tree ompi-flat hydra"
LAUNCHERS=$ALL_LAUNCHERS
MODEL=0.010:0.050
RUNS=3
LARGE_RUNS=1
LARGE_FROM=1024

usage() {
    cat <<EOF
usage: $ME [options]

Times /bin/true on N simulated nodes, one process a node, started by hnp
and by its peers, all with hnp-local-agent as ssh:

  hnp-prsh   hnp --mca plm prsh, the greedy tree for the agent's model
             (plm_prsh_seq SEQ, plm_prsh_rem SEQ+REM)
  hnp-rsh    hnp --mca plm rsh: the HNP starts every daemon
  ompi-tree  Open MPI's mpirun.openmpi as it comes: its daemons spawn
             along its routing tree (plm_rsh_no_tree_spawn 0)
  ompi-flat  mpirun.openmpi --mca plm_rsh_no_tree_spawn 1
  hydra      MPICH's mpiexec.hydra (every proxy from the head)

  -n, --nodes LIST       node counts (default: $NODES)
  -l, --launchers LIST   from the list above (default: all)
  -m, --model SEQ:REM    the agent's launch model in seconds; hnp's greedy
                         tree is built for the same (default: $MODEL)
$(usage_common)
      --timeout S        seconds before a run is killed (default: grows
                         with N)
      --quick            smoke run: 16 nodes, one run
  -h, --help             this text

Lists are separated by spaces or commas. Open MPI (Debian's openmpi-bin)
is installed with apt-get if missing, without switching the mpirun and
mpicc alternatives away from MPICH. Every run sees the names n1..nN in
an /etc/hosts of its own (a private mount namespace, host look-ups
answered from that file alone), so that no launcher asks a resolver.
EOF
}

# Messages, options, checks, the runs, the remote shell, the node names;
# OUTDIR, PREFIX, HNP, AGENT and RUN_TIMEOUT (empty unless given).
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

while [ $# -gt 0 ]; do
    if common_option "$@"; then shift 2; continue; fi
    case $1 in
        -m | --model) need_arg "$@"; MODEL=$2; shift ;;
        --quick) NODES=16 RUNS=1 LARGE_RUNS=1 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

# --------------------------------------------------------- validation
check_nodes "$NODES"
for l in $LAUNCHERS; do
    [[ " $ALL_LAUNCHERS " == *" $l "* ]] || die "launcher '$l': one of $ALL_LAUNCHERS"
done
[[ $MODEL != *[,\ ]* ]] || die "one model only: '$MODEL'"
check_models "$MODEL"
readonly SEQ=${MODEL%%:*} REM=${MODEL#*:}
# hnp's model counts a daemon's REM from the start of its launch, the
# launching node's SEQ included; the agent holds SEQ, then waits REM.
GREEDY_REM=$(awk -v s="$SEQ" -v r="$REM" 'BEGIN { printf "%.6g", s + r }')
readonly GREEDY_REM
check_runs
[ -n "$LAUNCHERS" ] || die "nothing to run: no launcher"
has_ompi() { has_launcher ompi-tree || has_launcher ompi-flat; }

# ------------------------------------------------------------ the tools
[ "$(id -u)" = 0 ] || die "run as root: the nodes' host names (unshare --uts) and addresses (unshare --mount) need it"
find_hnp
unshare --uts true 2>/dev/null || die "unshare --uts does not work here: the nodes cannot have host names of their own"
if has_launcher hydra; then
    command -v mpiexec.hydra >/dev/null || die "mpiexec.hydra is not installed (Debian package mpich)"
fi
pick_cpu_tool
max_nodes=$(max_of "$NODES")
# mpirun and mpiexec hold a socket and the agent's pipes for every node.
raise_fd_limit $((8 * max_nodes + 256)) "$max_nodes"
# A Slurm allocation around us would make the launchers use it instead.
for v in ${!SLURM_@}; do unset "$v"; done
unset HNP_NODE_NAME

# ------------------------------------------------------------- output
# WORK holds the remote shell, its call log and the nodes' temporary
# directories.
open_bench
CSV=$OUTDIR/peer.csv
SUMMARY=$OUTDIR/peer-summary.txt

if has_ompi; then ensure_openmpi; fi

WRAPPER=$WORK/agent-wrapper
CALLS=$WORK/agent-calls.log
NODE_TMP=$WORK/nodes
write_agent_wrapper "$WRAPPER" "$CALLS" "$NODE_TMP"
cp "$WRAPPER" "$WRAPPER.node" "$OUTDIR/logs/"
prepare_node_names "$max_nodes"

# What ran, for the summary.
versions() {
    printf 'hnp: %s\n' "$("$HNP" --version 2>&1 | head -n 1)"
    if has_ompi; then
        printf 'Open MPI: %s\n' "$(mpirun.openmpi --version 2>&1 | head -n 1)"
    fi
    if has_launcher hydra; then
        printf 'hydra: %s\n' "$(mpiexec.hydra --version 2>&1 | awk '/Version:/ { print $NF; exit }')"
    fi
}

# ----------------------------------------------------------------- plan
# One line a run: launcher nodes run, interleaved (every point once, then
# again), so that a burst of load from elsewhere spreads over the points.
plan=()
for ((run = 1; run <= $(max_of "$RUNS $LARGE_RUNS"); run++)); do
    for n in $NODES; do
        runs_at "$n" "$run" || continue
        for launcher in $LAUNCHERS; do plan+=("$launcher $n $run"); done
    done
done
total=${#plan[@]}

# -------------------------------------------------------------- one run
readonly CSV_HEADER=launcher,nodes,run,wall_s,cpu_s,daemons,status

# launcher_command LAUNCHER N: the command of a run, in the array cmd.
launcher_command() {
    local launcher=$1 n=$2 hostfile=$WORK/hosts-$2
    case $launcher in
        hnp-*)
            cmd=("$HNP" --mca plm_rsh_agent "$WRAPPER"
                --mca oob_tcp_if_include 127.0.0.1/8 --mca plm "${launcher#hnp-}")
            if [ "$launcher" = hnp-prsh ]; then
                cmd+=(--mca plm_prsh_tree greedy --mca plm_prsh_model fixed
                    --mca plm_prsh_seq "$SEQ" --mca plm_prsh_rem "$GREEDY_REM")
            fi
            cmd+=(--host "n[1-$n]" -N 1 /bin/true) ;;
        ompi-*)
            [ -s "$hostfile.ompi" ] || seq -f 'n%.0f slots=1' 1 "$n" >"$hostfile.ompi"
            # Everything on loopback; /bin/true makes no MPI call, but the
            # transports are chosen anyway: the two that need no device.
            cmd=(mpirun.openmpi --allow-run-as-root --mca plm rsh
                --mca plm_rsh_agent "$WRAPPER"
                --mca plm_rsh_no_tree_spawn "$([ "$launcher" = ompi-flat ] && echo 1 || echo 0)"
                --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo
                --mca btl self --mca pml ob1
                --hostfile "$hostfile.ompi" -N 1 /bin/true) ;;
        hydra)
            [ -s "$hostfile.hydra" ] || seq -f 'n%.0f:1' 1 "$n" >"$hostfile.hydra"
            cmd=(mpiexec.hydra -launcher ssh -launcher-exec "$WRAPPER" -rmk user
                -f "$hostfile.hydra" -ppn 1 -n "$n" /bin/true) ;;
    esac
}

# run_one LAUNCHER NODES RUN INDEX: one timed run, appended to peer.csv;
# prints the progress line.
run_one() {
    local launcher=$1 n=$2 run=$3 idx=$4 tag log limit cpu daemons
    local cpu_out=$WORK/cpu.out
    local -a cmd
    tag=$(printf '%s-n%04d-run%d' "$launcher" "$n" "$run")
    log=$OUTDIR/logs/$tag.log
    # An Open MPI daemon costs 0.1 s of CPU here, and all share this
    # machine's cores; the flat launchers need N·SEQ at least.
    limit=${RUN_TIMEOUT:-$(awk -v n="$n" -v s="$SEQ" 'BEGIN { printf "%d", 60 + n / 4 + 2 * n * s }')}
    launcher_command "$launcher" "$n"
    cmd=("${NAMES_CMD[@]}" "${cmd[@]}")
    count_cpu "$cpu_out"

    # Fresh temporary directories, head's and nodes', made here rather
    # than by each node's shell: a mkdir less in every launch measured.
    rm -rf "$NODE_TMP"
    mkdir -p "$NODE_TMP/head"
    (cd "$NODE_TMP" && seq -f 'n%.0f' 1 "$n" | xargs mkdir)
    : >"$CALLS"
    TMPDIR=$NODE_TMP/head LOG_ENV="TMPDIR=$NODE_TMP/head" \
        timed_run "$log" "$limit" "$idx" "$SEQ" "$REM" "${cmd[@]}"
    daemons=$(wc -l <"$CALLS")
    cp "$CALLS" "$OUTDIR/logs/$tag.calls"
    cpu=$(cpu_seconds "$cpu_out")
    printf '%s,%s,%s,%s,%s,%s,%s\n' "$launcher" "$n" "$run" "$RUN_WALL" "$cpu" \
        "$daemons" "$RUN_STATUS" >>"$CSV"

    report_run "$idx" "$total" "$log" "$(printf '%-9s N=%-5d run %d' "$launcher" "$n" "$run")" \
        ", $cpu s CPU, $daemons daemons"
}

# ------------------------------------------------------------- the runs
say "agent: $AGENT; model SEQ:REM $MODEL s; CPU by $CPU_TOOL"
versions | while read -r line; do say "$line"; done
say "output: $OUTDIR"
say "$total runs: nodes {$NODES}, launchers {$LAUNCHERS}," \
    "$RUNS runs a point ($LARGE_RUNS from $LARGE_FROM nodes)"
echo "$CSV_HEADER" >"$CSV"
for ((i = 0; i < total; i++)); do
    # shellcheck disable=SC2086 # the plan line is three words on purpose
    run_one ${plan[i]} $((i + 1))
done

# --------------------------------------------------------- the summary
# Per launcher and N: runs ok/total and the medians of the successful
# runs; then the wall and CPU times side by side, one line an N.
{
    printf '/bin/true on N simulated nodes, one a node; agent model SEQ %s s, REM %s s\n' "$SEQ" "$REM"
    if has_launcher hnp-prsh; then
        printf 'hnp-prsh: the greedy tree for plm_prsh_seq %s s, plm_prsh_rem %s s\n' "$SEQ" "$GREEDY_REM"
    fi
    versions
    echo
    awk -F, -v launchers="$LAUNCHERS" "$AWK_STATS"'
    function fmt(v, f) { return v == "NA" ? v : sprintf(f, v) }
    NR == 1 { next }
    {
        k = $1 SUBSEP $2
        if (!($2 in seen)) { seen[$2] = 1; nodes[++nn] = $2 }
        tot[k]++
        if ($7 != "ok") next
        ok[k]++; wall[k] = wall[k] " " $4; dmn[k] = dmn[k] " " $6
        if ($5 != "NA") cpu[k] = cpu[k] " " $5
    }
    END {
        nl = split(launchers, l, " ")
        printf "%-10s %6s %6s %9s %8s %8s %12s\n", "launcher", "nodes", "runs", "wall_s", "cpu_s", "daemons", "cpu_ms/node"
        for (i = 1; i <= nn; i++)
            for (j = 1; j <= nl; j++) {
                k = l[j] SUBSEP nodes[i]
                if (!(k in tot)) continue
                w[k] = median(wall[k]); c[k] = median(cpu[k])
                printf "%-10s %6d %6s %9s %8s %8s %12s\n", l[j], nodes[i], ok[k] + 0 "/" tot[k],
                    fmt(w[k], "%.3f"), fmt(c[k], "%.2f"), median(dmn[k]),
                    c[k] == "NA" ? "NA" : sprintf("%.1f", c[k] * 1000 / nodes[i])
            }
        printf "\nwall s (CPU s), side by side:\n%6s", "nodes"
        for (j = 1; j <= nl; j++) printf " %15s", l[j]
        printf "\n"
        for (i = 1; i <= nn; i++) {
            printf "%6d", nodes[i]
            for (j = 1; j <= nl; j++) {
                k = l[j] SUBSEP nodes[i]
                printf " %15s", (k in w) ? fmt(w[k], "%.2f") " (" fmt(c[k], "%.2f") ")" : "-"
            }
            printf "\n"
        }
        print "(medians over the successful runs; CPU: every process of the run, on all cores)"
    }' "$CSV"
} | tee "$SUMMARY"

say_done "$CSV"
say "results: $CSV, $SUMMARY, logs in $OUTDIR/logs"
