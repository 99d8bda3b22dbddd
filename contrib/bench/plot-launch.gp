# SPDX-License-Identifier: BSD-3-Clause
# plot-launch.gp: launch time against the number of nodes, from the
# launch-summary.csv that launch-bench.sh writes.
#
#   gnuplot -c plot-launch.gp SUMMARY.csv OUT.png [MODELS [EXCHANGES
#           [SERIES [ROUTED [RADIX]]]]]
#
# MODELS: "SEQ:REM ..." as given to launch-bench.sh; EXCHANGES: "gather_scatter
# flood"; SERIES: "rsh prsh:2 prsh:4 ..." (launcher, and δ for prsh). The
# defaults are the issue's matrix. One panel per model (rows) and exchange
# (columns); one line per launcher/δ: the median over the runs, bars from the
# fastest to the slowest run; dotted in the same colour, the floor the
# launch model alone allows (infinitely fast CPUs); dash-dotted, grey, the
# CPU floor when the runs were made with --perf: the CPU time of all of a
# run's processes spread over every core of the machine. x is log2: a time growing like log N is a
# straight line, one growing like N bends upwards.

if (ARGC < 2) {
    print "usage: gnuplot -c plot-launch.gp SUMMARY.csv OUT.png [MODELS [EXCHANGES [SERIES [ROUTED [RADIX]]]]]"
    exit error "missing arguments"
}
FILE = ARG1
OUT = ARG2
MODELS = ARGC >= 3 && strlen(ARG3) > 0 ? ARG3 : "0.010:0.050 0.007:0.172"
EXCHANGES = ARGC >= 4 && strlen(ARG4) > 0 ? ARG4 : "gather_scatter flood"
SERIES = ARGC >= 5 && strlen(ARG5) > 0 ? ARG5 : "rsh prsh:2 prsh:4 prsh:8 prsh:0"
ROUTED = ARGC >= 6 && strlen(ARG6) > 0 ? ARG6 : "radix"
RADIX = ARGC >= 7 && strlen(ARG7) > 0 ? ARG7 : "32"

NROWS = words(MODELS)
NCOLS = words(EXCHANGES)
# Terminal, CSV, x axis, key, colours: beside this file.
load ARG0[1:strlen(ARG0) - strlen("plot-launch.gp")] . "plot-common.gp"

delta_of(s) = s[6:]
title_of(s) = s eq "rsh" ? "rsh (the HNP starts every daemon)" : \
    delta_of(s) eq "0" ? sprintf("prsh δ=0 (along the %s tree%s)", ROUTED, \
                                  ROUTED eq "radix" ? ", k=" . RADIX : "") : \
    sprintf("prsh δ=%s", delta_of(s))

# The row of this panel and this series, else NaN (so it is not drawn).
M = ""
X = ""
on(i) = strcol("model_seq") eq seq_of(M) && strcol("model_rem") eq rem_of(M) && \
        strcol("exchange") eq X && strcol("series") eq word(SERIES, i)

set yrange [0:*]
set ylabel "launch time: wall time of hnp (s)"

set multiplot layout NROWS, NCOLS title \
    "hnp launch time against N, simulated ssh (hnp-local-agent); median of the runs, bars min..max; dotted: launch-model floor"
do for [r = 1:NROWS] {
    do for [c = 1:NCOLS] {
        M = word(MODELS, r)
        X = word(EXCHANGES, c)
        set title sprintf("SEQ = %g ms, REM = %g ms; exchange %s", \
                          real(seq_of(M)) * 1000, real(rem_of(M)) * 1000, X)
        plot for [i = 1:words(SERIES)] FILE \
                 using (on(i) ? column("nodes") : NaN):"wall_median_s":"wall_min_s":"wall_max_s" \
                 with yerrorlines lw 2 pt 7 ps 0.8 lc rgb colour(i) title title_of(word(SERIES, i)), \
             for [i = 1:words(SERIES)] FILE \
                 using (on(i) ? column("nodes") : NaN):"model_floor_s" \
                 with lines dt 3 lw 1.5 lc rgb colour(i) notitle, \
             for [i = 1:words(SERIES)] FILE \
                 using (on(i) ? column("nodes") : NaN):"cpu_floor_s" \
                 with lines dt 4 lw 1 lc rgb "#999999" \
                 title (i == 1 ? "CPU floor: the run's CPU / cores (one per series)" : "")
    }
}
unset multiplot
