/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The jobs a daemon holds (daemon.h, hnpd_job_t): one record a job, made
 * by its launch and looked up by the id every message about the job
 * carries (runtime/wire), so that a signal, stdin, a state question or
 * the end of one job is never applied to another. A record goes once the
 * job's end came and its processes here are gone, or when the daemon
 * leaves.
 *
 * A daemon of a runtime that outlives its jobs (hnp --dvm) holds any
 * number of them side by side, with the pmi components or without: the
 * runtime services keep each one's all-gathers, requests and wire-up
 * states its own (hnp_rte.h). A standalone hnp's daemon holds one.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>

#include "hnp_buffer.h"
#include "daemon.h"
#include "wire/control.h"
#include "wire/launch.h"

hnpd_job_t *hnpd_job_find(const hnpd_t *d, uint32_t jobid)
{
    for (hnpd_job_t *j = d->jobs; j != NULL; j = j->next)
        if (j->jobid == jobid)
            return j;
    return NULL;
}

void hnpd_job_release(hnpd_job_t *j)
{
    hnpd_t *d = j->daemon;

    for (hnpd_job_t **link = &d->jobs; *link != NULL; link = &(*link)->next)
        if (*link == j) {
            *link = j->next;
            break;
        }
    hnpd_state_release(j);
    hnpd_pmi_job_end(j);
    hnpd_bind_release(j);
    for (uint32_t i = 0; j->procs != NULL && i < j->nlocal; i++) {
        free(j->procs[i].out[0].data);
        free(j->procs[i].out[1].data);
        hnpd_stdin_release(&j->procs[i]);
    }
    free(j->procs);
    free(j);
}

/* A runtime that outlives its jobs: a job whose processes here are all
 * gone is released at the next launch if its end has not come (it is on
 * its way behind the launch only if the HNP broke the order). Not one
 * whose PMI state lives on here (a job without ranks on this node, while
 * it runs elsewhere): through it this daemon joins the job's all-gathers,
 * which would wait for it for ever; it goes with the job's end. */
static void release_finished(hnpd_t *d)
{
    hnpd_job_t *j = d->jobs, *next;

    for (; d->persistent && j != NULL; j = next) {
        next = j->next;
        if (j->pmi == NULL && hnp_odls_num_alive_job(d->odls, j->jobid) == 0)
            hnpd_job_release(j);
    }
}

/* Why the launch @p m cannot be taken on now; NULL: it can. */
static const char *launch_conflict(const hnpd_t *d, const hnp_wire_launch_t *m,
                                   uint32_t *held)
{
    for (const hnpd_job_t *j = d->jobs; j != NULL; j = j->next) {
        *held = j->jobid;
        if (j->jobid == m->jobid)
            return "is already held here";
        /* a job spawned by a running one (MPI_Comm_spawn) runs beside
         * its family */
        if (!d->persistent && m->parent_jobid == 0)
            return "still runs here";
    }
    return NULL;
}

static hnpd_job_t *job_new(hnpd_t *d, const hnp_wire_launch_t *m)
{
    uint32_t my_node = d->rte->self - 1;
    hnpd_job_t *j = calloc(1, sizeof(*j));

    if (j == NULL)
        return NULL;
    j->daemon = d;
    j->jobid = m->jobid;
    for (const hnpd_job_t *o = d->jobs; o != NULL; o = o->next)
        j->node_rank_base += (uint32_t)hnp_odls_num_alive_job(d->odls,
                                                             o->jobid);
    j->app_nprocs = m->nprocs;
    j->stdin_target = m->stdin_target;
    for (uint32_t r = 0; r < m->nprocs; r++)
        j->nlocal += m->node_of[r] == my_node;
    if ((j->procs = calloc(j->nlocal + 1, sizeof(*j->procs))) == NULL) {
        free(j);
        return NULL;
    }
    for (uint32_t r = 0, i = 0; r < m->nprocs; r++)
        if (m->node_of[r] == my_node) {
            j->procs[i].rank = r;
            j->procs[i].in.fd = -1;
            j->procs[i++].job = j;
        }
    j->next = d->jobs;
    d->jobs = j;
    return j;
}

static int bind_or_fail(hnpd_job_t *j, const hnp_wire_launch_t *m)
{
    hnpd_t *d = j->daemon;
    char err[512] = "";
    int rc = hnpd_bind_prepare(j, m, err, sizeof(err));

    if (rc != HNP_SUCCESS)
        hnp_rte_fail_job(d->rte, j->jobid, 1, "node %s: %s", d->node, err);
    return rc;
}

static int pmi_or_fail(hnpd_job_t *j, const hnp_wire_launch_t *m)
{
    hnpd_t *d = j->daemon;
    char err[512] = "";
    int rc = hnpd_pmi_job_start(j, m, err, sizeof(err));

    if (rc != HNP_SUCCESS)
        hnp_rte_fail_job(d->rte, j->jobid, 1, "node %s: %s", d->node,
                     err[0] != '\0' ? err : hnp_strerror(rc));
    return rc;
}

static int fds_or_fail(hnpd_job_t *j, const hnp_wire_launch_t *m)
{
    hnpd_t *d = j->daemon;
    char err[768] = "";
    int rc = hnpd_fds_check(j, (m->output & HNP_LAUNCH_MERGE_STDERR) != 0,
                            err, sizeof(err));

    if (rc != HNP_SUCCESS)
        hnp_rte_fail_job(d->rte, j->jobid, 1,
                         "node %s: refusing to start its ranks: %s",
                     d->node, err);
    return rc;
}

/* This node's processes of the job are forked. */
static void report_started(hnpd_job_t *j)
{
    hnp_wire_procs_started_t m = { .jobid = j->jobid };
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    if (hnp_wire_procs_started_pack(&buf, &m) == HNP_SUCCESS)
        hnp_rte_send(j->daemon->rte, 0, HNP_TAG_PROCS_STARTED, buf.data,
                     buf.len);
    hnp_buffer_release(&buf);
}

static void start_job(hnpd_t *d, const hnp_wire_launch_t *m)
{
    hnpd_job_t *j = job_new(d, m);

    if (j == NULL) {
        hnp_rte_fail_job(d->rte, m->jobid, 1,
                         "node %s: out of memory taking job %u",
                     d->node, m->jobid);
        return;
    }
    if (pmi_or_fail(j, m) != HNP_SUCCESS || fds_or_fail(j, m) != HNP_SUCCESS ||
        (j->nlocal > 0 && hnp_wire_placement_needs_topology(&m->place) &&
         bind_or_fail(j, m) != HNP_SUCCESS))
        return;
    hnpd_procs_start(j, m);
    report_started(j);
}

static void on_launch(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    hnp_wire_launch_t m;
    hnp_reader_t rd;
    const char *conflict;
    uint32_t held = 0;

    (void)src;
    (void)tag;
    if (d->ending)
        return;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_launch_unpack(&rd, &m) != HNP_SUCCESS ||
        hnpd_odls_ready(d) != HNP_SUCCESS) {
        hnp_rte_fail(rte, 1, "node %s: malformed launch message", d->node);
        hnp_wire_launch_clear(&m);
        return;
    }
    d->persistent = (m.output & HNP_LAUNCH_PERSISTENT) != 0;
    release_finished(d);
    if ((conflict = launch_conflict(d, &m, &held)) != NULL)
        HNP_WARN(rte->log, "node %s: the launch of job %u dropped: job %u %s",
                 d->node, m.jobid, held, conflict);
    else
        start_job(d, &m);
    hnp_wire_launch_clear(&m);
}

/* A signal the user sent hnp, for every process of this node of the job
 * it names. */
static void on_signal(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    hnp_wire_signal_t req;
    hnpd_job_t *j;

    (void)tag;
    if (!HNP_RTE_UNPACK(rte, src, "signal request",
                        hnp_wire_signal_unpack, data, len, &req))
        return;
    if ((j = hnpd_job_find(d, req.jobid)) == NULL || j->nlocal == 0) {
        HNP_VERBOSE(rte->log, 1, "a signal for job %u, which has no "
                    "processes here, dropped", req.jobid);
        return;
    }
    /* hnp stops with its processes (job control): its silence until it
     * continues them is no failure. */
    if (req.signo == SIGSTOP || req.signo == SIGTSTP)
        hnp_rte_heartbeat_hold(rte, true);
    else if (req.signo == SIGCONT)
        hnp_rte_heartbeat_hold(rte, false);
    if (d->odls != NULL && req.signo > 0 && req.signo < NSIG)
        hnp_odls_signal_job(d->odls, req.jobid, req.signo);
}

/* The HNP of a persistent runtime ends one job (wire/control.h): its
 * ranks here are killed (after the grace period unless now), and once
 * they are all gone, all that the daemon held for it is released. */
static void on_job_end(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                       const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    hnp_wire_job_end_t req;
    hnp_reader_t rd;
    hnpd_job_t *j;

    (void)src;
    (void)tag;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_job_end_unpack(&rd, &req) != HNP_SUCCESS) {
        HNP_WARN(rte->log, "malformed job end dropped");
        return;
    }
    if (d->ending || (j = hnpd_job_find(d, req.jobid)) == NULL)
        return;
    j->ending = true;
    hnpd_procs_report_unstarted(j);
    if (d->odls != NULL && hnp_odls_num_alive_job(d->odls, req.jobid) > 0) {
        hnp_odls_kill_job(d->odls, req.jobid,
                          req.now ? 0 : rte->core->kill_grace);
        return;
    }
    hnpd_job_release(j);
}

void hnpd_jobs_register(hnpd_t *d)
{
    hnp_rte_recv(d->rte, HNP_TAG_LAUNCH, on_launch, d);
    hnp_rte_recv(d->rte, HNP_TAG_JOB_END, on_job_end, d);
    hnp_rte_recv(d->rte, HNP_TAG_SIGNAL, on_signal, d);
}
