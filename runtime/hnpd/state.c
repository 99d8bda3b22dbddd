/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --timeout with --report-state-on-timeout or --get-stack-traces: the HNP
 * asks every daemon how its ranks are (wire/state.h), and this daemon
 * answers for its node's ranks: pid, running or how each ended, and with
 * the stacks asked for, what gdb says of each running rank.
 *
 * gdb runs in batch mode, attached to the rank's pid, one at a time per
 * rank but all the node's ranks at once, each under the time limit the
 * HNP gave: one that does not finish by then is killed, and what it said
 * so far is sent with a note. Without gdb in this daemon's PATH, each
 * running rank's stack says so. The loop goes on meanwhile (heartbeats,
 * messages); the answer goes when every gdb is done.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon.h"
#include "procs/children.h"
#include "procs/forkexec.h"
#include "wire/state.h"

/* What is kept of one rank's stack: a deep one is cut there. */
#define STACK_TEXT_MAX (64 * 1024)

typedef struct stack_take {
    struct hnpd_state_query *query;
    hnp_wire_rank_state_t *rank; /* its entry in the answer */
    pid_t gdb;                   /* until reaped */
    int fd;                      /* gdb's output; -1 at end of file */
    struct event *readable;
    char *text;
    size_t len;
    bool cut;                    /* more than STACK_TEXT_MAX */
    bool done;
} stack_take_t;

struct hnpd_state_query {
    hnpd_t *daemon;
    hnpd_job_t *job;      /* the job asked about; NULL: none held here */
    hnp_wire_state_reply_t reply;
    stack_take_t *takes;  /* [reply.nranks]: gdb of the running ranks;
                             query NULL: none for that rank */
    size_t pending;       /* of them, still running */
    uint32_t limit_ms;
    hnp_rte_timer_t *limit;
};

static void send_reply(hnpd_state_query_t *q)
{
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    if (hnp_wire_state_reply_pack(&buf, &q->reply) == HNP_SUCCESS)
        hnp_rte_send(q->daemon->rte, 0, HNP_TAG_STATE_REPLY, buf.data,
                     buf.len);
    hnp_buffer_release(&buf);
}

static void take_close_output(stack_take_t *t)
{
    if (t->readable != NULL)
        event_free(t->readable);
    t->readable = NULL;
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
}

/* gdb's words become the rank's stack; once every gdb is done, the
 * answer goes. */
static void take_finish(stack_take_t *t, const char *note)
{
    hnpd_state_query_t *q = t->query;
    char *text;

    if (t->done || t->gdb > 0 || (t->fd >= 0 && note == NULL))
        return;
    take_close_output(t);
    t->done = true;
    if (t->len == 0 && note == NULL)
        note = "no stack: gdb printed nothing";
    if (asprintf(&text, "%.*s%s%s", (int)t->len, t->text != NULL ? t->text : "",
                 t->cut ? "\n(cut at 64 KiB)" : "", note != NULL ? note : "")
        >= 0) {
        free(t->rank->stack);
        t->rank->stack = text;
    }
    if (--q->pending == 0) {
        send_reply(q);
        hnpd_state_release(q->job);
    }
}

static void take_readable(evutil_socket_t fd, short what, void *arg)
{
    stack_take_t *t = arg;
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof(chunk));

    (void)what;
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        take_close_output(t);
        take_finish(t, NULL);
        return;
    }
    size_t keep = (size_t)n;
    if (t->len + keep > STACK_TEXT_MAX) {
        keep = STACK_TEXT_MAX - t->len;
        t->cut = true;
    }
    char *grown = keep > 0 ? realloc(t->text, t->len + keep) : t->text;
    if (grown != NULL) {
        t->text = grown;
        memcpy(t->text + t->len, chunk, keep);
        t->len += keep;
    }
}

static void gdb_reaped(void *ctx, pid_t pid, int wait_status)
{
    stack_take_t *t = ctx;

    (void)pid;
    (void)wait_status;
    t->gdb = 0;
    take_finish(t, NULL);
}

/* The time is up: whatever gdb has not finished is killed. */
static void limit_reached(hnp_rte_t *rte, void *cbdata)
{
    hnpd_state_query_t *q = cbdata;
    hnpd_t *d = q->daemon;
    hnpd_job_t *j = q->job;
    char note[128];

    (void)rte;
    hnp_rte_timer_destroy(q->limit);
    q->limit = NULL;
    snprintf(note, sizeof(note), "\n(gdb did not finish within %.1f s: "
             "stopped)", q->limit_ms / 1000.0);
    for (uint32_t i = 0; q->takes != NULL && i < q->reply.nranks; i++) {
        stack_take_t *t = &q->takes[i];
        if (t->query == NULL || t->done)
            continue;
        if (t->gdb > 0) {
            hnp_children_forget(d->rte->children, t->gdb);
            hnp_signal_child_group(t->gdb, SIGKILL);
            t->gdb = 0;
        }
        take_close_output(t);
        take_finish(t, note);
        if (j->state_query != q) /* the answer went, and q with it */
            return;
    }
}

/* gdb -p PID, its output (stdout and stderr) into a pipe of ours. */
static int start_gdb(hnpd_state_query_t *q, stack_take_t *t, const char *gdb,
                     char *err, size_t errlen)
{
    char pid[16];
    char *argv[] = { (char *)gdb, "-nx", "-batch", "-p", pid, "-ex",
                     "thread apply all bt", NULL };
    int ends[2], in = hnp_open_devnull(err, errlen), errno_fd = -1, rc;

    snprintf(pid, sizeof(pid), "%d", (int)t->rank->pid);
    if (in < 0)
        return in;
    if ((rc = hnp_pipe(ends, err, errlen)) != HNP_SUCCESS) {
        close(in);
        return rc;
    }
    hnp_forkexec_spec_t spec = { argv, NULL, NULL, in, ends[1], ends[1],
                                 SIGKILL, NULL, NULL, 0, false };
    rc = hnp_forkexec(&spec, &t->gdb, &errno_fd, err, errlen);
    close(in);
    close(ends[1]);
    t->fd = ends[0];
    if (rc == HNP_SUCCESS) {
        close(errno_fd);
        hnp_fd_set_nonblock(t->fd);
        t->readable = event_new(q->daemon->rte->base, t->fd,
                                EV_READ | EV_PERSIST, take_readable, t);
        if (t->readable == NULL || event_add(t->readable, NULL) != 0 ||
            hnp_children_watch(q->daemon->rte->children, t->gdb, gdb_reaped,
                               t) != HNP_SUCCESS) {
            hnp_signal_child_group(t->gdb, SIGKILL);
            t->gdb = 0;
            hnp_err_set(err, errlen, "out of memory");
            rc = HNP_ERR_NOMEM;
        }
    }
    if (rc != HNP_SUCCESS)
        take_close_output(t);
    return rc;
}

/* A stack for every running rank: gdb's, or why there is none. */
static void take_stacks(hnpd_state_query_t *q)
{
    char *gdb = hnp_program_path("gdb");
    char err[256];

    q->takes = calloc(q->reply.nranks, sizeof(*q->takes));
    for (uint32_t i = 0; i < q->reply.nranks; i++) {
        hnp_wire_rank_state_t *r = &q->reply.ranks[i];
        if (r->state != HNP_RANK_RUNNING)
            continue;
        if (gdb == NULL || q->takes == NULL) {
            if (asprintf(&r->stack, gdb == NULL
                             ? "no stack: gdb is not installed on node %s "
                               "(not found in PATH)"
                             : "no stack: out of memory on node %s",
                         q->daemon->node) < 0)
                r->stack = NULL;
            continue;
        }
        stack_take_t *t = &q->takes[i];
        t->query = q;
        t->rank = r;
        t->fd = -1;
        if (start_gdb(q, t, gdb, err, sizeof(err)) != HNP_SUCCESS) {
            if (asprintf(&r->stack, "no stack: cannot run %s: %s", gdb,
                         err) < 0)
                r->stack = NULL;
            t->query = NULL;
            continue;
        }
        q->pending++;
    }
    free(gdb);
}

/* Every rank of this node of the job asked about as it is now; none when
 * the node holds none of that job (the HNP counts every daemon's answer). */
static int fill_states(hnpd_state_query_t *q)
{
    hnpd_job_t *j = q->job;
    uint32_t nlocal = j != NULL && j->procs != NULL ? j->nlocal : 0;

    q->reply.ranks = calloc(nlocal + 1, sizeof(*q->reply.ranks));
    if (q->reply.ranks == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < nlocal; i++) {
        hnp_wire_rank_state_t *r = &q->reply.ranks[q->reply.nranks++];
        r->rank = j->procs[i].rank;
        r->pid = (int32_t)j->procs[i].pid;
        r->state = j->procs[i].state;
        r->wait_status = j->procs[i].wait_status;
    }
    return HNP_SUCCESS;
}

/* A question and its gdbs (killed), answered or not. */
static void query_free(hnpd_state_query_t *q)
{
    hnpd_t *d = q->daemon;

    for (uint32_t i = 0; q->takes != NULL && i < q->reply.nranks; i++) {
        stack_take_t *t = &q->takes[i];
        if (t->query == NULL) /* no gdb for this rank */
            continue;
        if (t->gdb > 0) {
            hnp_children_forget(d->rte->children, t->gdb);
            hnp_signal_child_group(t->gdb, SIGKILL);
        }
        take_close_output(t);
        free(t->text);
    }
    free(q->takes);
    hnp_rte_timer_destroy(q->limit);
    hnp_wire_state_reply_clear(&q->reply);
    free(q);
}

static void on_state_request(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                             const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    hnp_wire_state_request_t req;
    hnpd_state_query_t *q;
    hnpd_job_t *j;

    (void)tag;
    if (!HNP_RTE_UNPACK(rte, src, "state request",
                        hnp_wire_state_request_unpack, data, len, &req))
        return;
    j = hnpd_job_find(d, req.jobid);
    if (j != NULL && j->state_query != NULL) /* the HNP asks once a job */
        return;
    if ((q = calloc(1, sizeof(*q))) == NULL)
        return;
    q->daemon = d;
    q->job = j;
    q->reply.jobid = req.jobid;
    q->limit_ms = req.stack_ms;
    if (j == NULL) { /* none of its ranks here: an answer without any */
        if (fill_states(q) == HNP_SUCCESS)
            send_reply(q);
        query_free(q);
        return;
    }
    j->state_query = q;
    if (fill_states(q) == HNP_SUCCESS && (req.flags & HNP_STATE_STACKS))
        take_stacks(q);
    if (q->pending == 0) {
        send_reply(q);
        hnpd_state_release(j);
        return;
    }
    q->limit = hnp_rte_timer_create(rte, req.stack_ms / 1000.0,
                                    limit_reached, q);
}

void hnpd_state_register(hnpd_t *d)
{
    hnp_rte_recv(d->rte, HNP_TAG_STATE_REQUEST, on_state_request, d);
}

void hnpd_state_release(hnpd_job_t *j)
{
    hnpd_state_query_t *q = j != NULL ? j->state_query : NULL;

    if (q == NULL)
        return;
    j->state_query = NULL;
    query_free(q);
}
