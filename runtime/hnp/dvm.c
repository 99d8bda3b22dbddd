/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The persistent runtime's server (dvm.h): once every daemon has joined,
 * a private directory with a local socket and the report file (mode 0600:
 * the socket's address and the secret a client proves it knows); then
 * clients: each is checked to be this user (SO_PEERCRED), proves the
 * secret with the runtime's handshake within oob_tcp_handshake_timeout,
 * and submits one job or asks for the list or the stop. Jobs run side by
 * side on the slots the others leave free; one that does not fit waits,
 * in the order they came (or is refused: --dvm-nowait). Jobs that use the
 * pmi components run one at a time: a daemon serves them one job at a
 * time. The messages of the jobs name their job: each goes to its job.
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

typedef enum { CONN_HELLO, CONN_PROOF, CONN_READY } conn_state_t;

typedef struct dvm_conn {
    struct dvm_conn *next;      /* dvm->conns */
    struct dvm_conn *next_wait; /* dvm->queue */
    hnp_dvm_t *dvm;
    int fd;                     /* -1: the client went away */
    struct event *ev;
    conn_state_t state;
    hnp_auth_transcript_t t;
    dvm_inbuf_t in;
    int fds[HNP_DVM_MAX_FDS];   /* came with the submission */
    int nfds;
    hnp_rte_timer_t *deadline;  /* the handshake's */
    hnp_dvm_job_t *job;         /* submitted: waiting or running */
    bool end_sent, end_sent_now;
    hnp_rte_timer_t *end_timer; /* its processes did not all report */
    hnp_rte_timer_t *conclude_timer;
    bool running;
    uint32_t *taken;            /* [nnodes]: the slots it holds */
} dvm_conn_t;

struct hnp_dvm {
    hnp_job_t *runtime;
    hnp_rte_t *rte;
    const hnp_args_t *args;
    char *dir;                  /* private: the socket lives in it */
    char *socket_path;
    char *report_path;          /* written, removed at the end */
    int listen_fd;
    struct event *listen_ev;
    struct event *sigev[3];
    bool ready, stopping;
    uint32_t last_jobid;
    bool *lost;                 /* [nnodes] */
    uint32_t alive;
    dvm_conn_t *conns;
    dvm_conn_t *queue;
    uint32_t nrunning;
    bool gathering;             /* a running job may_gather */
    uint32_t *free_slots;       /* [nnodes] */
    uint32_t *pmi_jobs;         /* [nnodes]: running jobs there with pmi */
    uint32_t *avail;            /* [nnodes]: scratch, what a job may take */
};

static void start_next(hnp_dvm_t *dvm);
static void conn_close(dvm_conn_t *c);

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

uint32_t hnp_dvm_daemons_alive(const hnp_dvm_t *dvm)
{
    return dvm->alive;
}


/* ------------------------------------------------------------ replies */

static void reply(dvm_conn_t *c, uint8_t kind, uint32_t jobid, int status,
                  const char *text)
{
    hnp_wire_dvm_reply_t m = { .kind = kind, .jobid = jobid,
                               .status = status, .text = (char *)text };

    if (c->fd >= 0 && dvm_send_reply(c->fd, &m) != HNP_SUCCESS)
        HNP_VERBOSE(c->dvm->rte->log, 1, "a client went away before its "
                    "answer");
}

/* ------------------------------------------------------------ the jobs */

static dvm_conn_t *running_job(hnp_dvm_t *dvm, uint32_t jobid)
{
    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next)
        if (c->running && hnp_dvm_job_of(c->job)->jobid == jobid)
            return c;
    return NULL;
}

static dvm_conn_t *conn_of(hnp_dvm_t *dvm, const hnp_job_t *job)
{
    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next)
        if (c->job != NULL && hnp_dvm_job_of(c->job) == job)
            return c;
    return NULL;
}

/* A message about a job (its first word names it) goes to that job's
 * handler, hnp's messages meanwhile to the job's client. One of a job
 * that has ended (late, or ended by a timer) is dropped. */
static void deliver(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                    const void *data, size_t len, void *cbdata)
{
    hnp_dvm_t *dvm = cbdata;
    dvm_conn_t *c;
    hnp_rte_recv_fn fn = NULL;
    hnp_reader_t rd;
    uint32_t jobid;

    hnp_reader_init(&rd, data, len);
    jobid = hnp_unpack_u32(&rd);
    if (rd.failed) {
        HNP_WARN(rte->log, "a message (tag %u) from vpid %u too short to "
                 "name its job", tag, src);
        return;
    }
    c = running_job(dvm, jobid);
    if (c != NULL)
        fn = hnp_job_handler(hnp_dvm_job_of(c->job), tag);
    if (fn == NULL) {
        HNP_VERBOSE(rte->log, 2, "message %u of job %u from vpid %u dropped: "
                    "no such job runs", tag, jobid, src);
        return;
    }
    hnp_dvm_job_log_to(c->job);
    fn(rte, src, tag, data, len, hnp_dvm_job_of(c->job));
    hnp_dvm_job_log_to(NULL);
}

void hnp_dvm_route_messages(hnp_dvm_t *dvm)
{
    static const uint32_t tags[] = { HNP_TAG_IOF, HNP_TAG_PROC_EXIT,
                                     HNP_TAG_PMI_ABORT,
                                     HNP_TAG_PROCS_STARTED,
                                     HNP_TAG_STDIN_ACK,
                                     HNP_TAG_STATE_REPLY };

    for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
        hnp_rte_recv(dvm->rte, tags[i], deliver, dvm);
}

static void send_job_end(hnp_dvm_t *dvm, uint32_t jobid, bool now)
{
    hnp_wire_job_end_t m = { .jobid = jobid, .now = now };
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    if (hnp_wire_job_end_pack(&buf, &m) != HNP_SUCCESS ||
        hnp_rte_xcast(dvm->rte, HNP_TAG_JOB_END, buf.data, buf.len) !=
            HNP_SUCCESS)
        HNP_WARN(dvm->rte->log, "cannot send the end of job %u", jobid);
    hnp_buffer_release(&buf);
}

/* Its slots back to the DVM (those of a node lost stay lost). */
static void give_back_slots(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    for (uint32_t n = 0; c->taken != NULL && n < dvm->runtime->map.nnodes;
         n++)
        if (!dvm->lost[n])
            dvm->free_slots[n] += c->taken[n];
    free(c->taken);
    c->taken = NULL;
    for (uint32_t n = 0; hnp_dvm_job_needs_pmi(c->job) &&
                         n < dvm->runtime->map.nnodes; n++)
        if (hnp_dvm_job_uses_node(c->job, n) && dvm->pmi_jobs[n] > 0)
            dvm->pmi_jobs[n]--;
    c->running = false;
    dvm->nrunning--;
    /* the all-gathers' series start again with the next such job */
    if (hnp_dvm_job_may_gather(c->job) || dvm->nrunning == 0)
        hnp_rte_collectives_forget(dvm->rte);
    if (hnp_dvm_job_may_gather(c->job))
        dvm->gathering = false;
}

/* A running job's processes are gone (or will not report): its client
 * gets the status, its slots go to the jobs waiting. */
static void conclude(hnp_rte_t *rte, void *cbdata)
{
    dvm_conn_t *c = cbdata;
    hnp_dvm_t *dvm = c->dvm;
    uint32_t jobid;
    int status;

    (void)rte;
    hnp_rte_timer_destroy(c->conclude_timer);
    c->conclude_timer = NULL;
    hnp_rte_timer_destroy(c->end_timer);
    c->end_timer = NULL;
    if (!c->running)
        return;
    jobid = hnp_dvm_job_of(c->job)->jobid;
    give_back_slots(dvm, c); /* while it has its map */
    status = hnp_dvm_job_conclude(c->job);
    reply(c, HNP_DVM_DONE, jobid, status, NULL);
    hnp_dvm_job_destroy(c->job);
    c->job = NULL;
    if (c->fd < 0)
        conn_close(c);
    start_next(dvm);
}

static void end_timed_out(hnp_rte_t *rte, void *cbdata)
{
    dvm_conn_t *c = cbdata;

    HNP_WARN(rte->log, "job %u: not every process reported its end; "
             "counting it as ended", hnp_dvm_job_of(c->job)->jobid);
    hnp_rte_timer_destroy(c->end_timer);
    c->end_timer = NULL;
    conclude(rte, c);
}

void hnp_dvm_job_ending(hnp_dvm_t *dvm, hnp_job_t *job)
{
    dvm_conn_t *c = conn_of(dvm, job);

    if (c == NULL || !c->running)
        return;
    if (!c->end_sent || (job->kill_now && !c->end_sent_now)) {
        send_job_end(dvm, job->jobid, job->kill_now);
        c->end_sent = true;
        c->end_sent_now = job->kill_now;
    }
    if (!job->launched || job->procs_exited >= job->map.nprocs) {
        /* from the event loop, not from inside the message handler */
        if (c->conclude_timer == NULL)
            c->conclude_timer = hnp_rte_timer_create(dvm->rte, 0, conclude,
                                                     c);
        return;
    }
    if (c->end_timer == NULL)
        c->end_timer = hnp_rte_timer_create(dvm->rte,
                                            dvm->rte->core->kill_grace + 10.0,
                                            end_timed_out, c);
}

/* The slots @p c's job may take now, in dvm->avail: the free ones, but
 * none of a node where a job with the pmi components runs if it has them
 * too (a daemon serves them to one job at a time). */
static void available(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    bool pmi = hnp_dvm_job_needs_pmi(c->job);

    for (uint32_t n = 0; n < dvm->runtime->map.nnodes; n++)
        dvm->avail[n] = pmi && dvm->pmi_jobs[n] > 0 ? 0 : dvm->free_slots[n];
}

/* Whether @p c's job runs now: it maps onto the slots available to it,
 * and if it may take part in all-gathers no other such job runs. */
static bool place(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    const hnp_job_map_t *map;

    if (hnp_dvm_job_may_gather(c->job) && dvm->gathering)
        return false;
    available(dvm, c);
    if (hnp_dvm_job_place(c->job, dvm->avail) != HNP_SUCCESS)
        return false;
    map = &hnp_dvm_job_of(c->job)->map;
    c->taken = calloc(dvm->runtime->map.nnodes + 1, sizeof(uint32_t));
    if (c->taken == NULL)
        return false;
    for (uint32_t n = 0; n < dvm->runtime->map.nnodes && n < map->nnodes;
         n++) {
        uint32_t want = map->local_size[n];
        /* --oversubscribe may place more ranks than there are slots */
        c->taken[n] = want < dvm->free_slots[n] ? want : dvm->free_slots[n];
        dvm->free_slots[n] -= c->taken[n];
        if (want > 0 && hnp_dvm_job_needs_pmi(c->job))
            dvm->pmi_jobs[n]++;
    }
    return true;
}

static void launch(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    hnp_job_t *job = hnp_dvm_job_of(c->job);
    char err[1024] = "";

    c->running = true;
    dvm->nrunning++;
    if (hnp_dvm_job_may_gather(c->job))
        dvm->gathering = true;
    c->end_sent = c->end_sent_now = false;
    reply(c, HNP_DVM_STARTED, job->jobid, 0, NULL);
    hnp_dvm_job_log_to(c->job);
    if (hnp_dvm_job_launch(c->job, err, sizeof(err)) != HNP_SUCCESS)
        hnp_job_abort(job, 1, err[0] != '\0' ? err : "cannot launch the job");
    hnp_dvm_job_log_to(NULL);
}

/* The jobs waiting start, first come first, while the first fits. */
static void start_next(hnp_dvm_t *dvm)
{
    if (dvm->stopping) {
        if (dvm->nrunning == 0)
            hnp_job_abort(dvm->runtime, 0, NULL);
        return;
    }
    while (dvm->queue != NULL && place(dvm, dvm->queue)) {
        dvm_conn_t *c = dvm->queue;
        dvm->queue = c->next_wait;
        c->next_wait = NULL;
        launch(dvm, c);
    }
}

static void enqueue(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    dvm_conn_t **at = &dvm->queue;

    while (*at != NULL)
        at = &(*at)->next_wait;
    *at = c;
}

static void dequeue(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    for (dvm_conn_t **at = &dvm->queue; *at != NULL; at = &(*at)->next_wait)
        if (*at == c) {
            *at = c->next_wait;
            c->next_wait = NULL;
            return;
        }
}

/* Why @p c's job does not start now, with the figures. */
static void say_why_not(hnp_dvm_t *dvm, dvm_conn_t *c, char *why, size_t len)
{
    uint32_t nfree, total, jobid = hnp_dvm_job_of(c->job)->jobid;
    bool shared = false;

    available(dvm, c);
    hnp_dvm_job_free_slots(c->job, dvm->avail, &nfree, &total);
    for (uint32_t n = 0; n < dvm->runtime->map.nnodes; n++)
        shared |= dvm->avail[n] < dvm->free_slots[n];
    snprintf(why, len, "job %u needs %u slots, %u free of %u%s%s%s", jobid,
             hnp_dvm_job_ranks(c->job), nfree, total,
             shared ? " (a node running a job with the pmi components takes "
                      "no other such job)" : "",
             hnp_dvm_job_may_gather(c->job) && dvm->gathering
                 ? "; a job that may use MPI runs (such jobs run one at a "
                   "time)" : "",
             dvm->queue != NULL ? "; jobs submitted before it wait" : "");
}

static void submit(hnp_dvm_t *dvm, dvm_conn_t *c, hnp_wire_dvm_request_t *req)
{
    int none[3] = { -1, -1, -1 };
    char err[1024] = "", why[512];
    bool nowait = (req->flags & HNP_DVM_NOWAIT) != 0; /* req is taken */
    uint32_t jobid;

    if (c->job != NULL || dvm->stopping || dvm->last_jobid == UINT32_MAX) {
        reply(c, HNP_DVM_REFUSED, 0, dvm->stopping ? 128 + SIGTERM : 1,
              dvm->stopping ? "the DVM is stopping"
              : c->job != NULL ? "one job a connection"
                               : "the DVM has used every job id");
        return;
    }
    memcpy(none, c->fds, sizeof(int) * (size_t)c->nfds);
    c->nfds = 0;
    jobid = ++dvm->last_jobid;
    c->job = hnp_dvm_job_create(dvm, jobid, req, none, err, sizeof(err));
    if (c->job == NULL) {
        reply(c, HNP_DVM_REFUSED, jobid, 1, err);
        return;
    }
    if (dvm->queue == NULL && place(dvm, c)) {
        launch(dvm, c);
        return;
    }
    say_why_not(dvm, c, why, sizeof(why));
    if (nowait) {
        reply(c, HNP_DVM_REFUSED, jobid, 1, why);
        hnp_dvm_job_destroy(c->job);
        c->job = NULL;
        return;
    }
    enqueue(dvm, c);
    reply(c, HNP_DVM_QUEUED, jobid, 0, why);
}

static size_t list_append(char **text, size_t *cap, size_t len,
                          const char *line)
{
    if (len + strlen(line) + 2 > *cap) {
        char *grown = realloc(*text, *cap * 2 + strlen(line));
        if (grown == NULL)
            return len;
        *text = grown;
        *cap = *cap * 2 + strlen(line);
    }
    return len + (size_t)snprintf(*text + len, *cap - len, "%s\n", line);
}

static void list_jobs(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    struct timespec now;
    size_t cap = 4096, len = 0;
    char *text = malloc(cap), line[1024];
    double t;

    clock_gettime(CLOCK_MONOTONIC, &now);
    t = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    if (text == NULL)
        return;
    len = (size_t)snprintf(text, cap, "%-8s %6s %6s %-8s %8s %s\n", "JOBID",
                           "RANKS", "NODES", "STATE", "AGE", "COMMAND");
    /* the running ones by job id, then the waiting in their order */
    for (uint32_t id = 1, seen = 0; seen < dvm->nrunning &&
                                    id <= dvm->last_jobid; id++) {
        dvm_conn_t *q = running_job(dvm, id);
        if (q == NULL)
            continue;
        seen++;
        hnp_dvm_job_describe(q->job, "running", t, line, sizeof(line));
        len = list_append(&text, &cap, len, line);
    }
    for (dvm_conn_t *q = dvm->queue; q != NULL; q = q->next_wait) {
        hnp_dvm_job_describe(q->job, "waiting", t, line, sizeof(line));
        len = list_append(&text, &cap, len, line);
    }
    reply(c, HNP_DVM_LISTING, 0, 0, text);
    free(text);
}

static void client_signal(hnp_dvm_t *dvm, dvm_conn_t *c, int sig)
{
    if (c->job == NULL || sig <= 0 || sig >= NSIG)
        return;
    if (!c->running) {
        /* not started: ended by what would have ended hnp */
        if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
            return;
        dequeue(dvm, c);
        reply(c, HNP_DVM_REFUSED, hnp_dvm_job_of(c->job)->jobid, 128 + sig,
              "interrupted before it started");
        hnp_dvm_job_destroy(c->job);
        c->job = NULL;
        start_next(dvm); /* those behind it may fit */
        return;
    }
    hnp_dvm_job_log_to(c->job);
    if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGCONT)
        hnp_job_control(hnp_dvm_job_of(c->job), sig == SIGCONT ? SIGCONT
                                                               : SIGSTOP);
    else
        hnp_job_signal(hnp_dvm_job_of(c->job), sig);
    hnp_dvm_job_log_to(NULL);
}

static void serve_request(dvm_conn_t *c, const uint8_t *body, size_t len)
{
    hnp_wire_dvm_request_t req;
    hnp_reader_t rd;

    hnp_reader_init(&rd, body, len);
    if (hnp_wire_dvm_request_unpack(&rd, &req) != HNP_SUCCESS) {
        HNP_WARN(c->dvm->rte->log, "a malformed request from a client; "
                 "closing its connection");
        conn_close(c);
        return;
    }
    switch (req.kind) {
    case HNP_DVM_SUBMIT:
        submit(c->dvm, c, &req);
        break;
    case HNP_DVM_SIGNAL:
        client_signal(c->dvm, c, req.signo);
        break;
    case HNP_DVM_LIST:
        list_jobs(c->dvm, c);
        break;
    default:
        reply(c, HNP_DVM_STOPPING, 0, 0, NULL);
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
        if (len != HNP_PROOF_LEN ||
            !hnp_auth_proof_check(dvm->rte->secret, &c->t,
                                  HNP_AUTH_CONNECTOR, body))
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
    conn_close(c);
    start_next(dvm); /* a job waiting behind its job may fit now */
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

static void conn_close(dvm_conn_t *c)
{
    hnp_dvm_t *dvm = c->dvm;

    for (dvm_conn_t **at = &dvm->conns; *at != NULL; at = &(*at)->next)
        if (*at == c) {
            *at = c->next;
            break;
        }
    dequeue(dvm, c);
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
        give_back_slots(dvm, c);
    hnp_dvm_job_destroy(c->job);
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
    c->deadline = hnp_rte_timer_create(dvm->rte,
                                       dvm->rte->core->handshake_timeout > 0
                                           ? dvm->rte->core->handshake_timeout
                                           : 10.0,
                                       handshake_timed_out, c);
    c->next = dvm->conns;
    dvm->conns = c;
    if (c->ev == NULL || event_add(c->ev, NULL) != 0)
        conn_close(c);
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

void hnp_dvm_stop(hnp_dvm_t *dvm, const char *why)
{
    if (dvm->stopping)
        return;
    dvm->stopping = true;
    HNP_VERBOSE(dvm->rte->log, 1, "the DVM stops: %s", why);
    while (dvm->queue != NULL) {
        dvm_conn_t *c = dvm->queue;
        dvm->queue = c->next_wait;
        c->next_wait = NULL;
        reply(c, HNP_DVM_REFUSED, hnp_dvm_job_of(c->job)->jobid,
              128 + SIGTERM, "the DVM was stopped before the job started");
        hnp_dvm_job_destroy(c->job);
        c->job = NULL;
    }
    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next)
        if (c->running) {
            hnp_job_t *job = hnp_dvm_job_of(c->job);
            char msg[256];
            snprintf(msg, sizeof(msg), "job %u: %s", job->jobid, why);
            hnp_dvm_job_log_to(c->job);
            hnp_job_abort(job, 128 + SIGTERM, msg);
            hnp_dvm_job_log_to(NULL);
        }
    /* the runtime ends once the jobs have (start_next) */
    if (dvm->nrunning == 0)
        hnp_job_abort(dvm->runtime, 0, NULL);
}

/* Every running job with ranks on @p node (all of them: UINT32_MAX) ends
 * with @p status, saying @p why to its client. */
static void end_jobs_on(hnp_dvm_t *dvm, uint32_t node, int status,
                        const char *why)
{
    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next) {
        if (!c->running || (node != UINT32_MAX &&
                            !hnp_dvm_job_uses_node(c->job, node)))
            continue;
        hnp_dvm_job_log_to(c->job);
        hnp_job_abort(hnp_dvm_job_of(c->job), status, why);
        hnp_dvm_job_log_to(NULL);
    }
}

void hnp_dvm_failure(hnp_dvm_t *dvm, hnp_vpid_t src, uint32_t jobid,
                     int status, const char *message)
{
    dvm_conn_t *c = jobid != 0 ? running_job(dvm, jobid) : NULL;

    if (!dvm->ready) {
        hnp_job_abort(dvm->runtime, status, message);
        return;
    }
    /* 0: a daemon's own failure, which ends what runs on its node */
    if (jobid == 0 && dvm->nrunning > 0) {
        end_jobs_on(dvm, src >= 1 && src <= dvm->runtime->map.nnodes
                             ? src - 1 : UINT32_MAX, status, message);
    } else if (c != NULL) {
        hnp_dvm_job_log_to(c->job);
        hnp_job_abort(hnp_dvm_job_of(c->job), status, message);
        hnp_dvm_job_log_to(NULL);
    } else if (jobid != 0)
        HNP_WARN(dvm->rte->log, "job %u, which has ended: %s", jobid,
                 message);
    else
        HNP_WARN(dvm->rte->log, "%s", message);
}

void hnp_dvm_daemon_lost(hnp_dvm_t *dvm, hnp_vpid_t vpid, const char *why)
{
    uint32_t node = vpid - 1;

    if (!dvm->ready || dvm->rte->core->dvm_on_daemon_loss ==
                           HNP_DVM_LOSS_STOP) {
        end_jobs_on(dvm, UINT32_MAX, 1, why);
        if (dvm->ready)
            hnp_dvm_stop(dvm, "a daemon died (dvm_on_daemon_loss stop)");
        else
            hnp_job_abort(dvm->runtime, 1, why);
        return;
    }
    if (vpid == 0 || node >= dvm->runtime->map.nnodes || dvm->lost[node])
        return;
    dvm->lost[node] = true;
    dvm->free_slots[node] = 0;
    dvm->alive--;
    HNP_WARN(dvm->rte->log, "%s; the DVM serves on with %u nodes", why,
             dvm->alive);
    end_jobs_on(dvm, node, 1, why);
    if (dvm->alive == 0)
        hnp_dvm_stop(dvm, "no daemon left");
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    hnp_dvm_stop(arg, sig == SIGINT ? "interrupted" : "terminated by a "
                 "signal");
}

/* ------------------------------------------------------------ life */

int hnp_dvm_create(hnp_dvm_t **out, hnp_job_t *runtime,
                   const hnp_args_t *args, char *err, size_t errlen)
{
    static const int signals[3] = { SIGINT, SIGTERM, SIGHUP };
    hnp_dvm_t *dvm = calloc(1, sizeof(*dvm));

    if (dvm == NULL ||
        (dvm->lost = calloc(runtime->map.nnodes + 1, sizeof(bool))) == NULL ||
        (dvm->free_slots = calloc(runtime->map.nnodes + 1,
                                  sizeof(uint32_t))) == NULL ||
        (dvm->pmi_jobs = calloc(runtime->map.nnodes + 1,
                                sizeof(uint32_t))) == NULL ||
        (dvm->avail = calloc(runtime->map.nnodes + 1, sizeof(uint32_t))) ==
            NULL) {
        if (dvm != NULL) {
            free(dvm->lost);
            free(dvm->free_slots);
            free(dvm->pmi_jobs);
        }
        free(dvm);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    dvm->runtime = runtime;
    dvm->rte = runtime->rte;
    dvm->args = args;
    dvm->listen_fd = -1;
    dvm->alive = runtime->map.nnodes;
    for (uint32_t n = 0; n < runtime->map.nnodes; n++)
        dvm->free_slots[n] = runtime->map.node_slots[n];
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
    for (dvm_conn_t *c = dvm->conns, *next; c != NULL; c = next) {
        next = c->next; /* conclude may close c */
        if (c->running) /* the daemons are gone, and its ranks */
            conclude(dvm->rte, c);
    }
    while (dvm->conns != NULL)
        conn_close(dvm->conns);
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
    free(dvm->lost);
    free(dvm->free_slots);
    free(dvm->pmi_jobs);
    free(dvm->avail);
    dvm->runtime->dvm = NULL;
    free(dvm);
}
