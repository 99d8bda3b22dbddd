# SPDX-License-Identifier: BSD-3-Clause
# plot-tree.gp: measured against modeled launch time of each spawn tree,
# as paper 001's figure 4, from the tree-summary.csv that tree-bench.sh
# writes.
#
#   gnuplot -c plot-tree.gp SUMMARY.csv OUT.png [MODELS [TREES]]
#
# MODELS: "SEQ:REM ..." as given to tree-bench.sh; TREES: "flat 2 4 ...
# greedy". The defaults are the issue's matrix. One panel per model; per
# tree, in one colour: solid with points, the measured time to "all daemons
# up" (median, bars from the fastest to the slowest run); dashed, the time
# hnp --plan models for the same tree. Grey dash-dotted: the CPU floor of
# the greedy runs (their CPU over all cores): where it rises above a model
# line, this machine cannot keep up with that model. x is log2, y log10:
# equal ratios are equal distances, so "within 20%" reads the same at any N.

if (ARGC < 2) {
    print "usage: gnuplot -c plot-tree.gp SUMMARY.csv OUT.png [MODELS [TREES]]"
    exit error "missing arguments"
}
FILE = ARG1
OUT = ARG2
MODELS = ARGC >= 3 && strlen(ARG3) > 0 ? ARG3 : "0.010:0.050 0.007:0.172"
TREES = ARGC >= 4 && strlen(ARG4) > 0 ? ARG4 : "flat 2 4 8 16 greedy"

NROWS = words(MODELS)
NCOLS = 1
PANEL_W = 980
# Terminal, CSV, x axis, key, colours: beside this file.
load ARG0[1:strlen(ARG0) - strlen("plot-tree.gp")] . "plot-common.gp"

title_of(t) = t eq "flat" ? "flat (rsh: the HNP starts every daemon)" : \
    t eq "greedy" ? "greedy (prsh, built for the model)" : \
    t eq "routed" ? "routed (prsh along the routing tree)" : \
    sprintf("%s-ary (prsh)", t)
# The CPU floor is drawn once, from greedy's runs, or else the last tree's.
FLOOR_TREE = strstrt(" " . TREES . " ", " greedy ") > 0 ? "greedy" : word(TREES, words(TREES))

# The row of this panel and this tree, else NaN (so it is not drawn).
M = ""
on(t) = strcol("model_seq") eq seq_of(M) && strcol("model_rem") eq rem_of(M) && \
        strcol("tree") eq t

set logscale y
set format y "%g"
set ylabel "time to all daemons up (s)"

# Beside the panel: at the top left it would hide the small N.
set key outside right top Left reverse box opaque font ",9"

set multiplot layout NROWS, NCOLS title \
    "hnp spawn trees on a simulated cluster (hnp-local-agent)\nsolid: measured, median, bars min..max; dashed: modeled by hnp --plan"
do for [r = 1:NROWS] {
    M = word(MODELS, r)
    set title sprintf("SEQ = %g ms, REM = %g ms", real(seq_of(M)) * 1000, real(rem_of(M)) * 1000)
    plot for [i = 1:words(TREES)] FILE \
             using (on(word(TREES, i)) ? column("nodes") : NaN):"up_median_s":"up_min_s":"up_max_s" \
             with yerrorlines lw 2 pt 7 ps 0.8 lc rgb colour(i) title title_of(word(TREES, i)), \
         for [i = 1:words(TREES)] FILE \
             using (on(word(TREES, i)) ? column("nodes") : NaN):"model_s" \
             with lines dt 2 lw 1.5 lc rgb colour(i) notitle, \
         FILE using (on(FLOOR_TREE) ? column("nodes") : NaN):"cpu_floor_s" \
             with lines dt 4 lw 1 lc rgb "#999999" \
             title sprintf("CPU floor (%s): the run's CPU / cores", FLOOR_TREE)
}
unset multiplot
