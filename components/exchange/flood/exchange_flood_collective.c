/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `flood` exchange: the table of one all-gather (one id) — its entries,
 * the order they were learnt in, each neighbour's cursor — and its report
 * to the caller through learned() and complete().
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "exchange_flood_internal.h"

flood_coll_t *flood_coll_find(flood_state_t *st, uint32_t id)
{
    for (flood_coll_t *c = st->active; c != NULL; c = c->next)
        if (c->id == id)
            return c;
    return NULL;
}

static void coll_release(flood_coll_t *c, uint32_t nprocs)
{
    for (uint32_t v = 0; c->entries != NULL && v < nprocs; v++)
        free(c->entries[v].data);
    free(c->entries);
    free(c->log);
    free(c->links);
    free(c);
}

/* The collective @p id, created on first use: by our own allgather, or by
 * the first message about it, which may come before. */
int flood_coll_get(flood_state_t *st, uint32_t id, flood_coll_t **out)
{
    flood_coll_t *c = flood_coll_find(st, id);

    if (c != NULL) {
        *out = c;
        return HNP_SUCCESS;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return HNP_ERR_NOMEM;
    c->entries = calloc(st->nprocs, sizeof(*c->entries));
    c->log = malloc(st->nprocs * sizeof(*c->log));
    c->links = calloc(st->nlinks > 0 ? st->nlinks : 1, sizeof(*c->links));
    if (c->entries == NULL || c->log == NULL || c->links == NULL) {
        coll_release(c, st->nprocs);
        return HNP_ERR_NOMEM;
    }
    c->id = id;
    for (uint32_t i = 0; i < st->nchildren; i++)
        c->links[i].vpid = st->children[i];
    if (st->nlinks > st->nchildren)
        c->links[st->nchildren].vpid = hnp_tree_parent(&st->tree, st->self);
    c->next = st->active;
    st->active = c;
    *out = c;
    return HNP_SUCCESS;
}

void flood_coll_free(flood_state_t *st, flood_coll_t *c)
{
    flood_coll_t **link = &st->active;

    while (*link != NULL && *link != c)
        link = &(*link)->next;
    if (*link == c)
        *link = c->next;
    coll_release(c, st->nprocs);
}

/* A finished collective: remember its id so that stray messages about it
 * are recognised, then free it. */
void flood_coll_retire(flood_state_t *st, flood_coll_t *c)
{
    HNP_VERBOSE(st->log, 5, "flood: all-gather %u done at vpid %u: %u entries, "
                "%llu messages and %llu bytes sent", c->id, st->self, c->known,
                (unsigned long long)c->msgs_sent,
                (unsigned long long)c->bytes_sent);
    st->recent[st->nrecent % FLOOD_RECENT_IDS] = c->id;
    st->nrecent++;
    flood_coll_free(st, c);
}

bool flood_id_is_recent(const flood_state_t *st, uint32_t id)
{
    uint32_t n =
        st->nrecent < FLOOD_RECENT_IDS ? st->nrecent : FLOOD_RECENT_IDS;

    for (uint32_t i = 0; i < n; i++)
        if (st->recent[i] == id)
            return true;
    return false;
}

/* Keep a copy of @p vpid's entry (not known yet: the caller checked). */
int flood_coll_store(flood_coll_t *c, hnp_vpid_t vpid, const void *data,
                     uint32_t len, hnp_vpid_t origin)
{
    flood_entry_t *e = &c->entries[vpid];

    e->data = malloc(len > 0 ? len : 1);
    if (e->data == NULL)
        return HNP_ERR_NOMEM;
    if (len > 0)
        memcpy(e->data, data, len);
    e->len = len;
    e->origin = origin;
    e->known = true;
    c->log[c->known++] = vpid;
    c->dirty = true;
    return HNP_SUCCESS;
}

/*
 * Tell the caller what it has not heard yet, once it has called allgather:
 * each new entry, then completion when every entry is known (or the first
 * failure). The counters move before each callback, so a callback that
 * re-enters the module never sees an entry twice.
 */
void flood_coll_deliver(flood_state_t *st, flood_coll_t *c)
{
    if (!c->joined || c->completed)
        return;
    while (c->status == HNP_SUCCESS && c->delivered < c->known) {
        const flood_entry_t *e = &c->entries[c->log[c->delivered++]];
        c->cb.learned(c->cb.cbdata, c->log[c->delivered - 1], e->data, e->len);
    }
    if (c->status != HNP_SUCCESS || c->known == st->nprocs) {
        c->completed = true;
        c->cb.complete(c->cb.cbdata, c->status);
    }
}

static int compare_vpid(const void *a, const void *b)
{
    hnp_vpid_t x = *(const hnp_vpid_t *)a, y = *(const hnp_vpid_t *)b;

    return x < y ? -1 : x > y;
}

/* Which link @p vpid is: a child's index, nchildren for the parent, or -1
 * for a process that is not a spawn-tree neighbour. */
int flood_link_index(const flood_state_t *st, hnp_vpid_t vpid)
{
    const hnp_vpid_t *child;

    if (st->nlinks > st->nchildren &&
        vpid == hnp_tree_parent(&st->tree, st->self))
        return (int)st->nchildren;
    if (st->nchildren == 0)
        return -1;
    child = bsearch(&vpid, st->children, st->nchildren, sizeof(vpid),
                    compare_vpid);
    return child != NULL ? (int)(child - st->children) : -1;
}
