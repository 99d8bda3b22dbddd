/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `gather_scatter` exchange: contributions go to the HNP, the full
 * table comes back. Several all-gathers (told apart by id) may run at once.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "exchange_gather_scatter.h"
#include "hnp_log.h"
#include "hnp_rte.h"

typedef struct gs_entry {
    void *data;
    size_t len;
    bool have;
} gs_entry_t;

typedef struct gs_collective {
    struct gs_collective *next;
    uint32_t id;
    bool joined; /* this process called allgather */
    hnp_exchange_callbacks_t cb;
    uint32_t count;      /* HNP: contributions held */
    uint32_t n;          /* its processes: the runtime's when it began */
    gs_entry_t *entries; /* HNP: [n] */
} gs_collective_t;

/* The module's state: one runtime a process. */
static struct {
    hnp_rte_t *rte;
    gs_collective_t *active;
    uint32_t nprocs; /* the processes of the all-gathers that begin now */
    uint32_t nfirst; /* the runtime's before it grew: no table has fewer */
} gs;

static gs_collective_t *collective_get(uint32_t id)
{
    gs_collective_t *c;

    for (c = gs.active; c != NULL; c = c->next)
        if (c->id == id)
            return c;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->id = id;
    c->n = gs.nprocs;
    if (hnp_rte_is_hnp(gs.rte)) {
        c->entries = calloc(c->n, sizeof(*c->entries));
        if (c->entries == NULL) {
            free(c);
            return NULL;
        }
    }
    c->next = gs.active;
    gs.active = c;
    return c;
}

static void collective_free(gs_collective_t *c)
{
    gs_collective_t **link = &gs.active;

    while (*link != c)
        link = &(*link)->next;
    *link = c->next;
    for (uint32_t i = 0; c->entries != NULL && i < c->n; i++)
        free(c->entries[i].data);
    free(c->entries);
    free(c);
}

static int store(gs_collective_t *c, hnp_vpid_t vpid, const void *data,
                 size_t len)
{
    gs_entry_t *e;

    if (vpid >= c->n)
        return HNP_ERR_BAD_PARAM;
    e = &c->entries[vpid];
    if (e->have)
        return HNP_ERR_EXISTS;
    e->data = malloc(len > 0 ? len : 1);
    if (e->data == NULL)
        return HNP_ERR_NOMEM;
    memcpy(e->data, data, len);
    e->len = len;
    e->have = true;
    c->count++;
    if (c->joined)
        c->cb.learned(c->cb.cbdata, vpid, data, len);
    return HNP_SUCCESS;
}

/* HNP: every contribution is in; send the table to every daemon. */
static void scatter_if_complete(gs_collective_t *c)
{
    uint32_t n = c->n;
    hnp_buffer_t buf;
    int rc;

    if (!c->joined || c->count < n)
        return;
    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, c->id);
    hnp_pack_u32(&buf, n);
    for (uint32_t v = 0; v < n; v++)
        hnp_pack_blob(&buf, c->entries[v].data, c->entries[v].len);
    rc = hnp_buffer_status(&buf);
    for (hnp_vpid_t v = 1; rc == HNP_SUCCESS && v < n; v++)
        rc = hnp_rte_send_direct(gs.rte, v, GATHER_SCATTER_TAG_TABLE, buf.data,
                                 buf.len);
    hnp_buffer_release(&buf);
    hnp_exchange_callbacks_t cb = c->cb;
    collective_free(c);
    cb.complete(cb.cbdata, rc);
}

static void on_contribution(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                            const void *data, size_t len, void *cbdata)
{
    hnp_reader_t rd;
    size_t blob_len = 0;

    (void)tag;
    (void)cbdata;
    hnp_reader_init(&rd, data, len);
    uint32_t id = hnp_unpack_u32(&rd);
    const void *blob = hnp_unpack_blob(&rd, &blob_len);
    /* The HNP's own entry comes from its allgather only: one that claims
     * to come from it would take its place and make that fail. */
    gs_collective_t *c = hnp_reader_status(&rd) == HNP_SUCCESS &&
                                 src != hnp_rte_my_vpid(rte) &&
                                 src < hnp_rte_num_procs(rte)
                             ? collective_get(id) : NULL;
    /* A daemon added after the all-gather began takes no part in it: the
     * others neither wait for it nor send it the table. */
    if (c != NULL && src >= c->n) {
        HNP_VERBOSE(hnp_log_stream("exchange"), 2, "gather_scatter: vpid %u "
                    "came after all-gather %u began; its part is dropped",
                    src, id);
        return;
    }
    if (c == NULL || store(c, src, blob, blob_len) != HNP_SUCCESS) {
        HNP_WARN(hnp_log_stream("exchange"), "gather_scatter: bad or repeated "
                 "contribution from vpid %u dropped", src);
        return;
    }
    if (!c->joined)
        hnp_rte_collective_seen(rte, id);
    scatter_if_complete(c);
}

/* Daemon: the table arrived; learn every entry, then complete. */
static void on_table(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                     const void *data, size_t len, void *cbdata)
{
    hnp_reader_t rd;

    (void)tag;
    (void)cbdata;
    hnp_reader_init(&rd, data, len);
    uint32_t id = hnp_unpack_u32(&rd);
    uint32_t n = hnp_unpack_u32(&rd);
    gs_collective_t *c = collective_get(id);
    /* The HNP may have begun it among more processes than this daemon
     * knows yet (daemons added, the word on its way): it learns the
     * entries of those it knows. Or among fewer, before daemons were
     * added: never fewer than the runtime had before it grew. */
    if (c == NULL || !c->joined || src != 0 || n < gs.nfirst) {
        HNP_WARN(hnp_log_stream("exchange"), "gather_scatter: unexpected "
                 "table %u from vpid %u dropped", id, src);
        return;
    }
    for (hnp_vpid_t v = 0; v < n && hnp_reader_status(&rd) == HNP_SUCCESS;
         v++) {
        size_t blob_len = 0;
        const void *blob = hnp_unpack_blob(&rd, &blob_len);
        if (hnp_reader_status(&rd) == HNP_SUCCESS &&
            v < hnp_rte_num_procs(rte))
            c->cb.learned(c->cb.cbdata, v, blob, blob_len);
    }
    hnp_exchange_callbacks_t cb = c->cb;
    collective_free(c);
    cb.complete(cb.cbdata, hnp_reader_status(&rd));
}

static int gs_init(struct hnp_rte *rte)
{
    gs.rte = rte;
    gs.nprocs = hnp_rte_num_procs(rte);
    gs.nfirst = gs.nprocs;
    if (hnp_rte_is_hnp(rte))
        return hnp_rte_recv(rte, GATHER_SCATTER_TAG_CONTRIBUTION,
                            on_contribution, NULL);
    return hnp_rte_recv(rte, GATHER_SCATTER_TAG_TABLE, on_table, NULL);
}

static int gs_allgather(struct hnp_rte *rte, uint32_t id, const void *data,
                        size_t len, const hnp_exchange_callbacks_t *cb)
{
    gs_collective_t *c = collective_get(id);
    hnp_buffer_t buf;
    int rc;

    if (c == NULL)
        return HNP_ERR_NOMEM;
    if (c->joined)
        return HNP_ERR_EXISTS;
    c->joined = true;
    c->cb = *cb;
    if (hnp_rte_is_hnp(rte)) {
        for (hnp_vpid_t v = 0; v < c->n; v++)
            if (c->entries[v].have)
                cb->learned(cb->cbdata, v, c->entries[v].data,
                            c->entries[v].len);
        rc = store(c, 0, data, len);
        if (rc == HNP_SUCCESS)
            scatter_if_complete(c);
        return rc;
    }
    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, id);
    hnp_pack_blob(&buf, data, len);
    rc = hnp_buffer_status(&buf);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send_direct(rte, 0, GATHER_SCATTER_TAG_CONTRIBUTION,
                                 buf.data, buf.len);
    hnp_buffer_release(&buf);
    return rc;
}

/* The HNP holds every contribution, and sends the table to each process
 * a collective counts: one begun before keeps its own, and its count. */
static int gs_grow(struct hnp_rte *rte, uint32_t nprocs)
{
    (void)rte;
    if (nprocs < gs.nprocs)
        return HNP_ERR_BAD_PARAM;
    gs.nprocs = nprocs;
    return HNP_SUCCESS;
}

static void gs_finalize(struct hnp_rte *rte)
{
    (void)rte;
    while (gs.active != NULL)
        collective_free(gs.active);
}

/* Every daemon sends its contribution to the HNP directly and gets the
 * table back on that connection: the HNP holds one with each. */
static uint32_t gs_hnp_connections(const hnp_exchange_job_t *job)
{
    return job->ndaemons;
}

const hnp_exchange_module_t exchange_gather_scatter_module = {
    .init = gs_init,
    .allgather = gs_allgather,
    .child_joined = NULL,
    .finalize = gs_finalize,
    .job_priority = NULL,
    .hnp_connections = gs_hnp_connections,
    .grow = gs_grow,
};
