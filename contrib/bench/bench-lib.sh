# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by the benchmark drivers: messages, options and checks, running
# a run, finding and ending its processes, the statistics of the
# analyses, the remote shell of the runs and the names of the simulated
# nodes. The driver sets ME (its name for messages) and defines usage.

say() { printf '%s: %s\n' "$ME" "$*"; }
die() {
    printf '%s: error: %s\n' "$ME" "$*" >&2
    exit 1
}

# Lists may come comma-separated from the command line: one line of words,
# single blanks, as they print and as they are searched.
words() { tr -s ', \t\n' '    ' <<<"$1" | sed 's/^ //; s/ $//'; }

# has_launcher NAME: is NAME in LAUNCHERS?
has_launcher() { [[ " $LAUNCHERS " == *" $1 "* ]]; }

need_arg() { [ $# -ge 2 ] || die "option $1 needs a value (see --help)"; }

# Every process of a run inherits HNPBENCH_RUN (the agent passes the
# environment on, to daemons and proxies alike, and a daemon to the
# programs it starts: it drops only HNP_* variables, hence the name), so
# stragglers are found by pid, without touching anyone else's processes.

marked_pids() { # REGEX: pids whose environment has HNPBENCH_RUN=REGEX
    local f
    { grep -lzE -- "^HNPBENCH_RUN=$1\$" /proc/[0-9]*/environ 2>/dev/null || true; } |
        while read -r f; do
            f=${f#/proc/}
            printf '%s\n' "${f%/environ}"
        done
}

# sweep REGEX GRACE: wait up to GRACE seconds for the run's processes to
# end by themselves, then TERM and KILL the rest, each by its pid. Prints
# how many had to be killed.
sweep() {
    local regex=$1 grace=$2 pids p i killed=0
    for ((i = 0; i < grace * 10; i++)); do
        pids=$(marked_pids "$regex")
        # "return 0", not "return": from the EXIT trap a bare return would
        # give the status the script is exiting with, and set -e would stop
        # the clean-up half way.
        if [ -z "$pids" ]; then
            echo 0
            return 0
        fi
        sleep 0.1
    done
    pids=$(marked_pids "$regex")
    for p in $pids; do kill -TERM "$p" 2>/dev/null && killed=$((killed + 1)); done
    [ -n "$pids" ] && sleep 0.5
    for p in $(marked_pids "$regex"); do kill -KILL "$p" 2>/dev/null || true; done
    echo "$killed"
}

# ------------------------------------------------------------- checks
# Checked before anything runs, so that a typo does not cost a long run.
is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
is_secs() { [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]]; }

check_nodes() { # LIST: positive node counts
    local n
    for n in $1; do
        if ! is_uint "$n" || [ "$n" -lt 1 ]; then
            die "node count '$n' is not a positive integer"
        fi
    done
}

check_models() { # LIST: launch models SEQ:REM in seconds
    local m
    for m in $1; do
        if [[ $m != *:* ]] || ! is_secs "${m%%:*}" || ! is_secs "${m#*:}"; then
            die "model '$m' is not SEQ:REM in seconds (e.g. 0.010:0.050)"
        fi
    done
}

max_of() { # LIST: the largest number in it
    local x max=0
    for x in $1; do [ "$x" -gt "$max" ] && max=$x; done
    echo "$max"
}

# find_hnp [optional]: HNP and AGENT made absolute and checked, from
# --hnp, --prefix or PATH, and --agent or the installed layout. With
# "optional" (a run that starts no hnp) and --agent given, hnp is not
# looked for: it would only have said where the agent is.
find_hnp() {
    if [ "${1:-}" != optional ] || [ -z "$AGENT" ]; then
        find_hnp_itself
    fi
    [ -x "$AGENT" ] || die "no hnp-local-agent at $AGENT: give --agent"
    AGENT=$(cd "$(dirname "$AGENT")" && pwd)/$(basename "$AGENT")
}
find_hnp_itself() {
    if [ -z "$HNP" ]; then
        if [ -n "$PREFIX" ]; then
            HNP=$PREFIX/bin/hnp
        else
            HNP=$(command -v hnp) || die "no hnp in PATH: give --prefix or --hnp"
        fi
    fi
    [ -x "$HNP" ] || die "$HNP is not an executable hnp"
    HNP=$(cd "$(dirname "$HNP")" && pwd)/$(basename "$HNP")
    # The installed layout puts the agent in $pkglibexecdir, next to bin/.
    [ -n "$AGENT" ] || AGENT=$(dirname "$(dirname "$HNP")")/libexec/hnp/hnp-local-agent
    "$HNP" --version >/dev/null 2>&1 || die "$HNP --version fails: is the install complete?"
}

# The plot is part of the result; Debian's gnuplot-nox has the png and
# pngcairo terminals without pulling in X.
ensure_gnuplot() {
    command -v gnuplot >/dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        say "gnuplot is missing: installing gnuplot-nox with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null ||
            say "apt-get install gnuplot-nox failed: no plot this time"
    else
        say "gnuplot is missing (apt-get install gnuplot-nox as root): no plot"
    fi
}

check_nice() { # NICE: dies unless runs can have that niceness
    [ -z "$1" ] && return 0
    [[ $1 =~ ^-?[0-9]+$ ]] || die "nice '$1' is not an integer"
    # GNU nice runs the command anyway when it may not lower the niceness.
    if [ "$1" -lt 0 ] && [ "$(nice -n "$1" nice 2>/dev/null)" -ge "$(nice)" ]; then
        die "cannot run at niceness $1 here (negative needs root)"
    fi
}

# perf stat follows every fork, the daemons that leave the session
# included: the CPU of a run's whole process tree.
perf_works() { perf stat -x ',' -e task-clock -o /dev/null true 2>/dev/null; }
task_clock_ms() { # FILE: the CPU milliseconds perf stat wrote there, or NA
    local ms=""
    [ -s "$1" ] && ms=$(awk -F, '$3 == "task-clock" { printf "%.1f", $1 }' "$1")
    echo "${ms:-NA}"
}

# raise_fd_limit WANT NODES: a low descriptor limit would fail the largest
# runs (connections, agents' pipes), not slow them.
raise_fd_limit() {
    local hard
    if [ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge "$1" ]; then
        return 0
    fi
    hard=$(ulimit -Hn)
    if [ "$hard" = unlimited ] || [ "$hard" -ge "$1" ]; then
        ulimit -n "$1"
    else
        ulimit -n "$hard"
        say "warning: only $hard file descriptors; runs at $2 nodes may fail"
    fi
}

# ------------------------------------------------------------- the runs
# Set up by open_bench: WORK, MARK_PREFIX (the start of the runs'
# HNPBENCH_RUN), CURRENT_PGID and OUTDIR.
cleanup() {
    local n
    # Finish cleaning up even if signalled again, or if whatever read our
    # output (a pipe to tee, say) was killed by the same Ctrl-C.
    trap '' INT TERM PIPE
    trap - EXIT
    # Best effort from here: one failing step must not skip the others.
    set +e
    # The run in progress: its process group (timeout, hnp, agents)...
    if [ -n "$CURRENT_PGID" ]; then
        kill -TERM -- "-$CURRENT_PGID" 2>/dev/null || true
    fi
    # ...and whatever left the group (each agent has a group of its own, and
    # a daemon that detaches from its agent calls setsid).
    n=$(sweep "$MARK_PREFIX\\.[0-9]+" 3)
    [ "$n" = 0 ] || say "killed $n leftover processes" 2>/dev/null || true
    rm -rf "$WORK"
}
trap_cleanup() {
    trap cleanup EXIT
    trap 'say "interrupted; results so far are in $OUTDIR"; exit 130' INT TERM
}

# open_bench: the output directory OUTDIR (./$ME-DATE unless given; made
# absolute, with logs/ in it), the private WORK (the agent's locks, so that
# another user's launches do not share our "head" lock, and the driver's
# own files), the mark of the runs, and the clean-up on exit.
open_bench() {
    OUTDIR=${OUTDIR:-./$ME-$(date +%Y%m%d-%H%M%S)}
    mkdir -p "$OUTDIR/logs"
    OUTDIR=$(cd "$OUTDIR" && pwd)
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/hnp-$ME.XXXXXX")
    chmod 700 "$WORK"
    MARK_PREFIX="hnp-$ME-$$"
    CURRENT_PGID=""
    trap_cleanup
}

# timed_run LOG LIMIT INDEX SEQ REM COMMAND...: runs COMMAND (stdin from
# /dev/null, output appended to LOG after a line with the command) with the
# agent's launch model SEQ and REM, marked as run INDEX, killed after LIMIT
# seconds. Sets RUN_RC, RUN_STATUS (ok, failed or timeout), RUN_WALL (its
# seconds, NA unless ok) and RUN_LEFTOVER (processes it left, killed).
# LOG_ENV, when set, is more of the environment to note in LOG.
# shellcheck disable=SC2034 # the RUN_ variables are for the driver
timed_run() {
    local log=$1 limit=$2 idx=$3 seq=$4 rem=$5 start end
    shift 5
    {
        printf '# HNP_AGENT_SEQ=%s HNP_AGENT_REM=%s%s' "$seq" "$rem" "${LOG_ENV:+ $LOG_ENV}"
        printf ' %q' "$@"
        printf '\n'
    } >"$log"
    RUN_RC=0
    start=$EPOCHREALTIME
    # timeout makes its own process group (the launcher and the agents in
    # it), which cleanup kills if we are interrupted mid-run. hnp needs
    # about 10 s to wind a launch down after SIGTERM: 15 before SIGKILL.
    HNP_AGENT_SEQ=$seq HNP_AGENT_REM=$rem HNP_AGENT_LOCKDIR=$WORK/agent \
        HNPBENCH_RUN=$MARK_PREFIX.$idx \
        timeout --kill-after=15 "$limit" "$@" </dev/null >>"$log" 2>&1 &
    CURRENT_PGID=$!
    wait "$CURRENT_PGID" || RUN_RC=$?
    end=$EPOCHREALTIME
    CURRENT_PGID=""
    # A normal end leaves nothing behind. Give a failed run's daemons 2 s
    # anyway (they notice their lost parent on a heartbeat), then count and
    # kill what remains.
    RUN_LEFTOVER=$(sweep "$MARK_PREFIX\\.$idx" 2)
    case $RUN_RC in
        0) RUN_STATUS=ok ;;
        124 | 137) RUN_STATUS=timeout ;;
        *) RUN_STATUS=failed ;;
    esac
    RUN_WALL=NA
    [ "$RUN_STATUS" = ok ] && RUN_WALL=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    return 0
}

# report_run INDEX TOTAL LOG WHAT MORE: the progress line of a run that
# timed_run ended: "[INDEX/TOTAL] WHAT: " its wall time or its status and
# exit code, MORE (the driver's figures), the processes it left; then the
# end of LOG if it failed.
report_run() {
    printf '[%*d/%d] %s: %s%s' "${#2}" "$1" "$2" "$4" \
        "$([ "$RUN_STATUS" = ok ] && echo "$RUN_WALL s" || echo "$RUN_STATUS (exit $RUN_RC)")" "$5"
    [ "$RUN_LEFTOVER" = 0 ] || printf ', %s leftover processes killed' "$RUN_LEFTOVER"
    printf '\n'
    if [ "$RUN_STATUS" != ok ]; then
        printf '    last lines of %s:\n' "$3"
        tail -n 3 "$3" | sed 's/^/    | /'
    fi
}

# The columns parse_timing prints.
# shellcheck disable=SC2034 # for the drivers
readonly TIMING_COLUMNS=spawned_s,table_s,launch_sent_s,started_s,exited_s,hnp_conns,daemon_max_conns,daemon_startup_cpu_ms,daemon_startup_rss_kb,startup_reports,daemons_cpu_sum_ms,daemon_cpu_max_ms,daemon_peak_rss_kb,daemon_startup_cpu_median_ms,gone_s,daemon_connected_cpu_median_ms,daemon_connected_cpu_max_ms

# parse_timing LOG: the figures `hnp --timing` printed, as TIMING_COLUMNS;
# NA where a line is missing or shows "-" (the phase was never reached).
parse_timing() {
    awk '
    function num(s) { return (s == "" || s == "-") ? "NA" : s }
    BEGIN { n = split("up table sent started exited hconn dconn scpu srss sreps csum cmax prss smed gone kmed kmax", k, " ")
            for (i = 1; i <= n; i++) v[k[i]] = "NA" }
    /^hnp: +all daemons up / { split(substr($0, index($0, "up") + 2), f, " "); v["up"] = num(f[1]) }
    /^hnp: +contact table complete everywhere / { split(substr($0, index($0, "everywhere") + 10), f, " "); v["table"] = num(f[1]) }
    /^hnp: +launch message sent / { split(substr($0, index($0, "sent") + 4), f, " "); v["sent"] = num(f[1]) }
    /^hnp: +all processes started / { split(substr($0, index($0, "started") + 7), f, " "); v["started"] = num(f[1]) }
    /^hnp: +all processes exited / { split(substr($0, index($0, "exited") + 6), f, " "); v["exited"] = num(f[1]) }
    /^hnp: +all daemons exited / { split(substr($0, index($0, "exited") + 6), f, " "); v["gone"] = num(f[1]) }
    /^hnp: +daemon start-up \(median\)/ { split(substr($0, index($0, "(median)") + 8), f, " "); v["smed"] = num(f[1]) }
    # "1.5 ms CPU (max 1.9 ms)"
    /^hnp: +daemon exec to connected \(median\)/ {
        split(substr($0, index($0, "(median)") + 8), f, " ")
        v["kmed"] = num(f[1]); v["kmax"] = num(f[5]) }
    /^hnp: +connections held by the HNP \(max\)/ { split(substr($0, index($0, "(max)") + 5), f, " "); v["hconn"] = num(f[1]) }
    /^hnp: +connections held by a daemon \(max\)/ { split(substr($0, index($0, "(max)") + 5), f, " "); v["dconn"] = num(f[1]) }
    # "1.7 ms CPU, 2472 kB RSS (max of 64)"
    /^hnp: +daemon start-up \(exec to joined\)/ {
        split(substr($0, index($0, "joined)") + 7), f, " ")
        v["scpu"] = num(f[1]); v["srss"] = num(f[4]); sub(/\)/, "", f[9]); v["sreps"] = num(f[9]) }
    # "172.3 ms CPU (max 7.2 ms)"
    /^hnp: +daemons. CPU over the job \(sum\)/ {
        split(substr($0, index($0, "(sum)") + 5), f, " ")
        v["csum"] = num(f[1]); v["cmax"] = num(f[5]) }
    /^hnp: +daemon peak RSS \(max\)/ { split(substr($0, index($0, "(max)") + 5), f, " "); v["prss"] = num(f[1]) }
    END { line = v[k[1]]; for (i = 2; i <= n; i++) line = line "," v[k[i]]; print line }
    ' "$1"
}

# hnp_run LOG LIMIT INDEX SEQ REM COMMAND...: timed_run of an `hnp
# --timing` COMMAND, at niceness NICE when set and counted by perf stat when
# USE_PERF is 1. Also sets RUN_LOAD (the load average as it started),
# RUN_FIELDS (what parse_timing found) and RUN_CPU_MS (the CPU of all its
# processes, or NA); a run that ended well without printing its timing did
# not run the job: its status is "incomplete".
# shellcheck disable=SC2034 # the RUN_ variables are for the driver
hnp_run() {
    local log=$1 limit=$2 idx=$3 seq=$4 rem=$5 perf_out=$WORK/perf.out
    shift 5
    local -a cmd=("$@")
    if [ -n "${NICE:-}" ]; then
        # Inherited by the agents and the daemons: the whole run.
        cmd=(nice -n "$NICE" "${cmd[@]}")
    fi
    if [ "${USE_PERF:-0}" = 1 ]; then
        # Counts every descendant, daemons included: the run's whole CPU.
        rm -f "$perf_out"
        cmd=(perf stat -x ',' -e task-clock -o "$perf_out" -- "${cmd[@]}")
    fi
    RUN_LOAD=$(cut -d' ' -f1 /proc/loadavg)
    timed_run "$log" "$limit" "$idx" "$seq" "$rem" "${cmd[@]}"
    RUN_FIELDS=$(parse_timing "$log")
    if [ "$RUN_STATUS" = ok ] && [ "${RUN_FIELDS%%,*}" = NA ]; then
        RUN_STATUS=incomplete RUN_WALL=NA
    fi
    RUN_CPU_MS=NA
    if [ "${USE_PERF:-0}" = 1 ]; then RUN_CPU_MS=$(task_clock_ms "$perf_out"); fi
}

# progress_start WEIGHT, then progress_step WEIGHT after each run: prints
# the time so far and an estimate of the time left, that time scaled by
# the expected work (a run's weight: roughly its seconds) left over done.
progress_start() {
    PROGRESS_T0=$EPOCHREALTIME PROGRESS_DONE=0 PROGRESS_LEFT=$1
}
progress_step() {
    read -r PROGRESS_DONE PROGRESS_LEFT < <(awk -v d="$PROGRESS_DONE" \
        -v l="$PROGRESS_LEFT" -v w="$1" 'BEGIN { printf "%.3f %.3f\n", d + w, l - w }')
    awk -v d="$PROGRESS_DONE" -v l="$PROGRESS_LEFT" -v t0="$PROGRESS_T0" \
        -v t1="$EPOCHREALTIME" 'BEGIN {
            printf "  (%.0f s elapsed, ~%.0f s left)\n", t1 - t0, (l > 0 ? (t1 - t0) * l / d : 0) }'
}

# run_plan: run_one with the words of each line of the array plan and the
# run's number (from 1), after an estimate of the time it all takes; the
# array weights (for each line of plan, roughly its seconds) makes that
# estimate and the progress line after each run.
# shellcheck disable=SC2154 # the driver sets plan and weights
run_plan() {
    local i left
    left=$(printf '%s\n' "${weights[@]}" | awk '{ s += $1 } END { printf "%.1f", s }')
    say "a rough estimate: $(awk -v w="$left" 'BEGIN { printf "%.0f", w / 60 + 0.5 }') minutes"
    progress_start "$left"
    for ((i = 0; i < ${#plan[@]}; i++)); do
        # shellcheck disable=SC2086 # a plan line is run_one's words
        run_one ${plan[i]} $((i + 1))
        progress_step "${weights[i]}"
    done
}

# run_problems LOG: what went wrong with the run just made, after its
# progress line: the processes it left behind, and unless it went well the
# last lines of its LOG.
run_problems() {
    [ "$RUN_LEFTOVER" = 0 ] || printf ', %s leftover processes killed' "$RUN_LEFTOVER"
    if [ "$RUN_STATUS" != ok ]; then
        printf '\n    last lines of %s:\n' "$1"
        tail -n 3 "$1" | sed 's/^/    | /'
    fi
}

# plot GNUPLOT_SCRIPT SUMMARY PNG [ARGS...]: the PNG from the summary, or
# what gnuplot said.
plot() {
    if gnuplot -c "$@" 2>"$WORK/gnuplot.err"; then
        say "plot: $3"
    else
        say "gnuplot failed:"
        sed 's/^/    | /' "$WORK/gnuplot.err" >&2
    fi
}

# say_done CSV: how many runs CSV holds, how many failed (its column
# status) and, where it has a column leftover, how many left processes
# behind.
say_done() {
    say "done: $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { runs++; failed += $c["status"] != "ok"; if ("leftover" in c) left += $c["leftover"] != 0 }
        END { printf "%d runs, %d failed", runs, failed
              if ("leftover" in c) printf ", %d left processes behind (killed)", left }' "$1")"
}

# For the analyses: medians, maxima and minima of space-separated lists
# of numbers, NA for an empty list.
# shellcheck disable=SC2034 # for the drivers
readonly AWK_STATS='
function isort(a, n,   i, j, x) {
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
}
# The median of the numbers in s; with which = 1 the largest, -1 the
# smallest.
function stat(s, which,   a, n, i, b) {
    n = split(s, a, " "); if (n == 0) return "NA"
    for (i = 1; i <= n; i++) b[i] = a[i] + 0
    isort(b, n)
    if (which) return which > 0 ? b[n] : b[1]
    return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
function median(s) { return stat(s, 0) }
'

# ------------------------------------------- options, runs and their CPU
# The options common_option sets that have no default.
OUTDIR="" PREFIX="" HNP="" AGENT="" RUN_TIMEOUT=""

# common_option ARGS...: the options every driver has, all but --help
# with a value. True, the value taken, when $1 is one of them; the caller
# then shifts 2.
# shellcheck disable=SC2034 # the driver reads what it sets
common_option() {
    case $1 in
        -n | --nodes) need_arg "$@"; NODES=$(words "$2") ;;
        -l | --launchers)
            [ -n "${LAUNCHERS+set}" ] || return 1 # a driver without launchers
            need_arg "$@"; LAUNCHERS=$(words "$2") ;;
        -r | --runs) need_arg "$@"; RUNS=$2 ;;
        --large-runs) need_arg "$@"; LARGE_RUNS=$2 ;;
        --large-from) need_arg "$@"; LARGE_FROM=$2 ;;
        -o | --outdir) need_arg "$@"; OUTDIR=$2 ;;
        --prefix) need_arg "$@"; PREFIX=$2 ;;
        --hnp) need_arg "$@"; HNP=$2 ;;
        --agent) need_arg "$@"; AGENT=$2 ;;
        --timeout) need_arg "$@"; RUN_TIMEOUT=$2 ;;
        -h | --help) usage; exit 0 ;;
        *) return 1 ;;
    esac
}

# The help of the options every driver has but --nodes and --timeout
# (whose defaults differ), for the drivers' usage.
usage_common() {
    cat <<EOF
  -r, --runs R           runs per point (default: $RUNS)
      --large-runs R     runs per point from --large-from nodes up
                         (default: ${LARGE_RUNS:-as --runs})
      --large-from N     where --large-runs starts (default: $LARGE_FROM)
  -o, --outdir DIR       where results go (default: ./$ME-DATE)
      --prefix DIR       an installed hnp: DIR/bin/hnp and
                         DIR/libexec/hnp/hnp-local-agent
      --hnp PATH         the hnp to run (default: from --prefix, else PATH)
      --agent PATH       hnp-local-agent (default: beside the hnp install)
EOF
}

# check_runs: the options RUNS, LARGE_RUNS, LARGE_FROM and RUN_TIMEOUT
# (seconds, or empty for the driver's default).
# shellcheck disable=SC2153 # the driver sets them
check_runs() {
    local v
    for v in RUNS LARGE_RUNS LARGE_FROM; do
        is_uint "${!v}" || die "${v,,} '${!v}' is not an integer"
    done
    if [ "$RUNS" -lt 1 ] || [ "$LARGE_RUNS" -lt 1 ]; then die "runs must be at least 1"; fi
    [ -z "$RUN_TIMEOUT" ] || is_uint "$RUN_TIMEOUT" || die "timeout '$RUN_TIMEOUT' is not whole seconds"
}

# runs_at N RUN: is there a run number RUN at N nodes (--runs of them below
# --large-from nodes, --large-runs from there)?
runs_at() {
    local runs=$RUNS
    [ "$1" -ge "$LARGE_FROM" ] && runs=$LARGE_RUNS
    [ "$2" -le "$runs" ]
}

# pick_cpu_tool sets CPU_TOOL: perf, or /usr/bin/time where perf stat does
# not work (rusage: it sees only the children it reaps, not the daemons
# that leave the session).
pick_cpu_tool() {
    CPU_TOOL=perf
    perf_works && return 0
    CPU_TOOL=rusage
    [ -x /usr/bin/time ] || die "neither perf stat nor /usr/bin/time works here"
    say "perf stat does not work here: cpu_s from /usr/bin/time misses orphaned daemons"
}

# count_cpu FILE: the command in the array cmd, made to write its whole
# CPU time to FILE; cpu_seconds FILE reads it (NA if none).
count_cpu() {
    rm -f "$1"
    if [ "$CPU_TOOL" = perf ]; then
        cmd=(perf stat -x ',' -e task-clock -o "$1" -- "${cmd[@]}")
    else
        cmd=(/usr/bin/time -f '%U %S' -o "$1" -- "${cmd[@]}")
    fi
}
cpu_seconds() {
    local s=""
    if [ "$CPU_TOOL" = perf ]; then
        s=$(task_clock_ms "$1" | awk '$1 != "NA" { printf "%.2f", $1 / 1000 }')
    elif [ -s "$1" ]; then
        s=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.2f", $1 + $2 }' "$1")
    fi
    echo "${s:-NA}"
}

# ensure_openmpi: mpirun.openmpi and mpicc.openmpi, from Debian's
# openmpi-bin and libopenmpi-dev, installed by contrib/install-deps.sh if
# missing (which keeps the mpicc and mpirun alternatives where they were);
# and mpirun allowed to run as root, which it refuses without both the
# option and these two.
ensure_openmpi() {
    local log
    if ! command -v mpirun.openmpi >/dev/null || ! command -v mpicc.openmpi >/dev/null; then
        [ "$(id -u)" = 0 ] || die "Open MPI is missing: run contrib/install-deps.sh as root"
        say "installing Open MPI (contrib/install-deps.sh)"
        log=$WORK/install-deps.log
        bash "$(dirname "${BASH_SOURCE[0]}")/../install-deps.sh" openmpi-bin libopenmpi-dev \
            >"$log" 2>&1 || { tail -n 5 "$log" >&2; die "installing Open MPI failed"; }
        sed "s/^/$ME: /" "$log"
        command -v mpirun.openmpi >/dev/null || die "Open MPI installed, but no mpirun.openmpi"
    fi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

# ---------------------------------------------- the remote shell of a run
# sh_quote WORD: WORD quoted for /bin/sh.
sh_quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# write_agent_wrapper FILE CALLS [NODES]: FILE becomes the remote shell a
# run's launchers are given. It logs each call as a line of CALLS (appended:
# the calls several daemons make at once do not mix), so that counting the
# lines counts the daemons or proxies a launcher really started, and then
# is AGENT. With NODES (a directory), the command also runs as on its own
# node: in a UTS namespace of its own whose host name is the node's, with
# TMPDIR=NODES/HOST and HNP_NODE_NAME=HOST (the launching node of the
# launches it makes in turn). Open MPI's daemons need that: on one host name
# and in one TMPDIR they would share one session directory. unshare needs
# root. FILE.node is the node's side; it refuses to run in the benchmark's
# own namespace, where it would rename this machine.
# shellcheck disable=SC2016 # the $ are for the scripts written
write_agent_wrapper() {
    local file=$1 calls=$2 nodes=${3:-} unshare=""
    if [ -n "$nodes" ]; then
        unshare=$(command -v unshare) || die "unshare (util-linux) is needed"
        # The agent hands these words to a shell, as sshd would: keep them
        # free of anything a shell would interpret.
        [[ $unshare/$file =~ ^[A-Za-z0-9_./+-]+$ ]] ||
            die "$file: a temporary directory with blanks or quotes in its name"
        {
            echo '#!/bin/sh'
            echo "# $ME: node \$HNP_AGENT_HOST's side of a launch (bench-lib.sh)"
            printf '[ /proc/self/ns/uts -ef /proc/%d/ns/uts ] && exit 255\n' "$$"
            printf '[ -e /proc/%d/ns/uts ] || exit 255\n' "$$"
            printf 'TMPDIR=%s/$HNP_AGENT_HOST\n' "$(sh_quote "$nodes")"
            cat <<'NODE'
echo "$HNP_AGENT_HOST" >/proc/sys/kernel/hostname || exit 255
HNP_NODE_NAME=$HNP_AGENT_HOST
export TMPDIR HNP_NODE_NAME
[ -d "$TMPDIR" ] || mkdir -p "$TMPDIR" || exit 255
# The launcher's command, as the remote user's shell would run it.
command=$HNP_BENCH_COMMAND
unset HNP_BENCH_COMMAND
eval "$command"
NODE
        } >"$file.node"
        chmod 755 "$file.node"
    fi
    {
        echo '#!/bin/sh'
        echo "# $ME: the remote shell of the runs (bench-lib.sh)"
        printf 'agent=%s\n' "$(sh_quote "$AGENT")"
        printf 'printf "%%s\\n" "$*" >>%s\n' "$(sh_quote "$calls")"
        if [ -z "$nodes" ]; then
            echo 'exec "$agent" "$@"'
        else
            printf 'node=%s\n' "$(sh_quote "$unshare --uts -- $file.node")"
            cat <<'WRAPPER'
# The host is the first word that is neither an option of ssh nor the
# value of one, by the agent's rules: flags may be grouped, an option with
# a value takes the rest of its word or the next word. Of the options the
# agent heeds only -n; anything it would reject goes to it unchanged.
n="" value="" i=0
for word do
    i=$((i + 1))
    if [ -n "$value" ]; then value=""; continue; fi
    case $word in
    --) i=$((i + 1)); break ;;
    -?*) ;;
    *) break ;;
    esac
    flags=${word#-}
    while [ -n "$flags" ]; do
        rest=${flags#?}
        case ${flags%"$rest"} in
        n) n=-n ;;
        [1246AaCfGgKkMNqsTtVvXxYy]) ;;
        [BbcDEeFIiJLlmOoPpQRSWw]) [ -n "$rest" ] || value=1; rest="" ;;
        *) exec "$agent" "$@" ;;
        esac
        flags=$rest
    done
done
[ "$i" -lt $# ] || exec "$agent" "$@"
shift $((i - 1))
host=$1
shift
# The command travels in the environment, which the agent passes on: no
# second round of quoting.
HNP_BENCH_COMMAND=$*
export HNP_BENCH_COMMAND
exec "$agent" $n -- "$host" $node
WRAPPER
        fi
    } >"$file"
    chmod 755 "$file"
}

# ------------------------------------------------------- the node names
# Launchers that look their host names up (MPICH's hydra, Open MPI) run in
# a mount namespace of their own, made for each run by the command prefix
# NAMES_CMD, in which /etc/hosts also maps n1 ... nN (node i at its own
# loopback address) and /etc/nsswitch.conf answers host look-ups from that
# file alone. So no look-up of a made-up name can reach a resolver, for
# any address family a launcher asks for (an IPv6 look-up finds nothing in
# the file and, with "files dns", would go on to DNS), and the machine's
# own files are never changed: nothing to undo, even after kill -9, and
# benchmarks may run side by side. prepare_node_names N sets it up; needs
# root (a mount namespace).
NAMES_CMD=()

# node_addr I: node i's address, 127.0.0.3 upwards: 127.0.0.1 is
# localhost already, and no launcher may take a node for this machine.
node_addr() { printf '127.0.%d.%d' $(($1 / 250)) $(($1 % 250 + 2)); }

prepare_node_names() { # N
    local max=$1 dir=$WORK/names block got
    [ "$(id -u)" = 0 ] || die "the node names need a mount namespace of their own: run as root"
    command -v unshare >/dev/null || die "unshare (util-linux) is missing"
    mkdir -p "$dir"
    block=$(for ((i = 1; i <= max; i++)); do printf '%s n%d\n' "$(node_addr "$i")" "$i"; done)
    {
        cat /etc/hosts
        # The launchers' daemons call back to this machine by its name.
        grep -qw -- "$(hostname)" /etc/hosts || printf '127.0.0.1 %s\n' "$(hostname)"
        printf '%s\n' "$block"
    } >"$dir/hosts"
    if [ -f /etc/nsswitch.conf ]; then
        awk '$1 == "hosts:" { print "hosts: files"; seen = 1; next } { print }
             END { if (!seen) print "hosts: files" }' /etc/nsswitch.conf >"$dir/nsswitch.conf"
    else
        echo "hosts: files" >"$dir/nsswitch.conf"
    fi
    # shellcheck disable=SC2016 # expanded by that shell
    NAMES_CMD=(unshare --mount --propagation private -- sh -c
        'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/nsswitch.conf && shift 2 && exec "$@"'
        names "$dir/hosts" "$dir/nsswitch.conf")
    # Inside, every name resolves to its address (one getent for all).
    # shellcheck disable=SC2046 # one word a name
    got=$("${NAMES_CMD[@]}" getent hosts $(seq -f 'n%.0f' 1 "$max") | awk '{ print $1, $2 }' || true)
    [ "$got" = "$block" ] ||
        die "the node names do not all resolve to their addresses in the benchmark's mount namespace"
    # The launchers' daemons call back to this machine by its name.
    got=$("${NAMES_CMD[@]}" getent hosts "$(hostname)" | awk '{ print $1; exit }' || true)
    [[ $got == 127.* ]] || die "this machine's name $(hostname) resolves to '${got:-nothing}', not loopback"
}
