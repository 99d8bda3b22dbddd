/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `direct` routed module: the flat tree, where the HNP is everyone's
 * parent. Every answer comes from the shared tree math, so the spawn tree
 * drawn from spanning_tree() and the routes agree by construction: a daemon
 * sends everything to the HNP, and the HNP sends straight to the
 * destination.
 */
#include "config.h"

#include "routed_direct.h"

/* k = 0 is the flat tree of hnp_tree.h. */
static hnp_tree_t direct_tree(uint32_t nprocs)
{
    return hnp_tree_kary(nprocs, 0);
}

HNP_ROUTED_TREE_MODULE(routed_direct_module, direct_tree);
