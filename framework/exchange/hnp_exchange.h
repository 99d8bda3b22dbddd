/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_exchange.h
 * @brief The `exchange` framework: an all-gather among the runtime's processes.
 *
 * Phase 2 uses it to give every daemon every daemon's contact URI; the same
 * operation later serves the applications' key-value fence. Each process
 * contributes one blob; the module spreads the blobs by messages of the
 * runtime services and reports each one as it is learnt, so that messages
 * waiting for a peer's URI can leave as early as possible, then reports
 * completion once every contribution is known.
 *
 *  - gather_scatter: everyone sends to the HNP, which sends the full table
 *    back to everyone;
 *  - flood: Algorithm 2 of Bosilca, Herault, Rezmerita and Dongarra, "On
 *    Scalability for MPI Runtime Systems": contributions climb the spawn
 *    tree (which the runtime services describe), accumulated into one
 *    message per parent, and what a process learns flows down to the
 *    children that have reported theirs.
 */
#ifndef HNP_EXCHANGE_H
#define HNP_EXCHANGE_H

#include <stddef.h>

#include "hnp_mca.h"
#include "hnp_tree.h"

#define HNP_EXCHANGE_INTERFACE_VERSION HNP_MCA_VERSION(2, 0, 0)

struct hnp_rte;

/** What an all-gather tells its caller. */
typedef struct hnp_exchange_callbacks {
    /** The contribution of @p vpid is known here (called once per vpid). */
    void (*learned)(void *cbdata, hnp_vpid_t vpid, const void *data,
                    size_t len);
    /** Every contribution is known here (status 0), or the operation failed. */
    void (*complete)(void *cbdata, int status);
    void *cbdata;
} hnp_exchange_callbacks_t;

typedef struct hnp_exchange_module {
    /** Prepare this process (HNP or daemon), before any allgather. */
    int (*init)(struct hnp_rte *rte);
    /**
     * Contribute @p data (copied) to all-gather number @p id among all the
     * runtime's processes. Every process calls it once per id. The
     * callbacks may run before this returns, for what is known already
     * (gather_scatter does so in the HNP), and otherwise from the event
     * loop. A process may hear of an id before it calls
     * this (the HNP, which has no processes of its own in the
     * applications' fences, never calls it by itself): the component then
     * calls hnp_rte_collective_seen(), which joins for such a process.
     * (Interface 2.0: components of 1.x do not, and are refused.)
     */
    int (*allgather)(struct hnp_rte *rte, uint32_t id, const void *data,
                     size_t len, const hnp_exchange_callbacks_t *cb);
    /** A spawn-tree child of this process has joined. May be NULL. */
    void (*child_joined)(struct hnp_rte *rte, hnp_vpid_t child);
    /** Release what init and the all-gathers hold. May be NULL. */
    void (*finalize)(struct hnp_rte *rte);
    void *reserved[4]; /**< room to grow; NULL */
} hnp_exchange_module_t;

#endif /* HNP_EXCHANGE_H */
