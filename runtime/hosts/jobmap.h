/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job map: which rank runs on which node. Ranks fill each node's slots
 * in turn (by slot), or go round the nodes (by node); -N puts K on every
 * node. Nodes that get no process get no daemon.
 */
#ifndef HNP_JOBMAP_H
#define HNP_JOBMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "hostlist.h"

typedef enum hnp_map_policy {
    HNP_MAP_BY_SLOT,
    HNP_MAP_BY_NODE,
} hnp_map_policy_t;

/* The order of the ranks over the nodes, once each node's count is set:
 * the policy's own (slot: consecutive; node: round robin), consecutive on
 * each node (--rank-by slot), or one a node in turn (--rank-by node). */
typedef enum hnp_rank_policy {
    HNP_RANK_DEFAULT,
    HNP_RANK_FILL,
    HNP_RANK_SPAN,
} hnp_rank_policy_t;

typedef struct hnp_map_request {
    uint32_t np;        /**< processes; 0: one per slot (or npernode*nodes) */
    uint32_t npernode;  /**< 0: not given */
    const char *npernode_option; /**< how the user asked for npernode, for
                                      messages ("--map-by ppr:1:socket");
                                      NULL: "-N K" */
    hnp_map_policy_t policy;
    bool oversubscribe;
    uint32_t default_slots; /**< for nodes whose slots nobody gave */
    hnp_rank_policy_t ranking;
    const uint32_t *fixed_node; /**< [np]: each rank's host (a rankfile);
                                     NULL: mapped by the policy */
    bool keep_idle_nodes; /**< hosts that get no process stay in the map
                               (local_size 0), after those that do, in
                               host order: they get daemons too */
} hnp_map_request_t;

typedef struct hnp_job_map {
    uint32_t nprocs;
    uint32_t nnodes;       /**< nodes that run at least one process
                                (and, with keep_idle_nodes, after them,
                                those that run none) */
    char **node_names;     /**< [nnodes]; node i gets daemon vpid i + 1 */
    uint32_t *node_of;     /**< [nprocs]: node index of each rank */
    uint32_t *local_rank;  /**< [nprocs] */
    uint32_t *local_size;  /**< [nnodes]: processes on each node */
    uint32_t *node_slots;  /**< [nnodes]: each node's slots (given, or the
                                default) */
    uint32_t universe_size; /**< the slots of the nodes used, at least
                                 nprocs */
} hnp_job_map_t;

/** Map; errors say how many slots there are when np does not fit. */
int hnp_job_map_build(const hnp_nodelist_t *nodes,
                      const hnp_map_request_t *req, hnp_job_map_t *map,
                      char *err, size_t errlen);
void hnp_job_map_free(hnp_job_map_t *map);

/** Put the map's nodes, and so the daemons' vpids, in the order of
 *  @p order; nodes it does not list follow, in their order. Every rank
 *  stays on its node, with its local rank. */
int hnp_job_map_order_nodes(hnp_job_map_t *map, const hnp_nodelist_t *order);

/** Give the map new per-node arrays of @p nnodes nodes (taken over; the
 *  old ones are freed): rank r's node n becomes @p new_of[n]. */
void hnp_job_map_adopt_nodes(hnp_job_map_t *map, const uint32_t *new_of,
                             uint32_t nnodes, char **names, uint32_t *size,
                             uint32_t *slots);

/** The ranks on node @p node in increasing order (out has local_size[node]
 *  room); returns how many. */
uint32_t hnp_job_map_ranks_on(const hnp_job_map_t *map, uint32_t node,
                              uint32_t *out);

#endif /* HNP_JOBMAP_H */
