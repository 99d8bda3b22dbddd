# SPDX-License-Identifier: BSD-3-Clause
# plot-common.gp: what the benchmark plots share, loaded by plot-launch.gp
# and plot-tree.gp once they have set OUT (the PNG), NROWS and NCOLS (the
# panels): the terminal, the CSV conventions, the x axis (N on a log2
# scale, 16 to 1024), the grid, the key and the colours of the series.

# A panel is PANEL_W pixels wide (760 unless the plot set it) and 520 high.
if (!exists("PANEL_W")) PANEL_W = 760
# Debian's gnuplot-nox has both; pngcairo draws smoother lines and text.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size PANEL_W * NCOLS, 520 * NROWS font "DejaVu Sans,10" noenhanced
} else {
    set terminal png size PANEL_W * NCOLS, 520 * NROWS noenhanced
}
set output OUT

set datafile separator ","
set datafile columnheaders
set datafile missing "NA"

# The model string "SEQ:REM" split in two, as strings: the CSV holds what
# the driver was given, so the comparison is on the text.
seq_of(m) = m[1:strstrt(m, ":") - 1]
rem_of(m) = m[strstrt(m, ":") + 1:]

# The first series in black, the others in a sequence of distinct colours.
array COLOURS[7] = ["#000000", "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
colour(i) = COLOURS[(i - 1) % 7 + 1]

set logscale x 2
set xrange [12:1400]
set xtics ("16" 16, "32" 32, "64" 64, "128" 128, "256" 256, "512" 512, "1024" 1024)
set grid xtics ytics lc rgb "#dddddd"
set key top left box opaque font ",9"
set xlabel "nodes N (one /bin/true on each)"
set bars small
