/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Daemons added to a running runtime take the next vpids. Everything this
 * process holds by vpid grows here, in one place, so that no table sized
 * at launch is read past its end once vpids beyond the first launch exist.
 *
 * The routing trees allow it: binomial, radix and direct give every
 * vertex a parent independent of the tree's size, so the routes among
 * the first processes stay as they were and the new daemons hang below
 * daemons already running. The spawn tree keeps every spawn parent and
 * takes the new daemons as the HNP's children: the HNP starts them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rte.h"

/* The node names of the grown runtime, in one block. */
static char **grown_names(const hnp_rte_t *rte, uint32_t nprocs,
                          char *const *new_names)
{
    char **all = calloc(nprocs, sizeof(*all));
    char **copy;

    if (all == NULL)
        return NULL;
    for (uint32_t v = 0; v < rte->nprocs && rte->node_names != NULL; v++)
        all[v] = rte->node_names[v];
    for (uint32_t v = rte->nprocs; v < nprocs; v++)
        all[v] = new_names[v - rte->nprocs];
    copy = hnp_rte_strings_copy(nprocs, all, NULL);
    free(all);
    return copy;
}

/* @p *table, of @p size bytes an entry, longer: its new entries zero. A
 * longer table is harmless to a runtime that did not grow after all. */
static int lengthen(void **table, uint32_t from, uint32_t to, size_t size)
{
    void *longer;

    if (*table == NULL)
        return HNP_SUCCESS;
    longer = realloc(*table, (size_t)to * size);
    if (longer == NULL)
        return HNP_ERR_NOMEM;
    memset((char *)longer + (size_t)from * size, 0, (size_t)(to - from) * size);
    *table = longer;
    return HNP_SUCCESS;
}

/* The tables that may only lengthen; on failure the runtime is as it was,
 * some of them longer. */
static int lengthen_tables(hnp_rte_t *rte, uint32_t nprocs)
{
    uint32_t from = rte->nprocs;
    int rc = lengthen((void **)&rte->uris, from, nprocs, sizeof(char *));

    if (rc == HNP_SUCCESS)
        rc = lengthen((void **)&rte->uri_wanted, from, nprocs, sizeof(bool));
    if (rc == HNP_SUCCESS)
        rc = lengthen((void **)&rte->left, (from + 7) / 8, (nprocs + 7) / 8, 1);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_spawn_notes_grow(rte, nprocs);
    return rc;
}

bool hnp_rte_can_grow(const hnp_rte_t *rte)
{
    return rte->exchange == NULL || rte->exchange->grow != NULL;
}

int hnp_rte_grow(hnp_rte_t *rte, uint32_t nprocs, char *const *new_names)
{
    hnp_tree_t routing = { 0 }, spawn = { 0 };
    char **names = NULL;
    int rc;

    if (nprocs <= rte->nprocs || rte->routed == NULL || new_names == NULL)
        return HNP_ERR_BAD_PARAM;
    if (!hnp_rte_can_grow(rte))
        return HNP_ERR_NOT_AVAILABLE;
    names = grown_names(rte, nprocs, new_names);
    rc = names != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
    if (rc == HNP_SUCCESS)
        rc = rte->routed->spanning_tree(nprocs, &routing);
    if (rc == HNP_SUCCESS && rte->spawn_tree.n > 0)
        rc = hnp_tree_extend(&rte->spawn_tree, nprocs, &spawn);
    if (rc == HNP_SUCCESS)
        rc = lengthen_tables(rte, nprocs);
    if (rc == HNP_SUCCESS) /* the last that may fail: it changes more */
        rc = hnp_rte_heartbeat_grow(rte, nprocs);
    if (rc != HNP_SUCCESS)
        goto cleanup;
    free(rte->node_names);
    rte->node_names = names;
    names = NULL;
    hnp_rte_release_trees(&rte->spawn_tree, &rte->routing_tree);
    rte->routing_tree = routing;
    rte->spawn_tree = spawn;
    routing = spawn = (hnp_tree_t){ 0 };
    HNP_VERBOSE(rte->log, 1, "the runtime grows from %u to %u processes",
                rte->nprocs, nprocs);
    rte->nprocs = nprocs;
    if (rte->oob != NULL)
        hnp_oob_set_nprocs(rte->oob, nprocs);
cleanup:
    hnp_rte_release_trees(&spawn, &routing);
    free(names);
    return rc;
}

int hnp_rte_grow_collectives(hnp_rte_t *rte)
{
    if (rte->exchange == NULL || rte->exchange->grow == NULL)
        return HNP_ERR_NOT_AVAILABLE;
    return rte->exchange->grow(rte, rte->nprocs);
}
