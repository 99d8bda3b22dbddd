#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# launch-bench.sh: the launch benchmark of paper 002, section V, on one
# machine. It times `hnp -N 1 /bin/true` on N simulated nodes for the flat
# launcher (rsh) and the tree launcher (prsh, several δ), with
# hnp-local-agent standing in for ssh under the launch model (SEQ, REM) of
# paper 001, and writes launch.csv (one line a run), launch-summary.csv
# (medians), launch-fit.csv (growth fits), launch-report.txt and
# launch.png. See README.md beside this file; --help lists the options.
set -euo pipefail

# C numbers (decimal points) and sorting whatever the caller's locale.
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE ME=launch-bench

# ------------------------------------------------------------- defaults
# The issue's matrix: 16 to 1024 nodes, rsh against prsh with δ = 2, 4, 8
# and 0 (along the routing tree), the two models (10 ms, 50 ms) and paper
# 001's fit (7 ms, 172 ms), both exchanges.
NODES="16 32 64 128 256 512 1024"
LAUNCHERS="rsh prsh"
DELTAS="2 4 8 0"
MODELS="0.010:0.050 0.007:0.172"
EXCHANGES="gather_scatter flood"
ROUTED=radix
RADIX_DEGREE=32
RUNS=3
LARGE_RUNS=""
LARGE_FROM=1024
SPEEDUP_AT=512
USE_PERF=0
NICE=""
PLOT=1
REANALYSE=0

usage() {
    cat <<EOF
usage: $ME [options]

Times \`hnp --timing -N 1 /bin/true\` on N simulated nodes (hnp-local-agent
as ssh) for each launcher, δ, exchange and launch model, several runs each.

  -n, --nodes LIST       node counts (default: $NODES)
  -l, --launchers LIST   rsh and/or prsh (default: $LAUNCHERS)
  -d, --deltas LIST      prsh spawning degrees δ; 0 = along the routing tree
                         (default: $DELTAS)
  -m, --models LIST      launch models SEQ:REM in seconds
                         (default: $MODELS)
  -x, --exchanges LIST   exchange components (default: $EXCHANGES)
      --routed NAME      routing topology: radix, binomial or direct
                         (default: $ROUTED)
      --radix-degree K   routed_radix_degree (default: $RADIX_DEGREE)
$(usage_common)
      --timeout S        seconds before a run is killed (default: grows
                         with N and SEQ)
      --speedup-at N     node count of the rsh/prsh speedup (default: $SPEEDUP_AT)
      --nice N           run hnp and its processes at niceness N (negative
                         needs root): on a machine others use too, keeps
                         their load from being measured as launch time
      --perf             also record the CPU time of all of a run's
                         processes (perf stat, when available)
      --no-plot          skip the PNG
      --reanalyse        no runs: redo the summary, report and plot from
                         the launch.csv in --outdir (give the same lists)
      --quick            smoke run: 16 and 64 nodes, δ 4 and 0, the
                         (10 ms, 50 ms) model, gather_scatter, one run
  -h, --help             this text

Lists are separated by spaces or commas. Results, per-run logs included,
go to the output directory; re-plot with
  gnuplot -c $HERE/plot-launch.gp DIR/launch-summary.csv DIR/launch.png
EOF
}

# Messages, options, checks, the runs; OUTDIR, PREFIX, HNP, AGENT and
# RUN_TIMEOUT (empty unless given).
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

while [ $# -gt 0 ]; do
    if common_option "$@"; then shift 2; continue; fi
    case $1 in
        -d | --deltas) need_arg "$@"; DELTAS=$(words "$2"); shift ;;
        -m | --models) need_arg "$@"; MODELS=$(words "$2"); shift ;;
        -x | --exchanges) need_arg "$@"; EXCHANGES=$(words "$2"); shift ;;
        --routed) need_arg "$@"; ROUTED=$2; shift ;;
        --radix-degree) need_arg "$@"; RADIX_DEGREE=$2; shift ;;
        --speedup-at) need_arg "$@"; SPEEDUP_AT=$2; shift ;;
        --nice) need_arg "$@"; NICE=$2; shift ;;
        --perf) USE_PERF=1 ;;
        --no-plot) PLOT=0 ;;
        --reanalyse) REANALYSE=1 ;;
        --quick)
            NODES="16 64" DELTAS="4 0" MODELS="0.010:0.050"
            EXCHANGES=gather_scatter RUNS=1 LARGE_RUNS="" SPEEDUP_AT=64 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
LARGE_RUNS=${LARGE_RUNS:-$RUNS}

# --------------------------------------------------------- validation
# Checked before anything runs, so that a typo does not cost a long run.
check_nodes "$NODES"
for l in $LAUNCHERS; do
    case $l in rsh | prsh) ;; *) die "launcher '$l': rsh or prsh" ;; esac
done
for d in $DELTAS; do is_uint "$d" || die "δ '$d' is not an integer >= 0"; done
check_models "$MODELS"
for x in $EXCHANGES; do
    case $x in gather_scatter | flood) ;; *) die "exchange '$x': gather_scatter or flood" ;; esac
done
case $ROUTED in radix | binomial | direct) ;; *) die "routed '$ROUTED': radix, binomial or direct" ;; esac
check_runs
for v in RADIX_DEGREE SPEEDUP_AT; do
    is_uint "${!v}" || die "${v,,} '${!v}' is not an integer"
done
check_nice "$NICE"
if [ -z "$LAUNCHERS" ] || [ -z "$NODES" ] || [ -z "$MODELS" ] || [ -z "$EXCHANGES" ]; then
    die "nothing to run"
fi
if has_launcher prsh && [ -z "$DELTAS" ]; then
    die "prsh needs at least one δ"
fi

# ------------------------------------------------------------ programs
# Not needed to redo the analysis of earlier runs.
[ "$REANALYSE" = 1 ] || find_hnp

for tool in timeout awk sort grep; do
    command -v "$tool" >/dev/null || die "$tool is needed"
done

[ "$PLOT" = 0 ] || ensure_gnuplot
if [ "$USE_PERF" = 1 ] && ! perf_works; then
    say "perf stat does not work here: no cpu_total_ms"
    USE_PERF=0
fi

max_nodes=$(max_of "$NODES")
# With rsh the HNP holds a connection to every daemon, plus the agents'
# pipes.
raise_fd_limit $((4 * max_nodes + 256)) "$max_nodes"

# The CPU floor of a run is its CPU time spread over every core.
NCORES=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)

# ------------------------------------------------------------- output
if [ "$REANALYSE" = 1 ]; then
    if [ -z "$OUTDIR" ] || [ ! -s "$OUTDIR/launch.csv" ]; then
        die "--reanalyse needs --outdir DIR with a launch.csv"
    fi
fi
open_bench
CSV=$OUTDIR/launch.csv
SUMMARY=$OUTDIR/launch-summary.csv
FIT=$OUTDIR/launch-fit.csv
REPORT=$OUTDIR/launch-report.txt
PNG=$OUTDIR/launch.png

# ------------------------------------------------------ the launch model
# The awk below knows the spawn trees of hnp (framework/tree.c) and gives,
# for each configuration, the time at which the last daemon's command
# starts under the pure model of paper 001: child i of a launching node
# starts SEQ·i + REM after its parent (the lock is held SEQ per launch, one
# launch after another). It ignores the daemons' own start-up, the
# exchange and the CPU, so it is the floor the measurements approach.
readonly AWK_MODEL='
function hibit(v,   b) { b = -1; while (v >= 1) { v = int(v / 2); b++ } return b }
# kind: "flat", "kary" (arity k) or "binomial"; nd daemons plus the HNP.
function model_bound(nd, seq, rem, kind, k,   c, p, i, worst, t, lb) {
    if (kind == "flat" || nd == 0)
        return nd * seq + (nd > 0 ? rem : 0)
    split("", t); t[0] = 0; worst = 0
    for (c = 1; c <= nd; c++) {
        if (kind == "kary") {
            p = int((c - 1) / k); i = c - 1 - k * p + 1
        } else {
            p = c - 2 ^ hibit(c); lb = p == 0 ? 0 : hibit(p) + 1
            i = hibit(c) - lb + 1
        }
        t[c] = t[p] + seq * i + rem
        if (t[c] > worst) worst = t[c]
    }
    return worst
}
# Which tree a launcher spawns along.
function tree_kind(launcher, delta, routed) {
    if (launcher == "rsh" || (delta == 0 && routed == "direct")) return "flat"
    if (delta == 0 && routed == "binomial") return "binomial"
    return "kary"
}
function tree_arity(launcher, delta, routed, radix) {
    return delta > 0 ? delta : radix
}
'

# ----------------------------------------------------------------- plan
# One line a run: seq rem launcher delta exchange nodes run. The runs are
# interleaved (all configurations once, then again...), so that a burst of
# load from someone else on the machine spreads over the configurations
# instead of spoiling one of them.
plan=()
max_runs=$(max_of "$RUNS $LARGE_RUNS")
for ((run = 1; run <= max_runs; run++)); do
    for model in $MODELS; do
        for exchange in $EXCHANGES; do
            for launcher in $LAUNCHERS; do
                deltas=$DELTAS
                [ "$launcher" = rsh ] && deltas=-
                for delta in $deltas; do
                    for n in $NODES; do
                        runs_at "$n" "$run" || continue
                        plan+=("${model%%:*} ${model#*:} $launcher $delta $exchange $n $run")
                    done
                done
            done
        done
    done
done
total=${#plan[@]}

# Expected seconds of each run (model floor + a fixed cost), only to weigh
# the progress line's estimate of the time left.
mapfile -t weights < <(printf '%s\n' "${plan[@]}" | awk -v routed="$ROUTED" \
    -v radix="$RADIX_DEGREE" "$AWK_MODEL"'
    { d = ($4 == "-") ? 0 : $4
      print model_bound($6, $1, $2, tree_kind($3, d, routed),
                        tree_arity($3, d, routed, radix)) + 0.3 + 0.004 * $6 }')

# -------------------------------------------------------------- one run
# The columns of launch.csv; parse_timing fills those after "wall_s".
readonly CSV_HEADER=model_seq,model_rem,launcher,delta,routed,exchange,nodes,run,status,exit_code,wall_s,$TIMING_COLUMNS,leftover,load1,cpu_total_ms

# run_one SEQ REM LAUNCHER DELTA EXCHANGE NODES RUN INDEX: one timed run,
# appended to launch.csv; prints the progress line.
run_one() {
    local seq=$1 rem=$2 launcher=$3 delta=$4 exchange=$5 n=$6 run=$7 idx=$8
    local tag log limit status fields
    local -a cmd
    tag=$(printf 's%s-r%s-%s-d%s-%s-n%05d-run%d' "$seq" "$rem" "$launcher" \
        "${delta/-/x}" "$exchange" "$n" "$run")
    log=$OUTDIR/logs/$tag.log
    # Long enough for the flat launcher's N·SEQ plus TCP's 3 s SYN retries
    # and a loaded machine; short enough that a hang costs minutes, not hours.
    limit=${RUN_TIMEOUT:-$(awk -v n="$n" -v s="$seq" -v r="$rem" \
        'BEGIN { printf "%d", 30 + 4 * n * s + 20 * r + 0.02 * n }')}

    cmd=("$HNP" --timing
        --mca plm_rsh_agent "$AGENT"
        --mca oob_tcp_if_include 127.0.0.1/8
        --mca plm "$launcher"
        --mca exchange "$exchange"
        --mca routed "$ROUTED" --mca routed_radix_degree "$RADIX_DEGREE")
    [ "$launcher" = prsh ] && cmd+=(--mca plm_prsh_spawning_degree "$delta")
    cmd+=(--host "n[1-$n]" -N 1 /bin/true)
    hnp_run "$log" "$limit" "$idx" "$seq" "$rem" "${cmd[@]}"
    status=$RUN_STATUS fields=$RUN_FIELDS
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$seq" "$rem" \
        "$launcher" "$delta" "$ROUTED" "$exchange" "$n" "$run" "$status" \
        "$RUN_RC" "$RUN_WALL" "$fields" "$RUN_LEFTOVER" "$RUN_LOAD" "$RUN_CPU_MS" >>"$CSV"

    local what=$launcher
    [ "$launcher" = prsh ] && what="prsh d=$delta"
    printf '[%*d/%d] %s/%s s %-11s %-14s N=%-5d run %d: %s' "${#total}" "$idx" \
        "$total" "$seq" "$rem" "$what" "$exchange" "$n" "$run" \
        "$([ "$status" = ok ] && echo "$RUN_WALL s" || echo "$status (exit $RUN_RC)")"
    run_problems "$log"
}

# ------------------------------------------------------------- the runs
# The runs, unless only the analysis is redone.
if [ "$REANALYSE" = 0 ]; then
    say "hnp: $HNP"
    say "agent: $AGENT"
    say "output: $OUTDIR"
    [ -z "$NICE" ] || say "runs at niceness $NICE"
    say "$total runs: nodes {$NODES}, launchers {$LAUNCHERS}, δ {$DELTAS}," \
        "models {$MODELS}, exchanges {$EXCHANGES}, routed $ROUTED" \
        "(radix degree $RADIX_DEGREE), $RUNS runs a point ($LARGE_RUNS from $LARGE_FROM nodes)"
    echo "$CSV_HEADER" >"$CSV"
    run_plan
fi

# --------------------------------------------------------- the analysis
# Medians over the successful runs of each point, with the model floor.
awk -F, -v routed="$ROUTED" -v radix="$RADIX_DEGREE" -v cores="$NCORES" "$AWK_MODEL$AWK_STATS"'
function add(key, name, v) { if (v != "NA" && v != "") col[key, name] = col[key, name] " " v }
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    key = $h["model_seq"] "," $h["model_rem"] "," $h["launcher"] "," $h["delta"] "," $h["routed"] "," $h["exchange"] "," $h["nodes"]
    if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
    if ($h["status"] != "ok") { failed[key]++; next }
    ok[key]++
    add(key, "wall", $h["wall_s"]); add(key, "up", $h["spawned_s"])
    add(key, "table", $h["table_s"]); add(key, "exited", $h["exited_s"])
    add(key, "hconn", $h["hnp_conns"]); add(key, "dconn", $h["daemon_max_conns"])
    add(key, "scpu", $h["daemon_startup_cpu_ms"]); add(key, "srss", $h["daemon_startup_rss_kb"])
    if ("daemon_startup_cpu_median_ms" in h) add(key, "smed", $h["daemon_startup_cpu_median_ms"])
    if ("daemon_connected_cpu_median_ms" in h) {
        add(key, "kmed", $h["daemon_connected_cpu_median_ms"]); add(key, "kmax", $h["daemon_connected_cpu_max_ms"]) }
    add(key, "csum", $h["daemons_cpu_sum_ms"]); add(key, "ctot", $h["cpu_total_ms"])
}
END {
    print "model_seq,model_rem,series,launcher,delta,routed,exchange,nodes,runs_ok,runs_failed,wall_median_s,wall_min_s,wall_max_s,spawned_median_s,table_median_s,exited_median_s,model_floor_s,hnp_conns_max,daemon_conns_max,startup_cpu_median_ms,startup_cpu_max_ms,startup_rss_max_kb,daemons_cpu_sum_median_ms,cpu_total_median_ms,cpu_floor_s,startup_cpu_typical_ms,connected_cpu_typical_ms,connected_cpu_max_ms,connected_cpu_worst_median_ms"
    for (i = 1; i <= nkeys; i++) {
        k = order[i]; split(k, f, ",")
        d = f[4] == "-" ? 0 : f[4]
        series = f[3] == "rsh" ? "rsh" : "prsh:" f[4]
        floor_ = model_bound(f[7], f[1], f[2], tree_kind(f[3], d, f[5]), tree_arity(f[3], d, f[5], radix))
        n = split(col[k, "wall"], w, " "); mn = "NA"; mx = "NA"
        for (j = 1; j <= n; j++) { if (mn == "NA" || w[j] + 0 < mn) mn = w[j] + 0; if (mx == "NA" || w[j] + 0 > mx) mx = w[j] + 0 }
        ctot = stat(col[k, "ctot"])
        printf "%s,%s,%s,%s,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%.3f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
            f[1], f[2], series, f[3], f[4], f[5], f[6], f[7], ok[k], failed[k],
            stat(col[k, "wall"]), mn, mx, stat(col[k, "up"]), stat(col[k, "table"]),
            stat(col[k, "exited"]), floor_, stat(col[k, "hconn"], 1),
            stat(col[k, "dconn"], 1), stat(col[k, "scpu"]), stat(col[k, "scpu"], 1),
            stat(col[k, "srss"], 1), stat(col[k, "csum"]), ctot,
            ctot == "NA" ? "NA" : sprintf("%.3f", ctot / 1000 / cores),
            stat(col[k, "smed"]), stat(col[k, "kmed"]), stat(col[k, "kmax"], 1),
            stat(col[k, "kmax"])
    }
}' "$CSV" >"$SUMMARY"

# The report: per model and exchange, the medians against N, the speedup
# of prsh over rsh at --speedup-at nodes, and how each series grows: least
# squares against log2 N (a tree) and against N (a loop), and the time
# added by the last doubling of N (constant for log N, doubling for N).
# The start-up figures of the daemons are checked against the targets.
awk -F, -v at="$SPEEDUP_AT" -v fitfile="$FIT" -v routed="$ROUTED" -v radix="$RADIX_DEGREE" '
function fit(xs, ys, n, res,   i, sx, sy, sxx, sxy, b, a, ssr, sst, m) {
    sx = sy = sxx = sxy = 0
    for (i = 1; i <= n; i++) { sx += xs[i]; sy += ys[i]; sxx += xs[i] * xs[i]; sxy += xs[i] * ys[i] }
    if (n < 2 || n * sxx - sx * sx == 0) { res["b"] = "NA"; res["r2"] = "NA"; return }
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n; m = sy / n
    ssr = sst = 0
    for (i = 1; i <= n; i++) { ssr += (ys[i] - a - b * xs[i]) ^ 2; sst += (ys[i] - m) ^ 2 }
    res["b"] = b; res["r2"] = sst > 0 ? 1 - ssr / sst : 1
}
function title(s) { if (s == "rsh") return "rsh"; sub(/^prsh:/, "", s); return s == "0" ? "prsh d=0(" (routed == "radix" ? "radix" radix : routed) ")" : "prsh d=" s }
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    g = $h["model_seq"] "," $h["model_rem"] "," $h["exchange"]
    if (!(g in gseen)) { gseen[g] = 1; groups[++ng] = g }
    s = $h["series"]
    if (!((g, s) in sseen)) { sseen[g, s] = 1; sers[g, ++ns[g]] = s }
    nn = $h["nodes"] + 0
    if (!(nn in nseen)) { nseen[nn] = 1; nodes[++nnodes] = nn }
    med[g, s, nn] = $h["wall_median_s"]; mfloor[g, s, nn] = $h["model_floor_s"]
    if ($h["cpu_total_median_ms"] != "NA") { cpu[g, s, nn] = $h["cpu_total_median_ms"]; cfloor[g, s, nn] = $h["cpu_floor_s"] }
    runs[g, s, nn] = $h["runs_ok"] "/" ($h["runs_ok"] + $h["runs_failed"])
    if ($h["startup_cpu_max_ms"] != "NA" && $h["startup_cpu_max_ms"] + 0 > cpu_max) cpu_max = $h["startup_cpu_max_ms"] + 0
    if ($h["startup_rss_max_kb"] != "NA" && $h["startup_rss_max_kb"] + 0 > rss_max) rss_max = $h["startup_rss_max_kb"] + 0
    if ($h["startup_cpu_median_ms"] != "NA") { cmed_sum += $h["startup_cpu_median_ms"]; cmed_n++ }
    if (("startup_cpu_typical_ms" in h) && $h["startup_cpu_typical_ms"] != "NA") {
        tv = $h["startup_cpu_typical_ms"] + 0; typ_sum += tv; typ_n++; if (tv > typ_max) typ_max = tv }
    if (("connected_cpu_typical_ms" in h) && $h["connected_cpu_typical_ms"] != "NA") {
        tv = $h["connected_cpu_typical_ms"] + 0; ktyp_sum += tv; ktyp_n++; if (tv > ktyp_max) ktyp_max = tv
        tv = $h["connected_cpu_max_ms"] + 0; if (tv > kmax) kmax = tv
        kmax_sum += $h["connected_cpu_worst_median_ms"] }
}
END {
    for (i = 2; i <= nnodes; i++) { x = nodes[i]; for (j = i - 1; j >= 1 && nodes[j] > x; j--) nodes[j + 1] = nodes[j]; nodes[j + 1] = x }
    print "model_seq,model_rem,exchange,series,points,s_per_doubling_log2fit,r2_log2,ms_per_node_linfit,r2_lin,last_doubling_s,speedup_vs_rsh_at_" at > fitfile
    for (gi = 1; gi <= ng; gi++) {
        g = groups[gi]; split(g, gf, ",")
        printf "\nModel SEQ = %s s, REM = %s s; exchange %s; routed %s\n", gf[1], gf[2], gf[3], routed == "radix" ? "radix (degree " radix ")" : routed
        printf "median wall time of hnp -N 1 /bin/true, seconds (runs ok/total)\n"
        printf "%6s", "N"
        for (si = 1; si <= ns[g]; si++) printf " %18s", title(sers[g, si])
        printf "\n"
        for (ni = 1; ni <= nnodes; ni++) {
            nn = nodes[ni]; printf "%6d", nn
            for (si = 1; si <= ns[g]; si++) {
                s = sers[g, si]
                if ((g, s, nn) in med) printf " %11s (%5s)", med[g, s, nn], runs[g, s, nn]
                else printf " %18s", "-"
            }
            printf "\n"
        }
        rs = ((g, "rsh", at) in med) ? med[g, "rsh", at] : "NA"
        printf "%6s", "x" at
        for (si = 1; si <= ns[g]; si++) {
            s = sers[g, si]; p = ((g, s, at) in med) ? med[g, s, at] : "NA"
            sp[s] = (rs != "NA" && p != "NA" && p > 0) ? sprintf("%.2f", rs / p) : "NA"
            printf " %18s", s == "rsh" ? "speedup:" : sp[s]
        }
        printf "\n"
        # What bounds the time at that N: the launch model alone (infinitely
        # fast CPUs), and the CPU the run used spread over all cores.
        printf "%6s", "model"
        for (si = 1; si <= ns[g]; si++) { s = sers[g, si]; printf " %18s", ((g, s, at) in mfloor) ? mfloor[g, s, at] " s" : "-" }
        printf "\n"
        if ((g, sers[g, 1], at) in cpu) {
            printf "%6s", "cpu"
            for (si = 1; si <= ns[g]; si++) { s = sers[g, si]; printf " %18s", ((g, s, at) in cpu) ? sprintf("%.2f ms/node", cpu[g, s, at] / at) : "-" }
            printf "\n%6s", "w/cpu"
            for (si = 1; si <= ns[g]; si++) { s = sers[g, si]; printf " %18s", (((g, s, at) in cfloor) && cfloor[g, s, at] > 0 && med[g, s, at] != "NA" ? sprintf("%.2fx", med[g, s, at] / cfloor[g, s, at]) : "-") }
            printf "\n"
        }
        printf "(model: the launch model alone; cpu: CPU of all the run'"'"'s processes per node;\n w/cpu: wall time over that CPU spread on all cores, near 1 = CPU-bound)\n"
        printf "growth (least squares over N = %d..%d):\n", nodes[1], nodes[nnodes]
        for (si = 1; si <= ns[g]; si++) {
            s = sers[g, si]; n = 0; split("", xl); split("", xn); split("", y)
            for (ni = 1; ni <= nnodes; ni++) {
                nn = nodes[ni]
                if (((g, s, nn) in med) && med[g, s, nn] != "NA") { n++; xl[n] = log(nn) / log(2); xn[n] = nn; y[n] = med[g, s, nn] + 0; last = nn }
            }
            fit(xl, y, n, L); fit(xn, y, n, R)
            dbl = "NA"
            if (n >= 2 && xn[n] == 2 * xn[n - 1]) dbl = sprintf("%.3f", y[n] - y[n - 1])
            printf "  %-16s %s s per doubling of N (R2 %s), %s ms per node (R2 %s), last doubling adds %s s\n", title(s),
                L["b"] == "NA" ? "NA" : sprintf("%+.3f", L["b"]), L["r2"] == "NA" ? "NA" : sprintf("%.3f", L["r2"]),
                R["b"] == "NA" ? "NA" : sprintf("%+.2f", R["b"] * 1000), R["r2"] == "NA" ? "NA" : sprintf("%.3f", R["r2"]), dbl
            printf "%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s\n", gf[1], gf[2], gf[3], s, n,
                L["b"] == "NA" ? "NA" : sprintf("%.4f", L["b"]), L["r2"] == "NA" ? "NA" : sprintf("%.4f", L["r2"]),
                R["b"] == "NA" ? "NA" : sprintf("%.4f", R["b"] * 1000), R["r2"] == "NA" ? "NA" : sprintf("%.4f", R["r2"]),
                dbl, s == "rsh" ? "1" : sp[s] > fitfile
        }
    }
    printf "\nDaemon start-up, as hnpd reports it: exec to connected to its parent (the\ntarget\047s measure), and exec to joined (welcome applied, components loaded):\n"
    if (ktyp_n) {
        printf "  to connected, a run\047s median daemon: mean over points %.2f ms, highest %.1f ms (target < 2 ms): %s\n", ktyp_sum / ktyp_n, ktyp_max, ktyp_max < 2 ? "met" : "MISSED"
        printf "  to connected, a run\047s worst daemon:  mean over points %.2f ms, worst %.1f ms (target < 2 ms): %s\n", kmax_sum / ktyp_n, kmax, kmax < 2 ? "met" : "MISSED"
    }
    if (typ_n)
        printf "  to joined, a run\047s median daemon:    mean over points %.2f ms, highest %.1f ms\n", typ_sum / typ_n, typ_max
    printf "  to joined, a run\047s worst daemon:     mean over points %.2f ms, worst %.1f ms\n", cmed_n ? cmed_sum / cmed_n : 0, cpu_max
    printf "  RSS: worst %d kB (target < 4096 kB): %s\n", rss_max, rss_max < 4096 ? "met" : "MISSED"
}' "$SUMMARY" | tee "$REPORT"

if [ "$PLOT" = 1 ] && command -v gnuplot >/dev/null; then
    series=""
    for launcher in $LAUNCHERS; do
        if [ "$launcher" = rsh ]; then
            series+=" rsh"
        else
            for delta in $DELTAS; do series+=" prsh:$delta"; done
        fi
    done
    plot "$HERE/plot-launch.gp" "$SUMMARY" "$PNG" "$MODELS" "$EXCHANGES" \
        "$series" "$ROUTED" "$RADIX_DEGREE"
fi

say_done "$CSV"
say "results: $CSV, $SUMMARY, $FIT, $REPORT"
