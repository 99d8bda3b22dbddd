/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * empty_mpi.c: the MPI program of paper 002's second testbed. It does
 * nothing but join and leave the job, so the time of a run is the time
 * the launcher needs to start the processes, let them find each other
 * (the PMI exchange inside MPI_Init) and wind the job down.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
