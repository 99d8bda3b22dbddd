#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cost of building the greedy spawn tree (paper 001's Table I asks
# 0.28 s for 100,000 processes): best and median milliseconds of 21 builds
# and the peak resident memory of the whole program, for each size.
# Usage: greedy-bench.sh [BUILDDIR]   (default: the current directory)
set -eu
bench="${1:-.}/contrib/bench/greedy-bench"
echo "processes best_ms median_ms peak_rss_kb"
for n in 100 1000 10000 100000 1000000; do
    "$bench" "$n" 21
done
