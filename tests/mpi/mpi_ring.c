/* SPDX-License-Identifier: BSD-3-Clause */
/* A small MPI program for hnp's tests: a token around a ring, an
 * MPI_Allreduce and a barrier; each rank checks what it got and says so.
 * With an argument "abort R C", rank R calls MPI_Abort(..., C) instead. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    ring_ok = ring(rank, size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    want = size * (size - 1) / 2;
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: ring %s, allreduce %d %s\n", rank, size,
           ring_ok ? "ok" : "WRONG", sum, sum == want ? "ok" : "WRONG");
    MPI_Finalize();
    return ring_ok && sum == want ? 0 : 1;
}
