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

static int radix_spanning_tree(uint32_t nprocs, hnp_tree_t *out)
{
    if (out == NULL || nprocs == 0)
        return HNP_ERR_BAD_PARAM;
    *out = radix_tree(nprocs);
    return HNP_SUCCESS;
}

static hnp_vpid_t radix_parent(hnp_vpid_t vpid, uint32_t nprocs)
{
    hnp_tree_t t = radix_tree(nprocs);
    return hnp_tree_parent(&t, vpid);
}

static uint32_t radix_children(hnp_vpid_t vpid, uint32_t nprocs,
                               hnp_vpid_t *out, uint32_t max)
{
    hnp_tree_t t = radix_tree(nprocs);
    return hnp_tree_children(&t, vpid, out, max);
}

static hnp_vpid_t radix_next_hop(hnp_vpid_t self, hnp_vpid_t dest,
                                 uint32_t nprocs)
{
    hnp_tree_t t = radix_tree(nprocs);
    return hnp_tree_next_hop(&t, self, dest);
}

const hnp_routed_module_t routed_radix_module = {
    .spanning_tree = radix_spanning_tree,
    .parent = radix_parent,
    .children = radix_children,
    .next_hop = radix_next_hop,
};
