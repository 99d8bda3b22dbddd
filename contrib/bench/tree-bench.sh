#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tree-bench.sh: the launch model against reality, paper 001's figure 4 on
# one machine. For each launch model (SEQ, REM) it times `hnp --timing -N 1
# /bin/true` on N simulated nodes along the flat launcher (rsh), k-ary spawn
# trees and hnp's greedy tree, with hnp-local-agent emulating the model,
# and sets beside each measurement the time `hnp --plan` models for the
# same tree. Writes tree.csv (one line a run), tree-summary.csv (medians),
# tree-report.txt (the tables, R², the fastest tree at each N, the targets)
# and tree.png. See README.md beside this file; --help lists the options.
set -euo pipefail

# C numbers (decimal points) and sorting whatever the caller's locale.
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE ME=tree-bench

# ------------------------------------------------------------- defaults
# The issue's matrix: 16 to 1024 nodes; flat, k-ary with k = 2, 4, 8, 16
# and greedy; the (10 ms, 50 ms) model and paper 001's fit (7 ms, 172 ms).
NODES="16 32 64 128 256 512 1024"
TREES="flat 2 4 8 16 greedy"
MODELS="0.010:0.050 0.007:0.172"
SLOW_MODEL=0.050:0.500
RUNS=5
LARGE_RUNS=3
LARGE_FROM=512
TARGET_FROM=64
TOLERANCE=20
AGENT_REM=match
NICE=""
USE_PERF=1
PLOT=1
REANALYSE=0

usage() {
    cat <<EOF
usage: $ME [options]

For each spawn tree, the launch model's time from \`hnp --plan\` beside the
time to "all daemons up" measured by \`hnp --timing -N 1 /bin/true\` on N
simulated nodes, with hnp-local-agent as ssh emulating the model SEQ:REM.

  -n, --nodes LIST       node counts (default: $NODES)
  -t, --trees LIST       flat (rsh: the HNP starts every daemon), K (a K-ary
                         prsh tree), greedy (prsh, built for the model),
                         routed (prsh along the routing tree)
                         (default: $TREES)
  -m, --models LIST      launch models SEQ:REM in seconds
                         (default: $MODELS)
      --slow             the model $SLOW_MODEL: slow enough that the launch
                         model, not this machine's CPU, sets the pace
                         (up to a few hundred nodes on 2 cores)
$(usage_common)
      --agent-rem HOW    match: the agent waits REM - SEQ after its SEQ, so
                         that child i of a node starts SEQ·(i-1) + REM after
                         it, as in the model (default); same: the agent
                         waits REM, as launch-bench.sh has it, one SEQ more
                         per launch than the model
      --target-from N    the targets hold from N nodes up (default: $TARGET_FROM)
      --tolerance PCT    how far above its model greedy may be (default: $TOLERANCE)
      --timeout S        seconds before a run is killed (default: grows
                         with the modeled time and N)
      --nice N           run hnp and its processes at niceness N (negative
                         needs root)
      --no-perf          do not count the runs' CPU (no CPU floor)
      --no-plot          skip the PNG
      --reanalyse        no runs: redo the summary, report and plot from
                         the tree.csv in --outdir
      --quick            smoke run: 16 and 64 nodes, the (10 ms, 50 ms)
                         model, one run
  -h, --help             this text

Lists are separated by spaces or commas. Re-plot with
  gnuplot -c $HERE/plot-tree.gp DIR/tree-summary.csv DIR/tree.png
EOF
}

# Messages, options, checks, the runs, parse_timing, progress, AWK_STATS;
# OUTDIR, PREFIX, HNP, AGENT and RUN_TIMEOUT (empty unless given).
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

while [ $# -gt 0 ]; do
    if common_option "$@"; then shift 2; continue; fi
    case $1 in
        -t | --trees) need_arg "$@"; TREES=$(words "$2"); shift ;;
        -m | --models) need_arg "$@"; MODELS=$(words "$2"); shift ;;
        --slow) MODELS=$SLOW_MODEL ;;
        --agent-rem) need_arg "$@"; AGENT_REM=$2; shift ;;
        --target-from) need_arg "$@"; TARGET_FROM=$2; shift ;;
        --tolerance) need_arg "$@"; TOLERANCE=$2; shift ;;
        --nice) need_arg "$@"; NICE=$2; shift ;;
        --no-perf) USE_PERF=0 ;;
        --no-plot) PLOT=0 ;;
        --reanalyse) REANALYSE=1 ;;
        --quick) NODES="16 64" MODELS=0.010:0.050 RUNS=1 LARGE_RUNS=1 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

# --------------------------------------------------------- validation
check_nodes "$NODES"
check_models "$MODELS"
for t in $TREES; do
    case $t in
        flat | greedy | routed) ;;
        *) [[ $t =~ ^[1-9][0-9]*$ ]] || die "tree '$t': flat, greedy, routed or an arity K >= 1" ;;
    esac
done
check_runs
for v in TARGET_FROM TOLERANCE; do
    is_uint "${!v}" || die "${v,,} '${!v}' is not an integer"
done
case $AGENT_REM in match | same) ;; *) die "--agent-rem '$AGENT_REM': match or same" ;; esac
if [ "$AGENT_REM" = match ]; then
    for m in $MODELS; do
        awk -v s="${m%%:*}" -v r="${m#*:}" 'BEGIN { exit !(r >= s) }' ||
            die "model $m: REM < SEQ, the agent cannot match it (use --agent-rem same)"
    done
fi
if [ -z "$TREES" ] || [ -z "$NODES" ] || [ -z "$MODELS" ]; then die "nothing to run"; fi
check_nice "$NICE"

# ------------------------------------------------------------ programs
if [ "$REANALYSE" = 0 ]; then
    find_hnp
    if [ "$USE_PERF" = 1 ] && ! perf_works; then
        say "perf stat does not work here: no CPU floor"
        USE_PERF=0
    fi
    max_nodes=$(max_of "$NODES")
    # With flat, the HNP runs every agent at once and holds a connection
    # to every daemon.
    raise_fd_limit $((6 * max_nodes + 256)) "$max_nodes"
fi
[ "$PLOT" = 0 ] || ensure_gnuplot
for tool in timeout awk sort grep; do
    command -v "$tool" >/dev/null || die "$tool is needed"
done
# The CPU floor of a run is its CPU time spread over every core.
NCORES=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)

# ------------------------------------------------------------- output
if [ "$REANALYSE" = 1 ] && { [ -z "$OUTDIR" ] || [ ! -s "$OUTDIR/tree.csv" ]; }; then
    die "--reanalyse needs --outdir DIR with a tree.csv"
fi
open_bench
CSV=$OUTDIR/tree.csv
SUMMARY=$OUTDIR/tree-summary.csv
REPORT=$OUTDIR/tree-report.txt
PNG=$OUTDIR/tree.png

# ------------------------------------------------------------ the trees
# tree_options TREE SEQ REM: sets TREE_OPTS, the options that choose TREE,
# the same for the run and for --plan, so that the modeled time comes from
# the tree hnp really builds. The model goes to every tree: --plan uses it
# for all of them, greedy to build itself. The HNP starts the flat tree's
# agents all at once (no concurrency limit), so that the agent's lock is
# the only sequential part, as in the model.
tree_options() {
    TREE_OPTS=(--mca plm_prsh_seq "$2" --mca plm_prsh_rem "$3")
    case $1 in
        flat) TREE_OPTS+=(--mca plm rsh --mca plm_rsh_num_concurrent 0) ;;
        greedy) TREE_OPTS+=(--mca plm prsh --mca plm_prsh_tree greedy --mca plm_prsh_model fixed) ;;
        routed) TREE_OPTS+=(--mca plm prsh --mca plm_prsh_tree routed) ;;
        *) TREE_OPTS+=(--mca plm prsh --mca plm_prsh_tree kary --mca plm_prsh_spawning_degree "$1") ;;
    esac
}

# plan_of TREE SEQ REM N: "SECONDS TOPOLOGY", the modeled launch time of
# the tree hnp --plan marks as chosen, and its name there.
plan_of() {
    local out
    tree_options "$1" "$2" "$3"
    out=$("$HNP" --plan=csv "${TREE_OPTS[@]}" --host "n[1-$4]" -N 1 /bin/true 2>&1) ||
        die "hnp --plan failed for tree $1, model $2:$3, $4 nodes: $out"
    awk -F, 'NR > 1 && $5 == 1 { gsub(/ /, "_", $2); printf "%.6g %s\n", $3, $2; found = 1; exit }
        END { if (!found) exit 1 }' <<<"$out" ||
        die "hnp --plan marked no tree as chosen for tree $1, model $2:$3, $4 nodes"
}

# ----------------------------------------------------------------- plan
# One line a run: seq rem tree nodes run model_s plan_topology. The runs
# are interleaved (every point once, then again...) and the trees of one
# N run one after another, so that a burst of load from elsewhere spreads
# over the points, and the trees compared at one N see the same machine.
declare -A PLANNED=()
plan=()
if [ "$REANALYSE" = 0 ]; then
    for model in $MODELS; do
        for n in $NODES; do
            for tree in $TREES; do
                PLANNED[$model $tree $n]=$(plan_of "$tree" "${model%%:*}" "${model#*:}" "$n")
            done
        done
    done
    max_runs=$(max_of "$RUNS $LARGE_RUNS")
    for ((run = 1; run <= max_runs; run++)); do
        for model in $MODELS; do
            for n in $NODES; do
                runs_at "$n" "$run" || continue
                for tree in $TREES; do
                    plan+=("${model%%:*} ${model#*:} $tree $n $run ${PLANNED[$model $tree $n]}")
                done
            done
        done
    done
fi
total=${#plan[@]}

# Expected seconds of a run (the model, the machine's CPU and a fixed
# cost), only to weigh the progress line's estimate of the time left.
weight_of() { awk -v m="$1" -v n="$2" 'BEGIN { printf "%.3f", m + 0.3 + 0.005 * n }'; }

# -------------------------------------------------------------- one run
readonly CSV_HEADER=model_seq,model_rem,agent_seq,agent_rem,tree,plan_topology,nodes,run,status,exit_code,model_s,wall_s,$TIMING_COLUMNS,leftover,load1,cpu_total_ms

# run_one SEQ REM TREE NODES RUN MODEL_S TOPOLOGY INDEX: one timed run,
# appended to tree.csv; prints the progress line.
run_one() {
    local seq=$1 rem=$2 tree=$3 n=$4 run=$5 model_s=$6 topology=$7 idx=$8
    local agent_rem=$rem tag log limit status fields
    local -a cmd
    # The agent holds the lock SEQ, then waits: with REM - SEQ, its first
    # launch is ready after REM and the next ones SEQ apart, the model.
    if [ "$AGENT_REM" = match ]; then
        agent_rem=$(awk -v s="$seq" -v r="$rem" 'BEGIN { printf "%.6g", r - s }')
    fi
    tag=$(printf 's%s-r%s-%s-n%05d-run%d' "$seq" "$rem" "$tree" "$n" "$run")
    log=$OUTDIR/logs/$tag.log
    # Well past the model and the CPU of N nodes, plus TCP's 3 s SYN
    # retries; short enough that a hang costs minutes, not hours.
    limit=${RUN_TIMEOUT:-$(awk -v m="$model_s" -v n="$n" \
        'BEGIN { printf "%d", 30 + 4 * m + 0.02 * n }')}

    tree_options "$tree" "$seq" "$rem"
    cmd=("$HNP" --timing
        --mca plm_rsh_agent "$AGENT"
        --mca oob_tcp_if_include 127.0.0.1/8
        "${TREE_OPTS[@]}"
        --host "n[1-$n]" -N 1 /bin/true)
    hnp_run "$log" "$limit" "$idx" "$seq" "$agent_rem" "${cmd[@]}"
    status=$RUN_STATUS fields=$RUN_FIELDS
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$seq" "$rem" \
        "$seq" "$agent_rem" "$tree" "${topology//_/ }" "$n" "$run" "$status" \
        "$RUN_RC" "$model_s" "$RUN_WALL" "$fields" "$RUN_LEFTOVER" "$RUN_LOAD" \
        "$RUN_CPU_MS" >>"$CSV"

    printf '[%*d/%d] %s/%s s %-7s N=%-5d run %d: %s (model %s s)' "${#total}" \
        "$idx" "$total" "$seq" "$rem" "$tree" "$n" "$run" \
        "$([ "$status" = ok ] && echo "up ${fields%%,*} s, wall $RUN_WALL s" ||
            echo "$status (exit $RUN_RC)")" "$model_s"
    run_problems "$log"
}

# ------------------------------------------------------------- the runs
if [ "$REANALYSE" = 0 ]; then
    say "hnp: $HNP"
    say "agent: $AGENT (REM given to it: $([ "$AGENT_REM" = match ] && echo "REM - SEQ" || echo REM))"
    say "output: $OUTDIR"
    [ -z "$NICE" ] || say "runs at niceness $NICE"
    say "$total runs: nodes {$NODES}, trees {$TREES}, models {$MODELS}," \
        "$RUNS runs a point ($LARGE_RUNS from $LARGE_FROM nodes)"
    weights=()
    for line in "${plan[@]}"; do
        read -r _ _ _ n _ model_s _ <<<"$line"
        weights+=("$(weight_of "$model_s" "$n")")
    done
    echo "$CSV_HEADER" >"$CSV"
    run_plan
fi

# --------------------------------------------------------- the analysis
# Per point (model, tree, N): the medians of the successful runs, the
# model, their ratio, and the CPU floor (the run's CPU over all cores).
# One tree's points follow one another, N ascending, so that the plot can
# join them.
awk -F, -v cores="$NCORES" "$AWK_STATS"'
function add(key, name, v) { if (v != "NA" && v != "") col[key, name] = col[key, name] " " v }
function fmt(v, f) { return v == "NA" ? v : sprintf(f, v) }
# Appends x to the list named l unless it is there already.
function remember(l, x) { if (!((l, x) in seen)) { seen[l, x] = 1; items[l, ++count[l]] = x } }
function point(k,   f, up, cpu) {
    split(k, f, ",")
    up = median(col[k, "up"]); cpu = median(col[k, "cpu"])
    printf "%s,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", f[1], f[2], f[3], topo[k], f[4],
        ok[k], failed[k], model[k], fmt(up, "%.3f"), fmt(stat(col[k, "up"], -1), "%.3f"),
        fmt(stat(col[k, "up"], 1), "%.3f"), (up == "NA" || model[k] <= 0) ? "NA" : sprintf("%.3f", up / model[k]),
        fmt(median(col[k, "wall"]), "%.3f"), fmt(stat(col[k, "wall"], -1), "%.3f"),
        fmt(stat(col[k, "wall"], 1), "%.3f"), fmt(cpu, "%.1f"),
        cpu == "NA" ? "NA" : sprintf("%.3f", cpu / 1000 / cores)
}
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    g = $h["model_seq"] "," $h["model_rem"]
    remember("model", g); remember("tree", $h["tree"]); remember("nodes", $h["nodes"] + 0)
    key = g "," $h["tree"] "," ($h["nodes"] + 0)
    if (!(key in ok)) failed[key] = ok[key] = 0
    model[key] = $h["model_s"]; topo[key] = $h["plan_topology"]
    if ($h["status"] != "ok") { failed[key]++; next }
    ok[key]++
    add(key, "up", $h["spawned_s"]); add(key, "wall", $h["wall_s"]); add(key, "cpu", $h["cpu_total_ms"])
}
END {
    print "model_seq,model_rem,tree,plan_topology,nodes,runs_ok,runs_failed,model_s,up_median_s,up_min_s,up_max_s,up_over_model,wall_median_s,wall_min_s,wall_max_s,cpu_total_median_ms,cpu_floor_s"
    for (i = 1; i <= count["nodes"]; i++) nodes[i] = items["nodes", i]
    isort(nodes, count["nodes"])
    for (mi = 1; mi <= count["model"]; mi++)
        for (ti = 1; ti <= count["tree"]; ti++)
            for (ni = 1; ni <= count["nodes"]; ni++) {
                k = items["model", mi] "," items["tree", ti] "," nodes[ni]
                if (k in ok) point(k)
            }
}' "$CSV" >"$SUMMARY"

# The report: per model, tables of N × tree (measured, modeled, their
# ratio, the CPU floor, the wall time), R² of the model as a prediction of
# the measurements, the fastest tree at each N, and the targets: from
# --target-from nodes up, greedy is the fastest measured tree and within
# --tolerance percent of its model.
awk -F, -v from="$TARGET_FROM" -v tol="$TOLERANCE" -v cores="$NCORES" '
function title(t) { return t == "flat" || t == "greedy" || t == "routed" ? t : t "-ary" }
# R² = 1 - (sum of (measured - modeled)²) / (sum of (measured - mean)²):
# how much of the measurements'"'"' spread the model explains, 1 at best,
# negative when the model is worse than a constant.
function r2(m, p, n,   i, mean, ssr, sst) {
    if (n < 2) return "NA"
    for (i = 1; i <= n; i++) mean += m[i] / n
    for (i = 1; i <= n; i++) { ssr += (m[i] - p[i]) ^ 2; sst += (m[i] - mean) ^ 2 }
    return sst > 0 ? sprintf("%.3f", 1 - ssr / sst) : "NA"
}
function table(label, what, fmt_,   ni, ti, nn, v) {
    printf "%s\n%6s", label, "N"
    for (ti = 1; ti <= ntrees; ti++) printf " %8s", title(trees[ti])
    printf "\n"
    for (ni = 1; ni <= nnodes; ni++) {
        nn = nodes[ni]; if (!((g, nn) in any)) continue
        printf "%6d", nn
        for (ti = 1; ti <= ntrees; ti++) {
            v = val[g, trees[ti], nn, what]
            printf " %8s", (v == "" || v == "NA") ? "-" : sprintf(fmt_, v)
        }
        printf "\n"
    }
}
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    g = $h["model_seq"] "," $h["model_rem"]; t = $h["tree"]; nn = $h["nodes"] + 0
    if (!(g in gseen)) { gseen[g] = 1; groups[++ng] = g }
    if (!(t in tseen)) { tseen[t] = 1; trees[++ntrees] = t }
    if (!(nn in nseen)) { nseen[nn] = 1; nodes[++nnodes] = nn }
    any[g, nn] = 1
    val[g, t, nn, "up"] = $h["up_median_s"]; val[g, t, nn, "model"] = $h["model_s"]
    val[g, t, nn, "ratio"] = $h["up_over_model"]; val[g, t, nn, "cpu"] = $h["cpu_floor_s"]
    val[g, t, nn, "wall"] = $h["wall_median_s"]
    runs[g, t, nn] = $h["runs_ok"] "/" ($h["runs_ok"] + $h["runs_failed"])
}
END {
    for (i = 2; i <= nnodes; i++) { x = nodes[i]; for (j = i - 1; j >= 1 && nodes[j] > x; j--) nodes[j + 1] = nodes[j]; nodes[j + 1] = x }
    for (gi = 1; gi <= ng; gi++) {
        g = groups[gi]; split(g, gf, ",")
        printf "\nModel SEQ = %s s, REM = %s s; %d cores\n\n", gf[1], gf[2], cores
        table("all daemons up (hnp --timing), median of the runs, s", "up", "%.3f")
        table("\nmodeled by hnp --plan for the same tree, s", "model", "%.3f")
        table("\nmeasured / modeled", "ratio", "%.2f")
        table("\nCPU floor: CPU of all the run'"'"'s processes / cores, s", "cpu", "%.3f")
        table("\nwall time of hnp, median, s", "wall", "%.3f")

        # R² per tree over N, and over every point of the model.
        printf "\nR² of modeled against measured (1 = the model explains all):"
        na = 0; split("", am); split("", ap)
        for (ti = 1; ti <= ntrees; ti++) {
            t = trees[ti]; n = 0; split("", m); split("", p)
            for (ni = 1; ni <= nnodes; ni++) {
                nn = nodes[ni]; u = val[g, t, nn, "up"]; md = val[g, t, nn, "model"]
                if (u == "" || u == "NA" || md == "") continue
                m[++n] = u + 0; p[n] = md + 0; am[++na] = u + 0; ap[na] = md + 0
            }
            printf " %s %s,", title(t), r2(m, p, n)
        }
        printf " all points %s\n", r2(am, ap, na)

        # The fastest tree at each N, measured and modeled, and the targets.
        printf "\n%6s %-18s %-20s %-15s %s\n", "N", "fastest measured", "fastest modeled", "greedy/model", "CPU floor of greedy"
        for (ni = 1; ni <= nnodes; ni++) {
            nn = nodes[ni]; if (!((g, nn) in any)) continue
            best = ""; bmod = ""; second = ""
            for (ti = 1; ti <= ntrees; ti++) {
                t = trees[ti]; u = val[g, t, nn, "up"]; md = val[g, t, nn, "model"]
                if (md != "" && (bmod == "" || md + 0 < val[g, bmod, nn, "model"] + 0)) bmod = t
                if (u == "" || u == "NA") continue
                if (best == "" || u + 0 < val[g, best, nn, "up"] + 0) { second = best; best = t }
                else if (second == "" || u + 0 < val[g, second, nn, "up"] + 0) second = t
            }
            if (best == "") continue
            margin = second == "" ? "" : sprintf(" by %.0f%%", 100 * (1 - val[g, best, nn, "up"] / val[g, second, nn, "up"]))
            gr = val[g, "greedy", nn, "ratio"]; gm = val[g, "greedy", nn, "model"]; cf = val[g, "greedy", nn, "cpu"]
            within = (gr == "" || gr == "NA") ? "-" : sprintf("%.2fx %s", gr, gr <= 1 + tol / 100 ? "within" : "OVER")
            cpub = (cf == "" || cf == "NA" || gm == "") ? "-" : sprintf("%.3f s %s", cf, cf + 0 > gm + 0 ? "> model: CPU-bound" : "<= model")
            # Trees the model ties with the best (greedy builds the flat
            # tree when that is the best) are all named.
            for (ti = 1; ti <= ntrees; ti++) {
                t = trees[ti]; md = val[g, t, nn, "model"]
                if (t != bmod && md != "" && md - val[g, bmod, nn, "model"] < 1e-9) bmods = bmods "=" title(t)
            }
            printf "%6d %-18s %-20s %-15s %s\n", nn, title(best) margin, title(bmod) bmods, within, cpub
            bmods = ""
            if (nn >= from && ("greedy" in tseen)) {
                checked++
                if (best != "greedy") { slow = slow " " nn; if (cf + 0 > gm + 0) slow_cpu = slow_cpu " " nn }
                if (gr == "NA" || gr > 1 + tol / 100) { over = over " " nn; if (cf + 0 > gm + 0) over_cpu = over_cpu " " nn }
            }
        }
        printf "(by: how much faster than the next tree; CPU-bound: the CPU floor alone exceeds the\n model, so this machine, not the tree, sets the pace)\n"
        if ("greedy" in tseen && checked) {
            printf "\ntarget, N >= %d: greedy the fastest measured tree: %s", from, slow == "" ? "met" : "MISSED at N =" slow
            if (slow_cpu != "") printf " (CPU-bound at N =%s)", slow_cpu
            printf "\ntarget, N >= %d: greedy within %d%% of its model: %s", from, tol, over == "" ? "met" : "MISSED at N =" over
            if (over_cpu != "") printf " (CPU-bound at N =%s)", over_cpu
            printf "\n"
        }
        checked = 0; slow = slow_cpu = over = over_cpu = ""
    }
}' "$SUMMARY" | tee "$REPORT"

if [ "$PLOT" = 1 ] && command -v gnuplot >/dev/null; then
    # The models and the trees, in the order of the runs.
    models=$(awk -F, 'NR > 1 && !seen[$1 ":" $2]++ { printf "%s ", $1 ":" $2 }' "$CSV")
    trees=$(awk -F, 'NR > 1 && !seen[$5]++ { printf "%s ", $5 }' "$CSV")
    plot "$HERE/plot-tree.gp" "$SUMMARY" "$PNG" "$models" "$trees"
fi

say_done "$CSV"
say "results: $CSV, $SUMMARY, $REPORT"
