/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `binomial` routed module, answered by the shared tree math so that
 * the spawn tree and the routes are the same object.
 */
#include "config.h"

#include "routed_binomial.h"

static int binomial_spanning_tree(uint32_t nprocs, hnp_tree_t *out)
{
    if (out == NULL || nprocs == 0)
        return HNP_ERR_BAD_PARAM;
    *out = hnp_tree_binomial(nprocs);
    return HNP_SUCCESS;
}

static hnp_vpid_t binomial_parent(hnp_vpid_t vpid, uint32_t nprocs)
{
    hnp_tree_t t = hnp_tree_binomial(nprocs);
    return hnp_tree_parent(&t, vpid);
}

static uint32_t binomial_children(hnp_vpid_t vpid, uint32_t nprocs,
                                  hnp_vpid_t *out, uint32_t max)
{
    hnp_tree_t t = hnp_tree_binomial(nprocs);
    return hnp_tree_children(&t, vpid, out, max);
}

static hnp_vpid_t binomial_next_hop(hnp_vpid_t self, hnp_vpid_t dest,
                                    uint32_t nprocs)
{
    hnp_tree_t t = hnp_tree_binomial(nprocs);
    return hnp_tree_next_hop(&t, self, dest);
}

const hnp_routed_module_t routed_binomial_module = {
    .spanning_tree = binomial_spanning_tree,
    .parent = binomial_parent,
    .children = binomial_children,
    .next_hop = binomial_next_hop,
};
