/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the PMI server's command layer (components/pmi/simple/
 * server.c and commands.c) beyond the codec fuzz_pmi.c covers: two local
 * processes of a job of four talk to the server over socketpairs, and the
 * daemon's side (fences, their blobs from other nodes) is played by the
 * target, on an event loop faked here that the input drives. So init,
 * put, get, fence, node attributes, name publishing, spawn, abort and
 * finalize run in any order and interleaving, with the fence completing,
 * failing or never, and name and spawn requests answered on a later turn
 * of the loop (done, refused, or never).
 *
 * Input layout (make-corpus.sh writes seeds in it):
 *   byte 0    bits 0-1: what each process may store (0: no bound, else
 *             256 << 2 * bits bytes); bit 2: fence blobs bounded to 512
 *             bytes; bit 3: the daemon destroys the server at the first
 *             client error
 *   then      operations, one byte each, the low 3 bits saying which:
 *     0-3     process (op & 1) writes the next byte's value + 1 bytes
 *     4       a turn of the event loop; the daemon answers the oldest
 *             name request and the oldest spawn it holds (op & 8: with
 *             an error)
 *     5       the daemon completes the fence in progress, if it is
 *             ready: merges its own blob, then the next byte's worth of
 *             bytes as another node's blob; fails it when op & 8
 *     6       process (op >> 3 & 1) closes its end
 *     7       both processes read what they were sent
 *
 * Besides the sanitizers, the target checks what the server promises the
 * daemon and the processes: callbacks name a local rank; a rank is
 * initialized and finalized at most once; fences are announced in order,
 * once each, and the node's own blob merges back; kvs_limit comes once a
 * rank with the configured bound; every answer is a well-formed PMI-1
 * line (one MPICH can read) or PMI-2 message with a command.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_target.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "hnp_rte.h"
#include "pmi/simple/internal.h"

#define NLOCAL 2
#define MAX_WATCHES 8
#define MAX_TIMERS 8
#define ERRLEN 256
#define ANSWERS_MAX (4u << 20) /* what a process keeps unparsed */

struct hnp_rte_fd_watch {
    int fd;
    unsigned events;
    hnp_rte_fd_fn fn;
    void *cbdata;
};

struct hnp_rte_timer {
    hnp_rte_timer_fn fn;
    void *cbdata;
};

/* The event loop: what is watched and what is due. */
struct hnp_rte {
    hnp_rte_fd_watch_t *watches[MAX_WATCHES];
    hnp_rte_timer_t *timers[MAX_TIMERS];
};

typedef struct process {
    int fd; /* its end; -1 once closed */
    char *in; /* ANSWERS_MAX bytes, kept from run to run */
    size_t len;
} process_t;

static char answers[NLOCAL][ANSWERS_MAX];

typedef struct run {
    struct hnp_rte rte;
    pmi_simple_server_t *srv;
    process_t proc[NLOCAL];
    size_t kvs_limit;
    bool destroy_on_error;
    int initialized[NLOCAL], finalized[NLOCAL], limits[NLOCAL];
    uint32_t next_fence;
    bool fence_ready;
    uint8_t *blob;
    size_t blob_len;
    uint64_t names[8];     /* name requests the daemon holds */
    size_t nnames;
    uint64_t spawns[8];    /* spawn requests the daemon holds */
    size_t nspawns;
} run_t;

static run_t run;

/* ------------------------------------------------- the faked event loop */

hnp_rte_fd_watch_t *hnp_rte_fd_watch_create(hnp_rte_t *rte, int fd,
                                            unsigned events, hnp_rte_fd_fn fn,
                                            void *cbdata)
{
    for (int i = 0; i < MAX_WATCHES; i++)
        if (rte->watches[i] == NULL) {
            hnp_rte_fd_watch_t *w = calloc(1, sizeof(*w));
            if (w == NULL)
                return NULL;
            *w = (hnp_rte_fd_watch_t){ fd, events, fn, cbdata };
            rte->watches[i] = w;
            return w;
        }
    FUZZ_CHECK(!"more watches than two processes need");
    return NULL;
}

void hnp_rte_fd_watch_destroy(hnp_rte_fd_watch_t *watch)
{
    for (int i = 0; watch != NULL && i < MAX_WATCHES; i++)
        if (run.rte.watches[i] == watch) {
            run.rte.watches[i] = NULL;
            free(watch);
            return;
        }
    FUZZ_CHECK(watch == NULL);
}

hnp_rte_timer_t *hnp_rte_timer_create(hnp_rte_t *rte, double seconds,
                                      hnp_rte_timer_fn fn, void *cbdata)
{
    (void)seconds;
    for (int i = 0; i < MAX_TIMERS; i++)
        if (rte->timers[i] == NULL) {
            hnp_rte_timer_t *t = calloc(1, sizeof(*t));
            if (t == NULL)
                return NULL;
            *t = (hnp_rte_timer_t){ fn, cbdata };
            rte->timers[i] = t;
            return t;
        }
    FUZZ_CHECK(!"more timers than two processes need");
    return NULL;
}

void hnp_rte_timer_destroy(hnp_rte_timer_t *timer)
{
    for (int i = 0; timer != NULL && i < MAX_TIMERS; i++)
        if (run.rte.timers[i] == timer) {
            run.rte.timers[i] = NULL;
            free(timer);
            return;
        }
    FUZZ_CHECK(timer == NULL);
}

static unsigned fd_ready(int fd, unsigned events)
{
    struct pollfd p = { fd, 0, 0 };

    p.events = (short)(((events & HNP_RTE_FD_READ) ? POLLIN : 0) |
                       ((events & HNP_RTE_FD_WRITE) ? POLLOUT : 0));
    if (poll(&p, 1, 0) <= 0)
        return 0;
    return ((p.revents & (POLLIN | POLLHUP | POLLERR)) ? HNP_RTE_FD_READ : 0) |
           ((p.revents & (POLLOUT | POLLERR)) ? HNP_RTE_FD_WRITE : 0);
}

/* One turn: the timers due, then every watch whose descriptor is ready.
 * A callback may destroy any watch or timer, the server included. */
static bool loop_turn(void)
{
    bool busy = false;

    for (int i = 0; i < MAX_TIMERS; i++) {
        hnp_rte_timer_t *t = run.rte.timers[i];
        if (t != NULL) {
            t->fn(&run.rte, t->cbdata);
            busy = true;
        }
    }
    for (int i = 0; i < MAX_WATCHES; i++) {
        hnp_rte_fd_watch_t *w = run.rte.watches[i];
        unsigned ready = w != NULL ? fd_ready(w->fd, w->events) & w->events : 0;
        if (ready != 0) {
            w->fn(&run.rte, w->fd, ready, w->cbdata);
            busy = true;
        }
    }
    return busy;
}

/* ------------------------------------------------------- the processes */

/* Check every complete answer @p p holds, and drop it. */
static void check_answers(process_t *p)
{
    size_t at = 0, start, len, consumed;
    char err[ERRLEN];

    while (at < p->len) {
        const char *data = p->in + at;
        bool v2 = (data[0] >= '0' && data[0] <= '9') || data[0] == ' ';
        pmi_simple_wire_t wire = v2 ? PMI_SIMPLE_WIRE_V2 : PMI_SIMPLE_WIRE_V1;
        int rc = pmi_simple_frame(wire, data, p->len - at,
                                  v2 ? PMI_SIMPLE_V2_BODY_MAX
                                     : PMI_SIMPLE_V1_LINE_MAX,
                                  &start, &len, &consumed, err, sizeof(err));
        FUZZ_CHECK(rc >= 0);
        if (rc == 0)
            break;
        pmi_simple_msg_t msg;
        rc = v2 ? pmi_simple_parse_v2(&msg, data + start, len, err, sizeof(err))
                : pmi_simple_parse_v1(&msg, data + start, len, err, sizeof(err));
        FUZZ_CHECK(rc == HNP_SUCCESS);
        FUZZ_CHECK(msg.cmd != NULL && msg.cmd[0] != '\0' && !msg.multiline);
        pmi_simple_msg_release(&msg);
        at += consumed;
    }
    memmove(p->in, p->in + at, p->len - at);
    p->len -= at;
}

static void process_read(process_t *p)
{
    while (p->fd >= 0) {
        FUZZ_CHECK(p->len < ANSWERS_MAX);
        ssize_t n = recv(p->fd, p->in + p->len, ANSWERS_MAX - p->len,
                         MSG_DONTWAIT);
        if (n <= 0)
            break;
        p->len += (size_t)n;
        check_answers(p);
    }
}

static void process_write(process_t *p, const uint8_t *data, size_t len)
{
    /* A full socket drops the rest: a process that writes without
     * reading stalls, as a real one would. */
    if (p->fd >= 0)
        (void)send(p->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void process_close(process_t *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

/* ------------------------------------------------------ the daemon's side */

/* A callback's rank; none comes once the server is destroyed. */
static int local_index(uint32_t rank)
{
    FUZZ_CHECK(run.srv != NULL);
    FUZZ_CHECK(rank < NLOCAL);
    return (int)rank;
}

static void on_fence_ready(void *ctx, uint32_t seq, const void *blob,
                           size_t len)
{
    (void)ctx;
    FUZZ_CHECK(run.srv != NULL);
    FUZZ_CHECK(seq == run.next_fence && !run.fence_ready);
    run.fence_ready = true;
    free(run.blob);
    run.blob = malloc(len > 0 ? len : 1);
    if (run.blob == NULL)
        abort();
    memcpy(run.blob, blob, len);
    run.blob_len = len;
}

static void on_abort(void *ctx, uint32_t rank, int code, const char *msg)
{
    (void)ctx;
    (void)code;
    local_index(rank);
    FUZZ_CHECK(msg != NULL);
}

static void on_client_error(void *ctx, uint32_t rank, int code,
                            const char *msg)
{
    (void)ctx;
    local_index(rank);
    FUZZ_CHECK(code < 0 && msg != NULL && msg[0] != '\0');
    if (run.destroy_on_error && run.srv != NULL) {
        pmi_simple_server_destroy(run.srv);
        run.srv = NULL;
    }
}

static void on_initialized(void *ctx, uint32_t rank)
{
    (void)ctx;
    FUZZ_CHECK(run.initialized[local_index(rank)]++ == 0);
}

static void on_finalized(void *ctx, uint32_t rank)
{
    (void)ctx;
    FUZZ_CHECK(run.finalized[local_index(rank)]++ == 0);
}

static void on_spawn(void *ctx, uint32_t rank)
{
    (void)ctx;
    local_index(rank);
}

static void on_kvs_limit(void *ctx, uint32_t rank, size_t limit)
{
    (void)ctx;
    FUZZ_CHECK(run.limits[local_index(rank)]++ == 0);
    FUZZ_CHECK(run.kvs_limit > 0 && limit == run.kvs_limit);
}

static void on_name(void *ctx, uint32_t rank, pmi_simple_name_op_t op,
                    const char *name, const char *port, uint64_t ticket)
{
    (void)ctx;
    local_index(rank);
    FUZZ_CHECK(name != NULL && name[0] != '\0');
    FUZZ_CHECK((op == PMI_SIMPLE_NAME_PUBLISH) == (port != NULL));
    if (run.nnames == sizeof(run.names) / sizeof(run.names[0])) {
        FUZZ_CHECK(pmi_simple_name_done(run.srv, ticket,
                                        HNP_ERR_NOT_AVAILABLE, NULL) ==
                   HNP_SUCCESS);
        return;
    }
    run.names[run.nnames++] = ticket;
}

/* A spawn request: what the parser hands over is whole. */
static void on_spawn_request(void *ctx, uint32_t rank,
                             const pmi_simple_spawn_t *req, uint64_t ticket)
{
    (void)ctx;
    local_index(rank);
    FUZZ_CHECK(req->napps >= 1);
    for (size_t i = 0; i < req->napps; i++) {
        const pmi_simple_spawn_app_t *a = &req->apps[i];
        FUZZ_CHECK(a->cmd != NULL && a->cmd[0] != '\0' && a->maxprocs >= 1);
        FUZZ_CHECK(a->argv != NULL);
        for (size_t j = 0; j < a->ninfo; j++)
            FUZZ_CHECK(a->info[j].key != NULL && a->info[j].value != NULL);
    }
    for (size_t j = 0; j < req->npreput; j++)
        FUZZ_CHECK(req->preput[j].key != NULL && req->preput[j].value != NULL);
    if (run.nspawns == sizeof(run.spawns) / sizeof(run.spawns[0])) {
        FUZZ_CHECK(pmi_simple_spawn_done(run.srv, ticket, HNP_ERR_NOMEM,
                                         NULL, "busy") == HNP_SUCCESS);
        return;
    }
    run.spawns[run.nspawns++] = ticket;
}

static void answer_spawn(bool refused)
{
    if (run.srv == NULL || run.nspawns == 0)
        return;
    uint64_t ticket = run.spawns[0];
    memmove(run.spawns, run.spawns + 1, --run.nspawns * sizeof(run.spawns[0]));
    FUZZ_CHECK(pmi_simple_spawn_done(run.srv, ticket,
                                     refused ? HNP_ERR_NOT_FOUND : HNP_SUCCESS,
                                     "kvs_fuzz_2", "no such program: x y") ==
               HNP_SUCCESS);
}

/* The HNP's answer to the oldest name request held. */
static void answer_name(bool refused)
{
    if (run.srv == NULL || run.nnames == 0)
        return;
    uint64_t ticket = run.names[0];
    memmove(run.names, run.names + 1, --run.nnames * sizeof(run.names[0]));
    FUZZ_CHECK(pmi_simple_name_done(run.srv, ticket,
                                    refused ? HNP_ERR_EXISTS : HNP_SUCCESS,
                                    "port#1") == HNP_SUCCESS);
    /* a ticket is answered once */
    if (run.srv != NULL)
        FUZZ_CHECK(pmi_simple_name_done(run.srv, ticket, HNP_SUCCESS, NULL) ==
                   HNP_ERR_NOT_FOUND);
}

/* The all-gather of the fence is over: our own blob and another node's
 * come back, then the fence completes (or fails). */
static void complete_fence(bool failed, const uint8_t *other, size_t len)
{
    char err[ERRLEN];

    if (run.srv == NULL || !run.fence_ready)
        return;
    uint32_t seq = run.next_fence;
    run.fence_ready = false;
    run.next_fence++;
    FUZZ_CHECK(pmi_simple_fence_merge(run.srv, seq, run.blob, run.blob_len, err,
                                      sizeof(err)) == HNP_SUCCESS);
    (void)pmi_simple_fence_merge(run.srv, seq, other, len, err, sizeof(err));
    FUZZ_CHECK(pmi_simple_fence_complete(run.srv, seq,
                                         failed ? HNP_ERR_UNREACHABLE : 0) ==
               HNP_SUCCESS);
}

/* ------------------------------------------------------------- a run */

static void start(uint8_t flags)
{
    static const uint32_t local[NLOCAL] = { 0, 1 };
    static const pmi_simple_attr_t attrs[] = { { "PMI_hwloc_xmlfile", "none" } };
    pmi_simple_config_t cfg = {
        .size = 4, .kvsname = "kvs_fuzz_1",
        .process_mapping = "(vector,(0,2,2))", .local_ranks = local,
        .nlocal = NLOCAL, .job_attrs = attrs, .njob_attrs = 1,
    };
    pmi_simple_callbacks_t cb = {
        .fence_ready = on_fence_ready, .abort = on_abort,
        .client_error = on_client_error, .initialized = on_initialized,
        .finalized = on_finalized, .spawn = on_spawn,
        .kvs_limit = on_kvs_limit, .name = on_name,
        .spawn_request = on_spawn_request,
    };
    char err[ERRLEN];

    memset(&run, 0, sizeof(run));
    hnp_log_set_handler(fuzz_discard_log, NULL);
    run.kvs_limit = (flags & 3) != 0 ? (size_t)256 << 2 * (flags & 3) : 0;
    cfg.max_kvs_bytes = run.kvs_limit;
    cfg.max_fence_bytes = (flags & 4) != 0 ? 512 : 0;
    run.destroy_on_error = (flags & 8) != 0;
    FUZZ_CHECK(pmi_simple_server_create(&run.srv, &run.rte, &cfg, &cb, err,
                                        sizeof(err)) == HNP_SUCCESS);
    for (uint32_t r = 0; r < NLOCAL; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            abort();
        run.proc[r].fd = sv[0];
        run.proc[r].in = answers[r];
        FUZZ_CHECK(pmi_simple_server_add_client(run.srv, sv[1], r, 3) ==
                   HNP_SUCCESS);
    }
}

static void finish(void)
{
    /* Let what is in flight settle, as far as it goes by itself. */
    for (int turn = 0; turn < 64 && run.srv != NULL && loop_turn(); turn++) {
        process_read(&run.proc[0]);
        process_read(&run.proc[1]);
    }
    if (run.srv != NULL)
        pmi_simple_server_destroy(run.srv);
    for (int i = 0; i < MAX_WATCHES; i++)
        FUZZ_CHECK(run.rte.watches[i] == NULL);
    for (int i = 0; i < MAX_TIMERS; i++)
        FUZZ_CHECK(run.rte.timers[i] == NULL);
    for (int r = 0; r < NLOCAL; r++) {
        process_close(&run.proc[r]);
    }
    free(run.blob);
    hnp_log_set_handler(NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    start(data[0]);
    for (size_t at = 1; at < size && run.srv != NULL;) {
        uint8_t op = data[at++];
        size_t len;
        switch (op & 7) {
        case 0: case 1: case 2: case 3:
            len = at < size ? (size_t)data[at++] + 1 : 0;
            len = len < size - at ? len : size - at;
            process_write(&run.proc[op & 1], data + at, len);
            at += len;
            break;
        case 4:
            loop_turn();
            answer_name((op & 8) != 0);
            answer_spawn((op & 8) != 0);
            break;
        case 5:
            len = at < size ? data[at++] : 0;
            len = len < size - at ? len : size - at;
            complete_fence((op & 8) != 0, data + at, len);
            at += len;
            break;
        case 6:
            process_close(&run.proc[op >> 3 & 1]);
            break;
        default:
            process_read(&run.proc[0]);
            process_read(&run.proc[1]);
            break;
        }
    }
    finish();
    return 0;
}
