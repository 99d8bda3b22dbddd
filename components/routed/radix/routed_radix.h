/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file routed_radix.h
 * @brief The `radix` routed component: a k-ary tree rooted at the HNP.
 *
 * Process v forwards to its children k*v+1 .. k*v+k, and to its parent
 * (v-1)/k, where k is the parameter `routed_radix_degree`. With the default
 * k = 32 a thousand daemons are two hops from the HNP, and no process keeps
 * more than 33 routing connections.
 */
#ifndef ROUTED_RADIX_H
#define ROUTED_RADIX_H

#include "hnp_routed.h"

/** ORTE's default degree, which paper 002 also found the most consistent. */
#define ROUTED_RADIX_DEFAULT_DEGREE 32

/**
 * The value of `routed_radix_degree`. Owned by the component, which binds
 * it to the parameter at registration; the module only reads it, on every
 * call, so a value the HNP forwards after selection is still honoured.
 */
extern unsigned int routed_radix_degree;

/** The module the component offers (routed_radix_module.c). */
extern const hnp_routed_module_t routed_radix_module;

#endif /* ROUTED_RADIX_H */
