/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What ranks of several jobs do together once one spawned the other
 * (MPI_Comm_spawn's connect, MPI_Comm_disconnect, a fence over several
 * namespaces). libpmix 4.2 calls the host's connect only when some
 * participants are on other nodes, and then packs every participating
 * namespace's job data from its own store: a namespace this daemon runs
 * no rank of is registered first ("foreign", with no local rank), from
 * the daemon's record of the job (hnp_rte_job_info()). The collective
 * itself is the runtime's across the jobs (hnp_rte_gather_across()): a
 * connect carries the endpoint data ("cards", pmi_pmix_cards.h) of each
 * daemon's participants, which every daemon keeps to answer libpmix's
 * direct-modex requests for them on the node; a disconnect carries none,
 * a fence libpmix's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

/* A namespace registered here for a connect, with no rank here. It is
 * held by every local job that took part in a connect with it, and
 * deregistered when the last of them ends: a daemon's two local jobs that
 * both connected to it must not lose it with the first one's end. */
typedef struct foreign {
    struct foreign *next;
    pmix_nspace_t nspace;
    uint32_t jobid;
    uint32_t nprocs;
    uint32_t *holders;        /* the local jobs that connected with it */
    size_t nholders;
} foreign_t;

static foreign_t *foreigners;

static foreign_t *foreign_find(const char *nspace)
{
    for (foreign_t *f = foreigners; f != NULL; f = f->next)
        if (PMIX_CHECK_NSPACE(f->nspace, nspace))
            return f;
    return NULL;
}

bool pmi_pmix_foreign_jobid(const char *nspace, uint32_t *jobid)
{
    const foreign_t *f = foreign_find(nspace);

    if (f != NULL)
        *jobid = f->jobid;
    return f != NULL;
}

bool pmi_pmix_foreign_size(const char *nspace, uint32_t *nprocs)
{
    const foreign_t *f = foreign_find(nspace);

    if (f != NULL)
        *nprocs = f->nprocs;
    return f != NULL;
}

static int foreign_hold(foreign_t *f, uint32_t holder)
{
    uint32_t *grown;

    for (size_t i = 0; i < f->nholders; i++)
        if (f->holders[i] == holder)
            return HNP_SUCCESS;
    grown = realloc(f->holders, (f->nholders + 1) * sizeof(*grown));
    if (grown == NULL)
        return HNP_ERR_NOMEM;
    grown[f->nholders++] = holder;
    f->holders = grown;
    return HNP_SUCCESS;
}

/* @p holder lets go of @p f: whether nobody holds it any more. */
static bool foreign_let_go(foreign_t *f, uint32_t holder)
{
    for (size_t i = 0; i < f->nholders; i++)
        if (f->holders[i] == holder) {
            f->holders[i] = f->holders[--f->nholders];
            break;
        }
    return f->nholders == 0;
}

/* @p owner has ended: the namespaces it alone held go (0: all of them). */
void pmi_pmix_foreign_release(uint32_t owner)
{
    foreign_t **at = &foreigners;

    while (*at != NULL) {
        foreign_t *f = *at;
        if (owner != 0 && !foreign_let_go(f, owner)) {
            at = &f->next;
            continue;
        }
        *at = f->next;
        if (pmi_pmix_live())
            (void)pmi_pmix_deregister(f->nspace);
        pmi_pmix_cards_forget(&pmi_pmix_server.cards, f->nspace);
        HNP_VERBOSE(pmi_pmix_log(), 1, "pmix: job %u (%s), registered here "
                    "for connects, released", f->jobid, f->nspace);
        free(f->holders);
        free(f);
    }
}

/* ------------------------------------------------------------ the op */

typedef enum { ACROSS_CONNECT, ACROSS_DISCONNECT, ACROSS_FENCE } kind_t;

typedef struct across_op {
    pmi_pmix_call_t call;
    kind_t kind;
    size_t nprocs;
    pmix_proc_t *procs;
    char *data;
    size_t len;
    unsigned waiting;         /* job infos asked, not answered yet */
    int status;
    uint32_t owner;           /* a local job among the participants */
    pmix_op_cbfunc_t opfunc;
    pmix_modex_cbfunc_t modexfunc;
    void *cbdata;
} across_op_t;

static const char *kind_name(kind_t kind)
{
    return kind == ACROSS_CONNECT ? "connect"
           : kind == ACROSS_DISCONNECT ? "disconnect" : "fence";
}

static void op_free(across_op_t *op)
{
    free(op->procs);
    free(op->data);
    free(op);
}

static void op_fail(across_op_t *op, pmix_status_t status)
{
    if (op->kind == ACROSS_FENCE)
        op->modexfunc(status, NULL, 0, op->cbdata, NULL, NULL);
    else if (op->opfunc != NULL)
        op->opfunc(status, op->cbdata);
    op_free(op);
}

typedef struct blob {
    char *data;
    size_t len;
} blob_t;

static void blob_release(void *cbdata)
{
    blob_t *b = cbdata;

    free(b->data);
    free(b);
}

static void gathered(hnp_rte_t *rte, int status, const void *data,
                     size_t len, void *cbdata)
{
    across_op_t *op = cbdata;
    blob_t *b;

    (void)rte;
    if (!pmi_pmix_live()) {
        op_free(op);
        return;
    }
    if (status != HNP_SUCCESS) {
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: a %s across jobs failed: %s",
                      kind_name(op->kind), hnp_strerror(status));
        op_fail(op, PMIX_ERROR);
        return;
    }
    HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: a %s across %zu processes of "
                "several jobs done, %zu bytes", kind_name(op->kind),
                op->nprocs, len);
    if (op->kind == ACROSS_CONNECT)
        pmi_pmix_connect_cards_take(data, len, op->nprocs);
    if (op->kind != ACROSS_FENCE) {
        op->opfunc(PMIX_SUCCESS, op->cbdata);
        op_free(op);
        return;
    }
    if ((b = calloc(1, sizeof(*b))) == NULL ||
        (len > 0 && (b->data = malloc(len)) == NULL)) {
        free(b);
        op_fail(op, PMIX_ERR_NOMEM);
        return;
    }
    if (len > 0)
        memcpy(b->data, data, len);
    b->len = len;
    op->modexfunc(PMIX_SUCCESS, b->data, b->len, op->cbdata, blob_release, b);
    op_free(op);
}

/* @p rank of @p pj (a wildcard: all its ranks) that run here. */
static uint32_t local_count(const pmi_pmix_job_t *pj, pmix_rank_t rank)
{
    if (rank == PMIX_RANK_WILDCARD)
        return pj->job->nlocal;
    return rank < pj->job->nprocs &&
           pj->job->node_of[rank] == pj->job->my_node;
}

/* Each foreign namespace among the participants is held by each local
 * job among them, whichever of them it was registered for. */
static int hold_foreigners(const across_op_t *op)
{
    for (size_t i = 0; i < op->nprocs; i++) {
        foreign_t *f = foreign_find(op->procs[i].nspace);
        for (size_t k = 0; f != NULL && k < op->nprocs; k++) {
            const pmi_pmix_job_t *pj = pmi_pmix_job_find(op->procs[k].nspace);
            if (pj != NULL && foreign_hold(f, pj->job->jobid) != HNP_SUCCESS)
                return HNP_ERR_NOMEM;
        }
    }
    return HNP_SUCCESS;
}

/* Every namespace is known here: the participants to the runtime. */
static void gather(across_op_t *op)
{
    hnp_rte_member_t *members = calloc(op->nprocs, sizeof(*members));
    uint32_t nlocal = 0;
    int rc = HNP_ERR_NOMEM;

    for (size_t i = 0; members != NULL && i < op->nprocs; i++) {
        const pmix_proc_t *p = &op->procs[i];
        const pmi_pmix_job_t *pj = pmi_pmix_job_find(p->nspace);
        uint32_t jobid = 0;
        if (pj != NULL) {
            jobid = pj->job->jobid;
            nlocal += local_count(pj, p->rank);
        } else if (!pmi_pmix_foreign_jobid(p->nspace, &jobid)) {
            rc = HNP_ERR_NOT_FOUND;
            break;
        }
        members[i] = (hnp_rte_member_t){
            jobid, p->rank == PMIX_RANK_WILDCARD ? HNP_RTE_ALL_RANKS
                                                 : (uint32_t)p->rank };
        rc = HNP_SUCCESS;
    }
    if (rc == HNP_SUCCESS)
        rc = hold_foreigners(op);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_gather_across(pmi_pmix_server.rte, members,
                                   (uint32_t)op->nprocs, nlocal, op->data,
                                   op->len, gathered, op);
    free(members);
    if (rc != HNP_SUCCESS) {
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: a %s across %zu processes of "
                      "several jobs: %s", kind_name(op->kind), op->nprocs,
                      hnp_strerror(rc));
        op_fail(op, rc == HNP_ERR_NOT_FOUND ? PMIX_ERR_NOT_FOUND
                                            : PMIX_ERROR);
    }
}

/* ------------------------------------------------ foreign namespaces */

typedef struct known_ask {
    across_op_t *op;
    pmix_nspace_t nspace;
} known_ask_t;

/* Register @p info's job here with no local rank, as libpmix wants it
 * before it packs the job's data for a connect. */
static int register_foreign(const hnp_rte_job_info_t *info, uint32_t owner,
                            const char *tmpdir)
{
    hnp_rte_t *rte = pmi_pmix_server.rte;
    hnp_pmi_job_t job = {
        .jobid = info->jobid, .name = info->name, .nprocs = info->nprocs,
        .universe_size = info->nprocs, .nnodes = info->nnodes,
        .node_of = info->node_of, .node_names = info->node_names,
        .my_node = hnp_rte_my_vpid(rte), .tmpdir = tmpdir,
    };
    pmi_pmix_job_t pj = { .job = &job };
    foreign_t *f = calloc(1, sizeof(*f));
    char err[256] = "";
    int rc;

    if (f == NULL || foreign_hold(f, owner) != HNP_SUCCESS) {
        free(f);
        return HNP_ERR_NOMEM;
    }
    PMIX_LOAD_NSPACE(pj.nspace, info->name);
    rc = pmi_pmix_nspace_register(&pj, err, sizeof(err));
    if (rc != HNP_SUCCESS) {
        HNP_ERROR_LOG(pmi_pmix_log(), "%s", err);
        free(f->holders);
        free(f);
        return rc;
    }
    PMIX_LOAD_NSPACE(f->nspace, info->name);
    f->jobid = info->jobid;
    f->nprocs = info->nprocs;
    f->next = foreigners;
    foreigners = f;
    HNP_VERBOSE(pmi_pmix_log(), 1, "pmix: job %u (%s) registered here for "
                "a connect of job %u", info->jobid, info->name, owner);
    return HNP_SUCCESS;
}

/* This node's part of a connect: the cards of its participants. */
static void cards_ready(void *cbdata, uint8_t *data, size_t len)
{
    across_op_t *op = cbdata;

    if (!pmi_pmix_live()) {
        free(data);
        op_free(op);
        return;
    }
    op->data = (char *)data;
    op->len = len;
    gather(op);
}

/* The most a node's part of a collective may carry: a local job's. */
static size_t part_max(const across_op_t *op)
{
    for (size_t i = 0; i < op->nprocs; i++) {
        const pmi_pmix_job_t *pj = pmi_pmix_job_find(op->procs[i].nspace);
        if (pj != NULL)
            return pj->job->max_allgather_bytes;
    }
    return 0;
}

/* One of the op's asks (or the op's own hold) is done. */
static void step_done(across_op_t *op)
{
    if (--op->waiting > 0)
        return;
    if (!pmi_pmix_live())
        op_free(op);
    else if (op->status != HNP_SUCCESS)
        op_fail(op, PMIX_ERR_NOT_FOUND);
    else if (op->kind == ACROSS_CONNECT)
        pmi_pmix_connect_cards_collect(op->procs, op->nprocs, part_max(op),
                                       cards_ready, op);
    else
        gather(op);
}

static void learned_job(hnp_rte_t *rte, int status,
                        const hnp_rte_job_info_t *info, void *cbdata)
{
    known_ask_t *ask = cbdata;
    across_op_t *op = ask->op;
    const pmi_pmix_job_t *owner = NULL;
    uint32_t known;

    (void)rte;
    for (size_t i = 0; i < op->nprocs && owner == NULL; i++)
        owner = pmi_pmix_job_find(op->procs[i].nspace);
    if (status == HNP_SUCCESS && pmi_pmix_live() &&
        pmi_pmix_job_find(ask->nspace) == NULL &&
        !pmi_pmix_foreign_jobid(ask->nspace, &known))
        status = owner == NULL ? HNP_ERR_NOT_FOUND
                 : register_foreign(info, owner->job->jobid,
                                    owner->job->tmpdir);
    if (status != HNP_SUCCESS && op->status == HNP_SUCCESS) {
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: a %s names %s, a job this "
                      "node cannot register: %s", kind_name(op->kind),
                      ask->nspace, hnp_strerror(status));
        op->status = status;
    }
    free(ask);
    step_done(op);
}

static bool asked_already(const across_op_t *op, size_t upto)
{
    for (size_t k = 0; k < upto; k++)
        if (PMIX_CHECK_NSPACE(op->procs[k].nspace, op->procs[upto].nspace))
            return true;
    return false;
}

static void across_run(pmi_pmix_call_t *call)
{
    across_op_t *op = (across_op_t *)call;

    if (!pmi_pmix_live()) {
        op_free(op);
        return;
    }
    HNP_VERBOSE(pmi_pmix_log(), 5, "pmix: a %s across %zu processes of "
                "several jobs begins here (%zu bytes)", kind_name(op->kind),
                op->nprocs, op->len);
    /* one more than the asks: the loop below holds the op */
    op->waiting = 1;
    for (size_t i = 0; i < op->nprocs; i++) {
        const char *ns = op->procs[i].nspace;
        known_ask_t *ask;
        uint32_t known;
        if (pmi_pmix_job_find(ns) != NULL ||
            pmi_pmix_foreign_jobid(ns, &known) ||
            asked_already(op, i))
            continue;
        if ((ask = calloc(1, sizeof(*ask))) == NULL) {
            op->status = HNP_ERR_NOMEM;
            break;
        }
        ask->op = op;
        PMIX_LOAD_NSPACE(ask->nspace, ns);
        if (hnp_rte_job_info(pmi_pmix_server.rte, 0, ns, learned_job, ask) !=
            HNP_SUCCESS) {
            free(ask);
            op->status = HNP_ERR_NOT_FOUND;
            break;
        }
        op->waiting++;
    }
    step_done(op);
}

/* ------------------------------------------------------------ upcalls */

static pmix_status_t across_post(kind_t kind, const pmix_proc_t procs[],
                                 size_t nprocs, const char *data, size_t len,
                                 pmix_op_cbfunc_t opfunc,
                                 pmix_modex_cbfunc_t modexfunc, void *cbdata)
{
    across_op_t *op;

    if (procs == NULL || nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    if ((op = calloc(1, sizeof(*op))) == NULL ||
        (op->procs = calloc(nprocs, sizeof(*op->procs))) == NULL ||
        (len > 0 && (op->data = malloc(len)) == NULL)) {
        if (op != NULL)
            free(op->procs);
        free(op);
        return PMIX_ERR_NOMEM;
    }
    memcpy(op->procs, procs, nprocs * sizeof(*procs));
    if (len > 0)
        memcpy(op->data, data, len);
    op->kind = kind;
    op->nprocs = nprocs;
    op->len = len;
    op->opfunc = opfunc;
    op->modexfunc = modexfunc;
    op->cbdata = cbdata;
    pmi_pmix_queue_post(&pmi_pmix_server, &op->call, across_run);
    return PMIX_SUCCESS;
}

pmix_status_t pmi_pmix_connect(const pmix_proc_t procs[], size_t nprocs,
                               const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    return across_post(ACROSS_CONNECT, procs, nprocs, NULL, 0, cbfunc, NULL,
                       cbdata);
}

pmix_status_t pmi_pmix_disconnect(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    return across_post(ACROSS_DISCONNECT, procs, nprocs, NULL, 0, cbfunc,
                       NULL, cbdata);
}

pmix_status_t pmi_pmix_fence_across(const pmix_proc_t procs[], size_t nprocs,
                                    const char *data, size_t len,
                                    pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    return across_post(ACROSS_FENCE, procs, nprocs, data, len, NULL, cbfunc,
                       cbdata);
}
