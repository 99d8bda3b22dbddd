/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_plm.h
 * @brief The `plm` framework: phase 1, one daemon onto every node.
 *
 * The HNP calls launch_daemons() once. A module starts the daemons it is
 * responsible for through the runtime's launch services (command line,
 * environment, secret and agent error capture are shared runtime code) and
 * describes the spawn tree it builds, so that the runtime can hand every
 * connecting child the list of its subtree and the exchange can flood along
 * it (Algorithms 1 and 2 of Bosilca, Herault, Rezmerita and Dongarra, "On
 * Scalability for MPI Runtime Systems"):
 *
 *  - a flat launcher (rsh, slurm) spawns every daemon from the HNP: its
 *    spawn tree is flat, and daemons never call spawn_subtree();
 *  - a tree launcher (prsh) spawns only the HNP's children; each daemon,
 *    once it has received its subtree from its parent, calls
 *    spawn_subtree() to start its own children.
 *
 * The runtime context is opaque here; components reach it through the
 * runtime services header.
 */
#ifndef HNP_PLM_H
#define HNP_PLM_H

#include "hnp_mca.h"
#include "hnp_tree.h"

/* 2.0: hnp_tree_t, which spawn_tree fills, grew the explicit kind.
 * 3.0: the caller owns the tree spawn_tree fills, and releases it; init
 *      and spawn_tree may be NULL. */
#define HNP_PLM_INTERFACE_VERSION HNP_MCA_VERSION(3, 0, 0)

struct hnp_rte;

typedef struct hnp_plm_module {
    /** Prepare this process (HNP or daemon) for launching. May be NULL. */
    int (*init)(struct hnp_rte *rte);
    /**
     * The spawn tree over the runtime's @p nprocs processes (0 is the HNP).
     * @p routing is the routing topology's spanning tree, for launchers
     * that spawn along it. On success the caller owns *out and releases it
     * with hnp_tree_release() (nothing to free for a tree given by formula,
     * or a copy of @p routing). May be NULL: the flat tree, every daemon
     * a child of the HNP.
     */
    int (*spawn_tree)(struct hnp_rte *rte, uint32_t nprocs,
                      const hnp_tree_t *routing, hnp_tree_t *out);
    /** HNP only: start phase 1. Returns once the launches are under way. */
    int (*launch_daemons)(struct hnp_rte *rte);
    /**
     * Daemon only: this daemon has received from its parent the list of its
     * subtree; start its direct children. NULL for flat launchers.
     */
    int (*spawn_subtree)(struct hnp_rte *rte);
    /** Stop launches in progress and release resources. May be NULL. */
    void (*finalize)(struct hnp_rte *rte);
    /**
     * May be NULL. HNP only: the nodes of the allocation this
     * launcher runs in (a batch system's), in the order the batch system
     * numbers them, by calling @p add for each with its slots (0: unknown).
     * HNP_ERR_NOT_AVAILABLE when there is none.
     */
    int (*allocated_nodes)(struct hnp_rte *rte,
                           void (*add)(void *ctx, const char *node,
                                       uint32_t slots),
                           void *ctx);
    void *reserved[3]; /**< room to grow; NULL */
} hnp_plm_module_t;

#endif /* HNP_PLM_H */
