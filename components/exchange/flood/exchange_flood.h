/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file exchange_flood.h
 * @brief The `flood` exchange component: Algorithm 2 of paper 002.
 *
 * Contributions climb the spawn tree, a process sending its parent one
 * message with its whole subtree once it has contributed itself and every
 * spawn child has reported; whatever a process learns flows on to the
 * children that have already reported. Each contribution crosses each tree
 * edge exactly once, and no process talks to anyone but its spawn parent
 * and children: with a δ-ary spawn tree a process keeps δ + 1 connections
 * and sends each contribution at most once over each of them.
 *
 * Not installed: the component's own files and its unit test include it.
 */
#ifndef EXCHANGE_FLOOD_H
#define EXCHANGE_FLOOD_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_exchange.h"
#include "hnp_rte.h"

/**
 * The value of `exchange_flood_batch_delay`, in seconds. Owned by the
 * component, which binds it to the parameter at registration; the module
 * reads it when it starts.
 */
extern double exchange_flood_batch_delay;

/**
 * The value of `exchange_flood_min_nodes`: from this many daemons on (0:
 * never), flood offers EXCHANGE_FLOOD_SCALE_PRIORITY for a job whose
 * spawn tree is not flat, above gather_scatter's.
 */
extern unsigned exchange_flood_min_nodes;
#define EXCHANGE_FLOOD_SCALE_PRIORITY 30

/** Its message tag (hnp_mca.h), listed in its descriptor: gather_scatter
 *  reserves the first two of the range, flood starts further up. */
enum { FLOOD_TAG_ENTRIES = HNP_TAG_EXCHANGE_FIRST + 10 };

/** The module the component offers (exchange_flood_module.c). */
extern const hnp_exchange_module_t exchange_flood_module;

/**
 * One process's flooding state. The module keeps one, for the runtime of
 * its process; the unit test creates one per simulated process.
 */
typedef struct flood_state flood_state_t;

/**
 * Start flooding for the process @p rte describes: learn its place in the
 * spawn tree and take the exchange's message tag. @p batch_delay is how
 * long newly learnt entries wait before they are forwarded (0: until the
 * end of the current event-loop turn).
 */
int flood_state_create(hnp_rte_t *rte, double batch_delay,
                       flood_state_t **out);
/** Release the tag, the timer and every collective still in progress. */
void flood_state_destroy(flood_state_t *st);
/** The module's allgather, on one state. An id is used once: one that
 *  completed here recently is refused with HNP_ERR_EXISTS. */
int flood_state_allgather(flood_state_t *st, uint32_t id, const void *data,
                          size_t len, const hnp_exchange_callbacks_t *cb);
/** The module's grow hook, on one state: the all-gathers that begin here
 *  from now on are among @p nprocs processes (hnp_exchange.h). */
int flood_state_grow(flood_state_t *st, uint32_t nprocs);
/** Collectives this state still holds (complete ones are released). */
uint32_t flood_state_active(const flood_state_t *st);

#endif /* EXCHANGE_FLOOD_H */
