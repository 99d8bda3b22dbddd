/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_routed.h
 * @brief The `routed` framework: who forwards to whom.
 *
 * A routed module answers, for the runtime's processes 0..nprocs-1 (0 is
 * the HNP, 1..N the daemons), the parent and children of a process and the
 * next hop towards any destination. It is used for the launch broadcast of
 * phase 3 and for every message after it; the runtime keeps connections only
 * to a process's routing neighbours.
 *
 * The functions are pure: the same arguments give the same answer in every
 * process, which is what lets each daemon compute its part of the topology
 * without asking anyone.
 */
#ifndef HNP_ROUTED_H
#define HNP_ROUTED_H

#include "hnp_mca.h"
#include "hnp_tree.h"

/* 2.0: hnp_tree_t, which spanning_tree fills, grew the explicit kind. */
#define HNP_ROUTED_INTERFACE_VERSION HNP_MCA_VERSION(2, 0, 0)

typedef struct hnp_routed_module {
    /** The spanning tree of this topology over @p nprocs processes; used to
     *  spawn along the routing tree and to draw the topology. An explicit
     *  tree stays the component's: callers hold a view and never release
     *  it. */
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

#endif /* HNP_ROUTED_H */
