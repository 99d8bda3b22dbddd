/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How long building the greedy spawn tree takes, and how much memory, for
 * a given number of processes: paper 001 reports 0.09 s for 100,000. Run
 * by greedy-bench.sh; prints "n best_ms median_ms peak_rss_kb".
 *
 * Each run builds and releases the tree; the best of several runs is the
 * figure least disturbed by other work on the machine.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "hnp_errors.h"
#include "hnp_tree.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000;
    int runs = argc > 2 ? atoi(argv[2]) : 21;
    double seq = argc > 3 ? strtod(argv[3], NULL) : 0.007;
    double rem = argc > 4 ? strtod(argv[4], NULL) : 0.172;
    double *ms = malloc((size_t)(runs > 0 ? runs : 1) * sizeof(*ms));
    struct rusage ru;

    if (ms == NULL || runs < 1 || n == 0) {
        fprintf(stderr, "usage: greedy-bench [N [RUNS [SEQ REM]]]\n");
        return 2;
    }
    for (int i = 0; i < runs; i++) {
        hnp_tree_t t;
        double start = now_ms();
        if (hnp_tree_greedy(n, seq, rem, &t) != HNP_SUCCESS) {
            fprintf(stderr, "greedy-bench: cannot build %u\n", n);
            return 1;
        }
        ms[i] = now_ms() - start;
        hnp_tree_release(&t);
    }
    qsort(ms, (size_t)runs, sizeof(*ms), by_value);
    getrusage(RUSAGE_SELF, &ru);
    printf("%u %.2f %.2f %ld\n", n, ms[0], ms[runs / 2], ru.ru_maxrss);
    free(ms);
    return 0;
}
