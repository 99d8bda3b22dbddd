/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DVM's jobs (dvm.h): each node's free slots; a job mapped onto those
 * free, run at once, or queued first come first (or refused with the
 * figures); the messages of the running jobs handed to the job they name;
 * a job's end, its slots back and the jobs waiting started. Jobs with
 * the pmi components (MPI jobs) run side by side as any other, on the
 * same nodes too: a daemon keeps each job's PMI state its own. Every
 * daemon takes part in each job's all-gathers, in series of the job's
 * own; two jobs whose series would be the same (ids 65535 / components
 * apart, both running) do not run at once, nor two jobs that start a
 * component whose jobs run apart (HNP_PMI_NEEDS_JOBS_APART).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dvm_server.h"
#include "hnp_buffer.h"
#include "wire/control.h"

dvm_conn_t *dvm_running_job(hnp_dvm_t *dvm, uint32_t jobid)
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
    c = dvm_running_job(dvm, jobid);
    if (c != NULL) {
        fn = hnp_job_handler(hnp_dvm_job_of(c->job), tag);
    } else if (dvm->family_only && jobid == dvm->runtime->jobid &&
               (fn = hnp_job_handler(dvm->runtime, tag)) != NULL) {
        /* a standalone hnp's own job, beside the jobs it spawned */
        fn(rte, src, tag, data, len, dvm->runtime);
        return;
    }
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
    dvm->routing = true;
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
void dvm_give_back_slots(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    for (uint32_t n = 0; c->taken != NULL && n < dvm->runtime->map.nnodes;
         n++)
        if (!dvm->lost[n])
            dvm->free_slots[n] += c->taken[n];
    free(c->taken);
    c->taken = NULL;
    c->running = false;
    dvm->nrunning--;
    /* its names go (those published to persist stay), its waiting
     * lookups are answered */
    hnp_rte_names_job_end(dvm->rte, hnp_dvm_job_of(c->job)->jobid);
    /* what the HNP joined of its all-gathers is the job's, and goes */
    if (hnp_dvm_job_needs_pmi(c->job))
        hnp_rte_collectives_forget(dvm->rte, hnp_dvm_job_of(c->job)->jobid,
                                   (uint32_t)dvm->rte->pmi.count);
    dvm_announce_collectives(dvm);
}

/* Daemons without ranks of a running job with the pmi components hear
 * of its all-gathers from the HNP. */
void dvm_announce_collectives(hnp_dvm_t *dvm)
{
    bool any = dvm_runtime_leaves_daemons_out(dvm);

    for (dvm_conn_t *c = dvm->conns; c != NULL && !any; c = c->next)
        any = c->running && hnp_dvm_job_needs_pmi(c->job) &&
              hnp_dvm_job_leaves_daemons_out(c->job);
    dvm->rte->announce_collectives = any;
}

/* A running job's processes are gone (or will not report): its client
 * gets the status, its slots go to the jobs waiting. */
void dvm_conclude(hnp_rte_t *rte, void *cbdata)
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
    /* a job of a family ends after the jobs it spawned */
    if (!dvm->stopping && dvm_has_children(dvm, jobid)) {
        c->waits_for_children = true;
        return;
    }
    if (c->spawn_reqid != 0)
        dvm_spawn_answer(c, HNP_ERR_NOT_AVAILABLE,
                         hnp_dvm_job_of(c->job)->end_message);
    if (c->parent_jobid != 0)
        dvm_spawn_timing_ended(c);
    dvm_give_back_slots(dvm, c); /* while it has its map */
    status = hnp_dvm_job_conclude(c->job);
    dvm_reply(c, HNP_DVM_DONE, jobid, status, NULL);
    hnp_dvm_job_destroy(c->job);
    c->job = NULL;
    uint32_t parent = c->parent_jobid;
    if (c->fd < 0)
        dvm_conn_close(c);
    if (parent != 0)
        dvm_spawn_concluded(dvm, parent, status);
    dvm_start_next(dvm);
}

static void end_timed_out(hnp_rte_t *rte, void *cbdata)
{
    dvm_conn_t *c = cbdata;

    HNP_WARN(rte->log, "job %u: not every process reported its end; "
             "counting it as ended", hnp_dvm_job_of(c->job)->jobid);
    hnp_rte_timer_destroy(c->end_timer);
    c->end_timer = NULL;
    dvm_conclude(rte, c);
}

void hnp_dvm_job_ending(hnp_dvm_t *dvm, hnp_job_t *job)
{
    dvm_conn_t *c = conn_of(dvm, job);

    if (c == NULL || !c->running)
        return;
    /* an abnormal end of a job ends the jobs it spawned */
    if (job->exit_status != 0 || job->kill_now)
        dvm_end_children(dvm, job);
    dvm_gather_job_ended(dvm, job->jobid);
    if (!c->end_sent || (job->kill_now && !c->end_sent_now)) {
        send_job_end(dvm, job->jobid, job->kill_now);
        c->end_sent = true;
        c->end_sent_now = job->kill_now;
    }
    if (!job->launched || job->procs_exited >= job->map.nprocs) {
        /* from the event loop, not from inside the message handler */
        if (c->conclude_timer == NULL)
            c->conclude_timer = hnp_rte_timer_create(dvm->rte, 0, dvm_conclude,
                                                     c);
        return;
    }
    if (c->end_timer == NULL)
        c->end_timer = hnp_rte_timer_create(dvm->rte,
                                            dvm->rte->core->kill_grace + 10.0,
                                            end_timed_out, c);
}

/* The slots @p c's job may take now, in dvm->avail: the free ones. */
static void available(hnp_dvm_t *dvm)
{
    for (uint32_t n = 0; n < dvm->runtime->map.nnodes; n++)
        dvm->avail[n] = dvm->free_slots[n];
}

/* Whether two jobs' series of all-gathers would be the same ones. */
static bool series_clash(uint32_t a, uint32_t b, uint32_t nseries)
{
    for (uint32_t i = 0; i < nseries; i++)
        for (uint32_t k = 0; k < nseries; k++)
            if (hnp_rte_job_series(a, nseries, i) ==
                hnp_rte_job_series(b, nseries, k))
                return true;
    return false;
}

/* The running job @p c's job waits for, or 0. Jobs with the pmi
 * components whose all-gathers would be numbered alike (ids 65535 / the
 * components apart) do not run at once: a daemon would refuse the later.
 * Nor do two jobs that start a component whose jobs run apart. */
static uint32_t clashes_with(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    uint32_t jobid = hnp_dvm_job_of(c->job)->jobid;
    uint32_t nseries = (uint32_t)dvm->rte->pmi.count;
    bool apart = hnp_dvm_job_runs_apart(c->job);

    if (!hnp_dvm_job_needs_pmi(c->job))
        return 0;
    for (dvm_conn_t *o = dvm->conns; o != NULL; o = o->next) {
        uint32_t other;
        if (o == c || !o->running || !hnp_dvm_job_needs_pmi(o->job))
            continue;
        other = hnp_dvm_job_of(o->job)->jobid;
        if ((apart && hnp_dvm_job_runs_apart(o->job)) ||
            series_clash(jobid, other, nseries))
            return other;
    }
    return 0;
}

/* A spawn cannot wait for slots: one whose job may oversubscribe goes
 * onto its nodes' slots, busy or not, as mpirun --oversubscribe does. */
static bool place_over_busy(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    const hnp_job_map_t *all = &dvm->runtime->map;

    if (!hnp_dvm_job_oversubscribes(c->job))
        return false;
    for (uint32_t n = 0; n < all->nnodes; n++)
        dvm->avail[n] = dvm->lost[n] ? 0 : all->node_slots[n];
    return hnp_dvm_job_place(c->job, dvm->avail) == HNP_SUCCESS;
}

bool dvm_place(hnp_dvm_t *dvm, dvm_conn_t *c, bool family)
{
    const hnp_job_map_t *map;

    if (!family && clashes_with(dvm, c) != 0)
        return false;
    available(dvm);
    if (hnp_dvm_job_place(c->job, dvm->avail) != HNP_SUCCESS &&
        !(family && place_over_busy(dvm, c)))
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
    }
    return true;
}

void dvm_launch(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    hnp_job_t *job = hnp_dvm_job_of(c->job);
    char err[1024] = "";

    c->running = true;
    dvm->nrunning++;
    dvm_announce_collectives(dvm);
    c->end_sent = c->end_sent_now = false;
    dvm_reply(c, HNP_DVM_STARTED, job->jobid, 0, NULL);
    hnp_dvm_job_log_to(c->job);
    if (hnp_dvm_job_launch(c->job, err, sizeof(err)) != HNP_SUCCESS)
        hnp_job_abort(job, 1, err[0] != '\0' ? err : "cannot launch the job");
    hnp_dvm_job_log_to(NULL);
}

/* The jobs waiting start, first come first, while the first fits. */
void dvm_start_next(hnp_dvm_t *dvm)
{
    if (dvm->stopping) {
        if (dvm->nrunning == 0)
            hnp_job_abort(dvm->runtime, 0, NULL);
        return;
    }
    while (dvm->queue != NULL && dvm_place(dvm, dvm->queue, false)) {
        dvm_conn_t *c = dvm->queue;
        dvm->queue = c->next_wait;
        c->next_wait = NULL;
        dvm_launch(dvm, c);
    }
}

static void enqueue(hnp_dvm_t *dvm, dvm_conn_t *c)
{
    dvm_conn_t **at = &dvm->queue;

    while (*at != NULL)
        at = &(*at)->next_wait;
    *at = c;
}

void dvm_dequeue(hnp_dvm_t *dvm, dvm_conn_t *c)
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
    uint32_t clash = clashes_with(dvm, c);
    char clash_why[160] = "";

    available(dvm);
    hnp_dvm_job_free_slots(c->job, dvm->avail, &nfree, &total);
    if (clash != 0 && hnp_dvm_job_runs_apart(c->job))
        snprintf(clash_why, sizeof(clash_why), "; it waits for job %u, "
                 "which runs: jobs that start pmi component %s run one at "
                 "a time", clash, hnp_dvm_job_apart_by(c->job));
    else if (clash != 0)
        snprintf(clash_why, sizeof(clash_why), "; its MPI all-gathers would "
                 "be numbered as those of job %u, which runs", clash);
    snprintf(why, len, "job %u needs %u slots, %u free of %u%s%s", jobid,
             hnp_dvm_job_ranks(c->job), nfree, total, clash_why,
             dvm->queue != NULL ? "; jobs submitted before it wait" : "");
}

void dvm_submit(hnp_dvm_t *dvm, dvm_conn_t *c, hnp_wire_dvm_request_t *req)
{
    int none[3] = { -1, -1, -1 };
    char err[1024] = "", why[512];
    bool nowait = (req->flags & HNP_DVM_NOWAIT) != 0; /* req is taken */
    uint32_t jobid;

    if (c->job != NULL || dvm->stopping || dvm->last_jobid == UINT32_MAX) {
        dvm_reply(c, HNP_DVM_REFUSED, 0, dvm->stopping ? 128 + SIGTERM : 1,
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
        dvm_reply(c, HNP_DVM_REFUSED, jobid, 1, err);
        return;
    }
    if (dvm->queue == NULL && dvm_place(dvm, c, false)) {
        dvm_launch(dvm, c);
        return;
    }
    say_why_not(dvm, c, why, sizeof(why));
    if (nowait) {
        dvm_reply(c, HNP_DVM_REFUSED, jobid, 1, why);
        hnp_dvm_job_destroy(c->job);
        c->job = NULL;
        return;
    }
    enqueue(dvm, c);
    dvm_reply(c, HNP_DVM_QUEUED, jobid, 0, why);
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

void dvm_list_jobs(hnp_dvm_t *dvm, dvm_conn_t *c)
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
        dvm_conn_t *q = dvm_running_job(dvm, id);
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
    dvm_reply(c, HNP_DVM_LISTING, 0, 0, text);
    free(text);
}

void dvm_client_signal(hnp_dvm_t *dvm, dvm_conn_t *c, int sig)
{
    if (c->job == NULL || sig <= 0 || sig >= NSIG)
        return;
    if (!c->running) {
        /* not started: ended by what would have ended hnp */
        if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
            return;
        dvm_dequeue(dvm, c);
        dvm_reply(c, HNP_DVM_REFUSED, hnp_dvm_job_of(c->job)->jobid,
                  128 + sig, "interrupted before it started");
        hnp_dvm_job_destroy(c->job);
        c->job = NULL;
        dvm_start_next(dvm); /* those behind it may fit */
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
        dvm_reply(c, HNP_DVM_REFUSED, hnp_dvm_job_of(c->job)->jobid,
                  128 + SIGTERM, "the DVM was stopped before the job "
                  "started");
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
