/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_tree.h
 * @brief Tree math shared by the routing components and the spawn trees.
 *
 * Trees are rooted at vpid 0 (the HNP) over the vpids 0..n-1 of the runtime
 * (n = number of daemons + 1). The routing components describe their
 * topology as one of these trees, and the spawn trees of the launchers are
 * the same objects, so parent, children, subtree and next hop are computed
 * by one set of functions.
 */
#ifndef HNP_TREE_H
#define HNP_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "hnp_export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t hnp_vpid_t;
#define HNP_VPID_INVALID UINT32_MAX

typedef enum hnp_tree_kind {
    HNP_TREE_KARY,     /**< parent(v) = (v-1)/k; k = 0 means flat */
    HNP_TREE_BINOMIAL, /**< parent(v) = v without its highest set bit */
    HNP_TREE_EXPLICIT, /**< parent and children stored in @c shape */
} hnp_tree_kind_t;

/** The stored arrays of an explicit tree. Opaque and immutable. */
typedef struct hnp_tree_shape hnp_tree_shape_t;

/**
 * A tree is a small value. For HNP_TREE_EXPLICIT it holds a pointer to
 * immutable arrays; formula kinds hold none (@c shape is NULL).
 *
 * Ownership, the one rule for every tree of hnp (hnp_tree_greedy(),
 * hnp_tree_copy(), a routed module's spanning_tree, a plm module's
 * spawn_tree): whoever fills a tree hands it to its caller, who owns it
 * and passes it to hnp_tree_release() once done (a no-op for formula
 * kinds, so callers release every tree they are handed, whatever its
 * kind). An assignment makes a view of the owner's tree, valid while the
 * owner's is, and never released. A hook that hands on a tree it was given
 * (a plm's spawn_tree that spawns along the routing tree) hands a
 * hnp_tree_copy() of it, never the tree itself.
 */
typedef struct hnp_tree {
    hnp_tree_kind_t kind;
    uint32_t n;     /**< vertices 0..n-1 */
    uint32_t arity; /**< k for HNP_TREE_KARY; 0 = flat (every v's parent is 0) */
    const hnp_tree_shape_t *shape; /**< HNP_TREE_EXPLICIT only; borrowed */
} hnp_tree_t;

/** A k-ary tree (k = 0: flat) or a binomial tree over n vertices. */
HNP_EXPORT hnp_tree_t hnp_tree_kary(uint32_t n, uint32_t k);
HNP_EXPORT hnp_tree_t hnp_tree_binomial(uint32_t n);

/** The parent of @p v; HNP_VPID_INVALID for the root or v >= n. */
HNP_EXPORT hnp_vpid_t hnp_tree_parent(const hnp_tree_t *t, hnp_vpid_t v);

/**
 * The children of @p v in increasing order. Writes at most @p max of them to
 * @p out (which may be NULL when max is 0) and returns how many there are.
 */
HNP_EXPORT uint32_t hnp_tree_children(const hnp_tree_t *t, hnp_vpid_t v,
                                      hnp_vpid_t *out, uint32_t max);

/** Whether @p v lies in the subtree rooted at @p root (itself included). */
HNP_EXPORT bool hnp_tree_in_subtree(const hnp_tree_t *t, hnp_vpid_t root,
                                    hnp_vpid_t v);

/**
 * The vertices below @p v (not v itself), in breadth-first order. Same
 * contract as hnp_tree_children() for @p out and @p max.
 */
HNP_EXPORT uint32_t hnp_tree_descendants(const hnp_tree_t *t, hnp_vpid_t v,
                                         hnp_vpid_t *out, uint32_t max);

/**
 * The neighbour to which @p self forwards a message for @p dest: the child
 * whose subtree holds dest, else the parent. @p self when dest == self;
 * HNP_VPID_INVALID when either is out of range.
 */
HNP_EXPORT hnp_vpid_t hnp_tree_next_hop(const hnp_tree_t *t, hnp_vpid_t self,
                                        hnp_vpid_t dest);

/**
 * The greedy spawn tree of "An optimal bootstrapping strategy" (the LIBI
 * launch-tree paper) for @p n vertices: each vertex in turn takes the open
 * position (the next child of a placed vertex) that the launch model
 * starts earliest, so no tree over n vertices has a smaller
 * hnp_tree_model_time(). Vertices are numbered in the order they start and
 * each vertex's children are listed in spawn order. Deterministic: equal
 * (n, seq, rem) give the same tree in every process. O(n log n) time, O(n)
 * memory. @p seq and @p rem are seconds, finite and >= 0. On success the
 * caller owns the tree and releases it with hnp_tree_release(); on failure
 * (HNP_ERR_BAD_PARAM, HNP_ERR_NOMEM) *out is unchanged.
 */
HNP_EXPORT int hnp_tree_greedy(uint32_t n, double seq, double rem,
                               hnp_tree_t *out);

/**
 * A tree of the same shape as @p t that the caller owns (the ownership rule
 * above): for a formula kind the same value, for an explicit one new
 * arrays. HNP_ERR_BAD_PARAM, HNP_ERR_NOMEM; on failure *out is unchanged.
 */
HNP_EXPORT int hnp_tree_copy(const hnp_tree_t *t, hnp_tree_t *out);

/**
 * The tree over @p n >= t->n vertices in which every vertex of @p t keeps
 * its parent and the vertices t->n..n-1 are children of the root: a
 * spawn tree after daemons were added to a running runtime, which the
 * root started. Owned by the caller, as hnp_tree_copy()'s; a flat tree
 * stays a flat one. HNP_ERR_BAD_PARAM (n < t->n, an empty tree),
 * HNP_ERR_NOMEM; on failure *out is unchanged.
 */
HNP_EXPORT int hnp_tree_extend(const hnp_tree_t *t, uint32_t n,
                               hnp_tree_t *out);

/** Free what the owner's @p t holds (hnp_tree_greedy(), hnp_tree_copy(), a
 *  hook's tree) and empty @p t. A no-op for formula kinds. */
HNP_EXPORT void hnp_tree_release(hnp_tree_t *t);

/**
 * The modeled launch time of @p t (equations 1 and 2 of "An optimal
 * bootstrapping strategy"): the root starts at 0, the i-th child (1-based,
 * in the order hnp_tree_children() lists them) of a vertex p at start(p) +
 * seq * (i - 1) + rem, and the tree's time is the latest start. Writes it to @p out. HNP_ERR_NOMEM when the O(n)
 * scratch cannot be had, HNP_ERR_BAD_PARAM for an empty tree.
 */
HNP_EXPORT int hnp_tree_model_time(const hnp_tree_t *t, double seq, double rem,
                                   double *out);

/** Edges from @p v up to the root. */
HNP_EXPORT uint32_t hnp_tree_depth(const hnp_tree_t *t, hnp_vpid_t v);
/** The largest depth of any vertex. */
HNP_EXPORT uint32_t hnp_tree_height(const hnp_tree_t *t);

#ifdef __cplusplus
}
#endif

#endif /* HNP_TREE_H */
