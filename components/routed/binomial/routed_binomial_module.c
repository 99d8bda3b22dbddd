/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `binomial` routed module, answered by the shared tree math so that
 * the spawn tree and the routes are the same object.
 */
#include "config.h"

#include "routed_binomial.h"

HNP_ROUTED_TREE_MODULE(routed_binomial_module, hnp_tree_binomial);
