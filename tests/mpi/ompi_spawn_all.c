/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Comm_spawn where every process talks to every process of the other
 * job: the parent job spawns N copies of this program (optionally on
 * HOSTS), then each parent rank sends each child a number and each child
 * sends each parent rank one, and every process checks all it got. So
 * each process needs the endpoint of every peer of the other job. Each
 * process prints one line saying what it checked, then all disconnect.
 *
 *   ompi_spawn_all N [HOSTS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exchange with every process of @p inter's remote group: send
 * @p base * 1000 + peer, expect peer_base * 1000 + own rank. */
static int exchange(MPI_Comm inter, int rank, int base, int peer_base)
{
    int nremote, right = 0;

    MPI_Comm_remote_size(inter, &nremote);
    int *out = calloc((size_t)nremote, sizeof(*out));
    int *in = calloc((size_t)nremote, sizeof(*in));
    MPI_Request *reqs = calloc(2 * (size_t)nremote, sizeof(*reqs));
    if (out == NULL || in == NULL || reqs == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int p = 0; p < nremote; p++) {
        out[p] = base * 1000 + p;
        MPI_Irecv(&in[p], 1, MPI_INT, p, 5, inter, &reqs[2 * p]);
        MPI_Isend(&out[p], 1, MPI_INT, p, 5, inter, &reqs[2 * p + 1]);
    }
    MPI_Waitall(2 * nremote, reqs, MPI_STATUSES_IGNORE);
    for (int p = 0; p < nremote; p++)
        right += in[p] == peer_base * 1000 + rank;
    free(out);
    free(in);
    free(reqs);
    return right;
}

int main(int argc, char **argv)
{
    MPI_Comm up, children;
    int rank, size, nremote, right;
    char host[256];

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&up);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host));
    if (up != MPI_COMM_NULL) {
        MPI_Comm_remote_size(up, &nremote);
        right = exchange(up, rank, 2, 1);
        printf("child %d of %d on %s: %d of %d parents answered right\n",
               rank, size, host, right, nremote);
        fflush(stdout);
        MPI_Comm_disconnect(&up);
    } else {
        MPI_Info info = MPI_INFO_NULL;
        int n = argc > 1 ? atoi(argv[1]) : 1;
        if (argc > 2) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "host", argv[2]);
        }
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, n, info, 0, MPI_COMM_WORLD,
                       &children, MPI_ERRCODES_IGNORE);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        MPI_Comm_remote_size(children, &nremote);
        right = exchange(children, rank, 1, 2);
        printf("parent %d of %d on %s: %d of %d children answered right\n",
               rank, size, host, right, nremote);
        fflush(stdout);
        MPI_Comm_disconnect(&children);
    }
    MPI_Finalize();
    return 0;
}
