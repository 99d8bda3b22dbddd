/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `radix` routed module: a k-ary tree with k = routed_radix_degree,
 * answered by the shared tree math so that the spawn tree and the routes
 * are the same object.
 */
#include "config.h"

#include "routed_radix.h"

/* Read the degree at every call: every process computes its neighbours
 * from the same (forwarded) value, never from a copy taken earlier. */
static hnp_tree_t radix_tree(uint32_t nprocs)
{
    return hnp_tree_kary(nprocs, routed_radix_degree);
}

HNP_ROUTED_TREE_MODULE(routed_radix_module, radix_tree);
