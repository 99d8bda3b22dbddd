/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `flood` exchange: a process's flooding state, its contribution, and
 * the flush that forwards, once per event-loop turn (or batch delay), all
 * that was learnt since the previous one.
 *
 * Why batch: entries arrive one report at a time, and a process with many
 * reported children (the HNP under plm rsh has every daemon as a child)
 * would otherwise send each of them one message per report it receives.
 * Collecting until the turn ends sends each neighbour at most one message
 * per flush, carrying everything that arrived meanwhile.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "exchange_flood_internal.h"

/* ------------------------------------------------------------ the flush */

static void flush_coll(flood_state_t *st, flood_coll_t *c)
{
    flood_link_t *parent =
        c->nlinks > c->nchildren ? &c->links[c->nchildren] : NULL;

    c->dirty = false;
    /* Algorithm 2's one message up: our own entry and every child's
     * subtree are here, so the parent gets our whole subtree at once. */
    if (parent != NULL && !parent->open && c->joined &&
        c->reported == c->nchildren)
        parent->open = true;
    for (uint32_t i = 0; c->status == HNP_SUCCESS && i < c->nlinks; i++) {
        flood_link_t *l = &c->links[i];
        if (!l->open || l->sent == c->known)
            continue;
        int rc = flood_send_link(st, c, l);
        if (rc != HNP_SUCCESS) {
            HNP_ERROR_LOG(st->log, "flood: all-gather %u: cannot send to vpid "
                          "%u: %s", c->id, l->vpid, hnp_strerror(rc));
            c->status = rc;
        }
    }
    flood_coll_deliver(c);
    /* Complete means every entry is here, hence every child reported and
     * the parent was opened: every link is up to date, nothing is owed. */
    if (c->completed)
        flood_coll_retire(st, c);
}

void flood_flush_all(flood_state_t *st)
{
    flood_coll_t *next;

    for (flood_coll_t *c = st->active; c != NULL; c = next) {
        next = c->next;
        if (c->dirty)
            flush_coll(st, c);
    }
}

static void flush_fired(hnp_rte_t *rte, void *cbdata)
{
    flood_state_t *st = cbdata;

    (void)rte;
    hnp_rte_timer_destroy(st->flush_timer);
    st->flush_timer = NULL;
    flood_flush_all(st);
}

/* Arm the flush unless it is armed already: whatever else is learnt before
 * it fires goes out with it. */
int flood_schedule_flush(flood_state_t *st)
{
    if (st->flush_timer != NULL)
        return HNP_SUCCESS;
    st->flush_timer = hnp_rte_timer_create(st->rte, st->batch_delay,
                                           flush_fired, st);
    return st->flush_timer != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

/* ------------------------------------------------------------ the state */

/* This process's spawn children and their subtrees' sizes, from the
 * runtime's spawn tree as it is now. On failure nothing changes. */
static int load_children(flood_state_t *st)
{
    const hnp_tree_t *tree = flood_tree(st);
    uint32_t n = hnp_tree_children(tree, st->self, NULL, 0);
    hnp_vpid_t *children = malloc((n > 0 ? n : 1) * sizeof(*children));
    uint32_t *sizes = malloc((n > 0 ? n : 1) * sizeof(*sizes));

    if (children == NULL || sizes == NULL) {
        free(children);
        free(sizes);
        return HNP_ERR_NOMEM;
    }
    n = hnp_tree_children(tree, st->self, children, n);
    for (uint32_t i = 0; i < n; i++)
        sizes[i] = hnp_tree_descendants(tree, children[i], NULL, 0) + 1;
    free(st->children);
    free(st->subtree_size);
    st->children = children;
    st->subtree_size = sizes;
    st->nchildren = n;
    st->nlinks = n + (hnp_tree_parent(tree, st->self) != HNP_VPID_INVALID);
    return HNP_SUCCESS;
}

/*
 * The runtime grew (its tables first, its all-gathers later: the grow
 * hook): take its vpids and its spawn tree as they are now. Daemons added
 * are the root's children; every other process keeps its parent, its
 * children and their subtrees, and the collectives in progress their
 * links. Called wherever the module is entered; cheap when nothing grew.
 */
int flood_state_sync(flood_state_t *st)
{
    const hnp_tree_t *tree = flood_tree(st);
    uint32_t n = hnp_rte_num_procs(st->rte);
    uint32_t *seen;
    int rc;

    if (n == st->nprocs)
        return HNP_SUCCESS;
    if (n < st->nprocs || tree == NULL || tree->n != n)
        return HNP_ERR_BAD_PARAM;
    seen = realloc(st->seen, n * sizeof(*seen));
    if (seen == NULL)
        return HNP_ERR_NOMEM;
    memset(seen + st->nprocs, 0, (n - st->nprocs) * sizeof(*seen));
    st->seen = seen;
    if ((rc = load_children(st)) != HNP_SUCCESS)
        return rc;
    HNP_VERBOSE(st->log, 5, "flood: vpid %u sees %u processes (%u before), "
                "%u spawn children", st->self, n, st->nprocs, st->nchildren);
    st->nprocs = n;
    return HNP_SUCCESS;
}

static void state_free(flood_state_t *st)
{
    flood_release_held(st, false);
    while (st->active != NULL)
        flood_coll_free(st, st->active);
    hnp_rte_timer_destroy(st->flush_timer);
    free(st->children);
    free(st->subtree_size);
    free(st->seen);
    free(st);
}

int flood_state_create(hnp_rte_t *rte, double batch_delay, flood_state_t **out)
{
    const hnp_tree_t *tree = hnp_rte_spawn_tree(rte);
    flood_state_t *st;
    int rc;

    if (tree == NULL || tree->n == 0 || tree->n != hnp_rte_num_procs(rte) ||
        hnp_rte_my_vpid(rte) >= tree->n || !(batch_delay >= 0))
        return HNP_ERR_BAD_PARAM;
    if ((st = calloc(1, sizeof(*st))) == NULL)
        return HNP_ERR_NOMEM;
    st->rte = rte;
    st->log = hnp_log_stream("exchange");
    st->self = hnp_rte_my_vpid(rte);
    st->nprocs = tree->n;
    st->nfirst = tree->n;
    st->members = tree->n;
    st->batch_delay = batch_delay;
    st->seen = calloc(st->nprocs, sizeof(*st->seen));
    rc = st->seen != NULL ? load_children(st) : HNP_ERR_NOMEM;
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_recv(rte, FLOOD_TAG_ENTRIES, flood_on_entries, st);
    if (rc != HNP_SUCCESS) {
        state_free(st);
        return rc;
    }
    HNP_VERBOSE(st->log, 5, "flood: vpid %u of %u, %u spawn children%s",
                st->self, st->nprocs, st->nchildren,
                st->nlinks > st->nchildren ? "" : ", root");
    *out = st;
    return HNP_SUCCESS;
}

/*
 * The all-gathers that begin here from now on are among @p nprocs
 * processes; one in progress keeps its own. What matters is where one
 * begins at the root: the other processes learn the count from their
 * parent (exchange_flood_internal.h), so that a daemon that hears of the
 * growth late, or an all-gather the root began before it, still agrees.
 * What came before this process heard of the processes it names is taken
 * now.
 */
int flood_state_grow(flood_state_t *st, uint32_t nprocs)
{
    int rc = flood_state_sync(st);

    if (rc != HNP_SUCCESS)
        return rc;
    if (nprocs < st->members || nprocs > st->nprocs)
        return HNP_ERR_BAD_PARAM;
    if (nprocs > st->members)
        HNP_VERBOSE(st->log, 3, "flood: vpid %u: all-gathers begun from now "
                    "on count %u processes (%u before)", st->self, nprocs,
                    st->members);
    st->members = nprocs;
    flood_release_held(st, true);
    return HNP_SUCCESS;
}

void flood_state_destroy(flood_state_t *st)
{
    if (st == NULL)
        return;
    hnp_rte_recv(st->rte, FLOOD_TAG_ENTRIES, NULL, NULL);
    state_free(st);
}

uint32_t flood_state_active(const flood_state_t *st)
{
    uint32_t n = 0;

    for (const flood_coll_t *c = st->active; c != NULL; c = c->next)
        n++;
    return n;
}

/*
 * Our own contribution. Callbacks never run inside this call: entries that
 * arrived before it, and our own, are reported by the flush it arms, at
 * the end of the current event-loop turn.
 */
int flood_state_allgather(flood_state_t *st, uint32_t id, const void *data,
                          size_t len, const hnp_exchange_callbacks_t *cb)
{
    flood_coll_t *c = flood_coll_find(st, id);
    bool fresh = c == NULL;
    int rc;

    if (cb == NULL || cb->learned == NULL || cb->complete == NULL ||
        len > UINT32_MAX || (data == NULL && len > 0))
        return HNP_ERR_BAD_PARAM;
    if ((rc = flood_state_sync(st)) != HNP_SUCCESS)
        return rc;
    if (flood_id_is_recent(st, id, NULL) || (c != NULL && c->joined))
        return HNP_ERR_EXISTS;
    /* Armed first: a spurious flush is harmless, a contribution stored
     * without one would never leave. */
    if ((rc = flood_schedule_flush(st)) != HNP_SUCCESS ||
        (rc = flood_coll_get(st, id, &c)) != HNP_SUCCESS)
        return rc;
    rc = flood_coll_store(c, st->self, data, (uint32_t)len, st->self);
    if (rc != HNP_SUCCESS) {
        if (fresh)
            flood_coll_free(st, c);
        return rc;
    }
    c->joined = true;
    c->cb = *cb;
    if (c->members > 0)
        HNP_VERBOSE(st->log, 5, "flood: vpid %u joins all-gather %u with %u "
                    "of %u entries known", st->self, id, c->known, c->members);
    else
        HNP_VERBOSE(st->log, 5, "flood: vpid %u joins all-gather %u with %u "
                    "entries known (its parent will say how many it has)",
                    st->self, id, c->known);
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ the module */

/* The module's state: one runtime a process. */
static flood_state_t *flood_process;

static int flood_init(struct hnp_rte *rte)
{
    if (flood_process != NULL)
        return HNP_ERR_EXISTS;
    return flood_state_create(rte, exchange_flood_batch_delay, &flood_process);
}

static int flood_allgather(struct hnp_rte *rte, uint32_t id, const void *data,
                           size_t len, const hnp_exchange_callbacks_t *cb)
{
    (void)rte;
    if (flood_process == NULL)
        return HNP_ERR_NOT_AVAILABLE;
    return flood_state_allgather(flood_process, id, data, len, cb);
}

static int flood_grow(struct hnp_rte *rte, uint32_t nprocs)
{
    (void)rte;
    if (flood_process == NULL)
        return HNP_ERR_NOT_AVAILABLE;
    return flood_state_grow(flood_process, nprocs);
}

static void flood_finalize(struct hnp_rte *rte)
{
    (void)rte;
    flood_state_destroy(flood_process);
    flood_process = NULL;
}

/*
 * child_joined stays NULL: a child that has joined but not reported gets
 * nothing yet (Algorithm 2's OldChildren are the children that reported),
 * so that it receives what it lacks in one message when it reports instead
 * of a trickle while it still waits for its own subtree.
 */
/* How many of the HNP's descriptors gather_scatter's connections may take:
 * one in FLOOD_FD_SHARE. */
#define FLOOD_FD_SHARE 4

/* The HNP's descriptor limit; it has raised its soft limit to the hard one
 * by the time it chooses. */
static uint64_t hnp_descriptor_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    return (uint64_t)rl.rlim_cur;
}

/*
 * Above gather_scatter where the spawn tree is not flat and either the job
 * has exchange_flood_min_nodes daemons or more, or gather_scatter's
 * connection per daemon would take more than a quarter of the HNP's
 * descriptors (a 4,096-node job would need 4,096). Flooding keeps the
 * HNP's connections to its tree neighbours, but costs the daemons more
 * CPU (more and smaller messages, each with its MAC and system calls), so
 * gather_scatter runs wherever its descriptors fit and its tables, all
 * sent by the HNP, are not yet the larger cost. Under a flat tree the HNP
 * is every daemon's parent anyway.
 */
static int flood_job_priority(const hnp_exchange_job_t *job, int priority)
{
    if (exchange_flood_min_nodes == 0 || job->hnp_children >= job->ndaemons)
        return priority;
    if (job->ndaemons >= exchange_flood_min_nodes ||
        (uint64_t)job->ndaemons * FLOOD_FD_SHARE > hnp_descriptor_limit())
        return EXCHANGE_FLOOD_SCALE_PRIORITY;
    return priority;
}

const hnp_exchange_module_t exchange_flood_module = {
    .init = flood_init,
    .allgather = flood_allgather,
    .child_joined = NULL,
    .finalize = flood_finalize,
    .job_priority = flood_job_priority,
    .hnp_connections = NULL, /* its neighbours are the spawn tree's */
    .grow = flood_grow,
};
