/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a rank of an Open MPI job holds after MPI_Init, for hnp's memory
 * tests: every rank prints one line
 *
 *     memory rank R of N: anon KB store STORE parent PKB
 *
 * where KB is its anonymous resident memory (RssAnon of /proc/self/status)
 * once MPI_Init and a barrier are done, STORE the PMIx data store its
 * server handed it (PMIX_GDS_MODULE), "-" if none was named, and PKB its
 * parent's (the launcher's daemon) anonymous memory at the same time. With a store
 * that keeps the job's data in every process (gds hash) KB grows with N;
 * with one that shares it once a node (ds21, ds12) it does not.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* RssAnon of process @p pid (0: this one) in kB, or -1. */
static long anon_rss_kb(long pid)
{
    char path[64];
    FILE *f;
    char line[256];
    long kb = -1;

    if (pid > 0)
        snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    else
        snprintf(path, sizeof(path), "/proc/self/status");
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "RssAnon:", 8) == 0) {
            kb = strtol(line + 8, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *store = getenv("PMIX_GDS_MODULE");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("memory rank %d of %d: anon %ld store %s parent %ld\n", rank,
           size, anon_rss_kb(0),
           store != NULL && store[0] != '\0' ? store : "-",
           anon_rss_kb((long)getppid()));
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
