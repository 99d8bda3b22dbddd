/* SPDX-License-Identifier: BSD-3-Clause */
/* For hnp's tests: after MPI_Init, rank R dies of a signal, the way a bug
 * (a write through a null pointer: "segv R") or the OOM killer ("kill R",
 * SIGKILL) ends a rank; the others wait in a barrier until hnp ends them.
 *
 * Every rank first passes a barrier, so none is still inside MPI_Init
 * when R dies: MPICH over UCX connects to every rank there, and on the
 * simulated cluster (one machine) UCX reaches a peer through its shared
 * memory, which a dead peer no longer has; MPI_Init then fails ("Shared
 * memory error") and the rank crashes in MPICH's error path, a death that
 * is not the one under test. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("ready %d\n", rank);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc >= 3 && rank == atoi(argv[2])) {
        if (strcmp(argv[1], "segv") == 0) {
            volatile int *nowhere = NULL;
            *nowhere = 1;
        } else if (strcmp(argv[1], "kill") == 0) {
            kill(getpid(), SIGKILL);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
