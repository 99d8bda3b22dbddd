/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file routed_binomial.h
 * @brief The `binomial` routed component: a binomial tree rooted at the HNP.
 *
 * The parent of v is v with its highest set bit cleared; the children of v
 * add each power of two above that bit. A job of N daemons is at most
 * log2(N+1) hops deep, and the HNP has about log2(N) children.
 */
#ifndef ROUTED_BINOMIAL_H
#define ROUTED_BINOMIAL_H

#include "hnp_routed.h"

/** The module the component offers (routed_binomial_module.c). */
extern const hnp_routed_module_t routed_binomial_module;

#endif /* ROUTED_BINOMIAL_H */
