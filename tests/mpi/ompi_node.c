/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an MPI program learns of its node, for hnp's Open MPI tests.
 *
 *     ompi_node [shm]            every rank checks shared memory with the
 *                                ranks of its host and says so
 *     ompi_node nofinalize R     rank R leaves without MPI_Finalize
 *     ompi_node cpus             every rank says the CPUs it may run on
 *                                once MPI_Init has returned: "rank R cpus
 *                                LIST" (as /proc/self/status lists them)
 *
 * shm: the ranks that share a host (by gethostname()) must be exactly the
 * ranks of MPI_COMM_TYPE_SHARED, which the MPI library builds from what the
 * launcher told it of each rank's node; then each writes its rank into a
 * window of shared memory and reads its neighbour's. A launcher that does
 * not tell the library who is local makes every rank its own island, and
 * the check fails; one that puts two nodes on one host name makes islands
 * too large. Each rank prints "rank R of N on HOST: L on the node, shared
 * memory ok" and exits 0, or says what was wrong and exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOST_LEN 256

/* How many ranks of the world run on a host named @p host. */
static int ranks_on_host(const char *host, int size)
{
    char *all = malloc((size_t)size * HOST_LEN);
    char mine[HOST_LEN];
    int n = 0;

    snprintf(mine, sizeof(mine), "%s", host);
    MPI_Allgather(mine, HOST_LEN, MPI_CHAR, all, HOST_LEN, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        n += strcmp(all + (size_t)r * HOST_LEN, mine) == 0;
    free(all);
    return n;
}

/* Each rank of @p node writes its world rank into its slot of a shared
 * window and reads the next local rank's slot directly. */
static int shared_window_ok(MPI_Comm node, int rank)
{
    int local, nlocal, *slot, *peer, disp, ok;
    MPI_Aint size;
    MPI_Win win;

    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &nlocal);
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node,
                            &slot, &win);
    MPI_Win_lock_all(0, win);
    *slot = rank;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    MPI_Win_shared_query(win, (local + 1) % nlocal, &size, &disp, &peer);
    int next_world = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, (local + nlocal - 1) % nlocal, 0,
                 &next_world, 1, MPI_INT, (local + 1) % nlocal, 0, node,
                 MPI_STATUS_IGNORE);
    ok = *peer == next_world;
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    return ok;
}

static int check_shared_memory(int rank, int size)
{
    char host[HOST_LEN] = "?";
    MPI_Comm node;
    int nlocal, on_host, ok;

    gethostname(host, sizeof(host) - 1);
    on_host = ranks_on_host(host, size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nlocal);
    if (nlocal != on_host) {
        printf("rank %d of %d on %s: %d ranks share memory, but %d run on "
               "this host: WRONG\n", rank, size, host, nlocal, on_host);
        MPI_Comm_free(&node);
        return 0;
    }
    ok = shared_window_ok(node, rank);
    printf("rank %d of %d on %s: %d on the node, shared memory %s\n", rank,
           size, host, nlocal, ok ? "ok" : "WRONG");
    MPI_Comm_free(&node);
    return ok;
}

/* Cpus_allowed_list of this process, as the kernel prints it. */
static void print_cpus(int rank)
{
    char line[512], cpus[256] = "?";
    FILE *f = fopen("/proc/self/status", "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
            sscanf(line + 18, "%255s", cpus);
    if (f != NULL)
        fclose(f);
    printf("rank %d cpus %s\n", rank, cpus);
}

int main(int argc, char **argv)
{
    int rank, size, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 3 && strcmp(argv[1], "nofinalize") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == atoi(argv[2])) {
            printf("rank %d leaves without MPI_Finalize\n", rank);
            fflush(stdout);
            _exit(0);
        }
        sleep(2);
    } else if (argc >= 2 && strcmp(argv[1], "cpus") == 0) {
        print_cpus(rank);
    } else {
        ok = check_shared_memory(rank, size);
    }
    fflush(stdout);
    MPI_Finalize();
    return ok ? 0 : 1;
}
