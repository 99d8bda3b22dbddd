#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# spawn-bench.sh: MPI_Comm_spawn of Open MPI programs under hnp and under
# Open MPI's own mpirun.openmpi, on the same simulated nodes and agent.
# The parent job (one process a node, spawn_mpi.c) spawns 1, 16 and 64
# children; its rank 0 sends each a message and gets it back, and all
# disconnect. Per run: the launcher's wall time, the spawn's own time in
# the parent (MPI_Comm_spawn to the end of MPI_Comm_disconnect, and to
# the return of MPI_Comm_spawn), and for hnp its share of the spawn from
# --timing (the request received until the children started, and until
# the PMIx connect of both jobs was done: what follows is Open MPI's).
# The launchers alternate (hnp, mpirun, hnp, ...) so that load from
# elsewhere spreads over both. Writes spawn.csv and
# spawn-summary.txt (medians). Needs root: mpirun looks the node names up,
# which every run finds in a private /etc/hosts (a mount namespace).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE ME=spawn-bench

NODES=16
CHILDREN="1 16 64"
ALL_LAUNCHERS="hnp ompi"
LAUNCHERS=$ALL_LAUNCHERS
MODEL=0.010:0.050
RUNS=5
LARGE_RUNS=5
LARGE_FROM=100000
APART=no

usage() {
    cat <<EOF
usage: $ME [options]

Times Open MPI's MPI_Comm_spawn of C children from a parent of one process
on each of N simulated nodes (hnp-local-agent as ssh), started by

  hnp    hnp, through its PMIx server (with --timing: its own share)
  ompi   Open MPI's mpirun.openmpi

  -n, --nodes N          simulated nodes (default: $NODES)
  -c, --children LIST    children a spawn (default: $CHILDREN)
  -l, --launchers LIST   from the list above (default: all)
  -m, --model SEQ:REM    the agent's launch model in seconds
                         (default: $MODEL)
  -a, --apart            the parent on the first half of the nodes (one
                         process each), the children on the other half:
                         no process shares a node with a peer of the
                         other job (hnp with daemons on every node)
$(usage_common)
      --timeout S        seconds before a run is killed (default: 120)
  -h, --help             this text

Each node has 1 + C/N slots (the parent's process and its share of the
children), in a hostfile for mpirun and --host for hnp. With --apart the
first N/2 nodes have 1 slot and the others C/(N - N/2).
EOF
}

# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

while [ $# -gt 0 ]; do
    if common_option "$@"; then shift 2; continue; fi
    case $1 in
        -c | --children) need_arg "$@"; CHILDREN=$(words "$2"); shift ;;
        -m | --model) need_arg "$@"; MODEL=$2; shift ;;
        -a | --apart) APART=yes; shift; continue ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

[[ $NODES =~ ^[0-9]+$ ]] && [ "$NODES" -ge 1 ] || die "--nodes '$NODES': one positive integer"
[ "$APART" = no ] || [ "$NODES" -ge 2 ] || die "--apart needs at least 2 nodes"
for c in $CHILDREN; do
    is_uint "$c" && [ "$c" -ge 1 ] || die "children '$c' is not a positive integer"
done
for l in $LAUNCHERS; do
    [[ " $ALL_LAUNCHERS " == *" $l "* ]] || die "launcher '$l': one of $ALL_LAUNCHERS"
done
check_models "$MODEL"
check_runs
if has_launcher hnp; then find_hnp; else find_hnp optional; fi
if has_launcher hnp; then
    "$(dirname "$HNP")/hnp-info" --parsable 2>/dev/null | grep -q '^mca:pmi:pmix:' ||
        die "$HNP has no pmi pmix component (built without libpmix-dev)"
fi
if has_launcher ompi && [ "$(id -u)" != 0 ]; then
    die "mpirun needs the node names in a mount namespace of its own: run as root, or -l hnp"
fi
raise_fd_limit $((8 * NODES + 1024)) "$NODES"

# Open MPI's ranks under either launcher: ob1 over shared memory and TCP
# on loopback, yielding when idle (the machine's cores are shared by all
# the simulated nodes). mpirun passes OMPI_MCA_ variables on by itself;
# hnp is told with -x, as on a real cluster.
OMPI_RANK_ENV=(OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
    OMPI_MCA_mpi_yield_when_idle=1)
OMPI_X=()
for v in "${OMPI_RANK_ENV[@]}"; do OMPI_X+=(-x "$v"); done

open_bench
CSV=$OUTDIR/spawn.csv
SUMMARY=$OUTDIR/spawn-summary.txt
ensure_openmpi
mpicc.openmpi -O2 -o "$WORK/spawn_mpi" "$HERE/spawn_mpi.c" || die "mpicc.openmpi failed on spawn_mpi.c"
WRAPPER=$WORK/agent-wrapper
CALLS=$WORK/agent-calls.log
write_agent_wrapper "$WRAPPER" "$CALLS"
if has_launcher ompi; then prepare_node_names "$NODES"; fi

plan=()
for ((run = 1; run <= RUNS; run++)); do
    for c in $CHILDREN; do
        for launcher in $LAUNCHERS; do plan+=("$launcher $c $run"); done
    done
done
total=${#plan[@]}

# run_one LAUNCHER CHILDREN RUN INDEX
run_one() {
    local launcher=$1 c=$2 run=$3 idx=$4 slots tag log hosts spawn_s share
    local spawned_s connected
    local -a cmd
    slots=$((1 + (c + NODES - 1) / NODES))
    tag=$(printf '%s-c%03d-run%d' "$launcher" "$c" "$run")
    log=$OUTDIR/logs/$tag.log
    # where the parent runs, and how: hnp's arguments, mpirun's hostfile
    local half=$((NODES / 2)) hosts_arg
    local -a place_hnp place_ompi
    if [ "$APART" = yes ]; then
        slots=$(((c + NODES - half - 1) / (NODES - half)))
        hosts_arg="n[1-$half]:1,n[$((half + 1))-$NODES]:$slots"
        place_hnp=(--mca plm_base_daemons_on_all_nodes 1 -n "$half")
        place_ompi=(-np "$half")
    else
        hosts_arg="n[1-$NODES]:$slots"
        place_hnp=(-N 1)
        place_ompi=(-N 1)
    fi
    case $launcher in
        hnp)
            cmd=("$HNP" --mca plm_rsh_agent "$WRAPPER" --mca oob_tcp_if_include 127.0.0.1/8
                --timing "${place_hnp[@]}" --host "$hosts_arg" "${OMPI_X[@]}" "$WORK/spawn_mpi" "$c") ;;
        ompi)
            hosts=$WORK/hosts-$APART-$slots.ompi
            if [ ! -s "$hosts" ]; then
                if [ "$APART" = yes ]; then
                    seq -f "n%.0f slots=1" 1 "$half"
                    seq -f "n%.0f slots=$slots" $((half + 1)) "$NODES"
                else
                    seq -f "n%.0f slots=$slots" 1 "$NODES"
                fi >"$hosts"
            fi
            cmd=(env "${OMPI_RANK_ENV[@]}" mpirun.openmpi --allow-run-as-root
                --mca plm rsh --mca plm_rsh_agent "$WRAPPER" --mca oob_tcp_if_include lo
                --hostfile "$hosts" "${place_ompi[@]}" "$WORK/spawn_mpi" "$c") ;;
    esac
    cmd=("${NAMES_CMD[@]}" "${cmd[@]}")
    : >"$CALLS"
    LOG_ENV="${OMPI_RANK_ENV[*]}" timed_run "$log" "${RUN_TIMEOUT:-120}" "$idx" \
        "${MODEL%%:*}" "${MODEL#*:}" "${cmd[@]}"
    spawn_s=$(awk '$1 == "spawn_s" { print $2 }' "$log")
    spawned_s=$(awk '$1 == "spawned_s" { print $2 }' "$log")
    grep -q "^answers $c of $c\$" "$log" || { [ "$RUN_STATUS" != ok ] || RUN_STATUS=wrong; }
    # hnp's line: "... since then, children started S s, connected ..."
    share=$(sed -n 's/^hnp: timing of the spawn .* children started \([0-9.]*\) s.*/\1/p' "$log" | head -1)
    connected=$(sed -n 's/^hnp: timing of the spawn .* connected \([0-9.]*\) s$/\1/p' "$log" | head -1)
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$launcher" "$c" "$run" "$RUN_WALL" "${spawn_s:-NA}" \
        "${share:-NA}" "$RUN_STATUS" "${spawned_s:-NA}" "${connected:-NA}" >>"$CSV"
    report_run "$idx" "$total" "$log" \
        "$(printf '%-5s %3d children run %d' "$launcher" "$c" "$run")" \
        ", spawn ${spawn_s:-NA} s${share:+, hnp started them in $share s}"
}

say "hnp: ${HNP:-none}; agent: $AGENT; model SEQ:REM $MODEL s; $NODES nodes"
say "output: $OUTDIR"
echo "launcher,children,run,wall_s,spawn_s,hnp_started_s,status,spawned_s,hnp_connected_s" >"$CSV"
for ((i = 0; i < total; i++)); do
    # shellcheck disable=SC2086 # three words on purpose
    run_one ${plan[i]} $((i + 1))
done

awk -F, "$AWK_STATS"'
NR == 1 { next }
{
    k = $1 SUBSEP $2
    if (!(k in tot)) order[++nk] = k
    tot[k]++
    if ($7 != "ok") next
    ok[k]++; wall[k] = wall[k] " " $4; sp[k] = sp[k] " " $5
    if ($6 != "NA") own[k] = own[k] " " $6
    if ($8 != "NA") ret[k] = ret[k] " " $8
    if ($9 != "NA") con[k] = con[k] " " $9
}
END {
    printf "%-8s %8s %6s %9s %9s %9s %12s %7s %13s\n", "launcher", "children", "runs", "wall_s", "spawn_s",
        "spawned_s", "hnp_started", "share", "hnp_connected"
    for (i = 1; i <= nk; i++) {
        k = order[i]; split(k, f, SUBSEP)
        w = median(wall[k]); s = median(sp[k]); o = median(own[k]); r = median(ret[k]); c = median(con[k])
        printf "%-8s %8d %6s %9s %9s %9s %12s %7s %13s\n", f[1], f[2], ok[k] + 0 "/" tot[k],
            w == "NA" ? w : sprintf("%.3f", w), s == "NA" ? s : sprintf("%.4f", s),
            r == "NA" ? r : sprintf("%.4f", r), o == "NA" ? "-" : sprintf("%.4f", o),
            (o == "NA" || s == "NA" || s == 0) ? "-" : sprintf("%.1f%%", 100 * o / s),
            c == "NA" ? "-" : sprintf("%.4f", c)
    }
    print "(medians over the successful runs; spawn_s: MPI_Comm_spawn to the end of"
    print " MPI_Comm_disconnect in the parent; spawned_s: to the return of"
    print " MPI_Comm_spawn; hnp_started: hnp'"'"'s request received to children started,"
    print " from --timing; share: hnp_started / spawn_s; hnp_connected: the request"
    print " received until the PMIx connect of both jobs was done; what spawned_s"
    print " has beyond it is Open MPI'"'"'s own: the jobs agree on a communicator id)"
}' "$CSV" | tee "$SUMMARY"
say_done "$CSV"
say "results: $CSV, $SUMMARY, logs in $OUTDIR/logs"
