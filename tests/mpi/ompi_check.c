/* SPDX-License-Identifier: BSD-3-Clause */
/* What an Open MPI program needs of its launcher beyond a ring
 * (mpi_ring.c), one check per argument:
 *   shared      every rank prints how many ranks share its node
 *               (MPI_COMM_TYPE_SHARED: the launcher's local peers)
 *   nofinalize  the ranks initialize, meet, and exit without MPI_Finalize
 *   spawn       MPI_Comm_spawn must fail with an error, not hang */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, peers = 0;
    const char *mode = argc > 1 ? argv[1] : "shared";
    MPI_Comm node;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "shared") == 0) {
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                            MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &peers);
        MPI_Comm_free(&node);
        printf("rank %d of %d: %d on this node\n", rank, size, peers);
    } else if (strcmp(mode, "nofinalize") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        printf("rank %d of %d: leaving without MPI_Finalize\n", rank, size);
        fflush(stdout);
        return 0;
    } else if (strcmp(mode, "spawn") == 0) {
        MPI_Comm child;
        char *args[] = { "nofinalize", NULL };
        /* each rank its own root: none waits for another's failure */
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        int rc = MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0,
                                MPI_COMM_SELF, &child, MPI_ERRCODES_IGNORE);
        printf("rank %d of %d: spawn %s\n", rank, size,
               rc == MPI_SUCCESS ? "succeeded" : "refused");
    } else {
        fprintf(stderr, "ompi_check: unknown check '%s' (expected shared, "
                "nofinalize or spawn)\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
