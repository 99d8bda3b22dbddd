/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The program of spawn-bench.sh: the parent job (one process a node)
 * spawns N copies of this program with MPI_Comm_spawn, its rank 0 sends
 * each child a number and gets it back, and all disconnect. Rank 0
 * prints "spawned_s S1" (seconds from the call of MPI_Comm_spawn to its
 * return: the launch, the children's MPI_Init, and the communicator the
 * two jobs then build together), "spawn_s S" (the call of MPI_Comm_spawn
 * to the end of MPI_Comm_disconnect) and "answers A of N".
 *
 *   spawn_mpi N
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void child(MPI_Comm parent)
{
    int got = -1;

    MPI_Recv(&got, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
    MPI_Send(&got, 1, MPI_INT, 0, 2, parent);
    MPI_Comm_disconnect(&parent);
}

static void parent(int rank, int n, char *self)
{
    MPI_Comm children;
    double t0, spawned;
    int ok = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    MPI_Comm_spawn(self, MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                   &children, MPI_ERRCODES_IGNORE);
    spawned = MPI_Wtime() - t0;
    if (rank == 0) {
        for (int c = 0; c < n; c++)
            MPI_Send(&c, 1, MPI_INT, c, 1, children);
        for (int c = 0; c < n; c++) {
            int back = -1;
            MPI_Recv(&back, 1, MPI_INT, c, 2, children, MPI_STATUS_IGNORE);
            ok += back == c;
        }
    }
    MPI_Comm_disconnect(&children);
    if (rank == 0) {
        printf("spawned_s %.4f\nspawn_s %.4f\nanswers %d of %d\n", spawned,
               MPI_Wtime() - t0, ok, n);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    MPI_Comm up;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&up);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (up != MPI_COMM_NULL)
        child(up);
    else
        parent(rank, argc > 1 ? atoi(argv[1]) : 1, argv[0]);
    MPI_Finalize();
    return 0;
}
