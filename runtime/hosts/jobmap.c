/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job map: which rank runs on which node.
 *
 * Every node has a capacity: its slots (given, or the request's default),
 * or K with -N K. Ranks are dealt out in increasing order, so a node's
 * local ranks follow its global ranks. By slot fills each node before the
 * next; by node deals one to every node that still has room, round after
 * round. Past the capacity (--oversubscribe) both go round all the nodes.
 *
 * Nodes that get no process are dropped from the map, since the launcher
 * starts a daemon on every node of the map and an idle daemon only costs
 * launch time.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "jobmap.h"

/* What the mapping works on: one capacity and one count per host. */
typedef struct map_work {
    uint32_t nhosts;
    uint32_t *slots; /* per host: given or default */
    uint32_t *cap;   /* per host: slots, or K with -N */
    uint32_t *count; /* per host: processes placed */
    uint32_t np;
} map_work_t;

static const char *plural(uint64_t n, const char *many)
{
    return n == 1 ? "" : many;
}

static void work_free(map_work_t *w)
{
    free(w->slots);
    free(w->cap);
    free(w->count);
}

static int work_init(map_work_t *w, const hnp_nodelist_t *nodes,
                     const hnp_map_request_t *req)
{
    w->nhosts = (uint32_t)nodes->count;
    w->slots = calloc(w->nhosts, sizeof(*w->slots));
    w->cap = calloc(w->nhosts, sizeof(*w->cap));
    w->count = calloc(w->nhosts, sizeof(*w->count));
    if (w->slots == NULL || w->cap == NULL || w->count == NULL)
        return HNP_ERR_NOMEM;
    /* A default of 0 would make every unnamed node useless; one slot is
     * what a host without any information can surely run. */
    uint32_t dflt = req->default_slots > 0 ? req->default_slots : 1;
    for (uint32_t i = 0; i < w->nhosts; i++) {
        const hnp_node_t *n = &nodes->nodes[i];
        w->slots[i] = n->slots_given ? n->slots : dflt;
        w->cap[i] = req->npernode > 0 ? req->npernode : w->slots[i];
    }
    return HNP_SUCCESS;
}

/* The option that asked for req->npernode, as the user gave it. */
static void npernode_option(const hnp_map_request_t *req, char *out,
                            size_t size)
{
    if (req->npernode_option != NULL)
        snprintf(out, size, "%s (%" PRIu32 " a node)", req->npernode_option,
                 req->npernode);
    else
        snprintf(out, size, "-N %" PRIu32, req->npernode);
}

/* How many processes, and whether the capacity holds them. */
static int resolve_np(map_work_t *w, const hnp_map_request_t *req,
                      char *err, size_t errlen)
{
    uint64_t total = 0;

    if (req->fixed_node != NULL) {
        w->np = req->np;
        return HNP_SUCCESS;
    }
    for (uint32_t i = 0; i < w->nhosts; i++)
        total += w->cap[i];
    if (req->np == 0 && total > UINT32_MAX) {
        hnp_err_set(err, errlen, "the %" PRIu32 " nodes have %" PRIu64
                    " slots, more processes than a job can have (give -n)",
                    w->nhosts, total);
        return HNP_ERR_BAD_PARAM;
    }
    w->np = req->np > 0 ? req->np : (uint32_t)total;
    if (w->np == 0) {
        hnp_err_set(err, errlen, "the %" PRIu32 " node%s ha%s no slots",
                    w->nhosts, plural(w->nhosts, "s"),
                    w->nhosts == 1 ? "s" : "ve");
        return HNP_ERR_BAD_PARAM;
    }
    if (w->np <= total)
        return HNP_SUCCESS;
    if (req->npernode > 0) {
        char option[128];
        npernode_option(req, option, sizeof(option));
        hnp_err_set(err, errlen, "%" PRIu32 " process%s requested but %s "
                    "on %" PRIu32 " node%s makes %" PRIu64, w->np,
                    plural(w->np, "es"), option, w->nhosts,
                    plural(w->nhosts, "s"), total);
        return HNP_ERR_BAD_PARAM;
    }
    if (!req->oversubscribe) {
        hnp_err_set(err, errlen, "%" PRIu32 " process%s requested but the %"
                    PRIu32 " node%s ha%s %" PRIu64 " slot%s (use "
                    "--oversubscribe to allow more)", w->np,
                    plural(w->np, "es"), w->nhosts, plural(w->nhosts, "s"),
                    w->nhosts == 1 ? "s" : "ve", total, plural(total, "s"));
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* Past every capacity: one more on each host in turn. */
static void deal_round_robin(map_work_t *w, uint32_t rank, uint32_t *node_of)
{
    for (uint32_t i = 0; rank < w->np; i = (i + 1) % w->nhosts) {
        node_of[rank++] = i;
        w->count[i]++;
    }
}

static void map_by_slot(map_work_t *w, uint32_t *node_of)
{
    uint32_t rank = 0;

    for (uint32_t i = 0; i < w->nhosts && rank < w->np; i++)
        for (; w->count[i] < w->cap[i] && rank < w->np; w->count[i]++)
            node_of[rank++] = i;
    deal_round_robin(w, rank, node_of);
}

/* Rounds over the hosts with room left; full hosts leave the round list,
 * so the cost is the number of processes, not rounds times hosts. */
static int map_by_node(map_work_t *w, uint32_t *node_of)
{
    uint32_t *open = malloc((size_t)w->nhosts * sizeof(*open));
    uint32_t nopen = 0, rank = 0;

    if (open == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < w->nhosts; i++)
        if (w->cap[i] > 0)
            open[nopen++] = i;
    while (nopen > 0 && rank < w->np) {
        uint32_t kept = 0;
        for (uint32_t j = 0; j < nopen && rank < w->np; j++) {
            uint32_t i = open[j];
            node_of[rank++] = i;
            if (++w->count[i] < w->cap[i])
                open[kept++] = i;
        }
        nopen = rank < w->np ? kept : 0;
    }
    free(open);
    deal_round_robin(w, rank, node_of);
    return HNP_SUCCESS;
}

/* A rankfile: each rank on the host it names, slots or not (Open MPI
 * does not count a rankfile's ranks against slots either). */
static void map_fixed(map_work_t *w, const uint32_t *fixed, uint32_t *node_of)
{
    for (uint32_t r = 0; r < w->np; r++) {
        node_of[r] = fixed[r];
        w->count[fixed[r]]++;
    }
}

/* --rank-by: keep each host's count, renumber the ranks over the hosts:
 * consecutive on each (fill), or one a host in turn (span). */
static void rank_again(map_work_t *w, hnp_rank_policy_t ranking,
                       uint32_t *node_of)
{
    uint32_t *left = w->count, rank = 0;

    if (ranking == HNP_RANK_FILL) {
        for (uint32_t i = 0; i < w->nhosts; i++)
            for (uint32_t k = 0; k < left[i]; k++)
                node_of[rank++] = i;
        return;
    }
    uint32_t *taken = calloc(w->nhosts, sizeof(*taken));
    if (taken == NULL)
        return; /* the policy's own order stands */
    while (rank < w->np)
        for (uint32_t i = 0; i < w->nhosts && rank < w->np; i++)
            if (taken[i] < left[i]) {
                taken[i]++;
                node_of[rank++] = i;
            }
    free(taken);
}

/* -N K can ask for more than the slots a user gave a node; a node whose
 * slots nobody gave takes the K it is asked for. */
static int check_slots(const map_work_t *w, const hnp_nodelist_t *nodes,
                       const hnp_map_request_t *req, char *err,
                       size_t errlen)
{
    if (req->oversubscribe || req->npernode == 0)
        return HNP_SUCCESS;
    for (uint32_t i = 0; i < w->nhosts; i++) {
        char option[128];
        if (w->count[i] <= w->slots[i] || !nodes->nodes[i].slots_given)
            continue;
        npernode_option(req, option, sizeof(option));
        hnp_err_set(err, errlen, "%s puts %" PRIu32 " process%s"
                    " on %s, which has %" PRIu32 " slot%s (use "
                    "--oversubscribe to allow more)", option,
                    w->count[i], plural(w->count[i], "es"),
                    nodes->nodes[i].name, w->slots[i],
                    plural(w->slots[i], "s"));
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* Keep the hosts that got a process, in host order, and renumber; with
 * @p keep_idle, the others after them. */
static int fill_map(const map_work_t *w, const hnp_nodelist_t *nodes,
                    bool keep_idle, hnp_job_map_t *map)
{
    uint32_t *index = malloc((size_t)w->nhosts * sizeof(*index));

    if (index == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < w->nhosts; i++)
        if (w->count[i] > 0)
            index[i] = map->nnodes++;
    for (uint32_t i = 0; keep_idle && i < w->nhosts; i++)
        if (w->count[i] == 0)
            index[i] = map->nnodes++;
    map->node_names = calloc(map->nnodes, sizeof(*map->node_names));
    map->local_size = calloc(map->nnodes, sizeof(*map->local_size));
    map->node_slots = calloc(map->nnodes, sizeof(*map->node_slots));
    if (map->node_names == NULL || map->local_size == NULL ||
        map->node_slots == NULL)
        goto nomem;
    for (uint32_t i = 0; i < w->nhosts; i++) {
        if (w->count[i] == 0 && !keep_idle)
            continue;
        map->node_names[index[i]] = strdup(nodes->nodes[i].name);
        if (map->node_names[index[i]] == NULL)
            goto nomem;
        map->node_slots[index[i]] = w->slots[i];
        if (map->universe_size <= UINT32_MAX - w->slots[i])
            map->universe_size += w->slots[i];
    }
    if (map->universe_size < map->nprocs)
        map->universe_size = map->nprocs;
    for (uint32_t r = 0; r < map->nprocs; r++) {
        uint32_t node = index[map->node_of[r]];
        map->node_of[r] = node;
        map->local_rank[r] = map->local_size[node]++;
    }
    free(index);
    return HNP_SUCCESS;
nomem:
    free(index);
    return HNP_ERR_NOMEM;
}

static int check_request(const hnp_nodelist_t *nodes,
                         const hnp_map_request_t *req, hnp_job_map_t *map,
                         char *err, size_t errlen)
{
    if (nodes == NULL || req == NULL || map == NULL) {
        hnp_err_set(err, errlen, "no hosts or no request to map");
        return HNP_ERR_BAD_PARAM;
    }
    if (nodes->count == 0) {
        hnp_err_set(err, errlen, "no hosts to run on");
        return HNP_ERR_BAD_PARAM;
    }
    for (uint32_t r = 0; req->fixed_node != NULL && r < req->np; r++)
        if (req->fixed_node[r] >= nodes->count) {
            hnp_err_set(err, errlen, "rank %" PRIu32 " is mapped to host %"
                        PRIu32 " of %zu", r, req->fixed_node[r],
                        nodes->count);
            return HNP_ERR_BAD_PARAM;
        }
    if (nodes->count > UINT32_MAX) {
        hnp_err_set(err, errlen, "more than %" PRIu32 " hosts", UINT32_MAX);
        return HNP_ERR_BAD_PARAM;
    }
    if (req->policy != HNP_MAP_BY_SLOT && req->policy != HNP_MAP_BY_NODE) {
        hnp_err_set(err, errlen, "unknown mapping policy %d",
                    (int)req->policy);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

int hnp_job_map_build(const hnp_nodelist_t *nodes,
                      const hnp_map_request_t *req, hnp_job_map_t *map,
                      char *err, size_t errlen)
{
    map_work_t w = { 0, NULL, NULL, NULL, 0 };
    hnp_job_map_t m = { 0 };
    int rc = check_request(nodes, req, map, err, errlen);

    if (rc < 0)
        return rc;
    rc = work_init(&w, nodes, req);
    if (rc == HNP_SUCCESS)
        rc = resolve_np(&w, req, err, errlen);
    if (rc < 0)
        goto out;
    m.nprocs = w.np;
    m.node_of = calloc(w.np, sizeof(*m.node_of));
    m.local_rank = calloc(w.np, sizeof(*m.local_rank));
    rc = m.node_of == NULL || m.local_rank == NULL ? HNP_ERR_NOMEM
                                                    : HNP_SUCCESS;
    if (rc == HNP_SUCCESS && req->fixed_node != NULL)
        map_fixed(&w, req->fixed_node, m.node_of);
    else if (rc == HNP_SUCCESS && req->policy == HNP_MAP_BY_NODE)
        rc = map_by_node(&w, m.node_of);
    else if (rc == HNP_SUCCESS)
        map_by_slot(&w, m.node_of);
    if (rc == HNP_SUCCESS && req->fixed_node == NULL)
        rc = check_slots(&w, nodes, req, err, errlen);
    if (rc == HNP_SUCCESS && req->ranking != HNP_RANK_DEFAULT)
        rank_again(&w, req->ranking, m.node_of);
    if (rc == HNP_SUCCESS)
        rc = fill_map(&w, nodes, req->keep_idle_nodes, &m);
out:
    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory mapping %" PRIu32
                    " processes", w.np);
    if (rc == HNP_SUCCESS)
        *map = m;
    else
        hnp_job_map_free(&m);
    work_free(&w);
    return rc;
}

void hnp_job_map_free(hnp_job_map_t *map)
{
    if (map == NULL)
        return;
    for (uint32_t i = 0; map->node_names != NULL && i < map->nnodes; i++)
        free(map->node_names[i]);
    free(map->node_names);
    free(map->node_of);
    free(map->local_rank);
    free(map->local_size);
    free(map->node_slots);
    memset(map, 0, sizeof(*map));
}

uint32_t hnp_job_map_ranks_on(const hnp_job_map_t *map, uint32_t node,
                              uint32_t *out)
{
    uint32_t found = 0;

    if (map == NULL || node >= map->nnodes)
        return 0;
    /* Ranks are in increasing order already; stop once the node is full. */
    for (uint32_t r = 0; r < map->nprocs && found < map->local_size[node];
         r++)
        if (map->node_of[r] == node)
            out[found++] = r;
    return found;
}

/* ------------------------------------------------------------ reorder */

typedef struct keyed_name {
    const char *name;
    size_t key; /* position in the wanted order; SIZE_MAX: not in it */
    uint32_t node;
} keyed_name_t;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const keyed_name_t *)a)->name,
                  ((const keyed_name_t *)b)->name);
}

static int by_key(const void *a, const void *b)
{
    const keyed_name_t *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Apply new_of[old node] = new node to every per-node array. */
static int permute_nodes(hnp_job_map_t *map, const uint32_t *new_of)
{
    char **names = calloc(map->nnodes, sizeof(*names));
    uint32_t *size = calloc(map->nnodes, sizeof(*size));
    uint32_t *slots = calloc(map->nnodes, sizeof(*slots));

    if (names == NULL || size == NULL || slots == NULL) {
        free(names);
        free(size);
        free(slots);
        return HNP_ERR_NOMEM;
    }
    for (uint32_t n = 0; n < map->nnodes; n++) {
        names[new_of[n]] = map->node_names[n];
        size[new_of[n]] = map->local_size[n];
        slots[new_of[n]] = map->node_slots[n];
    }
    for (uint32_t n = 0; n < map->nnodes; n++)
        map->node_names[n] = NULL; /* moved into names */
    hnp_job_map_adopt_nodes(map, new_of, map->nnodes, names, size, slots);
    return HNP_SUCCESS;
}

void hnp_job_map_adopt_nodes(hnp_job_map_t *map, const uint32_t *new_of,
                             uint32_t nnodes, char **names, uint32_t *size,
                             uint32_t *slots)
{
    for (uint32_t r = 0; r < map->nprocs; r++)
        map->node_of[r] = new_of[map->node_of[r]];
    for (uint32_t n = 0; n < map->nnodes; n++)
        free(map->node_names[n]);
    free(map->node_names);
    free(map->local_size);
    free(map->node_slots);
    map->node_names = names;
    map->local_size = size;
    map->node_slots = slots;
    map->nnodes = nnodes;
}

int hnp_job_map_order_nodes(hnp_job_map_t *map, const hnp_nodelist_t *order)
{
    keyed_name_t *wanted = calloc(order->count + 1, sizeof(*wanted));
    keyed_name_t *nodes = calloc(map->nnodes + 1, sizeof(*nodes));
    uint32_t *new_of = calloc(map->nnodes + 1, sizeof(*new_of));
    int rc = HNP_ERR_NOMEM;

    if (wanted == NULL || nodes == NULL || new_of == NULL)
        goto out;
    for (size_t i = 0; i < order->count; i++)
        wanted[i] = (keyed_name_t){ order->nodes[i].name, i, 0 };
    qsort(wanted, order->count, sizeof(*wanted), by_name);
    for (uint32_t n = 0; n < map->nnodes; n++) {
        keyed_name_t probe = { map->node_names[n], SIZE_MAX, n };
        const keyed_name_t *hit = bsearch(&probe, wanted, order->count,
                                          sizeof(*wanted), by_name);
        nodes[n] = probe;
        if (hit != NULL)
            nodes[n].key = hit->key;
    }
    qsort(nodes, map->nnodes, sizeof(*nodes), by_key);
    for (uint32_t n = 0; n < map->nnodes; n++)
        new_of[nodes[n].node] = n;
    rc = permute_nodes(map, new_of);
out:
    free(wanted);
    free(nodes);
    free(new_of);
    return rc;
}
