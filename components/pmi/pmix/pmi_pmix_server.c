/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The server module libpmix calls from its progress thread. Each entry
 * copies what it needs (what libpmix hands over is libpmix's) into an
 * item and queues it for the event loop (pmi_pmix_queue.c); the item's
 * handler, on the loop, uses the runtime services and answers libpmix.
 * What hnp does not support yet is refused at once, and the daemon logs
 * which rank asked for what.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

pmi_pmix_job_t *pmi_pmix_job_find(const char *nspace)
{
    for (pmi_pmix_job_t *pj = pmi_pmix_server.jobs; pj != NULL; pj = pj->next)
        if (PMIX_CHECK_NSPACE(pj->nspace, nspace))
            return pj;
    return NULL;
}

/* ------------------------------------------------ a rank's own operations */

typedef enum { OP_CONNECTED, OP_FINALIZED, OP_ABORT } proc_op_kind_t;

typedef struct proc_op {
    pmi_pmix_call_t call;
    proc_op_kind_t kind;
    pmix_proc_t proc;
    int status;
    char *msg;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} proc_op_t;

static void proc_op_run(pmi_pmix_call_t *call)
{
    proc_op_t *op = (proc_op_t *)call;
    hnp_rte_t *rte = pmi_pmix_server.rte;
    pmix_status_t answer = PMIX_SUCCESS;
    pmi_pmix_job_t *pj = NULL;

    HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: rank %u of %s %s",
                (unsigned)op->proc.rank, op->proc.nspace,
                op->kind == OP_CONNECTED ? "connected"
                : op->kind == OP_FINALIZED ? "finalized" : "aborts");
    if (!pmi_pmix_live()) {
        op->cbfunc = NULL; /* libpmix is gone: nobody waits */
    } else if ((pj = pmi_pmix_job_find(op->proc.nspace)) == NULL) {
        answer = PMIX_ERR_NOT_FOUND;
    } else if (op->kind == OP_CONNECTED) {
        hnp_rte_proc_state(rte, pj->job->jobid, op->proc.rank,
                           HNP_RTE_PROC_CONNECTED);
    } else if (op->kind == OP_FINALIZED) {
        hnp_rte_proc_state(rte, pj->job->jobid, op->proc.rank,
                           HNP_RTE_PROC_FINALIZED);
    } else {
        hnp_rte_abort_job(rte, pj->job->jobid, op->proc.rank, op->status,
                          op->msg);
    }
    if (op->cbfunc != NULL)
        op->cbfunc(answer, op->cbdata);
    free(op->msg);
    free(op);
}

static pmix_status_t proc_op_post(proc_op_kind_t kind, const pmix_proc_t *proc,
                                  int status, const char *msg,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    proc_op_t *op = calloc(1, sizeof(*op));

    if (op == NULL)
        return PMIX_ERR_NOMEM;
    if (msg != NULL && (op->msg = strdup(msg)) == NULL) {
        free(op);
        return PMIX_ERR_NOMEM;
    }
    op->kind = kind;
    op->proc = *proc;
    op->status = status;
    op->cbfunc = cbfunc;
    op->cbdata = cbdata;
    pmi_pmix_queue_post(&pmi_pmix_server, &op->call, proc_op_run);
    return PMIX_SUCCESS;
}

static pmix_status_t client_connected(const pmix_proc_t *proc, void *object,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)object;
    return proc_op_post(OP_CONNECTED, proc, 0, NULL, cbfunc, cbdata);
}

static pmix_status_t client_finalized(const pmix_proc_t *proc, void *object,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)object;
    return proc_op_post(OP_FINALIZED, proc, 0, NULL, cbfunc, cbdata);
}

/* MPI_Abort: the whole job ends, whatever set of processes was named. */
static pmix_status_t client_abort(const pmix_proc_t *proc, void *object,
                                  int status, const char msg[],
                                  pmix_proc_t procs[], size_t nprocs,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)object;
    (void)procs;
    (void)nprocs;
    return proc_op_post(OP_ABORT, proc, status, msg, cbfunc, cbdata);
}

/* ------------------------------------------------------------------ fence */

typedef struct fence_op {
    pmi_pmix_call_t call;
    pmix_nspace_t nspace;
    pmix_rank_t first_rank; /* of the procs named, for the message */
    bool whole;             /* covers the whole namespace (so far) */
    size_t nprocs;
    pmix_rank_t *ranks;     /* [nprocs], when not the wildcard */
    char *data;
    size_t len;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} fence_op_t;

/* Every rank of the namespace, named by the wildcard or one by one. */
static bool fence_covers_job(const fence_op_t *op, const hnp_pmi_job_t *job)
{
    if (op->whole)
        return true;
    if (op->nprocs != job->nprocs)
        return false;
    bool ok = true;
    bool *seen = calloc(job->nprocs, sizeof(*seen));
    if (seen == NULL)
        return false;
    for (size_t i = 0; ok && i < op->nprocs; i++) {
        pmix_rank_t r = op->ranks[i];
        ok = r < job->nprocs && !seen[r];
        if (ok)
            seen[r] = true;
    }
    free(seen);
    return ok;
}

static void fence_run(pmi_pmix_call_t *call)
{
    fence_op_t *op = (fence_op_t *)call;
    pmi_pmix_job_t *pj = pmi_pmix_job_find(op->nspace);

    HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: %s: the node's ranks enter a "
                "fence (%zu bytes)", op->nspace, op->len);
    if (!pmi_pmix_live()) {
        /* libpmix is gone: nobody waits */
    } else if (pj == NULL) {
        op->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, op->cbdata, NULL, NULL);
    } else if (!fence_covers_job(op, pj->job)) {
        HNP_ERROR_LOG(pmi_pmix_log(),
                      "pmix: job %s: rank %u asked for a fence over %zu of "
                      "the job's %u ranks: hnp supports fences over the "
                      "whole job only",
                      pj->job->name, (unsigned)op->first_rank, op->nprocs,
                      pj->job->nprocs);
        op->cbfunc(PMIX_ERR_NOT_SUPPORTED, NULL, 0, op->cbdata, NULL, NULL);
    } else {
        pmi_pmix_fence_start(pj, op->data, op->len, op->cbfunc, op->cbdata);
    }
    free(op->ranks);
    free(op->data);
    free(op);
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t info[], size_t ninfo,
                              char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    fence_op_t *op = calloc(1, sizeof(*op));

    (void)info;
    (void)ninfo;
    if (op == NULL || nprocs == 0)
        goto fail;
    for (size_t i = 1; i < nprocs; i++)
        if (!PMIX_CHECK_NSPACE(procs[i].nspace, procs[0].nspace)) {
            /* ranks of several jobs (MPI_Comm_disconnect) */
            free(op);
            return pmi_pmix_fence_across(procs, nprocs, data, ndata, cbfunc,
                                         cbdata);
        }
    PMIX_LOAD_NSPACE(op->nspace, procs[0].nspace);
    op->first_rank = procs[0].rank;
    op->nprocs = nprocs;
    op->whole = nprocs == 1 && procs[0].rank == PMIX_RANK_WILDCARD;
    if (!op->whole) {
        op->ranks = calloc(nprocs, sizeof(*op->ranks));
        if (op->ranks == NULL)
            goto fail;
        for (size_t i = 0; i < nprocs; i++) {
            /* another namespace, or a wildcard among others: not ours */
            if (!PMIX_CHECK_NSPACE(procs[i].nspace, op->nspace) ||
                procs[i].rank == PMIX_RANK_WILDCARD)
                op->ranks[i] = PMIX_RANK_INVALID;
            else
                op->ranks[i] = procs[i].rank;
        }
    }
    if (ndata > 0) {
        op->data = malloc(ndata);
        if (op->data == NULL)
            goto fail;
        memcpy(op->data, data, ndata);
    }
    op->len = ndata;
    op->cbfunc = cbfunc;
    op->cbdata = cbdata;
    pmi_pmix_queue_post(&pmi_pmix_server, &op->call, fence_run);
    return PMIX_SUCCESS;
fail:
    if (op != NULL)
        free(op->ranks);
    free(op);
    return nprocs == 0 ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOMEM;
}

/* ------------------------------------------------------------ direct modex */

typedef struct modex_blob {
    char *data;
    size_t len;
} modex_blob_t;

static void modex_blob_release(void *cbdata)
{
    modex_blob_t *blob = cbdata;

    free(blob->data);
    free(blob);
}

/*
 * libpmix's record of a request (the cbdata it hands to direct_modex) is
 * released with the namespace of the process asked about: a deregistration
 * purges every request about that namespace, answered or not. An answer
 * after that would write into freed memory and leave libpmix's list of
 * requests corrupt (its server later crashed in PMIx_server_finalize). So
 * before a namespace is deregistered, what was asked of other daemons is
 * answered (not found; its ranks here are gone) and the late answer is
 * dropped; what libpmix queued before the deregistration and the loop has
 * not run yet is marked from the deregistration's own callback, which runs
 * on libpmix's thread right after the purge, and dropped when it runs.
 */
typedef struct dmodex_op {
    pmi_pmix_call_t call;
    pmix_proc_t proc;
    pmix_modex_cbfunc_t cbfunc; /* NULL: answered or purged already */
    void *cbdata;
    pmi_pmix_link_t asked;      /* on dmodex_asked while asked */
} dmodex_op_t;

/* The requests asked of other daemons, not answered yet (the loop's). */
static pmi_pmix_link_t *dmodex_asked;

static void dmodex_run(pmi_pmix_call_t *call);

void pmi_pmix_dmodex_forget(const char *nspace)
{
    for (pmi_pmix_link_t *l = dmodex_asked; l != NULL; l = l->next) {
        dmodex_op_t *op = PMI_PMIX_ITEM(l, dmodex_op_t, asked);
        if (op->cbfunc == NULL || !PMIX_CHECK_NSPACE(op->proc.nspace, nspace))
            continue;
        HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: direct modex: the data of rank "
                    "%u of %s no longer awaited: its job ended here",
                    (unsigned)op->proc.rank, op->proc.nspace);
        op->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, op->cbdata, NULL, NULL);
        op->cbfunc = NULL;
    }
}

void pmi_pmix_dmodex_purge_queued(pmi_pmix_server_t *srv, const char *nspace)
{
    pthread_mutex_lock(&srv->lock);
    for (pmi_pmix_call_t *call = srv->head; call != NULL; call = call->next) {
        dmodex_op_t *op = (dmodex_op_t *)call;
        if (call->run == dmodex_run &&
            PMIX_CHECK_NSPACE(op->proc.nspace, nspace))
            op->cbfunc = NULL;
    }
    pthread_mutex_unlock(&srv->lock);
}

static void dmodex_answered(hnp_rte_t *rte, int status, const void *data,
                            size_t len, void *cbdata)
{
    dmodex_op_t *op = cbdata;
    modex_blob_t *blob;

    (void)rte;
    pmi_pmix_link_remove(&op->asked);
    if (!pmi_pmix_live() || op->cbfunc == NULL) {
        free(op);
        return;
    }
    blob = calloc(1, sizeof(*blob));
    if (status == HNP_SUCCESS && blob != NULL && len > 0 &&
        (blob->data = malloc(len)) == NULL)
        status = HNP_ERR_NOMEM;
    if (status != HNP_SUCCESS || blob == NULL) {
        HNP_ERROR_LOG(pmi_pmix_log(),
                      "pmix: the data of rank %u (direct modex) did not "
                      "come: %s", (unsigned)op->proc.rank,
                      hnp_strerror(blob == NULL ? HNP_ERR_NOMEM : status));
        if (blob != NULL)
            modex_blob_release(blob);
        op->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, op->cbdata, NULL, NULL);
    } else {
        HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: direct modex: the data of "
                    "rank %u of %s came, %zu bytes", (unsigned)op->proc.rank,
                    op->proc.nspace, len);
        if (len > 0)
            memcpy(blob->data, data, len);
        blob->len = len;
        op->cbfunc(PMIX_SUCCESS, blob->data, blob->len, op->cbdata,
                   modex_blob_release, blob);
    }
    free(op);
}

/* Answer libpmix with @p data (malloc'd, handed over). */
static void dmodex_answer(dmodex_op_t *op, char *data, size_t len)
{
    modex_blob_t *blob = calloc(1, sizeof(*blob));

    if (blob == NULL) {
        free(data);
        op->cbfunc(PMIX_ERR_NOMEM, NULL, 0, op->cbdata, NULL, NULL);
    } else {
        *blob = (modex_blob_t){ data, len };
        op->cbfunc(PMIX_SUCCESS, blob->data, blob->len, op->cbdata,
                   modex_blob_release, blob);
    }
    free(op);
}

static void dmodex_run(pmi_pmix_call_t *call)
{
    dmodex_op_t *op = (dmodex_op_t *)call;
    pmi_pmix_job_t *pj = pmi_pmix_job_find(op->proc.nspace);
    int rc = HNP_ERR_NOT_FOUND;

    if (!pmi_pmix_live() || op->cbfunc == NULL) {
        free(op);
        return;
    }
    uint32_t foreign = 0;
    char *card;
    size_t len;

    if (pmi_pmix_connect_card(op->proc.nspace, op->proc.rank, &card, &len)) {
        HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: direct modex: the data of rank "
                    "%u of %s answered here, from a connect",
                    (unsigned)op->proc.rank, op->proc.nspace);
        dmodex_answer(op, card, len);
        return;
    }
    HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: direct modex: the data of rank %u "
                "of %s asked of its node", (unsigned)op->proc.rank,
                op->proc.nspace);
    if (pj != NULL && op->proc.rank < pj->job->nprocs)
        rc = hnp_rte_request(pmi_pmix_server.rte, PMI_PMIX_SERVICE_DMODEX,
                             pj->job->jobid, op->proc.rank, pj->nspace,
                             strlen(pj->nspace) + 1, dmodex_answered, op);
    else if (pj == NULL && pmi_pmix_foreign_jobid(op->proc.nspace, &foreign))
        /* a job of the family with no rank here (registered for a
         * connect): its daemons know it */
        rc = hnp_rte_request(pmi_pmix_server.rte, PMI_PMIX_SERVICE_DMODEX,
                             foreign, op->proc.rank, op->proc.nspace,
                             strlen(op->proc.nspace) + 1, dmodex_answered,
                             op);
    if (rc == HNP_SUCCESS)
        pmi_pmix_link_add(&dmodex_asked, &op->asked);
    if (rc != HNP_SUCCESS) {
        HNP_ERROR_LOG(pmi_pmix_log(),
                      "pmix: cannot ask for the data of rank %u of %s: %s",
                      (unsigned)op->proc.rank, op->proc.nspace,
                      hnp_strerror(rc));
        op->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, op->cbdata, NULL, NULL);
        free(op);
    }
}

static pmix_status_t direct_modex(const pmix_proc_t *proc,
                                  const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    dmodex_op_t *op = calloc(1, sizeof(*op));

    (void)info;
    (void)ninfo;
    if (op == NULL)
        return PMIX_ERR_NOMEM;
    op->proc = *proc;
    op->cbfunc = cbfunc;
    op->cbdata = cbdata;
    pmi_pmix_queue_post(&pmi_pmix_server, &op->call, dmodex_run);
    return PMIX_SUCCESS;
}

/* The serving side: another daemon (or this one) asks for a local rank's
 * data; libpmix answers from its thread once the rank has committed it.
 * A request still waiting when the rank's namespace is deregistered is
 * never answered by libpmix (the deregistration drops it): the asker is
 * answered "not found" before, and the item freed after, unless libpmix
 * had answered it first. */
typedef struct dmodex_reply {
    pmi_pmix_call_t call;
    hnp_rte_request_t *req;  /* NULL once the asker has its answer */
    pmix_status_t status;
    char *data;
    size_t len;
    pmix_nspace_t nspace;
    bool posted;             /* libpmix answered (set on its thread) */
    pmi_pmix_link_t served;  /* on dmodex_served until libpmix answers */
} dmodex_reply_t;

/* The requests handed to libpmix, not answered by it yet (the loop's). */
static pmi_pmix_link_t *dmodex_served;

void pmi_pmix_dmodex_served_end(const char *nspace)
{
    for (pmi_pmix_link_t *l = dmodex_served; l != NULL; l = l->next) {
        dmodex_reply_t *r = PMI_PMIX_ITEM(l, dmodex_reply_t, served);
        if (r->req != NULL && PMIX_CHECK_NSPACE(r->nspace, nspace)) {
            hnp_rte_reply(r->req, HNP_ERR_NOT_FOUND, NULL, 0);
            r->req = NULL;
        }
    }
}

void pmi_pmix_dmodex_served_dropped(const char *nspace)
{
    pmi_pmix_link_t *next;

    for (pmi_pmix_link_t *l = dmodex_served; l != NULL; l = next) {
        dmodex_reply_t *r = PMI_PMIX_ITEM(l, dmodex_reply_t, served);
        next = l->next;
        if (PMIX_CHECK_NSPACE(r->nspace, nspace) &&
            !__atomic_load_n(&r->posted, __ATOMIC_ACQUIRE)) {
            pmi_pmix_link_remove(&r->served);
            free(r);
        }
    }
}

static void dmodex_reply_run(pmi_pmix_call_t *call)
{
    dmodex_reply_t *r = (dmodex_reply_t *)call;

    pmi_pmix_link_remove(&r->served);
    if (r->req != NULL)
        hnp_rte_reply(r->req, r->status == PMIX_SUCCESS ? HNP_SUCCESS
                                                        : HNP_ERR_NOT_FOUND,
                      r->data, r->len);
    free(r->data);
    free(r);
}

pmix_status_t pmi_pmix_modex_copy(pmix_status_t status, const char *data,
                                  size_t sz, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (status != PMIX_SUCCESS || sz == 0)
        return status;
    if ((*out = malloc(sz)) == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(*out, data, sz);
    *len = sz;
    return status;
}

static void dmodex_reply_post(pmix_status_t status, char *data, size_t sz,
                              void *cbdata)
{
    dmodex_reply_t *r = cbdata;

    r->status = pmi_pmix_modex_copy(status, data, sz, &r->data, &r->len);
    __atomic_store_n(&r->posted, true, __ATOMIC_RELEASE);
    pmi_pmix_queue_post(&pmi_pmix_server, &r->call, dmodex_reply_run);
}

/* A request for a job not registered here yet: a rank of another node
 * may ask before this daemon has the launch (Open MPI's async modex asks
 * at once). Held until the job is registered, or ends here. */
typedef struct dmodex_held {
    struct dmodex_held *next;
    hnp_rte_request_t *req;
    uint32_t rank;
    pmix_nspace_t nspace;
} dmodex_held_t;

#define DMODEX_HELD_MAX 65536 /* beyond, a request is refused at once */

static dmodex_held_t *dmodex_held;
static size_t dmodex_nheld;

static void dmodex_serve_now(hnp_rte_request_t *req, uint32_t rank,
                             const char *nspace);

static bool dmodex_hold(hnp_rte_request_t *req, uint32_t rank,
                        const char *nspace)
{
    dmodex_held_t *h;

    if (dmodex_nheld >= DMODEX_HELD_MAX || strlen(nspace) > PMIX_MAX_NSLEN ||
        (h = calloc(1, sizeof(*h))) == NULL)
        return false;
    h->req = req;
    h->rank = rank;
    PMIX_LOAD_NSPACE(h->nspace, nspace);
    h->next = dmodex_held;
    dmodex_held = h;
    dmodex_nheld++;
    return true;
}

void pmi_pmix_dmodex_release_held(const char *nspace, bool registered)
{
    dmodex_held_t **p = &dmodex_held;

    while (*p != NULL) {
        dmodex_held_t *h = *p;
        if (nspace != NULL && !PMIX_CHECK_NSPACE(h->nspace, nspace)) {
            p = &h->next;
            continue;
        }
        *p = h->next;
        dmodex_nheld--;
        if (registered)
            dmodex_serve_now(h->req, h->rank, h->nspace);
        else
            hnp_rte_reply(h->req, HNP_ERR_NOT_FOUND, NULL, 0);
        free(h);
    }
}

void pmi_pmix_dmodex_serve(hnp_rte_t *rte, hnp_rte_request_t *req,
                           hnp_vpid_t src, uint32_t jobid, uint32_t rank,
                           const void *data, size_t len, void *cbdata)
{
    const char *nspace = data;
    const pmi_pmix_job_t *pj;

    (void)rte;
    (void)src;
    (void)cbdata;
    if (len == 0 || nspace[len - 1] != '\0') {
        hnp_rte_reply(req, HNP_ERR_NOT_FOUND, NULL, 0);
        return;
    }
    /* the namespace must be the job's the request names */
    if ((pj = pmi_pmix_job_find(nspace)) != NULL && pj->job->jobid != jobid)
        hnp_rte_reply(req, HNP_ERR_NOT_FOUND, NULL, 0);
    else if (pj != NULL)
        dmodex_serve_now(req, rank, nspace);
    else if (!dmodex_hold(req, rank, nspace))
        hnp_rte_reply(req, HNP_ERR_NOT_FOUND, NULL, 0);
}

static void dmodex_serve_now(hnp_rte_request_t *req, uint32_t rank,
                             const char *nspace)
{
    dmodex_reply_t *r = calloc(1, sizeof(*r));
    pmix_proc_t proc;

    if (r == NULL) {
        hnp_rte_reply(req, HNP_ERR_NOT_FOUND, NULL, 0);
        return;
    }
    r->req = req;
    PMIX_LOAD_NSPACE(r->nspace, nspace);
    HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: direct modex: rank %u of %s asked "
                "of this node", (unsigned)rank, nspace);
    PMIX_LOAD_PROCID(&proc, nspace, rank);
    /* listed first: libpmix answers on its thread, the loop runs it later */
    pmi_pmix_link_add(&dmodex_served, &r->served);
    pmix_status_t rc = PMIx_server_dmodex_request(&proc, dmodex_reply_post, r);
    if (rc != PMIX_SUCCESS) {
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: direct modex for rank %u: %s",
                      (unsigned)rank, PMIx_Error_string(rc));
        pmi_pmix_link_remove(&r->served);
        free(r);
        hnp_rte_reply(req, HNP_ERR_NOT_FOUND, NULL, 0);
    }
}

/* ------------------------------------------------------- not supported yet */

typedef struct refusal {
    pmi_pmix_call_t call;
    char msg[512];
} refusal_t;

static void refusal_run(pmi_pmix_call_t *call)
{
    refusal_t *r = (refusal_t *)call;

    HNP_ERROR_LOG(pmi_pmix_log(), "%s", r->msg);
    free(r);
}

/* Refuse at once; the message is logged from the loop. */
static pmix_status_t refuse(const pmix_proc_t *proc, const char *what)
{
    refusal_t *r = calloc(1, sizeof(*r));

    if (r != NULL) {
        snprintf(r->msg, sizeof(r->msg),
                 "pmix: rank %u of %s asked %s: hnp does not support it yet",
                 proc != NULL ? (unsigned)proc->rank : 0u,
                 proc != NULL ? proc->nspace : "?", what);
        pmi_pmix_queue_post(&pmi_pmix_server, &r->call, refusal_run);
    }
    return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t job_control(const pmix_proc_t *requestor,
                                 const pmix_proc_t targets[], size_t ntargets,
                                 const pmix_info_t directives[], size_t ndirs,
                                 pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)targets, (void)ntargets, (void)directives, (void)ndirs;
    (void)cbfunc, (void)cbdata;
    return refuse(requestor, "for job control (PMIx_Job_control)");
}

/* No tool connects. Without this upcall, libpmix 4.2 accepts a tool that
 * names itself, on the uid it claims; and it crashes on a refusal here
 * (it unlinks a namespace it never linked). So the request is never
 * answered: libpmix goes on with other connections, the tool waits, the
 * guard shuts its connection down (no process of the job holds it) and
 * later closes the descriptor libpmix left. */
static void tool_connected(pmix_info_t *info, size_t ninfo,
                           pmix_tool_connection_cbfunc_t cbfunc,
                           void *cbdata)
{
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    pmi_pmix_guard_park_tool(&pmi_pmix_server.guard);
}

pmix_server_module_t pmi_pmix_server_module = {
    .client_connected = client_connected,
    .client_finalized = client_finalized,
    .abort = client_abort,
    .fence_nb = fence_nb,
    .direct_modex = direct_modex,
    .publish = pmi_pmix_publish,
    .lookup = pmi_pmix_lookup,
    .unpublish = pmi_pmix_unpublish,
    .spawn = pmi_pmix_spawn,
    .connect = pmi_pmix_connect,
    .disconnect = pmi_pmix_disconnect,
    .job_control = job_control,
    .tool_connected = tool_connected,
};
