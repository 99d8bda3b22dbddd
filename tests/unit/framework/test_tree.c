/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the shared tree math (framework/tree.c).
 *
 * Most checks compare the closed formulas of tree.c with what follows from
 * parent() alone by brute force (children by scanning, descendants by a
 * breadth-first search with a real queue), over every n up to 300 and a set
 * of boundary sizes. A few hand-computed trees pin the shapes down, and the
 * largest sizes check that nothing overflows near UINT32_MAX.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "hnp_tree.h"

/* The arities exercised everywhere: flat, chain, small, ORTE's default. */
static const uint32_t arities[] = { 0, 1, 2, 3, 8, 32 };
#define NARITIES (sizeof(arities) / sizeof(arities[0]))

/* Sizes beyond 1..300: δ, δ+1 and δ²+δ+1 for δ = 8 and 32, primes, and
 * powers of two around which binomial trees change shape. */
static const uint32_t extra_sizes[] = {
    511, 512, 513, 1021, 1023, 1024, 1025, 1031, 1056, 1057, 1058,
};
#define NEXTRA (sizeof(extra_sizes) / sizeof(extra_sizes[0]))

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond))                                                       \
            fail_msg(__VA_ARGS__);                                         \
    } while (0)

/* A name for failure messages. */
static const char *tree_name(const hnp_tree_t *t)
{
    static char name[64];
    if (t->kind == HNP_TREE_BINOMIAL)
        snprintf(name, sizeof(name), "binomial n=%u", t->n);
    else
        snprintf(name, sizeof(name), "%u-ary n=%u", t->arity, t->n);
    return name;
}

/* Scratch buffers sized for the largest n of the exhaustive checks. */
typedef struct scratch {
    hnp_vpid_t *a, *b, *queue;
    unsigned char *mark;
    uint32_t *depth;
} scratch_t;

static scratch_t scratch_new(uint32_t n)
{
    scratch_t s = {
        .a = calloc(n, sizeof(hnp_vpid_t)),
        .b = calloc(n, sizeof(hnp_vpid_t)),
        .queue = calloc(n, sizeof(hnp_vpid_t)),
        .mark = calloc(n, 1),
        .depth = calloc(n, sizeof(uint32_t)),
    };
    assert_non_null(s.a);
    assert_non_null(s.b);
    assert_non_null(s.queue);
    assert_non_null(s.mark);
    assert_non_null(s.depth);
    return s;
}

static void scratch_free(scratch_t *s)
{
    free(s->a);
    free(s->b);
    free(s->queue);
    free(s->mark);
    free(s->depth);
}

/* ------------------------------------------------ structural checks */

/* Every vertex but 0 has one parent, smaller than itself, and the parent's
 * children list (increasing, complete) holds it. */
static void check_parent_children(const hnp_tree_t *t, scratch_t *s)
{
    CHECK(hnp_tree_parent(t, 0) == HNP_VPID_INVALID, "%s: root has a parent",
          tree_name(t));
    for (hnp_vpid_t v = 0; v < t->n; v++) {
        uint32_t nc = hnp_tree_children(t, v, s->a, t->n);
        uint32_t expected = 0;
        for (hnp_vpid_t u = 1; u < t->n; u++)
            if (hnp_tree_parent(t, u) == v)
                s->b[expected++] = u;
        CHECK(nc == expected, "%s: %u has %u children, parents say %u",
              tree_name(t), v, nc, expected);
        CHECK(memcmp(s->a, s->b, nc * sizeof(hnp_vpid_t)) == 0,
              "%s: children of %u differ from the parent relation",
              tree_name(t), v);
        CHECK(nc == hnp_tree_children(t, v, NULL, 0),
              "%s: counting children of %u disagrees", tree_name(t), v);
        if (v > 0)
            CHECK(hnp_tree_parent(t, v) < v, "%s: parent of %u is %u",
                  tree_name(t), v, hnp_tree_parent(t, v));
    }
}

/* Reference breadth-first search from @p v using children() and a queue. */
static uint32_t bfs_reference(const hnp_tree_t *t, hnp_vpid_t v, scratch_t *s)
{
    uint32_t head = 0, tail = 0;
    hnp_vpid_t kids[64];

    s->queue[tail++] = v;
    while (head < tail) {
        hnp_vpid_t u = s->queue[head++];
        uint32_t nc = hnp_tree_children(t, u, NULL, 0);
        if (nc <= 64) {
            hnp_tree_children(t, u, kids, 64);
            for (uint32_t i = 0; i < nc; i++)
                s->queue[tail++] = kids[i];
        } else { /* the flat root: children are 1..n-1 */
            for (uint32_t i = 1; i <= nc; i++)
                s->queue[tail++] = i;
        }
    }
    return tail - 1; /* without v itself, which is queue[0] */
}

/* descendants() matches the BFS; in_subtree() matches membership; depth is
 * the parent's plus one; height is the largest depth. */
static void check_subtrees(const hnp_tree_t *t, scratch_t *s)
{
    uint32_t height = 0;

    for (hnp_vpid_t v = 0; v < t->n; v++) {
        uint32_t nd = hnp_tree_descendants(t, v, s->a, t->n);
        uint32_t expected = bfs_reference(t, v, s);
        CHECK(nd == expected, "%s: %u has %u descendants, BFS finds %u",
              tree_name(t), v, nd, expected);
        CHECK(memcmp(s->a, s->queue + 1, nd * sizeof(hnp_vpid_t)) == 0,
              "%s: descendants of %u not in breadth-first order",
              tree_name(t), v);
        CHECK(hnp_tree_descendants(t, v, NULL, 0) == nd,
              "%s: counting descendants of %u disagrees", tree_name(t), v);
        memset(s->mark, 0, t->n);
        for (uint32_t i = 0; i <= nd; i++)
            s->mark[s->queue[i]] = 1;
        for (hnp_vpid_t u = 0; u < t->n; u++)
            CHECK(hnp_tree_in_subtree(t, v, u) == (s->mark[u] != 0),
                  "%s: in_subtree(%u, %u) is wrong", tree_name(t), v, u);

        s->depth[v] = v == 0 ? 0 : s->depth[hnp_tree_parent(t, v)] + 1;
        CHECK(hnp_tree_depth(t, v) == s->depth[v], "%s: depth(%u) = %u, not %u",
              tree_name(t), v, hnp_tree_depth(t, v), s->depth[v]);
        if (s->depth[v] > height)
            height = s->depth[v];
    }
    CHECK(hnp_tree_descendants(t, 0, NULL, 0) == t->n - 1,
          "%s: the root does not span the tree", tree_name(t));
    CHECK(hnp_tree_height(t) == height, "%s: height %u, not %u", tree_name(t),
          hnp_tree_height(t), height);
}

static void check_tree(const hnp_tree_t *t)
{
    scratch_t s = scratch_new(t->n);
    check_parent_children(t, &s);
    check_subtrees(t, &s);
    scratch_free(&s);
}

static void test_every_small_size(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= 300; n++) {
        for (size_t i = 0; i < NARITIES; i++) {
            hnp_tree_t t = hnp_tree_kary(n, arities[i]);
            check_tree(&t);
        }
        hnp_tree_t b = hnp_tree_binomial(n);
        check_tree(&b);
    }
}

static void test_boundary_sizes(void **state)
{
    (void)state;
    for (size_t j = 0; j < NEXTRA; j++) {
        for (size_t i = 0; i < NARITIES; i++) {
            hnp_tree_t t = hnp_tree_kary(extra_sizes[j], arities[i]);
            check_tree(&t);
        }
        hnp_tree_t b = hnp_tree_binomial(extra_sizes[j]);
        check_tree(&b);
    }
}

/* -------------------------------------------------------- routing */

/* Hops on the tree path between a and b: up to their common ancestor and
 * down again. */
static uint32_t path_length(const hnp_tree_t *t, hnp_vpid_t a, hnp_vpid_t b)
{
    uint32_t hops = 0;
    while (hnp_tree_depth(t, a) > hnp_tree_depth(t, b)) {
        a = hnp_tree_parent(t, a);
        hops++;
    }
    while (hnp_tree_depth(t, b) > hnp_tree_depth(t, a)) {
        b = hnp_tree_parent(t, b);
        hops++;
    }
    while (a != b) {
        a = hnp_tree_parent(t, a);
        b = hnp_tree_parent(t, b);
        hops += 2;
    }
    return hops;
}

/* Following next_hop from every vertex reaches every vertex, over tree
 * edges only, in exactly the tree-path number of hops. */
static void check_routing(const hnp_tree_t *t)
{
    for (hnp_vpid_t self = 0; self < t->n; self++) {
        CHECK(hnp_tree_next_hop(t, self, self) == self,
              "%s: next_hop(%u, self) moves", tree_name(t), self);
        for (hnp_vpid_t dest = 0; dest < t->n; dest++) {
            hnp_vpid_t at = self;
            uint32_t hops = 0;
            while (at != dest && hops <= t->n) {
                hnp_vpid_t next = hnp_tree_next_hop(t, at, dest);
                CHECK(next < t->n && (hnp_tree_parent(t, next) == at ||
                                      hnp_tree_parent(t, at) == next),
                      "%s: hop %u -> %u is not a tree edge", tree_name(t), at,
                      next);
                at = next;
                hops++;
            }
            CHECK(hops == path_length(t, self, dest),
                  "%s: %u -> %u took %u hops, the tree path has %u",
                  tree_name(t), self, dest, hops, path_length(t, self, dest));
        }
    }
}

static void test_next_hop_reaches_everyone(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= 64; n++) {
        for (size_t i = 0; i < NARITIES; i++) {
            hnp_tree_t t = hnp_tree_kary(n, arities[i]);
            check_routing(&t);
        }
        hnp_tree_t b = hnp_tree_binomial(n);
        check_routing(&b);
    }
}

/* ------------------------------------------------ hand-computed trees */

static void expect_children(const hnp_tree_t *t, hnp_vpid_t v,
                            const hnp_vpid_t *want, uint32_t nwant)
{
    hnp_vpid_t got[16];
    uint32_t n = hnp_tree_children(t, v, got, 16);
    CHECK(n == nwant, "%s: %u has %u children, expected %u", tree_name(t), v,
          n, nwant);
    for (uint32_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: child %u of %u is %u, expected %u",
              tree_name(t), i, v, got[i], want[i]);
}

#define EXPECT_CHILDREN(t, v, ...)                                         \
    do {                                                                   \
        const hnp_vpid_t want_[] = { __VA_ARGS__ };                        \
        expect_children((t), (v), want_, sizeof(want_) / sizeof(want_[0])); \
    } while (0)
#define EXPECT_LEAF(t, v) expect_children((t), (v), NULL, 0)

/* Binomial, n = 8: a vertex's children add each power of two above its own
 * highest bit. */
static void test_binomial_8(void **state)
{
    (void)state;
    hnp_tree_t t = hnp_tree_binomial(8);

    EXPECT_CHILDREN(&t, 0, 1, 2, 4);
    EXPECT_CHILDREN(&t, 1, 3, 5);
    EXPECT_CHILDREN(&t, 2, 6);
    EXPECT_CHILDREN(&t, 3, 7);
    for (hnp_vpid_t v = 4; v < 8; v++)
        EXPECT_LEAF(&t, v);
    assert_int_equal(hnp_tree_parent(&t, 7), 3);
    assert_int_equal(hnp_tree_parent(&t, 6), 2);
    assert_int_equal(hnp_tree_depth(&t, 7), 3);
    assert_int_equal(hnp_tree_depth(&t, 4), 1);
    assert_int_equal(hnp_tree_height(&t), 3);

    hnp_vpid_t d[8];
    const hnp_vpid_t bfs[] = { 1, 2, 4, 3, 5, 6, 7 };
    assert_int_equal(hnp_tree_descendants(&t, 0, d, 8), 7);
    assert_memory_equal(d, bfs, sizeof(bfs));
    assert_int_equal(hnp_tree_next_hop(&t, 4, 7), 0);
    assert_int_equal(hnp_tree_next_hop(&t, 0, 7), 1);
    assert_int_equal(hnp_tree_next_hop(&t, 1, 7), 3);
    assert_int_equal(hnp_tree_next_hop(&t, 6, 5), 2);
}

/* Binomial, n = 16: breadth-first order of the root's subtree follows the
 * queue, not numeric order (5 before 6, 9 before 6). */
static void test_binomial_16_bfs(void **state)
{
    (void)state;
    hnp_tree_t t = hnp_tree_binomial(16);
    hnp_vpid_t d[15];
    const hnp_vpid_t bfs[] = { 1, 2, 4, 8, 3, 5, 9, 6, 10, 12, 7, 11, 13, 14,
                               15 };

    assert_int_equal(hnp_tree_descendants(&t, 0, d, 15), 15);
    assert_memory_equal(d, bfs, sizeof(bfs));
    assert_int_equal(hnp_tree_height(&t), 4);
    assert_int_equal(hnp_tree_descendants(&t, 2, d, 15), 3);
    const hnp_vpid_t of2[] = { 6, 10, 14 };
    assert_memory_equal(d, of2, sizeof(of2));
}

/* 3-ary, n = 13 (δ² + δ + 1): two full levels below the root. */
static void test_ternary_13(void **state)
{
    (void)state;
    hnp_tree_t t = hnp_tree_kary(13, 3);

    EXPECT_CHILDREN(&t, 0, 1, 2, 3);
    EXPECT_CHILDREN(&t, 1, 4, 5, 6);
    EXPECT_CHILDREN(&t, 3, 10, 11, 12);
    EXPECT_LEAF(&t, 4);
    assert_int_equal(hnp_tree_height(&t), 2);
    assert_int_equal(hnp_tree_depth(&t, 12), 2);
    assert_int_equal(hnp_tree_next_hop(&t, 5, 11), 1);
    assert_int_equal(hnp_tree_next_hop(&t, 0, 11), 3);
    assert_int_equal(hnp_tree_next_hop(&t, 3, 11), 11);

    hnp_tree_t u = hnp_tree_kary(14, 3); /* one more starts a third level */
    assert_int_equal(hnp_tree_height(&u), 3);
    EXPECT_CHILDREN(&u, 4, 13);
}

/* Flat (k = 0) and chain (k = 1). */
static void test_flat_and_chain(void **state)
{
    (void)state;
    hnp_tree_t flat = hnp_tree_kary(6, 0);
    EXPECT_CHILDREN(&flat, 0, 1, 2, 3, 4, 5);
    EXPECT_LEAF(&flat, 3);
    assert_int_equal(hnp_tree_next_hop(&flat, 3, 5), 0);
    assert_int_equal(hnp_tree_next_hop(&flat, 0, 5), 5);
    assert_int_equal(hnp_tree_height(&flat), 1);

    hnp_tree_t chain = hnp_tree_kary(6, 1);
    EXPECT_CHILDREN(&chain, 2, 3);
    EXPECT_LEAF(&chain, 5);
    assert_int_equal(hnp_tree_next_hop(&chain, 2, 5), 3);
    assert_int_equal(hnp_tree_next_hop(&chain, 4, 1), 3);
    assert_int_equal(hnp_tree_height(&chain), 5);

    hnp_tree_t one = hnp_tree_kary(1, 32);
    assert_int_equal(hnp_tree_height(&one), 0);
    EXPECT_LEAF(&one, 0);
}

/* -------------------------------------------- edges and large sizes */

static void test_out_of_range(void **state)
{
    (void)state;
    hnp_tree_t trees[] = { hnp_tree_kary(10, 2), hnp_tree_kary(10, 0),
                           hnp_tree_kary(10, 1), hnp_tree_binomial(10) };
    for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
        const hnp_tree_t *t = &trees[i];
        assert_int_equal(hnp_tree_parent(t, 10), HNP_VPID_INVALID);
        assert_int_equal(hnp_tree_children(t, 10, NULL, 0), 0);
        assert_int_equal(hnp_tree_descendants(t, 10, NULL, 0), 0);
        assert_false(hnp_tree_in_subtree(t, 0, 10));
        assert_false(hnp_tree_in_subtree(t, 10, 10));
        assert_int_equal(hnp_tree_next_hop(t, 10, 0), HNP_VPID_INVALID);
        assert_int_equal(hnp_tree_next_hop(t, 0, 10), HNP_VPID_INVALID);
        assert_int_equal(hnp_tree_next_hop(t, 0, HNP_VPID_INVALID),
                         HNP_VPID_INVALID);
    }
    hnp_tree_t empty = hnp_tree_binomial(0);
    assert_int_equal(hnp_tree_height(&empty), 0);
    assert_int_equal(hnp_tree_parent(&empty, 0), HNP_VPID_INVALID);
    hnp_tree_t empty_kary = hnp_tree_kary(0, 4);
    assert_int_equal(hnp_tree_height(&empty_kary), 0);
}

/* A buffer shorter than the answer gets a prefix; the count is the whole. */
static void test_truncated_output(void **state)
{
    (void)state;
    hnp_tree_t t = hnp_tree_kary(100, 8);
    hnp_vpid_t buf[4] = { 99, 99, 99, 99 };

    assert_int_equal(hnp_tree_children(&t, 0, buf, 3), 8);
    assert_int_equal(buf[2], 3);
    assert_int_equal(buf[3], 99);
    /* below 1: 9..16, then 73..99 (8*9+1 up to the last vertex) */
    assert_int_equal(hnp_tree_descendants(&t, 1, buf, 3), 8 + 27);
    assert_int_equal(buf[0], 9);
    assert_int_equal(buf[3], 99);

    hnp_tree_t b = hnp_tree_binomial(100);
    assert_int_equal(hnp_tree_descendants(&b, 0, buf, 3), 99);
    assert_int_equal(buf[2], 4);
    assert_int_equal(buf[3], 99);
}

/* Near UINT32_MAX: k*v + 1 and v + 2^31 leave 32 bits; nothing may wrap. */
static void test_large_kary(void **state)
{
    (void)state;
    const uint32_t n = UINT32_MAX - 1;
    hnp_tree_t t = hnp_tree_kary(n, 32);
    hnp_vpid_t buf[32];

    uint32_t last_parent = (n - 2) / 32;
    assert_int_equal(hnp_tree_children(&t, n - 2, buf, 32), 0);
    assert_int_equal(hnp_tree_children(&t, last_parent + 1, buf, 32), 0);
    uint32_t nc = hnp_tree_children(&t, last_parent, buf, 32);
    assert_true(nc >= 1 && nc <= 32);
    assert_int_equal(buf[nc - 1], n - 1);
    assert_int_equal(hnp_tree_parent(&t, n - 1), last_parent);
    assert_int_equal(hnp_tree_descendants(&t, 0, NULL, 0), n - 1);
    assert_true(hnp_tree_in_subtree(&t, 1, 33));
    assert_false(hnp_tree_in_subtree(&t, 2, 33));
    assert_int_equal(hnp_tree_height(&t), hnp_tree_depth(&t, n - 1));
    /* Depths 0..6 hold (32^7 - 1) / 31, about 1.1e9 vertices: too few. */
    assert_int_equal(hnp_tree_height(&t), 7);
    hnp_vpid_t top = n - 1;
    while (hnp_tree_parent(&t, top) != 0)
        top = hnp_tree_parent(&t, top);
    assert_int_equal(hnp_tree_next_hop(&t, 0, n - 1), top);
    assert_int_equal(hnp_tree_next_hop(&t, n - 1, 0), last_parent);

    /* An arity so large that k*v + 1 overflows 32 bits for every v > 0. */
    hnp_tree_t wide = hnp_tree_kary(n, UINT32_MAX - 1);
    assert_int_equal(hnp_tree_children(&wide, 1, NULL, 0), 0);
    assert_int_equal(hnp_tree_children(&wide, 0, NULL, 0), n - 1);
    assert_int_equal(hnp_tree_parent(&wide, n - 1), 0);
    assert_int_equal(hnp_tree_height(&wide), 1);
    assert_int_equal(hnp_tree_descendants(&wide, 7, NULL, 0), 0);

    hnp_tree_t chain = hnp_tree_kary(n, 1);
    assert_int_equal(hnp_tree_next_hop(&chain, 5, n - 1), 6);
    assert_int_equal(hnp_tree_depth(&chain, n - 1), n - 1);
    assert_int_equal(hnp_tree_descendants(&chain, 5, NULL, 0), n - 6);
    assert_true(hnp_tree_in_subtree(&chain, 5, n - 1));
}

static void test_large_binomial(void **state)
{
    (void)state;
    const uint32_t n = UINT32_MAX - 1;
    hnp_tree_t t = hnp_tree_binomial(n);
    hnp_vpid_t buf[40];

    assert_int_equal(hnp_tree_children(&t, 0, buf, 40), 32);
    assert_int_equal(buf[31], UINT32_C(1) << 31);
    assert_int_equal(hnp_tree_children(&t, UINT32_C(1) << 31, NULL, 0), 0);
    assert_int_equal(hnp_tree_children(&t, 1, NULL, 0), 31);
    assert_int_equal(hnp_tree_parent(&t, n - 1), (n - 1) & ~(UINT32_C(1) << 31));
    assert_int_equal(hnp_tree_descendants(&t, 0, NULL, 0), n - 1);
    assert_int_equal(hnp_tree_descendants(&t, 1, NULL, 0), (n - 2) / 2);
    /* No vertex below 0xfffffffe has all 32 bits set. */
    assert_int_equal(hnp_tree_height(&t), 31);
    assert_int_equal(hnp_tree_depth(&t, 0x7fffffff), 31);
    /* The last vertex 0x80000000 is shallow; 0x7fffffff is the deepest. */
    hnp_tree_t pow2 = hnp_tree_binomial(UINT32_C(0x80000001));
    assert_int_equal(hnp_tree_height(&pow2), 31);
    assert_int_equal(hnp_tree_depth(&pow2, UINT32_C(0x80000000)), 1);
    assert_int_equal(hnp_tree_next_hop(&t, 0, n - 1), 1);
    assert_int_equal(hnp_tree_next_hop(&t, 0x7ffffffd, n - 1), n - 1);
    assert_true(hnp_tree_in_subtree(&t, 0x7ffffffd, n - 1));
    assert_false(hnp_tree_in_subtree(&t, UINT32_C(1) << 31, n - 1));

    /* The first breadth-first level of the root is every power of two. */
    assert_int_equal(hnp_tree_descendants(&t, 0, buf, 33), n - 1);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(buf[i], UINT32_C(1) << i);
    assert_int_equal(buf[32], 3);
}

/* A runtime that grows appends vertices (new daemons get new vpids): the
 * routing trees keep every existing vertex's parent and every route
 * between existing vertices, so the daemons already running need not
 * learn of the new ones to keep their own routes. */
static void test_growth_keeps_routes(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= 70; n++)
        for (uint32_t grown = n + 1; grown <= n + 9; grown += 4) {
            hnp_tree_t before[] = { hnp_tree_binomial(n), hnp_tree_kary(n, 0),
                                    hnp_tree_kary(n, 2), hnp_tree_kary(n, 3) };
            hnp_tree_t after[] = { hnp_tree_binomial(grown),
                                   hnp_tree_kary(grown, 0),
                                   hnp_tree_kary(grown, 2),
                                   hnp_tree_kary(grown, 3) };
            for (size_t t = 0; t < sizeof(before) / sizeof(before[0]); t++)
                for (hnp_vpid_t v = 0; v < n; v++) {
                    assert_int_equal(hnp_tree_parent(&before[t], v),
                                     hnp_tree_parent(&after[t], v));
                    for (hnp_vpid_t d = 0; d < n; d++)
                        assert_int_equal(hnp_tree_next_hop(&before[t], v, d),
                                         hnp_tree_next_hop(&after[t], v, d));
                }
        }
}

/* A spawn tree after daemons were added: the first vertices keep their
 * spawn parent, whatever the kind; the added ones are the root's children
 * (the HNP starts them); a flat tree stays flat; it never shrinks. */
static void test_extend_hangs_new_vertices_under_root(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= 40; n++) {
        hnp_tree_t greedy;
        assert_int_equal(hnp_tree_greedy(n, 0.01, 0.05, &greedy), HNP_SUCCESS);
        hnp_tree_t trees[] = { hnp_tree_binomial(n), hnp_tree_kary(n, 0),
                               hnp_tree_kary(n, 3), greedy };
        for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
            hnp_tree_t grown;
            assert_int_equal(hnp_tree_extend(&trees[t], n + 5, &grown),
                             HNP_SUCCESS);
            assert_int_equal(grown.n, n + 5);
            for (hnp_vpid_t v = 0; v < n; v++)
                assert_int_equal(hnp_tree_parent(&grown, v),
                                 hnp_tree_parent(&trees[t], v));
            for (hnp_vpid_t v = n; v < n + 5; v++) {
                assert_int_equal(hnp_tree_parent(&grown, v), 0);
                assert_int_equal(hnp_tree_next_hop(&grown, 0, v), v);
            }
            if (t == 1)
                assert_int_equal(grown.kind, HNP_TREE_KARY);
            hnp_tree_release(&grown);
            grown = (hnp_tree_t){ .n = 99 };
            assert_int_equal(hnp_tree_extend(&trees[t], n - 1, &grown),
                             HNP_ERR_BAD_PARAM);
            assert_int_equal(grown.n, 99); /* untouched */
        }
        hnp_tree_release(&greedy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_small_size),
        cmocka_unit_test(test_boundary_sizes),
        cmocka_unit_test(test_next_hop_reaches_everyone),
        cmocka_unit_test(test_binomial_8),
        cmocka_unit_test(test_binomial_16_bfs),
        cmocka_unit_test(test_ternary_13),
        cmocka_unit_test(test_flat_and_chain),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_truncated_output),
        cmocka_unit_test(test_large_kary),
        cmocka_unit_test(test_large_binomial),
        cmocka_unit_test(test_growth_keeps_routes),
        cmocka_unit_test(test_extend_hangs_new_vertices_under_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
