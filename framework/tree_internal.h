/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Between tree.c, which dispatches on the kind of a tree, and
 * tree_explicit.c, which stores the trees no formula describes.
 */
#ifndef HNP_TREE_INTERNAL_H
#define HNP_TREE_INTERNAL_H

#include "hnp_tree.h"

hnp_vpid_t explicit_parent(const hnp_tree_shape_t *s, hnp_vpid_t v);
uint32_t explicit_children(const hnp_tree_shape_t *s, hnp_vpid_t v,
                           hnp_vpid_t *out, uint32_t max);
bool explicit_in_subtree(const hnp_tree_shape_t *s, hnp_vpid_t root,
                         hnp_vpid_t v);
uint32_t explicit_descendants(const hnp_tree_shape_t *s, hnp_vpid_t v,
                              hnp_vpid_t *out, uint32_t max);
hnp_vpid_t explicit_child_towards(const hnp_tree_shape_t *s, hnp_vpid_t self,
                                  hnp_vpid_t dest);
uint32_t explicit_depth(const hnp_tree_shape_t *s, hnp_vpid_t v);
uint32_t explicit_height(const hnp_tree_shape_t *s);

/*
 * Build the stored form of the tree over n vertices whose parents are
 * @p parent (parent[0] ignored). Requires parent[v] < v for every v > 0 and
 * lists each vertex's children in increasing order, which is their spawn
 * order for every tree built so far. NULL when memory runs out.
 */
hnp_tree_shape_t *explicit_shape_create(uint32_t n, const hnp_vpid_t *parent);
void explicit_shape_destroy(hnp_tree_shape_t *s);

#endif /* HNP_TREE_INTERNAL_H */
