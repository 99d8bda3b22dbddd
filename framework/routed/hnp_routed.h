/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_routed.h
 * @brief The `routed` framework: who forwards to whom.
 *
 * A routed module answers, for the runtime's processes 0..nprocs-1 (0 is
 * the HNP, 1..N the daemons), the parent and children of a process and the
 * next hop towards any destination. It is used for the launch broadcast of
 * phase 3 and for every message after it: a daemon talks to its routing
 * neighbours, and otherwise only to its spawn-tree neighbours and the HNP.
 *
 * The functions are pure: the same arguments give the same answer in every
 * process, which is what lets each daemon compute its part of the topology
 * without asking anyone.
 */
#ifndef HNP_ROUTED_H
#define HNP_ROUTED_H

#include "hnp_mca.h"
#include "hnp_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2.0: hnp_tree_t, which spanning_tree fills, grew the explicit kind.
 * 3.0: the tree spanning_tree fills is the caller's (hnp_tree.h), as a
 *      plm's spawn_tree is: an explicit one is no longer the component's. */
#define HNP_ROUTED_INTERFACE_VERSION HNP_MCA_VERSION(3, 0, 0)

typedef struct hnp_routed_module {
    /** The spanning tree of this topology over @p nprocs processes; used to
     *  spawn along the routing tree and to draw the topology. Pure like the
     *  rest. The tree is the caller's, who releases it (hnp_tree.h's one
     *  ownership rule): build an explicit one anew at each call. */
    int (*spanning_tree)(uint32_t nprocs, hnp_tree_t *out);
    /** Parent of @p vpid; HNP_VPID_INVALID for the HNP. */
    hnp_vpid_t (*parent)(hnp_vpid_t vpid, uint32_t nprocs);
    /** Children of @p vpid (see hnp_tree_children() for out/max). */
    uint32_t (*children)(hnp_vpid_t vpid, uint32_t nprocs, hnp_vpid_t *out,
                         uint32_t max);
    /** Where @p self sends a message for @p dest. */
    hnp_vpid_t (*next_hop)(hnp_vpid_t self, hnp_vpid_t dest, uint32_t nprocs);
    void *reserved[4]; /**< room to grow; NULL */
} hnp_routed_module_t;

/**
 * Define @p module, a routed module whose topology is a tree given by
 * formula: @p tree_of is a function `hnp_tree_t tree_of(uint32_t nprocs)`
 * (hnp_tree_binomial(), or one of the component's own, which may read a
 * parameter at every call). Every answer comes from the tree math of
 * hnp_tree.h, so the spanning tree and the routes agree by construction.
 * Only for trees given by formula: the routes would build an explicit one
 * again at every call.
 */
#define HNP_ROUTED_TREE_MODULE(module, tree_of)                            \
    static int module##_spanning_tree(uint32_t nprocs, hnp_tree_t *out)  \
    {                                                                      \
        if (out == NULL || nprocs == 0)                                    \
            return HNP_ERR_BAD_PARAM;                                      \
        *out = tree_of(nprocs);                                            \
        return HNP_SUCCESS;                                                \
    }                                                                      \
    static hnp_vpid_t module##_parent(hnp_vpid_t vpid, uint32_t nprocs)   \
    {                                                                      \
        hnp_tree_t t = tree_of(nprocs);                                    \
        return hnp_tree_parent(&t, vpid);                                  \
    }                                                                      \
    static uint32_t module##_children(hnp_vpid_t vpid, uint32_t nprocs,   \
                                      hnp_vpid_t *out, uint32_t max)       \
    {                                                                      \
        hnp_tree_t t = tree_of(nprocs);                                    \
        return hnp_tree_children(&t, vpid, out, max);                      \
    }                                                                      \
    static hnp_vpid_t module##_next_hop(hnp_vpid_t self, hnp_vpid_t dest, \
                                        uint32_t nprocs)                   \
    {                                                                      \
        hnp_tree_t t = tree_of(nprocs);                                    \
        return hnp_tree_next_hop(&t, self, dest);                          \
    }                                                                      \
    const hnp_routed_module_t module = {                                   \
        .spanning_tree = module##_spanning_tree,                           \
        .parent = module##_parent,                                         \
        .children = module##_children,                                     \
        .next_hop = module##_next_hop,                                     \
    }

#ifdef __cplusplus
}
#endif

#endif /* HNP_ROUTED_H */
