/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The persistent runtime's server (dvm.h): once every daemon has joined,
 * a private directory with a local socket and the report file (mode 0600:
 * the socket's address and the secret a client proves it knows); then
 * clients: each is checked to be this user (SO_PEERCRED), proves the
 * secret with the runtime's handshake within oob_tcp_handshake_timeout
 * (a minute at least), and submits one job or asks for the list or the
 * stop. What becomes of the jobs is dvm_sched.c's.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dvm.h"
#include "dvm_proto.h"
#include "hnp_buffer.h"
#include "wire/control.h"

#include "dvm_server.h"


hnp_rte_t *hnp_dvm_rte(const hnp_dvm_t *dvm)
{
    return dvm->rte;
}

const hnp_job_map_t *hnp_dvm_nodes(const hnp_dvm_t *dvm)
{
    return &dvm->runtime->map;
}

bool hnp_dvm_node_lost(const hnp_dvm_t *dvm, uint32_t node)
{
    return node >= dvm->runtime->map.nnodes || dvm->lost[node];
}

bool hnp_dvm_runs_daemon(const hnp_dvm_t *dvm, const char *name)
{
    const hnp_job_map_t *all = &dvm->runtime->map;

    for (uint32_t n = 0; n < all->nnodes; n++)
        if (strcmp(all->node_names[n], name) == 0 && !dvm->lost[n])
            return true;
    return false;
}

uint32_t hnp_dvm_daemons_alive(const hnp_dvm_t *dvm)
{
    return dvm->alive;
}


/* ------------------------------------------------------------ replies */

void dvm_reply(dvm_conn_t *c, uint8_t kind, uint32_t jobid, int status,
               const char *text)
{
    hnp_wire_dvm_reply_t m = { .kind = kind, .jobid = jobid,
                               .status = status, .text = (char *)text };

    if (c->fd >= 0 && dvm_send_reply(c->fd, &m) != HNP_SUCCESS)
        HNP_VERBOSE(c->dvm->rte->log, 1, "a client went away before its "
                    "answer");
}

static void serve_request(dvm_conn_t *c, const uint8_t *body, size_t len)
{
    hnp_wire_dvm_request_t req;
    hnp_reader_t rd;

    hnp_reader_init(&rd, body, len);
    if (hnp_wire_dvm_request_unpack(&rd, &req) != HNP_SUCCESS) {
        HNP_WARN(c->dvm->rte->log, "a malformed request from a client; "
                 "closing its connection");
        dvm_conn_close(c);
        return;
    }
    switch (req.kind) {
    case HNP_DVM_SUBMIT:
        dvm_submit(c->dvm, c, &req);
        break;
    case HNP_DVM_SIGNAL:
        dvm_client_signal(c->dvm, c, req.signo);
        break;
    case HNP_DVM_LIST:
        dvm_list_jobs(c->dvm, c);
        break;
    default:
        dvm_reply(c, HNP_DVM_STOPPING, 0, 0, NULL);
        hnp_dvm_stop(c->dvm, "stopped by hnp --dvm-stop");
        break;
    }
    hnp_wire_dvm_request_clear(&req);
}

/* ------------------------------------------------------------ clients */

static bool take_frame(dvm_conn_t *c, const uint8_t *body, size_t len)
{
    hnp_dvm_t *dvm = c->dvm;
    uint8_t answer[HNP_REPLY_LEN];

    switch (c->state) {
    case CONN_HELLO:
        if (dvm_accept_hello(dvm->rte->secret, body, len, &c->t, answer) !=
                HNP_SUCCESS ||
            dvm_send_frame(c->fd, answer, sizeof(answer), NULL, 0) !=
                HNP_SUCCESS)
            return false;
        c->state = CONN_PROOF;
        return true;
    case CONN_PROOF:
        if (!dvm_accept_proof(dvm->rte->secret, &c->t, body, len))
            return false;
        c->state = CONN_READY;
        hnp_rte_timer_destroy(c->deadline);
        c->deadline = NULL;
        return true;
    default:
        serve_request(c, body, len);
        return true;
    }
}

/* The client went away (or broke the protocol): its job ends at once. */
static void client_gone(dvm_conn_t *c, const char *why)
{
    hnp_dvm_t *dvm = c->dvm;

    if (c->state != CONN_READY)
        HNP_WARN(dvm->rte->log, "a connection to the DVM dropped: %s", why);
    if (c->job != NULL && c->running) {
        hnp_job_t *job = hnp_dvm_job_of(c->job);
        char msg[256];
        snprintf(msg, sizeof(msg), "job %u: its client went away; killing "
                 "it", job->jobid);
        event_free(c->ev);
        c->ev = NULL;
        close(c->fd);
        c->fd = -1;
        job->kill_now = true;
        if (job->ending)
            hnp_dvm_job_ending(dvm, job);
        else
            hnp_job_abort(job, 1, msg);
        return;
    }
    dvm_conn_close(c);
    dvm_start_next(dvm); /* a job waiting behind its job may fit now */
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    dvm_conn_t *c = arg;
    const uint8_t *body;
    size_t len = 0;
    bool bad = false;
    long n;

    (void)what;
    n = dvm_recv_some((int)fd, &c->in, c->fds, &c->nfds);
    if (n == -1)
        return;
    if (n <= 0) {
        client_gone(c, "it closed");
        return;
    }
    while (c->fd >= 0 && (body = dvm_inbuf_frame(&c->in, &len, &bad)) != NULL) {
        if (!take_frame(c, body, len)) {
            client_gone(c, c->state == CONN_READY ? "a broken request"
                        : "it did not prove the DVM's secret");
            return;
        }
        if (c->fd >= 0)
            dvm_inbuf_drop(&c->in, len);
    }
    if (bad)
        client_gone(c, "a frame too long");
}

static void handshake_timed_out(hnp_rte_t *rte, void *cbdata)
{
    dvm_conn_t *c = cbdata;

    (void)rte;
    hnp_rte_timer_destroy(c->deadline);
    c->deadline = NULL;
    client_gone(c, "no handshake in time");
}

void dvm_conn_close(dvm_conn_t *c)
{
    hnp_dvm_t *dvm = c->dvm;

    for (dvm_conn_t **at = &dvm->conns; *at != NULL; at = &(*at)->next)
        if (*at == c) {
            *at = c->next;
            break;
        }
    dvm_dequeue(dvm, c);
    if (c->ev != NULL)
        event_free(c->ev);
    if (c->fd >= 0)
        close(c->fd);
    for (int i = 0; i < c->nfds; i++)
        close(c->fds[i]);
    hnp_rte_timer_destroy(c->deadline);
    hnp_rte_timer_destroy(c->end_timer);
    hnp_rte_timer_destroy(c->conclude_timer);
    if (c->running)
        dvm_give_back_slots(dvm, c);
    if (c->spawn_reqid != 0)
        dvm_spawn_answer(c, HNP_ERR_UNREACHABLE, "the job ended before its "
                         "processes started");
    if (c->job != NULL)
        dvm_grow_drop_job(dvm, hnp_dvm_job_of(c->job)->jobid);
    hnp_dvm_job_destroy(c->job);
    free(c->spawn_component);
    free(c->spawn_data);
    dvm_inbuf_release(&c->in);
    free(c);
}

/* Only this user: the kernel says who is at the other end. */
static bool same_user(hnp_dvm_t *dvm, int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return false;
    if (cred.uid == getuid())
        return true;
    HNP_WARN(dvm->rte->log, "a client of uid %lu (pid %ld) refused: the DVM "
             "serves uid %lu only", (unsigned long)cred.uid, (long)cred.pid,
             (unsigned long)getuid());
    return false;
}

/* Seconds a client has to prove the secret, at least. It is of this
 * user (SO_PEERCRED): no stranger of the network, for whom
 * oob_tcp_handshake_timeout is meant, but a process that a loaded node
 * may starve between the DVM's answer and its proof; its own patience for
 * an answer is 30 s. */
#define DVM_CLIENT_HANDSHAKE_MIN 60.0

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
    hnp_dvm_t *dvm = arg;
    dvm_conn_t *c;
    int fd;

    (void)what;
    fd = accept4((int)lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    if (!same_user(dvm, fd) || (c = calloc(1, sizeof(*c))) == NULL) {
        close(fd);
        return;
    }
    c->dvm = dvm;
    c->fd = fd;
    c->ev = event_new(dvm->rte->base, fd, EV_READ | EV_PERSIST, on_readable,
                      c);
    double limit = dvm->rte->core->handshake_timeout;
    c->deadline = hnp_rte_timer_create(dvm->rte,
                                       limit > DVM_CLIENT_HANDSHAKE_MIN
                                           ? limit
                                           : DVM_CLIENT_HANDSHAKE_MIN,
                                       handshake_timed_out, c);
    c->next = dvm->conns;
    dvm->conns = c;
    if (c->ev == NULL || event_add(c->ev, NULL) != 0)
        dvm_conn_close(c);
}

/* ------------------------------------------------------------ the socket */

static int make_socket(hnp_dvm_t *dvm, char *err, size_t errlen)
{
    const char *base = getenv("TMPDIR");
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    char dir[sizeof(addr.sun_path) - sizeof("/socket")];

    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    if (snprintf(dir, sizeof(dir), "%s/hnp-dvm-%lu-XXXXXX", base,
                 (unsigned long)getuid()) >= (int)sizeof(dir) ||
        mkdtemp(dir) == NULL || (dvm->dir = strdup(dir)) == NULL) {
        hnp_err_set(err, errlen, "cannot make a private directory under %s "
                    "for the DVM's socket: %s", base, strerror(errno));
        return HNP_ERR_IO;
    }
    memcpy(addr.sun_path, dir, strlen(dir));
    memcpy(addr.sun_path + strlen(dir), "/socket", sizeof("/socket"));
    dvm->socket_path = strdup(addr.sun_path);
    dvm->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
                                         SOCK_CLOEXEC, 0);
    if (dvm->socket_path == NULL || dvm->listen_fd < 0 ||
        bind(dvm->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
        listen(dvm->listen_fd, 128) != 0) {
        hnp_err_set(err, errlen, "cannot listen on %s: %s", addr.sun_path,
                    strerror(errno));
        return HNP_ERR_IO;
    }
    dvm->listen_ev = event_new(dvm->rte->base, dvm->listen_fd,
                               EV_READ | EV_PERSIST, on_accept, dvm);
    if (dvm->listen_ev == NULL || event_add(dvm->listen_ev, NULL) != 0) {
        hnp_err_set(err, errlen, "cannot watch the DVM's socket");
        return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

/* FILE, mode 0600, written whole under another name and renamed: a client
 * never reads half of it. */
static int write_report(hnp_dvm_t *dvm, char *err, size_t errlen)
{
    const char *path = dvm->args->report_uri;
    char tmp[4096];
    FILE *f;
    int fd;

    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
        hnp_err_set(err, errlen, "--report-uri %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return HNP_ERR_IO;
    }
    fprintf(f, "hnp-dvm 1\nuri unix:%s\nsecret %s\npid %ld\nnodes %u\n",
            dvm->socket_path, dvm->rte->secret_hex, (long)getpid(),
            dvm->runtime->map.nnodes);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        hnp_err_set(err, errlen, "--report-uri %s: %s", path, strerror(errno));
        unlink(tmp);
        return HNP_ERR_IO;
    }
    dvm->report_path = strdup(path);
    return HNP_SUCCESS;
}

void hnp_dvm_ready(hnp_dvm_t *dvm)
{
    char err[1024] = "";

    if (dvm->ready || dvm->runtime->ending)
        return;
    hnp_dvm_route_messages(dvm);
    if (make_socket(dvm, err, sizeof(err)) != HNP_SUCCESS ||
        write_report(dvm, err, sizeof(err)) != HNP_SUCCESS) {
        hnp_job_abort(dvm->runtime, 1, err);
        return;
    }
    dvm->ready = true;
    if (!dvm->args->quiet)
        HNP_INFO(dvm->rte->log, "the DVM serves %u nodes; its contact is in "
                 "%s", dvm->runtime->map.nnodes, dvm->args->report_uri);
    hnp_dvm_detached();
}

/* ------------------------------------------------------------ events */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    hnp_dvm_stop(arg, sig == SIGINT ? "interrupted" : "terminated by a "
                 "signal");
}

/* ------------------------------------------------------------ life */

static hnp_dvm_t *dvm_new(hnp_job_t *runtime, const hnp_args_t *args)
{
    hnp_dvm_t *dvm = calloc(1, sizeof(*dvm));

    if (dvm == NULL ||
        (dvm->lost = calloc(runtime->map.nnodes + 1, sizeof(bool))) == NULL ||
        (dvm->free_slots = calloc(runtime->map.nnodes + 1,
                                  sizeof(uint32_t))) == NULL ||
        (dvm->avail = calloc(runtime->map.nnodes + 1, sizeof(uint32_t))) ==
            NULL) {
        if (dvm != NULL) {
            free(dvm->lost);
            free(dvm->free_slots);
        }
        free(dvm);
        return NULL;
    }
    dvm->runtime = runtime;
    dvm->rte = runtime->rte;
    dvm->args = args;
    dvm->listen_fd = -1;
    dvm->alive = runtime->map.nnodes;
    for (uint32_t n = 0; n < runtime->map.nnodes; n++)
        dvm->free_slots[n] = runtime->map.node_slots[n];
    return dvm;
}

int hnp_dvm_create_family(hnp_dvm_t **out, hnp_job_t *runtime, char *err,
                          size_t errlen)
{
    hnp_dvm_t *dvm = dvm_new(runtime, runtime->args);

    if (dvm == NULL || dvm_spawn_listen(dvm) != HNP_SUCCESS ||
        dvm_gather_listen(dvm) != HNP_SUCCESS) {
        if (dvm != NULL)
            hnp_dvm_destroy(dvm);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    dvm->family_only = true;
    dvm->ready = true;
    /* the runtime's own ranks hold their slots */
    for (uint32_t n = 0; n < runtime->map.nnodes; n++) {
        uint32_t used = runtime->map.local_size[n];
        dvm->free_slots[n] = used < dvm->free_slots[n]
                                 ? dvm->free_slots[n] - used : 0;
    }
    dvm->last_jobid = runtime->jobid;
    dvm->rte->announce_collectives = dvm_runtime_leaves_daemons_out(dvm);
    runtime->family = dvm;
    *out = dvm;
    return HNP_SUCCESS;
}

/* @p *table of @p from entries of @p size bytes, @p to long. */
static int lengthen_table(void **table, uint32_t from, uint32_t to,
                          size_t size)
{
    void *longer = realloc(*table, (size_t)(to + 1) * size);

    if (longer == NULL)
        return HNP_ERR_NOMEM;
    memset((char *)longer + (size_t)from * size, 0,
           (size_t)(to + 1 - from) * size);
    *table = longer;
    return HNP_SUCCESS;
}

int dvm_grow_node_tables(hnp_dvm_t *dvm, uint32_t nnodes)
{
    uint32_t from = dvm->runtime->map.nnodes;
    int rc = lengthen_table((void **)&dvm->lost, from, nnodes, sizeof(bool));

    if (rc == HNP_SUCCESS)
        rc = lengthen_table((void **)&dvm->free_slots, from, nnodes,
                            sizeof(uint32_t));
    if (rc == HNP_SUCCESS)
        rc = lengthen_table((void **)&dvm->avail, from, nnodes,
                            sizeof(uint32_t));
    for (dvm_conn_t *c = dvm->conns; rc == HNP_SUCCESS && c != NULL;
         c = c->next)
        if (c->taken != NULL)
            rc = lengthen_table((void **)&c->taken, from, nnodes,
                                sizeof(uint32_t));
    return rc;
}

bool dvm_runtime_leaves_daemons_out(const hnp_dvm_t *dvm)
{
    const hnp_job_map_t *map = &dvm->runtime->map;

    for (uint32_t n = 0; dvm->family_only && n < map->nnodes; n++)
        if (map->local_size[n] == 0 && !dvm->lost[n])
            return true;
    return false;
}

bool hnp_dvm_is_family(const hnp_dvm_t *dvm)
{
    return dvm->family_only;
}

const char *hnp_dvm_noun(const hnp_dvm_t *dvm)
{
    return dvm->family_only ? "the allocation" : "the DVM";
}

bool hnp_dvm_family_holds(hnp_dvm_t *dvm)
{
    if (!dvm->family_only || dvm->runtime->ending ||
        !dvm_has_children(dvm, dvm->runtime->jobid))
        return false;
    dvm->runtime_waits = true;
    return true;
}

int hnp_dvm_create(hnp_dvm_t **out, hnp_job_t *runtime,
                   const hnp_args_t *args, char *err, size_t errlen)
{
    static const int signals[3] = { SIGINT, SIGTERM, SIGHUP };
    hnp_dvm_t *dvm = dvm_new(runtime, args);

    if (dvm == NULL || dvm_spawn_listen(dvm) != HNP_SUCCESS ||
        dvm_gather_listen(dvm) != HNP_SUCCESS) {
        if (dvm != NULL)
            hnp_dvm_destroy(dvm);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    for (int i = 0; i < 3; i++) {
        dvm->sigev[i] = evsignal_new(dvm->rte->base, signals[i], on_signal,
                                     dvm);
        if (dvm->sigev[i] != NULL)
            evsignal_add(dvm->sigev[i], NULL);
    }
    runtime->dvm = dvm;
    runtime->holds_runtime = true;
    *out = dvm;
    return HNP_SUCCESS;
}

void hnp_dvm_destroy(hnp_dvm_t *dvm)
{
    if (dvm == NULL)
        return;
    dvm->stopping = true; /* no job waits for another any more */
    for (dvm_conn_t *c = dvm->conns, *next; c != NULL; c = next) {
        next = c->next; /* conclude may close c */
        if (c->running) /* the daemons are gone, and its ranks */
            dvm_conclude(dvm->rte, c);
    }
    while (dvm->conns != NULL)
        dvm_conn_close(dvm->conns);
    dvm_grow_release(dvm);
    for (int i = 0; i < 3; i++) {
        if (dvm->sigev[i] != NULL)
            event_free(dvm->sigev[i]);
    }
    if (dvm->listen_ev != NULL)
        event_free(dvm->listen_ev);
    if (dvm->listen_fd >= 0)
        close(dvm->listen_fd);
    if (dvm->socket_path != NULL)
        unlink(dvm->socket_path);
    if (dvm->dir != NULL)
        rmdir(dvm->dir);
    if (dvm->report_path != NULL)
        unlink(dvm->report_path);
    free(dvm->socket_path);
    free(dvm->dir);
    free(dvm->report_path);
    dvm_gather_release(dvm);
    free(dvm->lost);
    free(dvm->free_slots);
    free(dvm->avail);
    if (dvm->family_only)
        dvm->runtime->family = NULL;
    else
        dvm->runtime->dvm = NULL;
    free(dvm);
}
