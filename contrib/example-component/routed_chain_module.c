/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `chain` module: what the runtime asks a routed component. Every
 * function is pure (the same answer in every process for the same
 * arguments), which is what lets each daemon work out its own neighbours
 * without being told.
 */
#include <hnp_tree.h>

#include "routed_chain.h"

/*
 * The spanning tree is what the launcher spawns along when it follows the
 * routing topology. A chain is the 1-ary tree of the shared tree math, so
 * hnp_tree_kary(n, 1) describes it; the functions below answer by hand to
 * show what each one means.
 */
static int chain_spanning_tree(uint32_t nprocs, hnp_tree_t *out)
{
    if (out == NULL || nprocs == 0)
        return HNP_ERR_BAD_PARAM;
    *out = hnp_tree_kary(nprocs, 1);
    return HNP_SUCCESS;
}

/* The HNP (vpid 0) has no parent; every daemon hangs off the one before. */
static hnp_vpid_t chain_parent(hnp_vpid_t vpid, uint32_t nprocs)
{
    if (vpid == 0 || vpid >= nprocs)
        return HNP_VPID_INVALID;
    return vpid - 1;
}

/* At most one child: the next vpid, when there is one. The count is
 * returned even when @p out has no room, as hnp_tree_children() does. */
static uint32_t chain_children(hnp_vpid_t vpid, uint32_t nprocs,
                               hnp_vpid_t *out, uint32_t max)
{
    if (vpid >= nprocs || (uint64_t)vpid + 1 >= nprocs)
        return 0;
    if (out != NULL && max > 0)
        out[0] = vpid + 1;
    return 1;
}

/* One step along the pipeline, towards the destination. */
static hnp_vpid_t chain_next_hop(hnp_vpid_t self, hnp_vpid_t dest,
                                 uint32_t nprocs)
{
    if (self >= nprocs || dest >= nprocs)
        return HNP_VPID_INVALID;
    if (dest > self)
        return self + 1;
    if (dest < self)
        return self - 1;
    return self;
}

const hnp_routed_module_t routed_chain_module = {
    .spanning_tree = chain_spanning_tree,
    .parent = chain_parent,
    .children = chain_children,
    .next_hop = chain_next_hop,
};
