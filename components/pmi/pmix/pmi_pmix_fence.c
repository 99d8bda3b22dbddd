/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMIx fence is an all-gather among the job's daemons: each gives the
 * blob libpmix collected from its ranks, and libpmix takes back the plain
 * concatenation of every daemon's blob, in any order. The concatenation
 * is handed to libpmix with a release function: it lives until libpmix
 * has unpacked it.
 */
#include "config.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

typedef struct fence {
    char *data;
    size_t len, cap;
    int status;         /* HNP_ERR_NOMEM once an append failed */
    uint32_t seq;
    pmix_nspace_t nspace;  /* its job's: libpmix waits while it is here */
    const char *job_name;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} fence_t;

static void fence_release(void *cbdata)
{
    fence_t *f = cbdata;

    free(f->data);
    free(f);
}

/* libpmix has unpacked the job's data: the concatenation, and libpmix's
 * own temporaries of the unpacking, go back to the system rather than
 * stay resident in the heap's middle. */
static void fence_release_trim(void *cbdata)
{
    fence_release(cbdata);
    malloc_trim(0);
}

static void fence_learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                          size_t len)
{
    fence_t *f = cbdata;

    (void)vpid;
    if (len == 0 || f->status != HNP_SUCCESS)
        return;
    if (f->len + len > f->cap) {
        size_t cap = f->cap > 0 ? f->cap : 4096;
        while (cap < f->len + len)
            cap *= 2;
        char *grown = realloc(f->data, cap);
        if (grown == NULL) {
            f->status = HNP_ERR_NOMEM;
            return;
        }
        f->data = grown;
        f->cap = cap;
    }
    memcpy(f->data + f->len, data, len);
    f->len += len;
}

static void fence_complete(void *cbdata, int status)
{
    fence_t *f = cbdata;

    /* libpmix is gone, or the job ended here (its namespace was
     * deregistered, and libpmix with it let go of the fence): nobody
     * waits */
    if (!pmi_pmix_live() || pmi_pmix_job_find(f->nspace) == NULL) {
        HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: fence %u of a job that has "
                    "ended here: dropped", (unsigned)f->seq);
        fence_release(f);
        return;
    }
    if (status == HNP_SUCCESS)
        status = f->status;
    if (status != HNP_SUCCESS) {
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: job %s: fence %u failed: %s",
                      f->job_name, (unsigned)f->seq, hnp_strerror(status));
        f->cbfunc(PMIX_ERROR, NULL, 0, f->cbdata, NULL, NULL);
        fence_release(f);
        return;
    }
    HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: job %s: fence %u done, %zu bytes",
                f->job_name, (unsigned)f->seq, f->len);
    f->cbfunc(PMIX_SUCCESS, f->data, f->len, f->cbdata, fence_release_trim,
              f);
}

void pmi_pmix_fence_start(pmi_pmix_job_t *pj, const char *data, size_t len,
                          pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    const hnp_pmi_job_t *job = pj->job;
    fence_t *f = calloc(1, sizeof(*f));
    int rc = HNP_ERR_NOMEM;

    if (f != NULL && len > job->max_allgather_bytes) {
        HNP_ERROR_LOG(pmi_pmix_log(),
                      "pmix: job %s: this node's ranks put %zu bytes before "
                      "fence %u, more than the %zu an all-gather carries per "
                      "node", job->name, len, (unsigned)pj->fence_seq,
                      job->max_allgather_bytes);
        rc = HNP_ERR_BAD_PARAM;
    } else if (f != NULL) {
        f->seq = pj->fence_seq++;
        PMIX_LOAD_NSPACE(f->nspace, pj->nspace);
        f->job_name = job->name;
        f->cbfunc = cbfunc;
        f->cbdata = cbdata;
        const hnp_exchange_callbacks_t cb = {
            .learned = fence_learned,
            .complete = fence_complete,
            .cbdata = f,
        };
        rc = hnp_rte_allgather(pmi_pmix_server.rte, job->jobid, job->series,
                               f->seq, data, len, &cb);
        if (rc == HNP_SUCCESS)
            return;
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: job %s: fence %u: %s", job->name,
                      (unsigned)f->seq, hnp_strerror(rc));
    }
    free(f);
    cbfunc(rc == HNP_ERR_NOMEM ? PMIX_ERR_NOMEM : PMIX_ERROR, NULL, 0, cbdata,
           NULL, NULL);
}
