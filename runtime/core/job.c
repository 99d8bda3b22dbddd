/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application jobs as the runtime services of hnp_rte.h ("application
 * jobs") see them: a daemon holds any number of jobs at once, each
 * between its hnp_rte_job_begin() and hnp_rte_job_end(), in a record of
 * its own found by its id: every rank's node, the wire-up states of this
 * node's ranks, how far this daemon went in each of the job's series of
 * all-gathers (collective.c). Every service a pmi component calls names
 * its job, so that one job's collectives, requests, aborts and states
 * never touch another's. MPI_Abort is here; the requests live in
 * request.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "job.h"
#include "wire/pmi_abort.h"

hnp_rte_job_t *hnp_rte_job_find(const hnp_rte_t *rte, uint32_t jobid)
{
    for (hnp_rte_job_t *job = rte->jobs; job != NULL; job = job->next)
        if (job->jobid == jobid)
            return job;
    return NULL;
}

static void job_free(hnp_rte_job_t *job)
{
    if (job == NULL)
        return;
    if (job->node_names != NULL)
        free(job->node_names[0]); /* the block of all the names */
    free(job->node_names);
    free(job->node_of);
    free(job->state);
    free(job->series);
    free(job);
}

static hnp_rte_job_t *job_new(uint32_t jobid, uint32_t nprocs,
                              const uint32_t *node_of, uint32_t nlocal,
                              uint32_t nseries)
{
    hnp_rte_job_t *job = calloc(1, sizeof(*job));

    if (job == NULL ||
        (job->node_of = malloc(nprocs * sizeof(*job->node_of))) == NULL ||
        (job->state = calloc(nprocs, sizeof(*job->state))) == NULL ||
        (job->series = calloc(nseries + 1, sizeof(*job->series))) == NULL) {
        job_free(job);
        return NULL;
    }
    memcpy(job->node_of, node_of, nprocs * sizeof(*job->node_of));
    job->jobid = jobid;
    job->nprocs = nprocs;
    job->nlocal = nlocal;
    job->nseries = nseries;
    for (uint32_t i = 0; i < nseries; i++)
        job->series[i].series = hnp_rte_job_series(jobid, nseries, i);
    return job;
}

int hnp_rte_job_begin(hnp_rte_t *rte, uint32_t jobid, uint32_t nprocs,
                      const uint32_t *node_of, uint32_t nlocal,
                      uint32_t nseries)
{
    hnp_rte_job_t *job;
    int rc;

    if (rte->is_hnp || jobid == 0 || nprocs == 0 || node_of == NULL ||
        nlocal > nprocs || nseries > HNP_RTE_SERIES_LAST ||
        hnp_rte_job_find(rte, jobid) != NULL)
        return HNP_ERR_BAD_PARAM;
    /* two live jobs never share a series: their all-gathers would mix */
    for (uint32_t i = 0; i < nseries; i++)
        if (hnp_rte_series_owner(rte, hnp_rte_job_series(jobid, nseries, i))
            != NULL)
            return HNP_ERR_EXISTS;
    if ((job = job_new(jobid, nprocs, node_of, nlocal, nseries)) == NULL)
        return HNP_ERR_NOMEM;
    job->serial = ++rte->job_serial;
    job->next = rte->jobs;
    rte->jobs = job;
    if ((rc = hnp_rte_requests_job_begin(rte, jobid)) != HNP_SUCCESS) {
        rte->jobs = job->next;
        job_free(job);
        return rc;
    }
    HNP_VERBOSE(rte->log, 1, "job %u begins here: %u ranks, %u on this node",
                jobid, nprocs, nlocal);
    /* what was heard of its all-gathers before its launch came */
    hnp_rte_collectives_adopt(rte, job);
    return HNP_SUCCESS;
}

void hnp_rte_job_end(hnp_rte_t *rte, uint32_t jobid)
{
    hnp_rte_job_t *job = NULL;

    for (hnp_rte_job_t **link = &rte->jobs; *link != NULL;
         link = &(*link)->next)
        if ((*link)->jobid == jobid) {
            job = *link;
            *link = job->next;
            break;
        }
    if (job == NULL)
        return;
    HNP_VERBOSE(rte->log, 1, "job %u ends here", jobid);
    /* gone first: what the failed requests' callbacks ask is refused */
    hnp_rte_requests_job_end(rte, job);
    hnp_rte_spawns_job_end(rte, jobid);
    hnp_rte_names_job_end(rte, jobid);
    hnp_rte_collectives_job_end(rte, job);
    job_free(job);
}

void hnp_rte_job_destroy(hnp_rte_t *rte)
{
    while (rte->jobs != NULL)
        hnp_rte_job_end(rte, rte->jobs->jobid);
    hnp_rte_collectives_destroy(rte);
}

uint32_t hnp_rte_job_only(const hnp_rte_t *rte)
{
    return rte->jobs != NULL && rte->jobs->next == NULL ? rte->jobs->jobid
                                                        : 0;
}

hnp_vpid_t hnp_rte_job_host(const hnp_rte_t *rte, uint32_t jobid,
                            uint32_t rank)
{
    const hnp_rte_job_t *job = hnp_rte_job_find(rte, jobid);

    if (job == NULL || rank >= job->nprocs)
        return HNP_VPID_INVALID;
    return job->node_of[rank] + 1;
}

/* ------------------------------------------------------------ ranks */

void hnp_rte_abort_job(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                       int code, const char *msg)
{
    hnp_wire_pmi_abort_t req = { .jobid = jobid, .rank = rank, .code = code,
                                 .words = (char *)(msg != NULL ? msg : "") };
    hnp_buffer_t buf;

    if (hnp_rte_job_host(rte, jobid, rank) != rte->self) {
        HNP_WARN(rte->log, "abort of rank %u of job %u ignored: not a rank "
                 "of a job this node holds", rank, jobid);
        return;
    }
    hnp_buffer_init(&buf);
    /* The HNP says which rank on which node, and ends that job. */
    if (hnp_wire_pmi_abort_pack(&buf, &req) != HNP_SUCCESS ||
        hnp_rte_send(rte, 0, HNP_TAG_PMI_ABORT, buf.data, buf.len) !=
            HNP_SUCCESS)
        hnp_rte_fail_job(rte, jobid, code != 0 ? code : 1, "rank %u on node "
                         "%s called abort with exit code %d%s%s", rank,
                         hnp_rte_node_name(rte, rte->self), code,
                         req.words[0] != '\0' ? ": " : "", req.words);
    hnp_buffer_release(&buf);
}

void hnp_rte_proc_state(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                        hnp_rte_proc_state_t state)
{
    hnp_rte_job_t *job = hnp_rte_job_find(rte, jobid);

    if (job == NULL || hnp_rte_job_host(rte, jobid, rank) != rte->self) {
        HNP_VERBOSE(rte->log, 1, "wire-up state %d of rank %u of job %u "
                    "ignored: not a rank of a job of this node", (int)state,
                    rank, jobid);
        return;
    }
    job->state[rank] |= (uint8_t)state;
}

bool hnp_rte_proc_unfinalized(const hnp_rte_t *rte, uint32_t jobid,
                              uint32_t rank)
{
    const hnp_rte_job_t *job = hnp_rte_job_find(rte, jobid);
    uint8_t state;

    if (job == NULL || rank >= job->nprocs)
        return false;
    state = job->state[rank];
    return (state & HNP_RTE_PROC_CONNECTED) != 0 &&
           (state & HNP_RTE_PROC_FINALIZED) == 0;
}
