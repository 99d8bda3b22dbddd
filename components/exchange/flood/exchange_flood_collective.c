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

static void coll_release(flood_coll_t *c)
{
    for (uint32_t v = 0; c->entries != NULL && v < c->cap; v++)
        free(c->entries[v].data);
    free(c->entries);
    free(c->log);
    free(c->links);
    free(c);
}

/* Of this process's spawn children, those among the first @p members
 * vpids: the first ones, as the children are listed in increasing order
 * and added daemons have the highest vpids. */
uint32_t flood_member_children(const flood_state_t *st, uint32_t members)
{
    uint32_t n = 0;

    while (n < st->nchildren && st->children[n] < members)
        n++;
    return n;
}

/* Room in @p c for the entries of vpids 0..n-1. */
int flood_coll_reserve(flood_coll_t *c, uint32_t n)
{
    flood_entry_t *entries;
    hnp_vpid_t *log;

    if (n <= c->cap)
        return HNP_SUCCESS;
    entries = realloc(c->entries, n * sizeof(*entries));
    if (entries == NULL)
        return HNP_ERR_NOMEM;
    c->entries = entries;
    memset(entries + c->cap, 0, (n - c->cap) * sizeof(*entries));
    log = realloc(c->log, n * sizeof(*log));
    if (log == NULL)
        return HNP_ERR_NOMEM; /* the longer entries do no harm */
    c->log = log;
    c->cap = n;
    return HNP_SUCCESS;
}

/* The collective @p id, created on first use: by our own allgather, or by
 * the first message about it, which may come before. At the root it begins
 * there, among the processes the grow hook last counted; elsewhere the
 * parent tells how many those are. */
int flood_coll_get(flood_state_t *st, uint32_t id, flood_coll_t **out)
{
    flood_coll_t *c = flood_coll_find(st, id);
    bool root = st->nlinks == st->nchildren;

    if (c != NULL) {
        *out = c;
        return HNP_SUCCESS;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return HNP_ERR_NOMEM;
    c->members = root ? st->members : 0;
    c->nchildren = root ? flood_member_children(st, st->members)
                        : st->nchildren;
    c->nlinks = c->nchildren + (root ? 0 : 1);
    c->links = calloc(c->nlinks > 0 ? c->nlinks : 1, sizeof(*c->links));
    if (c->links == NULL || flood_coll_reserve(c, st->nprocs) != HNP_SUCCESS) {
        coll_release(c);
        return HNP_ERR_NOMEM;
    }
    c->id = id;
    for (uint32_t i = 0; i < c->nchildren; i++)
        c->links[i].vpid = st->children[i];
    if (!root)
        c->links[c->nchildren].vpid = hnp_tree_parent(flood_tree(st), st->self);
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
    coll_release(c);
}

/* A finished collective: remember its id, and which children took part,
 * so that stray messages about it are recognised, then free it. */
void flood_coll_retire(flood_state_t *st, flood_coll_t *c)
{
    HNP_VERBOSE(st->log, 5, "flood: all-gather %u done at vpid %u: %u entries, "
                "%llu messages and %llu bytes sent", c->id, st->self, c->known,
                (unsigned long long)c->msgs_sent,
                (unsigned long long)c->bytes_sent);
    st->recent[st->nrecent % FLOOD_RECENT_IDS] = c->id;
    st->recent_children[st->nrecent % FLOOD_RECENT_IDS] = c->nchildren;
    st->nrecent++;
    flood_coll_free(st, c);
}

/* Whether @p id completed here recently; then its spawn children taking
 * part were the first @p *nchildren (NULL: not wanted). */
bool flood_id_is_recent(const flood_state_t *st, uint32_t id,
                        uint32_t *nchildren)
{
    uint32_t n =
        st->nrecent < FLOOD_RECENT_IDS ? st->nrecent : FLOOD_RECENT_IDS;

    for (uint32_t i = 0; i < n; i++)
        if (st->recent[i] == id) {
            if (nchildren != NULL)
                *nchildren = st->recent_children[i];
            return true;
        }
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
 * each new entry, then completion when every member's entry is known (or
 * the first failure). The counters move before each callback, so a callback that
 * re-enters the module never sees an entry twice.
 */
void flood_coll_deliver(flood_coll_t *c)
{
    if (!c->joined || c->completed)
        return;
    while (c->status == HNP_SUCCESS && c->delivered < c->known) {
        const flood_entry_t *e = &c->entries[c->log[c->delivered++]];
        c->cb.learned(c->cb.cbdata, c->log[c->delivered - 1], e->data, e->len);
    }
    if (c->status != HNP_SUCCESS ||
        (c->members > 0 && c->known == c->members)) {
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
        vpid == hnp_tree_parent(flood_tree(st), st->self))
        return (int)st->nchildren;
    if (st->nchildren == 0)
        return -1;
    child = bsearch(&vpid, st->children, st->nchildren, sizeof(vpid),
                    compare_vpid);
    return child != NULL ? (int)(child - st->children) : -1;
}
