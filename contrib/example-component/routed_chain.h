/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file routed_chain.h
 * @brief `chain`, an example routed component built outside the hnp tree.
 *
 * The topology is a pipeline: the parent of daemon v is v-1, and a message
 * moves one process at a time, to v+1 towards a higher vpid and to v-1
 * towards a lower one. It is the worst topology there is (a broadcast to N
 * daemons takes N hops, and every message crosses every process between
 * its ends): it exists to show how a component is written, not to be used.
 *
 * Only installed hnp headers are used, found through
 * `pkg-config --cflags hnp-component`.
 */
#ifndef ROUTED_CHAIN_H
#define ROUTED_CHAIN_H

#include <hnp_routed.h>

/** The priority when nobody raises it: below every in-tree topology, so
 *  that installing the example never changes what hnp selects. */
#define ROUTED_CHAIN_DEFAULT_PRIORITY 1

/** The value of `routed_chain_priority`, bound by the registration. */
extern int routed_chain_priority;

/** The component descriptor, the one symbol hnp looks up and the one the
 *  shared object exports: the Makefile builds with -fvisibility=hidden and
 *  HNP_COMPONENT_EXPORT (hnp_mca.h) marks the exception. */
HNP_COMPONENT_EXPORT
extern const hnp_mca_component_t mca_routed_chain_component;

/** The module the component offers (routed_chain_module.c). */
extern const hnp_routed_module_t routed_chain_module;

#endif /* ROUTED_CHAIN_H */
