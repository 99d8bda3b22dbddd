/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Comm_spawn under hnp: the parent job's rank 0 spawns N copies of
 * this program (optionally on HOSTS), sends each child its rank and gets
 * it back plus 1000, then all disconnect. Each side prints one line a
 * process saying what it checked.
 *
 *   ompi_spawn N [HOSTS [KEY [KEY2]]]
 *                               the parent (any number of ranks); HOSTS
 *                               in info KEY ("host", or e.g. "add-host",
 *                               "hostfile", "add-hostfile"); a failed
 *                               spawn prints its error class and the
 *                               parent goes on. With KEY2, once the first
 *                               children are gone, N more the same way
 *                               with HOSTS in info KEY2 (e.g. "host" onto
 *                               the nodes the first spawn added)
 *   ompi_spawn missing          rank 0 spawns a program that is not there:
 *                               prints the error class it got
 *   ompi_spawn missing-all      the same, collective over MPI_COMM_WORLD
 *   ompi_spawn each N H0,H1,..  every rank at once (after a barrier)
 *                               spawns N children alone (MPI_COMM_SELF)
 *                               with info "host" its own entry of the
 *                               list (the last for the ranks after it)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int child(MPI_Comm parent)
{
    int rank, size, got = -1, reply;
    char host[256];

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host));
    MPI_Recv(&got, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE);
    reply = got + 1000;
    MPI_Send(&reply, 1, MPI_INT, 0, 8, parent);
    printf("child %d of %d on %s: got %d %s\n", rank, size, host, got,
           got == rank ? "ok" : "WRONG");
    fflush(stdout);
    MPI_Comm_disconnect(&parent);
    return 0;
}

static int parent_missing(int rank, MPI_Comm comm)
{
    MPI_Comm children;
    int err = MPI_SUCCESS, cls = 0;

    if (rank == 0 || comm == MPI_COMM_WORLD) {
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        err = MPI_Comm_spawn("./no-such-program-here", MPI_ARGV_NULL, 1,
                             MPI_INFO_NULL, 0, comm, &children,
                             MPI_ERRCODES_IGNORE);
        MPI_Error_class(err, &cls);
        printf("spawn of a missing program: %s (class %d)\n",
               err == MPI_SUCCESS ? "succeeded" : "failed", cls);
        fflush(stdout);
    }
    return 0;
}

static int parent_spawn(int rank, int n, const char *hosts, const char *key,
                        char *self)
{
    MPI_Comm children;
    MPI_Info info = MPI_INFO_NULL;
    int errs[1024], ok = 0, remote = 0, err, cls = 0;

    if (n > 1024)
        n = 1024;
    if (hosts != NULL) {
        MPI_Info_create(&info);
        MPI_Info_set(info, (char *)key, (char *)hosts);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Comm_spawn(self, MPI_ARGV_NULL, n, info, 0, MPI_COMM_WORLD,
                         &children, errs);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (err != MPI_SUCCESS) {
        MPI_Error_class(err, &cls);
        if (rank == 0)
            printf("parent: spawn failed (class %d)\n", cls);
        fflush(stdout);
        return 0;
    }
    MPI_Comm_remote_size(children, &remote);
    if (rank == 0) {
        for (int c = 0; c < remote; c++)
            MPI_Send(&c, 1, MPI_INT, c, 7, children);
        for (int c = 0; c < remote; c++) {
            int back = -1;
            MPI_Recv(&back, 1, MPI_INT, c, 8, children, MPI_STATUS_IGNORE);
            ok += back == c + 1000;
        }
        printf("parent: %d children, %d answered right\n", remote, ok);
        fflush(stdout);
    }
    MPI_Comm_disconnect(&children);
    return 0;
}

/* The @p rank-th entry of the comma-separated @p list (the last one
 * past its end), into @p out. */
static void nth_host(const char *list, int rank, char *out, size_t len)
{
    const char *at = list, *comma;

    for (int i = 0; i < rank && (comma = strchr(at, ',')) != NULL; i++)
        at = comma + 1;
    comma = strchr(at, ',');
    snprintf(out, len, "%.*s", (int)(comma != NULL ? (size_t)(comma - at)
                                                   : strlen(at)), at);
}

static int parent_each(int rank, int n, const char *hosts, char *self)
{
    MPI_Comm children;
    MPI_Info info;
    char host[256];
    int errs[1024], ok = 0, remote = 0, err, cls = 0;

    nth_host(hosts, rank, host, sizeof(host));
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD); /* the spawns go at once */
    err = MPI_Comm_spawn(self, MPI_ARGV_NULL, n > 1024 ? 1024 : n, info, 0,
                         MPI_COMM_SELF, &children, errs);
    MPI_Info_free(&info);
    if (err != MPI_SUCCESS) {
        MPI_Error_class(err, &cls);
        printf("parent %d: spawn onto %s failed (class %d)\n", rank, host,
               cls);
        fflush(stdout);
        return 0;
    }
    MPI_Comm_remote_size(children, &remote);
    for (int c = 0; c < remote; c++)
        MPI_Send(&c, 1, MPI_INT, c, 7, children);
    for (int c = 0; c < remote; c++) {
        int back = -1;
        MPI_Recv(&back, 1, MPI_INT, c, 8, children, MPI_STATUS_IGNORE);
        ok += back == c + 1000;
    }
    printf("parent %d: %d children onto %s, %d answered right\n", rank,
           remote, host, ok);
    fflush(stdout);
    MPI_Comm_disconnect(&children);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Comm parent;
    int rank, rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parent != MPI_COMM_NULL) {
        rc = child(parent);
    } else if (argc > 1 && strcmp(argv[1], "missing") == 0) {
        rc = parent_missing(rank, MPI_COMM_SELF);
    } else if (argc > 1 && strcmp(argv[1], "missing-all") == 0) {
        rc = parent_missing(rank, MPI_COMM_WORLD);
    } else if (argc > 3 && strcmp(argv[1], "each") == 0) {
        rc = parent_each(rank, atoi(argv[2]), argv[3], argv[0]);
    } else {
        rc = parent_spawn(rank, argc > 1 ? atoi(argv[1]) : 1,
                          argc > 2 ? argv[2] : NULL,
                          argc > 3 ? argv[3] : "host", argv[0]);
        if (rc == 0 && argc > 4)
            rc = parent_spawn(rank, atoi(argv[1]), argv[2], argv[4],
                              argv[0]);
    }
    MPI_Finalize();
    return rc;
}
