#!/usr/bin/env bash
# mpi-bench.sh: the second testbed of paper 002 on one machine. It times an
# empty MPI program (empty_mpi.c: MPI_Init, MPI_Finalize) on N simulated
# nodes × P processes, started by hnp (each exchange component) and by
# MPICH's own mpiexec.hydra, both through hnp-local-agent as the remote
# shell under the same launch model. It writes mpi.csv (one line a run)
# and mpi-summary.txt (medians). See README.md beside this file; --help
# lists the options. Needs root when hydra runs: hydra resolves the node
# names, so they go into /etc/hosts for the duration of the benchmark.
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
LAUNCHERS="hnp hydra"
EXCHANGES="gather_scatter flood"
MODEL=0.010:0.050
RUNS=2
LARGE_RUNS=1
LARGE_FROM=256
OUTDIR=""
PREFIX=""
HNP=""
AGENT=""
RUN_TIMEOUT=""
HOSTS_FILE=/etc/hosts
readonly BLOCK_BEGIN="# hnp-bench begin" BLOCK_END="# hnp-bench end"

usage() {
    cat <<EOF
usage: $ME [options]

Times an empty MPI program on N simulated nodes × P processes, started by
hnp (each exchange) and by mpiexec.hydra, both with hnp-local-agent as ssh.

  -n, --nodes LIST       node counts (default: $NODES)
  -p, --ppn P            processes per node (default: $PPN)
  -l, --launchers LIST   hnp and/or hydra (default: $LAUNCHERS)
  -x, --exchanges LIST   hnp's exchange components (default: $EXCHANGES)
  -m, --model SEQ:REM    the agent's launch model in seconds
                         (default: $MODEL)
  -r, --runs R           runs per point (default: $RUNS)
      --large-runs R     runs per point from --large-from nodes up
                         (default: $LARGE_RUNS)
      --large-from N     where --large-runs starts (default: $LARGE_FROM)
  -o, --outdir DIR       where results go (default: ./mpi-bench-DATE)
      --prefix DIR       an installed hnp: DIR/bin/hnp and
                         DIR/libexec/hnp/hnp-local-agent
      --hnp PATH         the hnp to run (default: from --prefix, else PATH)
      --agent PATH       hnp-local-agent (default: beside the hnp install)
      --timeout S        seconds before a run is killed (default: grows
                         with the number of processes)
      --quick            smoke run: 16 nodes, one run
  -h, --help             this text

Lists are separated by spaces or commas. With hydra, the names n1..nN are
added to /etc/hosts (a block between "$BLOCK_BEGIN" and
"$BLOCK_END", one 127.0.x.y address a node) and removed at the end.
EOF
}

# say, die, words, need_arg, marked_pids, sweep
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

while [ $# -gt 0 ]; do
    case $1 in
        -n | --nodes) need_arg "$@"; NODES=$(words "$2"); shift ;;
        -p | --ppn) need_arg "$@"; PPN=$2; shift ;;
        -l | --launchers) need_arg "$@"; LAUNCHERS=$(words "$2"); shift ;;
        -x | --exchanges) need_arg "$@"; EXCHANGES=$(words "$2"); shift ;;
        -m | --model) need_arg "$@"; MODEL=$2; shift ;;
        -r | --runs) need_arg "$@"; RUNS=$2; shift ;;
        --large-runs) need_arg "$@"; LARGE_RUNS=$2; shift ;;
        --large-from) need_arg "$@"; LARGE_FROM=$2; shift ;;
        -o | --outdir) need_arg "$@"; OUTDIR=$2; shift ;;
        --prefix) need_arg "$@"; PREFIX=$2; shift ;;
        --hnp) need_arg "$@"; HNP=$2; shift ;;
        --agent) need_arg "$@"; AGENT=$2; shift ;;
        --timeout) need_arg "$@"; RUN_TIMEOUT=$2; shift ;;
        --quick) NODES=16 RUNS=1 LARGE_RUNS=1 ;;
        -h | --help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

# --------------------------------------------------------- validation
# Checked before anything runs, so that a typo does not cost a long run.
check_nodes "$NODES"
for l in $LAUNCHERS; do
    case $l in hnp | hydra) ;; *) die "launcher '$l': hnp or hydra" ;; esac
done
for x in $EXCHANGES; do
    case $x in gather_scatter | flood) ;; *) die "exchange '$x': gather_scatter or flood" ;; esac
done
[[ $MODEL != *[,\ ]* ]] || die "one model only: '$MODEL'"
check_models "$MODEL"
for v in PPN RUNS LARGE_RUNS LARGE_FROM; do
    is_uint "${!v}" || die "${v,,} '${!v}' is not an integer"
done
if [ "$PPN" -lt 1 ] || [ "$RUNS" -lt 1 ] || [ "$LARGE_RUNS" -lt 1 ]; then
    die "--ppn and the runs must be at least 1"
fi
[ -z "$RUN_TIMEOUT" ] || is_uint "$RUN_TIMEOUT" || die "timeout '$RUN_TIMEOUT' is not whole seconds"
if [ -z "$LAUNCHERS" ] || [ -z "$NODES" ]; then
    die "nothing to run: empty list of launchers or nodes"
fi
# One line of words: the lists as they print and as they are searched.
flat() { printf '%s' "$(tr -s ' \n' '  ' <<<"$1" | sed 's/^ //; s/ $//')"; }
NODES=$(flat "$NODES") LAUNCHERS=$(flat "$LAUNCHERS") EXCHANGES=$(flat "$EXCHANGES")
has_launcher() { [[ " $LAUNCHERS " == *" $1 "* ]]; }
if has_launcher hnp && [ -z "$EXCHANGES" ]; then die "hnp needs at least one exchange"; fi

# ------------------------------------------------------------ the tools
if [ -z "$HNP" ]; then
    if [ -n "$PREFIX" ]; then HNP=$PREFIX/bin/hnp; else HNP=$(command -v hnp || true); fi
fi
if has_launcher hnp; then
    if [ -z "$HNP" ] || [ ! -x "$HNP" ]; then die "no hnp (give --prefix or --hnp)"; fi
fi
if [ -z "$AGENT" ]; then
    # The installed agent lives in $pkglibexecdir, beside bin/ in the prefix.
    base=${PREFIX:-$(cd "$(dirname "${HNP:-.}")/.." && pwd)}
    AGENT=$base/libexec/hnp/hnp-local-agent
fi
[ -x "$AGENT" ] || die "no hnp-local-agent at $AGENT (give --agent)"
command -v mpicc >/dev/null || die "MPICH's mpicc is not installed (contrib/install-deps.sh)"
if has_launcher hydra; then
    command -v mpiexec.hydra >/dev/null || die "mpiexec.hydra is not installed"
    # Hydra looks the node names up: they must come from our block, never
    # from an outside resolver, so the block has to be writable.
    [ -w "$HOSTS_FILE" ] || die "hydra needs $HOSTS_FILE writable (run as root) or -l hnp"
fi
# The whole command tree's CPU: perf follows every fork, the daemons that
# leave the session included, where time(1) sees only the reaped children.
if perf_works; then
    CPU_TOOL=perf
else
    CPU_TOOL=rusage
    [ -x /usr/bin/time ] || die "neither perf stat nor /usr/bin/time works here"
    say "perf stat does not work here: cpu_s from /usr/bin/time misses orphaned daemons"
fi

max_nodes=$(max_of "$NODES")
# mpiexec holds a socket and the agent's three pipes for every proxy.
raise_fd_limit $((8 * max_nodes + 256)) "$max_nodes"

# UCX, under MPICH, sometimes finds "No such device" when hundreds of
# processes start on this machine at once; shared memory is all the
# simulated nodes need, and both launchers get the same transports.
export UCX_TLS=sm,self

# ------------------------------------------------------------- output
OUTDIR=${OUTDIR:-./mpi-bench-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUTDIR/logs"
OUTDIR=$(cd "$OUTDIR" && pwd)
CSV=$OUTDIR/mpi.csv
SUMMARY=$OUTDIR/mpi-summary.txt

# Private: the agent's lock files (another user's launches must not share
# our "head" lock), the program, the agent wrapper and its call log.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hnp-mpi-bench.XXXXXX")
chmod 700 "$WORK"

# Every process of a run inherits HNP_BENCH_RUN (the agent passes the
# environment on, to hnp's daemons and hydra's proxies alike), so this is
# how stragglers are found, by pid, without touching anyone else's.
MARK_PREFIX="hnp-mpi-bench-$$"
CURRENT_PGID=""
HOSTS_ADDED=0


# The hosts file without our block. Rewritten in place (cat, not mv):
# in a container /etc/hosts is often a bind mount that cannot be replaced.
remove_hosts_block() {
    local tmp
    tmp=$(mktemp "$WORK/hosts.XXXXXX")
    awk -v b="$BLOCK_BEGIN" -v e="$BLOCK_END" '
        $0 == b { skip = 1; next }
        skip && $0 == e { skip = 0; next }
        !skip' "$HOSTS_FILE" >"$tmp"
    cat "$tmp" >"$HOSTS_FILE"
    rm -f "$tmp"
}

# Called by cleanup (bench-lib.sh) before it removes WORK.
cleanup_more() {
    if [ "$HOSTS_ADDED" = 1 ]; then
        remove_hosts_block && say "removed the node names from $HOSTS_FILE" 2>/dev/null
    fi
}
trap_cleanup

# The program, built here so that it matches the MPICH that hydra is.
mpicc -O2 -o "$WORK/empty_mpi" "$HERE/empty_mpi.c" || die "mpicc failed on empty_mpi.c"

# The daemons each launcher really started are its calls of the remote
# shell: the wrapper logs one line a call (O_APPEND, so concurrent calls
# from several daemons do not mix) and then is the agent. hnp passes the
# agent's path to its daemons, so their own launches are logged too.
WRAPPER=$WORK/agent-wrapper
CALLS=$WORK/agent-calls.log
cat >"$WRAPPER" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>'$CALLS'
exec '$AGENT' "\$@"
EOF
chmod 755 "$WRAPPER"

# node_addr I: node i's loopback address, 127.0.0.3 upwards (127.0.0.1 is
# localhost already, and hydra must not take a node for this machine).
node_addr() { printf '127.0.%d.%d' $(($1 / 250)) $(($1 % 250 + 2)); }

if has_launcher hydra; then
    # A block left by a run killed with SIGKILL is ours by its markers.
    if grep -qxF "$BLOCK_BEGIN" "$HOSTS_FILE"; then
        say "removing a stale node block from $HOSTS_FILE"
        remove_hosts_block
    fi
    HOSTS_ADDED=1
    {
        echo "$BLOCK_BEGIN"
        for ((i = 1; i <= max_nodes; i++)); do printf '%s n%d\n' "$(node_addr "$i")" "$i"; done
        echo "$BLOCK_END"
    } >>"$HOSTS_FILE"
    # The resolver must answer from the block (files come before dns in
    # nsswitch): otherwise hydra would ask the outside for "n1".
    for i in 1 "$max_nodes"; do
        got=$(getent hosts "n$i" | awk '{ print $1; exit }')
        [ "$got" = "$(node_addr "$i")" ] ||
            die "n$i resolves to '${got:-nothing}', not $(node_addr "$i"): check /etc/nsswitch.conf"
    done
    # The host name hydra's proxies call back to must be loopback too.
    got=$(getent hosts "$(hostname)" | awk '{ print $1; exit }')
    [[ $got == 127.* ]] || die "this machine's name $(hostname) resolves to '${got:-nothing}', not loopback"
fi

# ----------------------------------------------------------------- plan
# One line a run: launcher exchange nodes run. Interleaved (every point
# once, then again), so that a burst of load from elsewhere spreads over
# the points instead of spoiling one.
plan=()
max_runs=$RUNS
[ "$LARGE_RUNS" -gt "$max_runs" ] && max_runs=$LARGE_RUNS
for ((run = 1; run <= max_runs; run++)); do
    for n in $NODES; do
        runs=$RUNS
        [ "$n" -ge "$LARGE_FROM" ] && runs=$LARGE_RUNS
        [ "$run" -le "$runs" ] || continue
        for launcher in $LAUNCHERS; do
            if [ "$launcher" = hnp ]; then
                for x in $EXCHANGES; do plan+=("hnp $x $n $run"); done
            else
                plan+=("hydra - $n $run")
            fi
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

    if [ "$launcher" = hnp ]; then
        cmd=("$HNP" --mca plm_rsh_agent "$WRAPPER"
            --mca oob_tcp_if_include 127.0.0.1/8
            --mca exchange "$exchange"
            -N "$PPN" --host "n[1-$n]" "$WORK/empty_mpi")
    else
        hosts=""
        for ((i = 1; i <= n; i++)); do hosts+="n$i:$PPN,"; done
        cmd=(mpiexec.hydra -launcher ssh -launcher-exec "$WRAPPER"
            -hosts "${hosts%,}" -n "$np" "$WORK/empty_mpi")
    fi
    rm -f "$cpu_out"
    if [ "$CPU_TOOL" = perf ]; then
        cmd=(perf stat -x ',' -e task-clock -o "$cpu_out" -- "${cmd[@]}")
    else
        cmd=(/usr/bin/time -f '%U %S' -o "$cpu_out" -- "${cmd[@]}")
    fi

    : >"$CALLS"
    LOG_ENV="UCX_TLS=$UCX_TLS" timed_run "$log" "$limit" "$idx" "${MODEL%%:*}" "${MODEL#*:}" "${cmd[@]}"
    daemons=$(wc -l <"$CALLS")
    cat "$CALLS" >"$OUTDIR/logs/$tag.calls"

    cpu=NA
    if [ -s "$cpu_out" ]; then
        if [ "$CPU_TOOL" = perf ]; then
            cpu=$(task_clock_ms "$cpu_out" | awk '$1 != "NA" { printf "%.2f", $1 / 1000 }')
        else
            cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.2f", $1 + $2 }' "$cpu_out")
        fi
        cpu=${cpu:-NA}
    fi
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$launcher" "$exchange" "$n" "$np" \
        "$run" "$RUN_WALL" "$cpu" "$daemons" "$RUN_STATUS" >>"$CSV"

    printf '[%*d/%d] %-5s %-14s N=%-4d (%d procs) run %d: %s, %s s CPU, %d daemons' \
        "${#total}" "$idx" "$total" "$launcher" "$exchange" "$n" "$np" "$run" \
        "$([ "$RUN_STATUS" = ok ] && echo "$RUN_WALL s" || echo "$RUN_STATUS (exit $RUN_RC)")" \
        "$cpu" "$daemons"
    [ "$RUN_LEFTOVER" = 0 ] || printf ', %s leftover processes killed' "$RUN_LEFTOVER"
    printf '\n'
    if [ "$RUN_STATUS" != ok ]; then
        printf '    last lines of %s:\n' "$log"
        tail -n 3 "$log" | sed 's/^/    | /'
    fi
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
    k = $1 (($1 == "hnp") ? " " $2 : "") SUBSEP $3
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
    }
    print "(medians over the successful runs; cpu_s: every process of the run, on all cores)"
}' "$CSV" | tee "$SUMMARY"

failures=$(awk -F, 'NR > 1 && $9 != "ok"' "$CSV" | wc -l)
say "done: $(($(wc -l <"$CSV") - 1)) runs, $failures failed"
say "results: $CSV, $SUMMARY, logs in $OUTDIR/logs"
