/* SPDX-License-Identifier: BSD-3-Clause */
/* For hnp's tests: what MPI_INFO_ENV tells a rank ("key=value", one a
 * line, "key unset" for a key it lacks). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    static const char *const keys[] = { "command", "maxprocs", "wdir",
                                        NULL };
    char value[MPI_MAX_INFO_VAL + 1];
    int rank, flag;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; keys[i] != NULL; i++) {
        MPI_Info_get(MPI_INFO_ENV, keys[i], MPI_MAX_INFO_VAL, value, &flag);
        if (flag)
            printf("%d %s=%s\n", rank, keys[i], value);
        else
            printf("%d %s unset\n", rank, keys[i]);
    }
    MPI_Finalize();
    return 0;
}
