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

typedef uint32_t hnp_vpid_t;
#define HNP_VPID_INVALID UINT32_MAX

typedef enum hnp_tree_kind {
    HNP_TREE_KARY,     /**< parent(v) = (v-1)/k; k = 0 means flat */
    HNP_TREE_BINOMIAL, /**< parent(v) = v without its highest set bit */
} hnp_tree_kind_t;

typedef struct hnp_tree {
    hnp_tree_kind_t kind;
    uint32_t n;     /**< vertices 0..n-1 */
    uint32_t arity; /**< k for HNP_TREE_KARY; 0 = flat (every v's parent is 0) */
} hnp_tree_t;

/** A k-ary tree (k = 0: flat) or a binomial tree over n vertices. */
hnp_tree_t hnp_tree_kary(uint32_t n, uint32_t k);
hnp_tree_t hnp_tree_binomial(uint32_t n);

/** The parent of @p v; HNP_VPID_INVALID for the root or v >= n. */
hnp_vpid_t hnp_tree_parent(const hnp_tree_t *t, hnp_vpid_t v);

/**
 * The children of @p v in increasing order. Writes at most @p max of them to
 * @p out (which may be NULL when max is 0) and returns how many there are.
 */
uint32_t hnp_tree_children(const hnp_tree_t *t, hnp_vpid_t v, hnp_vpid_t *out,
                           uint32_t max);

/** Whether @p v lies in the subtree rooted at @p root (itself included). */
bool hnp_tree_in_subtree(const hnp_tree_t *t, hnp_vpid_t root, hnp_vpid_t v);

/**
 * The vertices below @p v (not v itself), in breadth-first order. Same
 * contract as hnp_tree_children() for @p out and @p max.
 */
uint32_t hnp_tree_descendants(const hnp_tree_t *t, hnp_vpid_t v,
                              hnp_vpid_t *out, uint32_t max);

/**
 * The neighbour to which @p self forwards a message for @p dest: the child
 * whose subtree holds dest, else the parent. @p self when dest == self;
 * HNP_VPID_INVALID when either is out of range.
 */
hnp_vpid_t hnp_tree_next_hop(const hnp_tree_t *t, hnp_vpid_t self,
                             hnp_vpid_t dest);

/** Edges from @p v up to the root. */
uint32_t hnp_tree_depth(const hnp_tree_t *t, hnp_vpid_t v);
/** The largest depth of any vertex. */
uint32_t hnp_tree_height(const hnp_tree_t *t);

#endif /* HNP_TREE_H */
