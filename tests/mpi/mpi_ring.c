/* SPDX-License-Identifier: BSD-3-Clause */
/* A small MPI program for hnp's tests: a token around a ring, an
 * MPI_Allreduce and a barrier; each rank checks what it got and says so.
 * With an argument "abort R C", rank R calls MPI_Abort(..., C) instead.
 * With "gate P", each rank, once inside MPI (after MPI_Init), makes the
 * file P.in.RANK, then waits for the file P.go before the ring (at most
 * 240 s): a test knows the job is in MPI, and holds it there while other
 * jobs run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Say this rank is inside MPI, then wait for the test's go. */
static void gate(const char *prefix, int rank)
{
    char path[4096];
    struct stat st;
    FILE *f;

    snprintf(path, sizeof(path), "%s.in.%d", prefix, rank);
    if ((f = fopen(path, "w")) == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    fclose(f);
    snprintf(path, sizeof(path), "%s.go", prefix);
    for (int waited = 0; stat(path, &st) != 0; waited++) {
        if (waited > 240 * 50) {
            fprintf(stderr, "rank %d: no %s after 240 s\n", rank, path);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        usleep(20000);
    }
}

static int ring(int rank, int size)
{
    int token = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;

    if (size == 1)
        return 1;
    if (rank == 0) {
        token = 1;
        MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return token == size;
    }
    MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token++;
    MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size, sum = 0, ring_ok, want;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 4 && strcmp(argv[1], "abort") == 0) {
        if (rank == atoi(argv[2]))
            MPI_Abort(MPI_COMM_WORLD, atoi(argv[3]));
        sleep(60);
    }
    if (argc >= 3 && strcmp(argv[1], "gate") == 0)
        gate(argv[2], rank);
    ring_ok = ring(rank, size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    want = size * (size - 1) / 2;
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: ring %s, allreduce %d %s\n", rank, size,
           ring_ok ? "ok" : "WRONG", sum, sum == want ? "ok" : "WRONG");
    MPI_Finalize();
    return ring_ok && sum == want ? 0 : 1;
}
