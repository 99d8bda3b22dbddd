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

#include "hnp_allgather.h"
#include "hnp_mca.h"
#include "hnp_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2.1: the optional hooks job_priority and hnp_connections, in what was
 *      room to grow (a 2.0 component leaves them NULL).
 * 2.2: the optional hook grow, in what was room to grow. */
#define HNP_EXCHANGE_INTERFACE_VERSION HNP_MCA_VERSION(2, 2, 0)

struct hnp_rte;

/** The job an exchange is chosen for, as the HNP knows it before launch. */
typedef struct hnp_exchange_job {
    uint32_t ndaemons;     /**< the daemons (the HNP not counted) */
    uint32_t hnp_children; /**< of them, the HNP's spawn-tree children:
                                ndaemons when the spawn tree is flat */
} hnp_exchange_job_t;

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
    /**
     * The priority offered for @p job, given @p priority, the one the
     * query offered. The HNP asks it once the job's size is known, and
     * chooses among the components again; so a component that scales
     * better can take over past a size. NULL: the query's, for any job.
     * (Interface 2.1.)
     */
    int (*job_priority)(const hnp_exchange_job_t *job, int priority);
    /**
     * How many daemons the HNP holds a connection with for this exchange
     * in @p job, besides its spawn-tree and routing-tree neighbours (they
     * may be the same ones): the HNP plans its descriptors by it. NULL:
     * none beyond those. (Interface 2.1.)
     */
    uint32_t (*hnp_connections)(const hnp_exchange_job_t *job);
    /**
     * Daemons were added to the running runtime, which now counts
     * @p nprocs processes (the new ones have the vpids after the others,
     * and the runtime's routing and spawn trees hold them: the spawn tree
     * keeps every parent and has them as the HNP's children): the
     * all-gathers begun in this process from now on are among all
     * @p nprocs; one begun before keeps its processes. Where an all-gather
     * begins is the component's to say; both in-tree ones fix its
     * processes where it begins at the HNP, and the daemons follow the
     * HNP's count, so that one that hears of the growth late agrees.
     * Called in the HNP once the new daemons have joined, in a daemon when
     * it hears of them; not for a growth that failed (its daemons are
     * never counted). NULL: the component cannot take daemons added to a
     * running runtime, which then refuses to add any. (Interface 2.2.)
     */
    int (*grow)(struct hnp_rte *rte, uint32_t nprocs);
    void *reserved[1]; /**< room to grow; NULL */
} hnp_exchange_module_t;

#ifdef __cplusplus
}
#endif

#endif /* HNP_EXCHANGE_H */
