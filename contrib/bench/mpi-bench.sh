#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mpi-bench.sh: the second testbed of paper 002 on one machine. It times an
# empty MPI program (empty_mpi.c: MPI_Init, MPI_Finalize) on N simulated
# nodes × P processes: built with MPICH, started by hnp (each exchange
# component) and by MPICH's own mpiexec.hydra; built with Open MPI,
# started by hnp (each exchange, through its PMIx server) and by Open MPI's
# own mpirun.openmpi; all through hnp-local-agent as the remote shell
# under the same launch model. It writes mpi.csv (one line a run) and
# mpi-summary.txt (medians, and each hnp beside its peer). See README.md
# beside this file; --help lists the options. Needs root when hydra or
# mpirun runs: they resolve the node names, which every run finds in a
# private /etc/hosts (a mount namespace of its own).
set -euo pipefail

# C numbers (decimal points) and sorting whatever the caller's locale.
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE ME=mpi-bench

# ------------------------------------------------------------- defaults
# The issue's points: 16 to 256 nodes of 4 processes, two runs each, one
# at 256 (about 1000 MPI processes on this machine's cores: a minute a run).
NODES="16 64 256"
PPN=4
ALL_LAUNCHERS="hnp hydra hnp-ompi ompi"
LAUNCHERS=$ALL_LAUNCHERS
EXCHANGES="gather_scatter flood"
MODEL=0.010:0.050
RUNS=2
LARGE_RUNS=1
LARGE_FROM=256

usage() {
    cat <<EOF
usage: $ME [options]

Times an empty MPI program on N simulated nodes × P processes, all with
hnp-local-agent as ssh, started by

  hnp        hnp (each exchange), the program built with MPICH (PMI-1)
  hydra      MPICH's mpiexec.hydra, the same program
  hnp-ompi   hnp (each exchange), the program built with Open MPI (PMIx;
             needs an hnp with the pmi pmix component)
  ompi       Open MPI's mpirun.openmpi, the same program

  -n, --nodes LIST       node counts (default: $NODES)
  -p, --ppn P            processes per node (default: $PPN)
  -l, --launchers LIST   from the list above (default: all)
  -x, --exchanges LIST   hnp's exchange components (default: $EXCHANGES)
  -m, --model SEQ:REM    the agent's launch model in seconds
                         (default: $MODEL)
$(usage_common)
      --timeout S        seconds before a run is killed (default: grows
                         with the number of processes)
      --quick            smoke run: 16 nodes, one run
  -h, --help             this text

Lists are separated by spaces or commas. With hydra or ompi, every run
sees the names n1..nN in an /etc/hosts of its own (one 127.0.x.y address
a node, in a private mount namespace; host look-ups answered from that
file alone), so that no launcher asks a resolver for them; needs root.
Open MPI's ranks use ob1 over self, vader and TCP on loopback, under
either launcher; each simulated node has its own host name (the agent's
UTS namespace), as Open MPI's shared memory needs.
EOF
}

# Messages, options, checks, the runs, the remote shell, the node names;
# OUTDIR, PREFIX, HNP, AGENT and RUN_TIMEOUT (empty unless given).
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

while [ $# -gt 0 ]; do
    if common_option "$@"; then shift 2; continue; fi
    case $1 in
        -p | --ppn) need_arg "$@"; PPN=$2; shift ;;
        -x | --exchanges) need_arg "$@"; EXCHANGES=$(words "$2"); shift ;;
        -m | --model) need_arg "$@"; MODEL=$2; shift ;;
        --quick) NODES=16 RUNS=1 LARGE_RUNS=1 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

# --------------------------------------------------------- validation
# Checked before anything runs, so that a typo does not cost a long run.
check_nodes "$NODES"
for l in $LAUNCHERS; do
    [[ " $ALL_LAUNCHERS " == *" $l "* ]] || die "launcher '$l': one of $ALL_LAUNCHERS"
done
for x in $EXCHANGES; do
    case $x in gather_scatter | flood) ;; *) die "exchange '$x': gather_scatter or flood" ;; esac
done
[[ $MODEL != *[,\ ]* ]] || die "one model only: '$MODEL'"
check_models "$MODEL"
if ! is_uint "$PPN" || [ "$PPN" -lt 1 ]; then die "ppn '$PPN' is not a positive integer"; fi
check_runs
if [ -z "$LAUNCHERS" ] || [ -z "$NODES" ]; then
    die "nothing to run: empty list of launchers or nodes"
fi
if { has_launcher hnp || has_launcher hnp-ompi; } && [ -z "$EXCHANGES" ]; then
    die "hnp needs at least one exchange"
fi
has_mpich() { has_launcher hnp || has_launcher hydra; }
has_ompi() { has_launcher hnp-ompi || has_launcher ompi; }
# hydra and mpirun look the node names up.
needs_names() { has_launcher hydra || has_launcher ompi; }

# ------------------------------------------------------------ the tools
# hydra and mpirun alone need only the agent.
if has_launcher hnp || has_launcher hnp-ompi; then find_hnp; else find_hnp optional; fi
if has_mpich; then
    command -v mpicc.mpich >/dev/null || die "MPICH's mpicc.mpich is not installed (contrib/install-deps.sh)"
fi
if has_launcher hydra; then
    command -v mpiexec.hydra >/dev/null || die "mpiexec.hydra is not installed"
fi
if has_launcher hnp-ompi; then
    "$(dirname "$HNP")/hnp-info" --parsable 2>/dev/null | grep -q '^mca:pmi:pmix:' ||
        die "$HNP has no pmi pmix component (built without libpmix-dev): leave hnp-ompi out (-l)"
fi
# hydra and mpirun look the node names up: they must come from our own
# hosts file, never from an outside resolver (a mount namespace: root).
if needs_names && [ "$(id -u)" != 0 ]; then
    die "hydra and ompi need the node names in a mount namespace of their own: run as root, or -l hnp,hnp-ompi"
fi
pick_cpu_tool

max_nodes=$(max_of "$NODES")
# mpiexec holds a socket and the agent's three pipes for every proxy.
raise_fd_limit $((8 * max_nodes + 256)) "$max_nodes"

# UCX, under MPICH, sometimes finds "No such device" when hundreds of
# processes start on this machine at once; shared memory is all the
# simulated nodes need, and both launchers get the same transports.
export UCX_TLS=sm,self
# Open MPI's ranks, under either launcher: ob1 over shared memory within a
# node and TCP on loopback between nodes (every node is this machine), and
# yielding when idle (hundreds of ranks share this machine's cores; hnp
# would set it on nodes it sees oversubscribed, mpirun would not).
# mpirun passes OMPI_MCA_ variables on by itself; hnp is told with -x, as
# on a real cluster, where the environment does not travel.
OMPI_RANK_ENV=(OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
    OMPI_MCA_mpi_yield_when_idle=1)
OMPI_X=()
for v in "${OMPI_RANK_ENV[@]}"; do OMPI_X+=(-x "$v"); done

# ------------------------------------------------------------- output
# WORK holds the program, the agent wrapper and its call log.
open_bench
CSV=$OUTDIR/mpi.csv
SUMMARY=$OUTDIR/mpi-summary.txt

# The programs, built here so that they match the MPICH that hydra is
# and the Open MPI that mpirun is.
if has_mpich; then
    mpicc.mpich -O2 -o "$WORK/empty_mpich" "$HERE/empty_mpi.c" || die "mpicc.mpich failed on empty_mpi.c"
fi
if has_ompi; then
    ensure_openmpi
    mpicc.openmpi -O2 -o "$WORK/empty_ompi" "$HERE/empty_mpi.c" || die "mpicc.openmpi failed on empty_mpi.c"
fi

# The daemons each launcher really started are its calls of the remote
# shell, which the wrapper logs. hnp passes the agent's path to its
# daemons, so their own launches are logged too.
WRAPPER=$WORK/agent-wrapper
CALLS=$WORK/agent-calls.log
write_agent_wrapper "$WRAPPER" "$CALLS"

# Hydra and mpirun look the node names up: every run, hnp's too, in the
# namespace where they resolve.
if needs_names; then prepare_node_names "$max_nodes"; fi

# ----------------------------------------------------------------- plan
# One line a run: launcher exchange nodes run. Interleaved (every point
# once, then again), so that a burst of load from elsewhere spreads over
# the points instead of spoiling one.
plan=()
for ((run = 1; run <= $(max_of "$RUNS $LARGE_RUNS"); run++)); do
    for n in $NODES; do
        runs_at "$n" "$run" || continue
        for launcher in $LAUNCHERS; do
            case $launcher in
                hnp*) for x in $EXCHANGES; do plan+=("$launcher $x $n $run"); done ;;
                *) plan+=("$launcher - $n $run") ;;
            esac
        done
    done
done
total=${#plan[@]}

# -------------------------------------------------------------- one run
readonly CSV_HEADER=launcher,exchange,nodes,procs,run,wall_s,cpu_s,daemons,status

# run_one LAUNCHER EXCHANGE NODES RUN INDEX: one timed run, appended to
# mpi.csv; prints the progress line.
run_one() {
    local launcher=$1 exchange=$2 n=$3 run=$4 idx=$5
    local np=$((n * PPN)) tag log limit cpu daemons
    local cpu_out=$WORK/cpu.out hosts i
    local -a cmd
    tag=$(printf '%s-%s-n%04d-run%d' "$launcher" "${exchange/-/pmi}" "$n" "$run")
    log=$OUTDIR/logs/$tag.log
    # Every MPI process costs 0.1-0.2 s of CPU here and all of them share
    # this machine's cores: the limit grows with the processes, so that a
    # hang costs minutes but a loaded machine does not fail a good run.
    limit=${RUN_TIMEOUT:-$((60 + np / 4))}

    case $launcher in
        hnp | hnp-ompi)
            cmd=("$HNP" --mca plm_rsh_agent "$WRAPPER"
                --mca oob_tcp_if_include 127.0.0.1/8
                --mca exchange "$exchange" -N "$PPN" --host "n[1-$n]")
            if [ "$launcher" = hnp ]; then
                cmd+=("$WORK/empty_mpich")
            else
                cmd+=("${OMPI_X[@]}" "$WORK/empty_ompi")
            fi ;;
        hydra)
            hosts=""
            for ((i = 1; i <= n; i++)); do hosts+="n$i:$PPN,"; done
            cmd=(mpiexec.hydra -launcher ssh -launcher-exec "$WRAPPER"
                -hosts "${hosts%,}" -n "$np" "$WORK/empty_mpich") ;;
        ompi)
            hosts=$WORK/hosts-$n.ompi
            [ -s "$hosts" ] || seq -f "n%.0f slots=$PPN" 1 "$n" >"$hosts"
            # Its daemons spawn along its routing tree, as it comes.
            cmd=(env "${OMPI_RANK_ENV[@]}" mpirun.openmpi --allow-run-as-root
                --mca plm rsh --mca plm_rsh_agent "$WRAPPER"
                --mca oob_tcp_if_include lo
                --hostfile "$hosts" -N "$PPN" "$WORK/empty_ompi") ;;
    esac
    cmd=("${NAMES_CMD[@]}" "${cmd[@]}")
    count_cpu "$cpu_out"

    : >"$CALLS"
    LOG_ENV="UCX_TLS=$UCX_TLS ${OMPI_RANK_ENV[*]}" timed_run "$log" "$limit" "$idx" "${MODEL%%:*}" "${MODEL#*:}" "${cmd[@]}"
    daemons=$(wc -l <"$CALLS")
    cat "$CALLS" >"$OUTDIR/logs/$tag.calls"

    cpu=$(cpu_seconds "$cpu_out")
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$launcher" "$exchange" "$n" "$np" \
        "$run" "$RUN_WALL" "$cpu" "$daemons" "$RUN_STATUS" >>"$CSV"

    report_run "$idx" "$total" "$log" \
        "$(printf '%-5s %-14s N=%-4d (%d procs) run %d' "$launcher" "$exchange" "$n" "$np" "$run")" \
        ", $cpu s CPU, $daemons daemons"
}

# ------------------------------------------------------------- the runs
say "hnp: ${HNP:-none}; agent: $AGENT; model SEQ:REM $MODEL s; CPU by $CPU_TOOL"
say "output: $OUTDIR"
say "$total runs: nodes {$NODES} × $PPN processes, launchers {$LAUNCHERS}," \
    "exchanges {$EXCHANGES}, $RUNS runs a point ($LARGE_RUNS from $LARGE_FROM nodes)"
echo "$CSV_HEADER" >"$CSV"
for ((i = 0; i < total; i++)); do
    # shellcheck disable=SC2086 # the plan line is four words on purpose
    run_one ${plan[i]} $((i + 1))
done

# --------------------------------------------------------- the summary
# Per point: runs ok/total and the medians of the successful runs.
awk -F, "$AWK_STATS"'
function fmt(v, f) { return v == "NA" ? v : sprintf(f, v) }
NR == 1 { next }
{
    k = $1 (($1 ~ /^hnp/) ? " " $2 : "") SUBSEP $3
    if (!(k in tot)) { order[++nk] = k; procs[k] = $4 }
    tot[k]++
    if ($9 != "ok") next
    ok[k]++; wall[k] = wall[k] " " $6; dmn[k] = dmn[k] " " $8
    if ($7 != "NA") cpu[k] = cpu[k] " " $7
}
END {
    printf "%-18s %5s %6s %6s %10s %10s %8s\n", "launcher", "nodes", "procs", "runs", "wall_s", "cpu_s", "daemons"
    for (i = 1; i <= nk; i++) {
        k = order[i]; split(k, f, SUBSEP)
        printf "%-18s %5d %6d %6s %10s %10s %8s\n", f[1], f[2], procs[k], ok[k] + 0 "/" tot[k],
            fmt(median(wall[k]), "%.3f"), fmt(median(cpu[k]), "%.2f"), median(dmn[k])
        med[k] = median(wall[k])
    }
    print "(medians over the successful runs; cpu_s: every process of the run, on all cores)"
    # Each hnp beside the launcher of its MPI: its best exchange, and how
    # much of the peer'"'"'s wall time it takes (below 1: hnp is ahead).
    np = split("hnp hydra hnp-ompi ompi", pair, " ")
    header = 0
    for (i = 1; i <= nk; i++) {
        split(order[i], f, SUBSEP)
        if (f[1] != "hydra" && f[1] != "ompi") continue
        peer = order[i]; mine = f[1] == "hydra" ? "hnp" : "hnp-ompi"
        best = "NA"; bx = ""
        for (j = 1; j <= nk; j++) {
            split(order[j], g, SUBSEP)
            if (g[2] != f[2] || g[1] !~ ("^" mine " ") || med[order[j]] == "NA") continue
            if (best == "NA" || med[order[j]] < best) { best = med[order[j]]; bx = g[1] }
        }
        if (!header++) printf "\nhnp beside its peer (wall s, medians):\n"
        printf "  N=%-4d %-5s %8s   %-18s %8s   ratio %s\n", f[2], f[1], fmt(med[peer], "%.3f"),
            bx == "" ? mine : bx, fmt(best, "%.3f"),
            (best == "NA" || med[peer] == "NA" || med[peer] == 0) ? "NA" : sprintf("%.2f", best / med[peer])
    }
}' "$CSV" | tee "$SUMMARY"

say_done "$CSV"
say "results: $CSV, $SUMMARY, logs in $OUTDIR/logs"
