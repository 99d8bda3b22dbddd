/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMIx publish, lookup and unpublish (MPI_Publish_name, MPI_Lookup_name,
 * and Open MPI's MPI_Comm_connect/accept, which publish a port and look
 * the other side's up with PMIX_WAIT) onto the runtime's name service
 * (hnp_rte_name_*()). The upcalls copy what they need on libpmix's
 * thread and queue it for the event loop; the answers go back to libpmix
 * from the loop.
 *
 * Directives: PMIX_RANGE (PMIX_RANGE_SESSION or _GLOBAL: the session's
 * scope, anything else the job family's), PMIX_PERSISTENCE
 * (PMIX_PERSIST_INDEF or _SESSION: the name outlives the job), PMIX_WAIT
 * and PMIX_TIMEOUT (seconds) for a lookup.
 *
 * A value of any type but PMIX_POINTER is taken, and a lookup gives back
 * the type and the value that were published. The name service keeps
 * opaque bytes, shared with the simple component's PMI names (which are
 * strings), so a value is kept as (pmi_pmix_name_value.c):
 *   - a string (PMIX_STRING: what MPI_Publish_name publishes): its
 *     characters, as they are; none is a NUL;
 *   - bytes (PMIX_BYTE_OBJECT: what Open MPI 4.1's connect/accept, and
 *     so MPI_Comm_spawn, publishes): a NUL, then the bytes;
 *   - any other type (PMIX_INT, PMIX_UINT64, PMIX_DOUBLE, PMIX_BOOL,
 *     PMIX_PROC, PMIX_DATA_ARRAY, ...): the two bytes 0xff 0x00
 *     (PMI_PMIX_NAME_PACKED), a check sum of 8 bytes, then libpmix's
 *     packing of the whole pmix_value_t. No string holds a NUL and
 *     bytes begin with one, so neither begins with these two, and
 *     values kept before packing existed read as they always did.
 * A value that claims to be packed and does not match its check sum or
 * does not unpack (it came over the network) fails its lookup with
 * PMIX_ERR_UNPACK_FAILURE.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

typedef enum { NAME_PUBLISH, NAME_LOOKUP, NAME_UNPUBLISH } name_kind_t;

typedef struct name_op {
    pmi_pmix_call_t call;
    name_kind_t kind;
    pmix_proc_t proc;
    unsigned flags;
    double timeout;
    size_t count;
    char **keys;            /* [count] */
    char **values;          /* [count] (publish) */
    size_t *lens;           /* [count] (publish) */
    pmix_op_cbfunc_t opcb;
    pmix_lookup_cbfunc_t lookupcb;
    void *cbdata;
} name_op_t;

static void name_op_free(name_op_t *op)
{
    for (size_t i = 0; i < op->count; i++) {
        free(op->keys[i]);
        if (op->values != NULL)
            free(op->values[i]);
    }
    free(op->keys);
    free(op->values);
    free(op->lens);
    free(op);
}

static pmix_status_t status_of(int rc)
{
    switch (rc) {
    case HNP_SUCCESS:
        return PMIX_SUCCESS;
    case HNP_ERR_EXISTS:
        return PMIX_ERR_DUPLICATE_KEY;
    case HNP_ERR_NOT_FOUND:
        return PMIX_ERR_NOT_FOUND;
    case HNP_ERR_BAD_PARAM:
        return PMIX_ERR_BAD_PARAM;
    case HNP_ERR_NOMEM:
        return PMIX_ERR_NOMEM;
    default:
        return PMIX_ERR_UNREACH;
    }
}

/* A lookup's answer, given to libpmix on its thread (its lookup callback
 * does not move there itself: pmi_pmix_queue.c). */
typedef struct lookup_answer {
    pmi_pmix_hop_t hop;
    pmix_lookup_cbfunc_t cb;
    void *cbdata;
    pmix_status_t status;
    pmix_pdata_t *pd;
    size_t count;
} lookup_answer_t;

static void lookup_answer_run(pmi_pmix_hop_t *hop, bool run)
{
    lookup_answer_t *a = (lookup_answer_t *)hop;

    if (run)
        a->cb(a->status, a->status == PMIX_SUCCESS ? a->pd : NULL,
              a->status == PMIX_SUCCESS ? a->count : 0, a->cbdata);
    if (a->pd != NULL)
        PMIX_PDATA_FREE(a->pd, a->count);
    free(a);
}

static void answer(name_op_t *op, int rc, const hnp_rte_name_t *names,
                   size_t count)
{
    pmix_pdata_t *pd = NULL;
    pmix_status_t st = status_of(rc);
    lookup_answer_t *a;

    if (op->kind != NAME_LOOKUP) {
        if (op->opcb != NULL)
            op->opcb(st, op->cbdata);
        return;
    }
    if (op->lookupcb == NULL)
        return;
    if (st == PMIX_SUCCESS && count > 0) {
        PMIX_PDATA_CREATE(pd, count);
        if (pd == NULL) {
            st = PMIX_ERR_NOMEM;
            count = 0;
        }
    }
    for (size_t i = 0; pd != NULL && i < count && st == PMIX_SUCCESS; i++) {
        PMIX_LOAD_PROCID(&pd[i].proc,
                         names[i].job_name != NULL ? names[i].job_name : "",
                         names[i].rank);
        PMIX_LOAD_KEY(pd[i].key, names[i].key);
        st = pmi_pmix_name_value_decode(names[i].value, names[i].len,
                                        &pd[i].value);
        if (st != PMIX_SUCCESS)
            HNP_VERBOSE(pmi_pmix_log(), 1, "pmix: the value published as "
                        "'%s' (by rank %u of %s) is not one this server can "
                        "read: %s", names[i].key, (unsigned)names[i].rank,
                        pd[i].proc.nspace, PMIx_Error_string(st));
    }
    if ((a = calloc(1, sizeof(*a))) == NULL) {
        /* from the loop, as before the hop: a reply that may race is
         * better than none */
        op->lookupcb(PMIX_ERR_NOMEM, NULL, 0, op->cbdata);
        if (pd != NULL)
            PMIX_PDATA_FREE(pd, count);
        return;
    }
    *a = (lookup_answer_t){ .cb = op->lookupcb, .cbdata = op->cbdata,
                            .status = st, .pd = pd,
                            .count = pd != NULL ? count : 0 };
    pmi_pmix_hop(&pmi_pmix_server, &a->hop, lookup_answer_run);
}

static void name_answered(hnp_rte_t *rte, int status,
                          const hnp_rte_name_t *names, size_t count,
                          void *cbdata)
{
    name_op_t *op = cbdata;

    (void)rte;
    if (pmi_pmix_live())
        answer(op, status, names, count);
    name_op_free(op);
}

static void name_run(pmi_pmix_call_t *call)
{
    name_op_t *op = (name_op_t *)call;
    hnp_rte_t *rte = pmi_pmix_server.rte;
    pmi_pmix_job_t *pj;
    hnp_rte_name_t *names = NULL;
    int rc = HNP_ERR_NOMEM;

    if (!pmi_pmix_live()) {
        name_op_free(op);
        return;
    }
    if ((pj = pmi_pmix_job_find(op->proc.nspace)) == NULL) {
        answer(op, HNP_ERR_NOT_FOUND, NULL, 0);
        name_op_free(op);
        return;
    }
    uint32_t jobid = pj->job->jobid, rank = op->proc.rank;
    if (op->kind == NAME_PUBLISH &&
        (names = calloc(op->count, sizeof(*names))) != NULL) {
        for (size_t i = 0; i < op->count; i++)
            names[i] = (hnp_rte_name_t){ .key = op->keys[i],
                                         .value = op->values[i],
                                         .len = op->lens[i] };
        rc = hnp_rte_name_publish(rte, jobid, rank, names, op->count,
                                  op->flags, name_answered, op);
    } else if (op->kind == NAME_LOOKUP) {
        rc = hnp_rte_name_lookup(rte, jobid, rank,
                                 (const char *const *)op->keys, op->count,
                                 op->flags, op->timeout, name_answered, op);
    } else if (op->kind == NAME_UNPUBLISH) {
        rc = hnp_rte_name_unpublish(rte, jobid, rank,
                                    (const char *const *)op->keys,
                                    op->count, op->flags, name_answered, op);
    }
    free(names);
    if (rc != HNP_SUCCESS) {
        HNP_VERBOSE(pmi_pmix_log(), 1, "pmix: name request of rank %u of "
                    "%s refused: %s", (unsigned)rank, op->proc.nspace,
                    hnp_strerror(rc));
        answer(op, rc, NULL, 0);
        name_op_free(op);
    }
}

/* The directives among @p info; true for one of them (not a name). */
static bool directive(name_op_t *op, const pmix_info_t *info)
{
    if (PMIX_CHECK_KEY(info, PMIX_RANGE)) {
        pmix_data_range_t range = info->value.type == PMIX_DATA_RANGE
                                      ? info->value.data.range
                                      : PMIX_RANGE_UNDEF;
        if (range == PMIX_RANGE_SESSION || range == PMIX_RANGE_GLOBAL)
            op->flags |= HNP_RTE_NAME_SESSION;
        return true;
    }
    if (PMIX_CHECK_KEY(info, PMIX_PERSISTENCE)) {
        pmix_persistence_t p = info->value.type == PMIX_PERSIST
                                   ? info->value.data.persist
                                   : PMIX_PERSIST_APP;
        if (p == PMIX_PERSIST_INDEF || p == PMIX_PERSIST_SESSION)
            op->flags |= HNP_RTE_NAME_PERSIST;
        return true;
    }
    if (PMIX_CHECK_KEY(info, PMIX_WAIT)) {
        if (info->value.type != PMIX_BOOL || info->value.data.flag)
            op->flags |= HNP_RTE_NAME_WAIT;
        return true;
    }
    if (PMIX_CHECK_KEY(info, PMIX_TIMEOUT)) {
        if (info->value.type == PMIX_INT && info->value.data.integer > 0)
            op->timeout = info->value.data.integer;
        return true;
    }
    return PMIX_CHECK_KEY(info, PMIX_USERID) ||
           PMIX_CHECK_KEY(info, PMIX_GRPID);
}

static name_op_t *op_new(name_kind_t kind, const pmix_proc_t *proc,
                         size_t count)
{
    name_op_t *op = calloc(1, sizeof(*op));

    if (op == NULL)
        return NULL;
    op->kind = kind;
    op->proc = *proc;
    if ((op->keys = calloc(count + 1, sizeof(char *))) == NULL ||
        (kind == NAME_PUBLISH &&
         ((op->values = calloc(count + 1, sizeof(char *))) == NULL ||
          (op->lens = calloc(count + 1, sizeof(size_t))) == NULL))) {
        name_op_free(op);
        return NULL;
    }
    return op;
}

pmix_status_t pmi_pmix_publish(const pmix_proc_t *proc,
                               const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    name_op_t *op = op_new(NAME_PUBLISH, proc, ninfo);

    if (op == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < ninfo; i++) {
        if (directive(op, &info[i]))
            continue;
        pmix_status_t st = pmi_pmix_name_value_encode(
            &info[i].value, &op->values[op->count], &op->lens[op->count]);
        if (st == PMIX_SUCCESS &&
            (op->keys[op->count] = strdup(info[i].key)) == NULL)
            st = PMIX_ERR_NOMEM;
        op->count++;
        if (st != PMIX_SUCCESS) {
            HNP_VERBOSE(pmi_pmix_log(), 1, "pmix: rank %u of %s published "
                        "'%s' of type %s, which is refused: %s",
                        (unsigned)proc->rank, proc->nspace, info[i].key,
                        PMIx_Data_type_string(info[i].value.type),
                        PMIx_Error_string(st));
            name_op_free(op);
            return st;
        }
    }
    if (op->count == 0) {
        name_op_free(op);
        return PMIX_ERR_BAD_PARAM;
    }
    op->opcb = cbfunc;
    op->cbdata = cbdata;
    pmi_pmix_queue_post(&pmi_pmix_server, &op->call, name_run);
    return PMIX_SUCCESS;
}

static pmix_status_t keys_op(name_kind_t kind, const pmix_proc_t *proc,
                             char **keys, const pmix_info_t info[],
                             size_t ninfo, name_op_t **out)
{
    size_t nkeys = 0;
    name_op_t *op;

    while (keys != NULL && keys[nkeys] != NULL)
        nkeys++;
    if ((op = op_new(kind, proc, nkeys)) == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < ninfo; i++)
        directive(op, &info[i]);
    for (; op->count < nkeys; op->count++)
        if ((op->keys[op->count] = strdup(keys[op->count])) == NULL) {
            name_op_free(op);
            return PMIX_ERR_NOMEM;
        }
    *out = op;
    return PMIX_SUCCESS;
}

pmix_status_t pmi_pmix_lookup(const pmix_proc_t *proc, char **keys,
                              const pmix_info_t info[], size_t ninfo,
                              pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    name_op_t *op;
    pmix_status_t st = keys_op(NAME_LOOKUP, proc, keys, info, ninfo, &op);

    if (st != PMIX_SUCCESS)
        return st;
    if (op->count == 0) {
        name_op_free(op);
        return PMIX_ERR_BAD_PARAM;
    }
    op->flags &= ~(unsigned)HNP_RTE_NAME_PERSIST;
    op->lookupcb = cbfunc;
    op->cbdata = cbdata;
    pmi_pmix_queue_post(&pmi_pmix_server, &op->call, name_run);
    return PMIX_SUCCESS;
}

pmix_status_t pmi_pmix_unpublish(const pmix_proc_t *proc, char **keys,
                                 const pmix_info_t info[], size_t ninfo,
                                 pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    name_op_t *op;
    pmix_status_t st = keys_op(NAME_UNPUBLISH, proc, keys, info, ninfo, &op);

    if (st != PMIX_SUCCESS)
        return st;
    op->flags &= HNP_RTE_NAME_SESSION;
    op->opcb = cbfunc;
    op->cbdata = cbdata;
    pmi_pmix_queue_post(&pmi_pmix_server, &op->call, name_run);
    return PMIX_SUCCESS;
}
