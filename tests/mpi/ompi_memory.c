/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a rank of an Open MPI job holds after MPI_Init, for hnp's memory
 * tests: every rank prints one line
 *
 *     memory rank R of N: anon KB store STORE parent PKB shm SKB
 *
 * where KB is its anonymous resident memory (RssAnon of /proc/self/status)
 * once MPI_Init and a barrier are done, STORE the PMIx data store its
 * server handed it (PMIX_GDS_MODULE), "-" if none was named, and PKB its
 * parent's (the launcher's daemon) anonymous memory at the same time. With a store
 * that keeps the job's data in every process (gds hash) KB grows with N;
 * with one that shares it once a node (ds21, ds12) it does not. SKB is
 * the memory the shared store's files hold on the node (the blocks
 * allocated under its directory, PMIX_DSTORE_21_BASE_PATH or
 * PMIX_DSTORE_ESH_BASE_PATH), -1 without one.
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* The kB allocated to the files of the shared store's directory, or -1. */
static long store_kb(void)
{
    const char *dir = getenv("PMIX_DSTORE_21_BASE_PATH");
    char path[4096];
    struct dirent *e;
    struct stat st;
    long long bytes = 0;
    DIR *d;

    if (dir == NULL)
        dir = getenv("PMIX_DSTORE_ESH_BASE_PATH");
    if (dir == NULL || (d = opendir(dir)) == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            bytes += (long long)st.st_blocks * 512;
    }
    closedir(d);
    return (long)(bytes / 1024);
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *store = getenv("PMIX_GDS_MODULE");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("memory rank %d of %d: anon %ld store %s parent %ld shm %ld\n",
           rank, size, anon_rss_kb(0),
           store != NULL && store[0] != '\0' ? store : "-",
           anon_rss_kb((long)getppid()), store_kb());
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
