/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hooks of `trace`: each one logs what hnp tells it, nothing more.
 * Every hook runs on the daemon's event loop, in the daemon of a node
 * that runs ranks of the job.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hnp_errors.h>
#include <hnp_log.h>
#include <hnp_rte.h>

#include "pmi_trace.h"

/* What job_start hands the later hooks of the job. */
typedef struct trace_job {
    hnp_rte_t *rte;
    uint32_t jobid;
    uint32_t node;
    char node_name[256];
} trace_job_t;

/* Log one line for @p node_name: on the pmi stream, and appended to
 * NODE.log under pmi_trace_dir when it is set (one write a line, so that
 * lines from several processes never mix). */
static void trace_log(const char *node_name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void trace_log(const char *node_name, const char *fmt, ...)
{
    char line[1024], path[PATH_MAX];
    va_list ap;
    int len, fd;

    va_start(ap, fmt);
    len = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if ((size_t)len > sizeof(line) - 2)
        len = (int)sizeof(line) - 2;
    HNP_VERBOSE(hnp_log_stream("pmi"), 1, "trace: %s", line);
    if (pmi_trace_dir == NULL || pmi_trace_dir[0] == '\0')
        return;
    if (snprintf(path, sizeof(path), "%s/%s.log", pmi_trace_dir,
                 node_name) >= (int)sizeof(path))
        return;
    line[len++] = '\n';
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        HNP_WARN(hnp_log_stream("pmi"), "trace: cannot open %s", path);
        return;
    }
    if (write(fd, line, (size_t)len) != len)
        HNP_WARN(hnp_log_stream("pmi"), "trace: cannot write to %s", path);
    close(fd);
}

static const char *my_node_name(hnp_rte_t *rte)
{
    const char *name = hnp_rte_node_name(rte, hnp_rte_my_vpid(rte));
    return name != NULL ? name : "unknown";
}

static int trace_init(hnp_rte_t *rte, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    trace_log(my_node_name(rte), "init vpid=%u", hnp_rte_my_vpid(rte));
    return HNP_SUCCESS;
}

static int trace_job_start(hnp_rte_t *rte, const hnp_pmi_job_t *job,
                           void **state, char *err, size_t errlen)
{
    trace_job_t *t = calloc(1, sizeof(*t));

    if (t == NULL) {
        snprintf(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    t->rte = rte;
    t->jobid = job->jobid;
    t->node = job->my_node;
    snprintf(t->node_name, sizeof(t->node_name), "%s",
             job->node_names[job->my_node]);
    trace_log(t->node_name, "job_start job=%u vpid=%u node=%u of %u "
              "ranks=%u local=%u", job->jobid, hnp_rte_my_vpid(rte),
              job->my_node, job->nnodes, job->nprocs, job->nlocal);
    *state = t;
    return HNP_SUCCESS;
}

static int trace_child_setup(void *state, const hnp_pmi_child_t *child,
                             hnp_pmi_fork_t *fork, char *err, size_t errlen)
{
    trace_job_t *t = state;
    char node[16];
    int rc;

    snprintf(node, sizeof(node), "%u", t->node);
    rc = hnp_pmi_fork_setenv(fork, "PMI_TRACE_NODE", node);
    if (rc != HNP_SUCCESS) {
        snprintf(err, errlen, "cannot set PMI_TRACE_NODE");
        return rc;
    }
    trace_log(t->node_name, "child_setup job=%u rank=%u local_rank=%u",
              t->jobid, child->rank, child->local_rank);
    return HNP_SUCCESS;
}

static void trace_child_started(void *state, uint32_t rank, pid_t pid)
{
    trace_job_t *t = state;

    trace_log(t->node_name, "child_started job=%u rank=%u pid=%ld", t->jobid,
              rank, (long)pid);
}

static void trace_child_exited(void *state, uint32_t rank, int wait_status,
                               int exec_errno)
{
    trace_job_t *t = state;

    trace_log(t->node_name, "child_exited job=%u rank=%u status=%d errno=%d",
              t->jobid, rank, wait_status, exec_errno);
}

static void trace_job_end(void *state)
{
    trace_job_t *t = state;

    trace_log(t->node_name, "job_end job=%u", t->jobid);
    free(t);
}

static void trace_finalize(hnp_rte_t *rte)
{
    trace_log(my_node_name(rte), "finalize vpid=%u", hnp_rte_my_vpid(rte));
}

const hnp_pmi_module_t pmi_trace_module = {
    .serves = 0,
    .needs = HNP_PMI_NEEDS_EVERY_JOB,
    .init = trace_init,
    .job_start = trace_job_start,
    .child_setup = trace_child_setup,
    .child_started = trace_child_started,
    .child_exited = trace_child_exited,
    .job_end = trace_job_end,
    .finalize = trace_finalize,
};
