/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --timeout with --report-state-on-timeout and --get-stack-traces: before
 * the job is killed, every daemon is asked how its ranks are, and the
 * stacks of those still running (wire/state.h); hnp prints the state of
 * every rank (node, pid, running or how it ended) and each stack labelled
 * with its rank and node, then kills the job as --timeout does. A daemon
 * that does not answer within the stacks' time limit and a few seconds
 * more is named instead of holding the job.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "hnp_buffer.h"
#include "job.h"
#include "wire/state.h"

/* The most a daemon's gdb may take for a stack, and how much longer hnp
 * waits for the answers. */
#define STACK_LIMIT_SECONDS 10.0
#define ANSWER_SLACK_SECONDS 5.0

struct hnp_state_report {
    hnp_job_t *job;
    hnp_wire_rank_state_t *ranks; /* [nprocs]; stacks owned */
    bool *answered;               /* [nprocs] */
    uint32_t replies;             /* daemons that answered */
    hnp_rte_timer_t *deadline;
};

static const char *node_of(const hnp_job_t *job, uint32_t rank)
{
    return job->map.node_names[job->map.node_of[rank]];
}

static void describe_state(const hnp_wire_rank_state_t *r, char *out,
                           size_t size)
{
    int st = r->wait_status;

    switch (r->state) {
    case HNP_RANK_RUNNING:
        snprintf(out, size, "pid %d, running", (int)r->pid);
        break;
    case HNP_RANK_EXITED:
        if (WIFSIGNALED(st))
            snprintf(out, size, "pid %d, killed by signal %d (%s)",
                     (int)r->pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
        else
            snprintf(out, size, "pid %d, exited with status %d", (int)r->pid,
                     WEXITSTATUS(st));
        break;
    case HNP_RANK_FAILED:
        snprintf(out, size, "could not start");
        break;
    default:
        snprintf(out, size, "not started");
        break;
    }
}

static void print_states(const struct hnp_state_report *s)
{
    hnp_job_t *job = s->job;
    char what[256];

    HNP_INFO(job->rte->log, "the state of the job's %u ranks:",
             job->map.nprocs);
    for (uint32_t r = 0; r < job->map.nprocs; r++) {
        if (s->answered[r])
            describe_state(&s->ranks[r], what, sizeof(what));
        else
            snprintf(what, sizeof(what), "unknown: its daemon did not "
                     "answer");
        HNP_INFO(job->rte->log, "  rank %u on node %s: %s", r,
                 node_of(job, r), what);
    }
}

/* Each line of a stack, after a line naming its rank and node. */
static void print_stacks(const struct hnp_state_report *s)
{
    hnp_job_t *job = s->job;

    for (uint32_t r = 0; r < job->map.nprocs; r++) {
        const hnp_wire_rank_state_t *st = &s->ranks[r];
        if (!s->answered[r] || st->state != HNP_RANK_RUNNING)
            continue;
        if (st->stack == NULL || strncmp(st->stack, "no stack: ", 10) == 0) {
            HNP_INFO(job->rte->log, "rank %u on node %s: %s", r,
                     node_of(job, r),
                     st->stack != NULL ? st->stack : "no stack");
            continue;
        }
        HNP_INFO(job->rte->log, "stack of rank %u (pid %d) on node %s:", r,
                 (int)st->pid, node_of(job, r));
        for (const char *line = st->stack; *line != '\0';) {
            size_t len = strcspn(line, "\n");
            HNP_INFO(job->rte->log, "  %.*s", (int)len, line);
            line += len + (line[len] == '\n');
        }
    }
}

/* Every answer is in, or the time is up: print, then kill as --timeout
 * does. */
static void report_and_kill(hnp_job_t *job)
{
    struct hnp_state_report *s = job->state_report;
    char msg[128];

    if (s == NULL)
        return;
    hnp_rte_timer_destroy(s->deadline);
    s->deadline = NULL;
    if (job->args->report_state_on_timeout)
        print_states(s);
    if (job->args->get_stack_traces)
        print_stacks(s);
    snprintf(msg, sizeof(msg), "the job ran longer than --timeout %g s; "
             "killing it", job->args->timeout);
    hnp_job_abort(job, 124, msg);
}

static void deadline_reached(hnp_rte_t *rte, void *cbdata)
{
    hnp_job_t *job = cbdata;
    FILE *own = hnp_job_log_begin(job);

    (void)rte;
    HNP_WARN(job->rte->log, "%u of %u daemons did not say how their ranks "
             "are within %g s", job->ndaemons - job->state_report->replies,
             job->ndaemons, STACK_LIMIT_SECONDS + ANSWER_SLACK_SECONDS);
    report_and_kill(job);
    hnp_log_set_file(own);
}

static void on_state_reply(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                           const void *data, size_t len, void *cbdata)
{
    hnp_job_t *job = cbdata;
    struct hnp_state_report *s = job->state_report;
    hnp_wire_state_reply_t reply;

    (void)tag;
    if (!HNP_RTE_UNPACK(rte, src, "state report",
                        hnp_wire_state_reply_unpack, data, len, &reply))
        return;
    if (reply.jobid != job->jobid) {
        HNP_VERBOSE(rte->log, 1, "a state report of job %u from vpid %u "
                    "dropped: it is not job %u's", reply.jobid, src,
                    job->jobid);
        hnp_wire_state_reply_clear(&reply);
        return;
    }
    for (uint32_t i = 0; s != NULL && i < reply.nranks; i++) {
        hnp_wire_rank_state_t *r = &reply.ranks[i];
        if (r->rank >= job->map.nprocs || s->answered[r->rank])
            continue;
        s->ranks[r->rank] = *r;
        s->answered[r->rank] = true;
        r->stack = NULL; /* ours now */
    }
    hnp_wire_state_reply_clear(&reply);
    if (s != NULL && s->deadline != NULL && ++s->replies == job->ndaemons)
        report_and_kill(job);
}

int hnp_job_report_state(hnp_job_t *job)
{
    hnp_wire_state_request_t req = {
        .jobid = job->jobid,
        .flags = job->args->get_stack_traces ? HNP_STATE_STACKS : 0,
        .stack_ms = (uint32_t)(STACK_LIMIT_SECONDS * 1000),
    };
    struct hnp_state_report *s;
    hnp_buffer_t buf;
    int rc;

    if (!job->launched || job->ending || job->state_report != NULL)
        return HNP_ERR_BAD_PARAM;
    if ((s = calloc(1, sizeof(*s))) == NULL)
        return HNP_ERR_NOMEM;
    job->state_report = s;
    s->job = job;
    s->ranks = calloc(job->map.nprocs, sizeof(*s->ranks));
    s->answered = calloc(job->map.nprocs, sizeof(*s->answered));
    if (s->ranks == NULL || s->answered == NULL) {
        hnp_job_state_release(job);
        return HNP_ERR_NOMEM;
    }
    HNP_INFO(job->rte->log, "the job ran longer than --timeout %g s; asking "
             "its daemons for the %s of its ranks", job->args->timeout,
             job->args->get_stack_traces ? "state and stacks" : "state");
    hnp_job_recv(job, HNP_TAG_STATE_REPLY, on_state_reply);
    hnp_buffer_init(&buf);
    rc = hnp_wire_state_request_pack(&buf, &req);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_xcast(job->rte, HNP_TAG_STATE_REQUEST, buf.data,
                           buf.len);
    hnp_buffer_release(&buf);
    if (rc == HNP_SUCCESS)
        s->deadline = hnp_rte_timer_create(
            job->rte, STACK_LIMIT_SECONDS + ANSWER_SLACK_SECONDS,
            deadline_reached, job);
    if (rc != HNP_SUCCESS || s->deadline == NULL) {
        hnp_job_state_release(job);
        return rc != HNP_SUCCESS ? rc : HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

void hnp_job_state_release(hnp_job_t *job)
{
    struct hnp_state_report *s = job->state_report;

    if (s == NULL)
        return;
    job->state_report = NULL;
    hnp_rte_timer_destroy(s->deadline);
    for (uint32_t r = 0; s->ranks != NULL && r < job->map.nprocs; r++)
        free(s->ranks[r].stack);
    free(s->ranks);
    free(s->answered);
    free(s);
}
