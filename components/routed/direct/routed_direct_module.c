/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `direct` routed module: the flat tree, where the HNP is everyone's
 * parent. Every answer comes from the shared tree math, so the spawn tree
 * drawn from spanning_tree() and the routes agree by construction.
 */
#include "config.h"

#include "routed_direct.h"

/* k = 0 is the flat tree of hnp_tree.h. */
static hnp_tree_t direct_tree(uint32_t nprocs)
{
    return hnp_tree_kary(nprocs, 0);
}

static int direct_spanning_tree(uint32_t nprocs, hnp_tree_t *out)
{
    if (out == NULL || nprocs == 0)
        return HNP_ERR_BAD_PARAM;
    *out = direct_tree(nprocs);
    return HNP_SUCCESS;
}

static hnp_vpid_t direct_parent(hnp_vpid_t vpid, uint32_t nprocs)
{
    hnp_tree_t t = direct_tree(nprocs);
    return hnp_tree_parent(&t, vpid);
}

static uint32_t direct_children(hnp_vpid_t vpid, uint32_t nprocs,
                                hnp_vpid_t *out, uint32_t max)
{
    hnp_tree_t t = direct_tree(nprocs);
    return hnp_tree_children(&t, vpid, out, max);
}

/* A daemon sends everything to the HNP; the HNP sends straight to dest. */
static hnp_vpid_t direct_next_hop(hnp_vpid_t self, hnp_vpid_t dest,
                                  uint32_t nprocs)
{
    hnp_tree_t t = direct_tree(nprocs);
    return hnp_tree_next_hop(&t, self, dest);
}

const hnp_routed_module_t routed_direct_module = {
    .spanning_tree = direct_spanning_tree,
    .parent = direct_parent,
    .children = direct_children,
    .next_hop = direct_next_hop,
};
