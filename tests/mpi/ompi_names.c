/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Publish_name, MPI_Lookup_name and MPI_Unpublish_name between the
 * ranks of one job (Open MPI: through the PMIx server's publish, lookup
 * and unpublish): rank 0 publishes, every other rank looks the name up
 * (on another node too), a second publish is refused, rank 0 unpublishes
 * and the name is gone. Prints "rank R: names ok" when every check
 * passed, "FAIL: ..." otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;

#define CHECK(cond, what)                                                 \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("FAIL: rank %d: %s\n", rank, what);                    \
            MPI_Abort(MPI_COMM_WORLD, 3);                                 \
        }                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    char port[MPI_MAX_PORT_NAME], got[MPI_MAX_PORT_NAME];
    const char *service = argc > 1 ? argv[1] : "hnp-test-service";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    snprintf(port, sizeof(port), "port-of-%s", service);
    if (rank == 0) {
        CHECK(MPI_Lookup_name("hnp-no-such-service", MPI_INFO_NULL, got) !=
                  MPI_SUCCESS, "a lookup of an unknown name succeeded");
        CHECK(MPI_Publish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS,
              "publish failed");
        CHECK(MPI_Publish_name(service, MPI_INFO_NULL, "other") !=
                  MPI_SUCCESS, "a second publish of the name succeeded");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    memset(got, 0, sizeof(got));
    CHECK(MPI_Lookup_name(service, MPI_INFO_NULL, got) == MPI_SUCCESS,
          "lookup failed");
    CHECK(strcmp(got, port) == 0, "lookup gave another port");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(MPI_Unpublish_name(service, MPI_INFO_NULL, port) ==
                  MPI_SUCCESS, "unpublish failed");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Lookup_name(service, MPI_INFO_NULL, got) != MPI_SUCCESS,
          "a lookup after the unpublish succeeded");
    printf("rank %d: names ok\n", rank);
    MPI_Finalize();
    return 0;
}
