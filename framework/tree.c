/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tree math shared by the routing components and the spawn trees.
 *
 * Every function is pure and allocates nothing: each process of the runtime
 * evaluates the same formulas to find its own place in the topology, so no
 * process has to be told who its neighbours are.
 *
 * Arithmetic that can leave the 32-bit range (k*v + k, v + 2^i, masks of
 * 2^32 - 1) is done in 64 bits, so every function is exact for any n a
 * uint32_t can hold.
 *
 * Two families:
 *
 *   k-ary (k >= 2)  parent(v) = (v - 1) / k, children k*v+1 .. k*v+k.
 *                   Each level of a subtree is a contiguous range, which is
 *                   what makes breadth-first order cheap.
 *   k = 1           a chain; handled apart so nothing walks it vertex by
 *                   vertex (its depth is n - 1).
 *   k = 0           flat: the root is every vertex's parent.
 *   binomial        parent(v) = v without its highest set bit. The subtree
 *                   of v is every u < n whose low lowbits(v) bits equal v,
 *                   where lowbits(v) = 1 + index of v's highest bit (0 for
 *                   the root).
 *
 * A third kind, explicit, reads stored arrays (tree_explicit.c); only its
 * builder allocates.
 */
#include "config.h"

#include <stddef.h>

#include "tree_internal.h"

/* ------------------------------------------------------------ helpers */

/* Index of the highest set bit; v must not be 0. */
static unsigned highest_bit(uint32_t v)
{
    return 31u - (unsigned)__builtin_clz(v);
}

/* How many low bits a binomial vertex fixes for its whole subtree. */
static unsigned binomial_lowbits(hnp_vpid_t v)
{
    return v == 0 ? 0u : highest_bit(v) + 1u;
}

/* Store @p v at position @p i when the caller's buffer has room. */
static void emit(hnp_vpid_t *out, uint32_t max, uint32_t i, uint64_t v)
{
    if (out != NULL && i < max)
        out[i] = (hnp_vpid_t)v;
}

/* Write the range [first, last] at positions from @p at; returns its size. */
static uint32_t emit_range(hnp_vpid_t *out, uint32_t max, uint32_t at,
                           uint64_t first, uint64_t last)
{
    if (last < first)
        return 0;
    for (uint64_t v = first; v <= last && out != NULL && at + (v - first) < max;
         v++)
        out[at + (v - first)] = (hnp_vpid_t)v;
    return (uint32_t)(last - first + 1);
}

/* -------------------------------------------------------- constructors */

hnp_tree_t hnp_tree_kary(uint32_t n, uint32_t k)
{
    hnp_tree_t t = { .kind = HNP_TREE_KARY, .n = n, .arity = k, .shape = NULL };
    return t;
}

hnp_tree_t hnp_tree_binomial(uint32_t n)
{
    hnp_tree_t t = { .kind = HNP_TREE_BINOMIAL, .n = n, .arity = 0,
                     .shape = NULL };
    return t;
}

/* ------------------------------------------------------------- k-ary */

static hnp_vpid_t kary_parent(uint32_t k, hnp_vpid_t v)
{
    if (k == 0)
        return 0;
    return (v - 1) / k;
}

static uint32_t kary_children(const hnp_tree_t *t, hnp_vpid_t v,
                              hnp_vpid_t *out, uint32_t max)
{
    uint64_t k = t->arity;

    if (k == 0)
        return v == 0 ? emit_range(out, max, 0, 1, (uint64_t)t->n - 1) : 0;

    uint64_t first = k * v + 1;
    uint64_t last = k * v + k;
    if (last > (uint64_t)t->n - 1)
        last = (uint64_t)t->n - 1;
    return emit_range(out, max, 0, first, last);
}

static bool kary_in_subtree(uint32_t k, hnp_vpid_t root, hnp_vpid_t v)
{
    if (v == root)
        return true;
    /* Every k-ary numbering puts descendants after their ancestors. */
    if (v < root)
        return false;
    if (k == 0)
        return root == 0;
    if (k == 1)
        return true;
    while (v > root)
        v = (v - 1) / k;
    return v == root;
}

/*
 * Descendants level by level: the children of a contiguous range [a, b] are
 * the contiguous range [k*a + 1, k*b + k], so a subtree is a short list of
 * ranges (one per level) and its breadth-first order is increasing order
 * inside each.
 */
static uint32_t kary_descendants(const hnp_tree_t *t, hnp_vpid_t v,
                                 hnp_vpid_t *out, uint32_t max)
{
    uint64_t k = t->arity;
    uint64_t last_vertex = (uint64_t)t->n - 1;

    if (k == 0)
        return v == 0 ? emit_range(out, max, 0, 1, last_vertex) : 0;
    if (k == 1)
        return emit_range(out, max, 0, (uint64_t)v + 1, last_vertex);

    uint32_t count = 0;
    uint64_t first = k * v + 1;
    uint64_t last = k * v + k;
    while (first <= last_vertex) {
        if (last > last_vertex)
            last = last_vertex;
        count += emit_range(out, max, count, first, last);
        first = k * first + 1;
        last = k * last + k; /* last < 2^32, so this stays below 2^64 */
    }
    return count;
}

/* The child of @p self on the way to @p dest, a proper descendant. */
static hnp_vpid_t kary_child_towards(uint32_t k, hnp_vpid_t self,
                                     hnp_vpid_t dest)
{
    if (k == 0)
        return dest;
    if (k == 1)
        return self + 1;
    while ((dest - 1) / k != self)
        dest = (dest - 1) / k;
    return dest;
}

static uint32_t kary_depth(uint32_t k, hnp_vpid_t v)
{
    if (k == 0)
        return v == 0 ? 0 : 1;
    if (k == 1)
        return v;

    uint32_t depth = 0;
    while (v != 0) {
        v = (v - 1) / k;
        depth++;
    }
    return depth;
}

/* ---------------------------------------------------------- binomial */

static hnp_vpid_t binomial_parent(hnp_vpid_t v)
{
    return v & ~(UINT32_C(1) << highest_bit(v));
}

static uint32_t binomial_children(const hnp_tree_t *t, hnp_vpid_t v,
                                  hnp_vpid_t *out, uint32_t max)
{
    uint32_t count = 0;

    for (unsigned i = binomial_lowbits(v); i < 32; i++) {
        uint64_t child = (uint64_t)v + (UINT64_C(1) << i);
        if (child >= t->n)
            break;
        emit(out, max, count++, child);
    }
    return count;
}

static bool binomial_in_subtree(hnp_vpid_t root, hnp_vpid_t v)
{
    uint64_t mask = (UINT64_C(1) << binomial_lowbits(root)) - 1;
    return ((uint64_t)v & mask) == root;
}

/*
 * How many descendants: the u = v + j * 2^lowbits(v) with j >= 1 and u < n.
 */
static uint32_t binomial_count_descendants(const hnp_tree_t *t, hnp_vpid_t v)
{
    return (uint32_t)(((uint64_t)t->n - 1 - v) >> binomial_lowbits(v));
}

/*
 * Advance @p idx, an increasing @p size-subset of 0..m-1, to the next one in
 * lexicographic order. Returns false after the last.
 */
static bool next_combination(uint8_t *idx, unsigned size, unsigned m)
{
    unsigned i = size;

    while (i > 0 && idx[i - 1] == m - size + i - 1)
        i--;
    if (i == 0)
        return false;
    idx[i - 1]++;
    for (unsigned j = i; j < size; j++)
        idx[j] = (uint8_t)(idx[j - 1] + 1);
    return true;
}

/*
 * The descendants at @p level below v, in breadth-first order, written from
 * position @p at. A vertex at that level is v plus @p level distinct powers
 * of two above v's bits. The queue of a breadth-first search appends the
 * children of each vertex in increasing order, and a child adds a bit above
 * its parent's highest, so the queue orders a level lexicographically by
 * its increasing list of added bits; that is the order generated here.
 * Stops early once @p max entries are written.
 */
static uint32_t binomial_level(const hnp_tree_t *t, hnp_vpid_t v,
                               unsigned level, unsigned m, hnp_vpid_t *out,
                               uint32_t max, uint32_t at)
{
    unsigned base = binomial_lowbits(v);
    uint8_t idx[32];
    uint32_t written = 0;

    for (unsigned i = 0; i < level; i++)
        idx[i] = (uint8_t)i;
    do {
        uint64_t u = v;
        for (unsigned i = 0; i < level; i++)
            u += UINT64_C(1) << (base + idx[i]);
        if (u < t->n)
            emit(out, max, at + written++, u);
    } while (at + written < max && next_combination(idx, level, m));
    return written;
}

static uint32_t binomial_descendants(const hnp_tree_t *t, hnp_vpid_t v,
                                     hnp_vpid_t *out, uint32_t max)
{
    uint32_t count = binomial_count_descendants(t, v);
    unsigned m = binomial_children(t, v, NULL, 0); /* usable bit positions */
    uint32_t written = 0;

    if (out == NULL)
        return count;
    for (unsigned level = 1; level <= m && written < max; level++)
        written += binomial_level(t, v, level, m, out, max, written);
    return count;
}

/* The child of @p self on the way to @p dest, a proper descendant: self
 * plus the lowest bit dest has above self's bits. */
static hnp_vpid_t binomial_child_towards(hnp_vpid_t self, hnp_vpid_t dest)
{
    unsigned base = binomial_lowbits(self);
    uint32_t above = (uint32_t)((uint64_t)dest >> base);
    unsigned bit = base + (unsigned)__builtin_ctz(above);
    return self | (UINT32_C(1) << bit);
}

/*
 * The deepest vertex below n is the one with the most set bits: n - 1
 * itself, or n - 1 with one of its set bits cleared and every bit below it
 * set.
 */
static uint32_t binomial_height(uint32_t n)
{
    if (n <= 1)
        return 0;

    uint32_t m = n - 1;
    uint32_t best = (uint32_t)__builtin_popcount(m);
    for (unsigned i = 0; i < 32; i++) {
        if (!(m & (UINT32_C(1) << i)))
            continue;
        uint32_t above = i == 31 ? 0 : m >> (i + 1);
        uint32_t ones = (uint32_t)__builtin_popcount(above) + i;
        if (ones > best)
            best = ones;
    }
    return best;
}

/* ------------------------------------------------------------ public */

hnp_vpid_t hnp_tree_parent(const hnp_tree_t *t, hnp_vpid_t v)
{
    if (v == 0 || v >= t->n)
        return HNP_VPID_INVALID;
    if (t->kind == HNP_TREE_EXPLICIT)
        return explicit_parent(t->shape, v);
    if (t->kind == HNP_TREE_BINOMIAL)
        return binomial_parent(v);
    return kary_parent(t->arity, v);
}

uint32_t hnp_tree_children(const hnp_tree_t *t, hnp_vpid_t v, hnp_vpid_t *out,
                           uint32_t max)
{
    if (v >= t->n)
        return 0;
    if (out == NULL)
        max = 0;
    if (t->kind == HNP_TREE_EXPLICIT)
        return explicit_children(t->shape, v, out, max);
    if (t->kind == HNP_TREE_BINOMIAL)
        return binomial_children(t, v, out, max);
    return kary_children(t, v, out, max);
}

bool hnp_tree_in_subtree(const hnp_tree_t *t, hnp_vpid_t root, hnp_vpid_t v)
{
    if (root >= t->n || v >= t->n)
        return false;
    if (t->kind == HNP_TREE_EXPLICIT)
        return explicit_in_subtree(t->shape, root, v);
    if (t->kind == HNP_TREE_BINOMIAL)
        return binomial_in_subtree(root, v);
    return kary_in_subtree(t->arity, root, v);
}

uint32_t hnp_tree_descendants(const hnp_tree_t *t, hnp_vpid_t v,
                              hnp_vpid_t *out, uint32_t max)
{
    if (v >= t->n)
        return 0;
    if (out == NULL)
        max = 0;
    if (t->kind == HNP_TREE_EXPLICIT)
        return explicit_descendants(t->shape, v, out, max);
    if (t->kind == HNP_TREE_BINOMIAL)
        return binomial_descendants(t, v, max == 0 ? NULL : out, max);
    return kary_descendants(t, v, out, max);
}

hnp_vpid_t hnp_tree_next_hop(const hnp_tree_t *t, hnp_vpid_t self,
                             hnp_vpid_t dest)
{
    if (self >= t->n || dest >= t->n)
        return HNP_VPID_INVALID;
    if (dest == self)
        return self;
    if (!hnp_tree_in_subtree(t, self, dest))
        return hnp_tree_parent(t, self);
    if (t->kind == HNP_TREE_EXPLICIT)
        return explicit_child_towards(t->shape, self, dest);
    if (t->kind == HNP_TREE_BINOMIAL)
        return binomial_child_towards(self, dest);
    return kary_child_towards(t->arity, self, dest);
}

uint32_t hnp_tree_depth(const hnp_tree_t *t, hnp_vpid_t v)
{
    if (v >= t->n)
        return 0;
    if (t->kind == HNP_TREE_EXPLICIT)
        return explicit_depth(t->shape, v);
    if (t->kind == HNP_TREE_BINOMIAL)
        return (uint32_t)__builtin_popcount(v);
    return kary_depth(t->arity, v);
}

uint32_t hnp_tree_height(const hnp_tree_t *t)
{
    if (t->n == 0)
        return 0;
    if (t->kind == HNP_TREE_EXPLICIT)
        return explicit_height(t->shape);
    if (t->kind == HNP_TREE_BINOMIAL)
        return binomial_height(t->n);
    /* k-ary depth never decreases with v, so the last vertex is deepest. */
    return kary_depth(t->arity, t->n - 1);
}
