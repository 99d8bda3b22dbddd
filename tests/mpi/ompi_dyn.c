/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic processes beyond one MPI_Comm_spawn (tests/integration/ompi-dyn.sh).
 * Each process prints one line saying what it checked.
 *
 *   ompi_dyn multiple OTHER HOSTA HOSTB
 *       rank 0 calls MPI_Comm_spawn_multiple with two commands: this
 *       program with arguments "alpha 1" (2 processes, host HOSTA) and
 *       OTHER (a copy of this program) with "beta 2 3" (1 process, host
 *       HOSTB); each child prints its program, arguments and node, and
 *       answers a message.
 *   ompi_dyn grand N M
 *       rank 0 spawns N children, each child job's rank 0 spawns M
 *       grandchildren; every grandchild answers its parent, every child
 *       answers the first parent with its grandchildren's count.
 *   ompi_dyn pair
 *       rank 0 spawns job A (1 process), which opens a port and publishes
 *       it; then job B (1 process), which looks the name up and connects
 *       to A: a message each way, both disconnect, then report to the
 *       parent.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SERVICE "hnp-ompi-dyn-pair"

static const char *base(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash != NULL ? slash + 1 : path;
}

/* Answer the parent: its value plus 1000 back. */
static void answer(MPI_Comm parent, int add)
{
    int got = -1, reply;

    MPI_Recv(&got, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE);
    reply = got + 1000 + add;
    MPI_Send(&reply, 1, MPI_INT, 0, 8, parent);
}

/* Ask every remote process of @p comm; how many answered right. */
static int ask_all(MPI_Comm comm, int add)
{
    int remote = 0, ok = 0;

    MPI_Comm_remote_size(comm, &remote);
    for (int c = 0; c < remote; c++)
        MPI_Send(&c, 1, MPI_INT, c, 7, comm);
    for (int c = 0; c < remote; c++) {
        int back = -1;
        MPI_Recv(&back, 1, MPI_INT, c, 8, comm, MPI_STATUS_IGNORE);
        ok += back == c + 1000 + add;
    }
    return ok;
}

static void child_of_multiple(MPI_Comm parent, int argc, char **argv)
{
    char host[256], args[512] = "";
    int rank, size;
    size_t at = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host));
    for (int i = 1; i < argc && at < sizeof(args); i++)
        at += (size_t)snprintf(args + at, sizeof(args) - at, " %s", argv[i]);
    answer(parent, 0);
    printf("multiple child %d of %d: %s%s on %s\n", rank, size,
           base(argv[0]), args, host);
    fflush(stdout);
    MPI_Comm_disconnect(&parent);
}

static void parent_multiple(int rank, char **argv)
{
    char *cmds[2] = { argv[0], argv[2] };
    char *args0[] = { "alpha", "1", NULL }, *args1[] = { "beta", "2", "3",
                                                          NULL };
    char **args[2] = { args0, args1 };
    int np[2] = { 2, 1 }, errs[3];
    MPI_Info info[2];
    MPI_Comm children;

    MPI_Info_create(&info[0]);
    MPI_Info_set(info[0], "host", argv[3]);
    MPI_Info_create(&info[1]);
    MPI_Info_set(info[1], "host", argv[4]);
    MPI_Comm_spawn_multiple(2, cmds, args, np, info, 0, MPI_COMM_WORLD,
                            &children, errs);
    MPI_Info_free(&info[0]);
    MPI_Info_free(&info[1]);
    if (rank == 0) {
        printf("parent: spawn_multiple, %d answered right\n",
               ask_all(children, 0));
        fflush(stdout);
    }
    MPI_Comm_disconnect(&children);
}

/* A child of "grand": spawns its own children, reports their count. */
static void child_of_grand(MPI_Comm parent, char *self, int m)
{
    char *args[] = { "grandchild", NULL };
    MPI_Comm kids;
    int rank, ok = 0, errs[64];

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_spawn(self, args, m > 64 ? 64 : m, MPI_INFO_NULL, 0,
                   MPI_COMM_WORLD, &kids, errs);
    if (rank == 0)
        ok = ask_all(kids, 0);
    MPI_Comm_disconnect(&kids);
    answer(parent, ok);
    printf("child %d: %d grandchildren answered right\n", rank, ok);
    fflush(stdout);
    MPI_Comm_disconnect(&parent);
}

static void parent_grand(int rank, char *self, const char *n, const char *m)
{
    char *args[] = { "child", (char *)m, NULL };
    MPI_Comm children;
    int errs[64], remote = 0, ok = 0;

    MPI_Comm_spawn(self, args, atoi(n), MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                   &children, errs);
    MPI_Comm_remote_size(children, &remote);
    if (rank == 0) {
        /* child 0 adds the count of its grandchildren, the others 0 */
        for (int c = 0; c < remote; c++)
            MPI_Send(&c, 1, MPI_INT, c, 7, children);
        for (int c = 0; c < remote; c++) {
            int back = -1;
            MPI_Recv(&back, 1, MPI_INT, c, 8, children, MPI_STATUS_IGNORE);
            ok += back == c + 1000 + (c == 0 ? atoi(m) : 0);
        }
        printf("parent: grand, %d children answered right\n", ok);
        fflush(stdout);
    }
    MPI_Comm_disconnect(&children);
}

/* Job A of "pair": publishes a port, accepts B. */
static void pair_server(MPI_Comm parent)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm peer;
    int ready = 1, got = -1, reply;

    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Publish_name(SERVICE, MPI_INFO_NULL, port);
    MPI_Send(&ready, 1, MPI_INT, 0, 9, parent);
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &peer);
    MPI_Recv(&got, 1, MPI_INT, 0, 5, peer, MPI_STATUS_IGNORE);
    reply = got + 1;
    MPI_Send(&reply, 1, MPI_INT, 0, 6, peer);
    MPI_Comm_disconnect(&peer);
    MPI_Unpublish_name(SERVICE, MPI_INFO_NULL, port);
    MPI_Close_port(port);
    printf("pair server: got %d %s\n", got, got == 42 ? "ok" : "WRONG");
    fflush(stdout);
    answer(parent, got == 42 ? 0 : -1);
    MPI_Comm_disconnect(&parent);
}

/* Job B of "pair": looks A's port up, connects. */
static void pair_client(MPI_Comm parent)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm peer;
    int ask = 42, back = -1;

    MPI_Lookup_name(SERVICE, MPI_INFO_NULL, port);
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &peer);
    MPI_Send(&ask, 1, MPI_INT, 0, 5, peer);
    MPI_Recv(&back, 1, MPI_INT, 0, 6, peer, MPI_STATUS_IGNORE);
    MPI_Comm_disconnect(&peer);
    printf("pair client: got %d %s\n", back, back == 43 ? "ok" : "WRONG");
    fflush(stdout);
    answer(parent, back == 43 ? 0 : -1);
    MPI_Comm_disconnect(&parent);
}

static void parent_pair(char *self)
{
    char *server[] = { "server", NULL }, *client[] = { "client", NULL };
    MPI_Comm a, b;
    int ready = 0, ok;

    MPI_Comm_spawn(self, server, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &a,
                   MPI_ERRCODES_IGNORE);
    MPI_Recv(&ready, 1, MPI_INT, 0, 9, a, MPI_STATUS_IGNORE);
    MPI_Comm_spawn(self, client, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &b,
                   MPI_ERRCODES_IGNORE);
    ok = ask_all(a, 0) + ask_all(b, 0);
    MPI_Comm_disconnect(&a);
    MPI_Comm_disconnect(&b);
    printf("parent: pair, %d answered right\n", ok);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Comm parent;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parent != MPI_COMM_NULL) {
        const char *role = argc > 1 ? argv[1] : "";
        if (strcmp(role, "child") == 0)
            child_of_grand(parent, argv[0], argc > 2 ? atoi(argv[2]) : 1);
        else if (strcmp(role, "grandchild") == 0) {
            answer(parent, 0);
            printf("grandchild %d: answered\n", rank);
            fflush(stdout);
            MPI_Comm_disconnect(&parent);
        } else if (strcmp(role, "server") == 0)
            pair_server(parent);
        else if (strcmp(role, "client") == 0)
            pair_client(parent);
        else
            child_of_multiple(parent, argc, argv);
    } else if (argc > 4 && strcmp(argv[1], "multiple") == 0) {
        parent_multiple(rank, argv);
    } else if (argc > 3 && strcmp(argv[1], "grand") == 0) {
        parent_grand(rank, argv[0], argv[2], argv[3]);
    } else if (argc > 1 && strcmp(argv[1], "pair") == 0 && rank == 0) {
        parent_pair(argv[0]);
    } else if (rank == 0) {
        fprintf(stderr, "usage: ompi_dyn multiple OTHER HOSTA HOSTB | "
                "grand N M | pair\n");
    }
    MPI_Finalize();
    return 0;
}
