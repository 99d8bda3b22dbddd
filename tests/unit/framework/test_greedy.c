/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the greedy spawn tree and the launch model of paper 001
 * (framework/tree_greedy.c, framework/tree_explicit.c).
 *
 * The greedy tree must be a valid tree whose children lists are in spawn
 * order, the same every time it is built, and never slower under the model
 * than any k-ary or the flat tree. The functions of the explicit kind are
 * checked against what parent() alone implies, found by brute force.
 */
#include "config.h"

#include <math.h>
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

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond))                                                       \
            fail_msg(__VA_ARGS__);                                         \
    } while (0)

typedef struct costs {
    double seq, rem;
} costs_t;

/* Paper 001's scenarios, their extremes, and SEQ above REM. */
static const costs_t cost_cases[] = {
    { 0.007, 0.172 }, { 0.007, 2.0 }, { 0.007, 10.0 }, { 0.015, 0.227 },
    { 0.01, 0.05 },   { 1.0, 1.0 },   { 0.5, 0.1 },    { 0.0, 0.172 },
    { 0.007, 0.0 },   { 0.0, 0.0 },   { 3.0, 0.001 },
};
#define NCOSTS (sizeof(cost_cases) / sizeof(cost_cases[0]))

static const uint32_t sizes[] = { 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33,
                                  64, 100, 127, 129, 255, 1000, 1025, 4096 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static hnp_tree_t greedy(uint32_t n, double seq, double rem)
{
    hnp_tree_t t;
    assert_int_equal(hnp_tree_greedy(n, seq, rem, &t), HNP_SUCCESS);
    assert_int_equal(t.kind, HNP_TREE_EXPLICIT);
    assert_int_equal(t.n, n);
    return t;
}

static double model(const hnp_tree_t *t, double seq, double rem)
{
    double time = -1.0;
    assert_int_equal(hnp_tree_model_time(t, seq, rem, &time), HNP_SUCCESS);
    return time;
}

static hnp_vpid_t *parents_of(const hnp_tree_t *t)
{
    hnp_vpid_t *p = malloc(t->n * sizeof(*p));
    assert_non_null(p);
    for (hnp_vpid_t v = 0; v < t->n; v++)
        p[v] = hnp_tree_parent(t, v);
    return p;
}

/* --------------------------------------------------------- hand cases */

static void test_single_and_pair(void **state)
{
    (void)state;
    hnp_tree_t t = greedy(1, 0.007, 0.172);
    assert_int_equal(hnp_tree_parent(&t, 0), HNP_VPID_INVALID);
    assert_int_equal(hnp_tree_children(&t, 0, NULL, 0), 0);
    assert_int_equal(hnp_tree_height(&t), 0);
    assert_true(model(&t, 0.007, 0.172) == 0.0);
    hnp_tree_release(&t);

    t = greedy(2, 0.007, 0.172);
    assert_int_equal(hnp_tree_parent(&t, 1), 0);
    assert_true(fabs(model(&t, 0.007, 0.172) - 0.172) < 1e-12);
    hnp_tree_release(&t);
    assert_int_equal(t.n, 0);
}

/*
 * SEQ = REM = 1: every process started at time s has a child starting at
 * s + 1, so the processes started by time T double each unit: 1, 2, 4, 8.
 * Ties go to the lower parent, so the eight vertices have these parents.
 */
static void test_doubling_by_hand(void **state)
{
    static const hnp_vpid_t expect[8] = { HNP_VPID_INVALID, 0, 0, 1,
                                          0, 1, 2, 3 };
    (void)state;
    hnp_tree_t t = greedy(8, 1.0, 1.0);
    for (hnp_vpid_t v = 0; v < 8; v++)
        assert_int_equal(hnp_tree_parent(&t, v), expect[v]);
    assert_true(model(&t, 1.0, 1.0) == 3.0);
    hnp_tree_release(&t);
}

/*
 * (0.007, 0.172): the root's 25th child starts at 0.172 + 24 * 0.007 =
 * 0.340, before its first child's first child at 0.344, which the 26th
 * vertex takes (the root's 26th would start at 0.347).
 */
static void test_paper_costs_by_hand(void **state)
{
    (void)state;
    hnp_tree_t t = greedy(28, 0.007, 0.172);
    for (hnp_vpid_t v = 1; v <= 25; v++)
        assert_int_equal(hnp_tree_parent(&t, v), 0);
    assert_int_equal(hnp_tree_parent(&t, 26), 1);
    /* Then the root's 26th (0.347) beats 1's second and 2's first (0.351). */
    assert_int_equal(hnp_tree_parent(&t, 27), 0);
    assert_true(fabs(model(&t, 0.007, 0.172) - 0.347) < 1e-9);
    hnp_tree_release(&t);
}

/* SEQ = 0 makes the root start everyone at once; REM = 0 makes every start
 * free, whatever the shape. */
static void test_zero_costs(void **state)
{
    (void)state;
    hnp_tree_t t = greedy(50, 0.0, 0.172);
    assert_int_equal(hnp_tree_children(&t, 0, NULL, 0), 49);
    assert_true(fabs(model(&t, 0.0, 0.172) - 0.172) < 1e-12);
    hnp_tree_release(&t);
    t = greedy(50, 0.007, 0.0);
    assert_true(model(&t, 0.007, 0.0) == 0.0);
    hnp_tree_release(&t);
}

static void test_bad_arguments(void **state)
{
    hnp_tree_t t = hnp_tree_kary(5, 2);
    double time;
    (void)state;
    assert_int_equal(hnp_tree_greedy(0, 0.1, 0.1, &t), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_tree_greedy(5, -0.1, 0.1, &t), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_tree_greedy(5, 0.1, NAN, &t), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_tree_greedy(5, INFINITY, 0.1, &t), HNP_ERR_BAD_PARAM);
    assert_int_equal(t.kind, HNP_TREE_KARY); /* untouched on failure */
    assert_int_equal(hnp_tree_greedy(5, 0.1, 0.1, NULL), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_tree_model_time(&t, 0.1, 0.1, NULL),
                     HNP_ERR_BAD_PARAM);
    t = hnp_tree_kary(0, 2);
    assert_int_equal(hnp_tree_model_time(&t, 0.1, 0.1, &time),
                     HNP_ERR_BAD_PARAM);
    hnp_tree_release(&t); /* a formula kind: nothing to do */
}

/* The model on trees whose time has a closed form. */
static void test_model_closed_forms(void **state)
{
    (void)state;
    hnp_tree_t flat = hnp_tree_kary(1000, 0);
    hnp_tree_t chain = hnp_tree_kary(10, 1);
    hnp_tree_t binary = hnp_tree_kary(7, 2);
    assert_true(fabs(model(&flat, 0.007, 0.172) - (998 * 0.007 + 0.172)) <
                1e-9);
    assert_true(fabs(model(&chain, 0.007, 0.172) - 9 * 0.172) < 1e-9);
    /* Vertex 6: second child of 2, second child of 0. */
    assert_true(fabs(model(&binary, 0.5, 1.0) - 3.0) < 1e-12);
}

/* ------------------------------------------------ validity, determinism */

/* One parent each, parent numbered below the child, children lists agree
 * with parents and come in increasing (spawn) order. */
static void check_valid(const hnp_tree_t *t)
{
    uint32_t total = 0;
    hnp_vpid_t *kids = malloc(t->n * sizeof(*kids));
    assert_non_null(kids);
    for (hnp_vpid_t v = 0; v < t->n; v++) {
        uint32_t nk = hnp_tree_children(t, v, kids, t->n);
        if (v > 0)
            CHECK(hnp_tree_parent(t, v) < v, "n=%u v=%u parent %u", t->n, v,
                  hnp_tree_parent(t, v));
        for (uint32_t i = 0; i < nk; i++) {
            CHECK(hnp_tree_parent(t, kids[i]) == v, "n=%u child %u of %u",
                  t->n, kids[i], v);
            CHECK(i == 0 || kids[i - 1] < kids[i], "n=%u order under %u",
                  t->n, v);
        }
        total += nk;
    }
    CHECK(total == t->n - 1, "n=%u: %u edges", t->n, total);
    free(kids);
}

static void test_valid_and_deterministic(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCOSTS; c++)
        for (size_t s = 0; s < NSIZES; s++) {
            const costs_t *k = &cost_cases[c];
            hnp_tree_t a = greedy(sizes[s], k->seq, k->rem);
            hnp_tree_t b = greedy(sizes[s], k->seq, k->rem);
            hnp_vpid_t *pa = parents_of(&a), *pb = parents_of(&b);
            check_valid(&a);
            CHECK(memcmp(pa, pb, a.n * sizeof(*pa)) == 0,
                  "n=%u (%g, %g) differs between builds", a.n, k->seq, k->rem);
            free(pa);
            free(pb);
            hnp_tree_release(&a);
            hnp_tree_release(&b);
        }
}

/* ------------------------------------------------------------ optimal */

static void check_not_slower(uint32_t n, const costs_t *k)
{
    hnp_tree_t g = greedy(n, k->seq, k->rem);
    double best = model(&g, k->seq, k->rem);
    /* Sums of the same terms in another order may differ in the last bit. */
    double slack = 1e-9 * (1.0 + best);

    for (uint32_t arity = 0; arity <= 64; arity++) {
        hnp_tree_t t = hnp_tree_kary(n, arity);
        double other = model(&t, k->seq, k->rem);
        CHECK(best <= other + slack, "n=%u (%g, %g): greedy %.9f > %u-ary "
              "%.9f", n, k->seq, k->rem, best, arity, other);
    }
    hnp_tree_t bin = hnp_tree_binomial(n);
    CHECK(best <= model(&bin, k->seq, k->rem) + slack,
          "n=%u: greedy slower than binomial", n);
    hnp_tree_release(&g);
}

static void test_never_slower_than_kary(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCOSTS; c++) {
        for (size_t s = 0; s < NSIZES; s++)
            check_not_slower(sizes[s], &cost_cases[c]);
        for (uint32_t n = 1; n <= 70; n++)
            check_not_slower(n, &cost_cases[c]);
    }
}

/* -------------------------------------------- explicit kind vs brute force */

/* Descendants of v by a breadth-first search over parent() alone. */
static uint32_t brute_descendants(const hnp_tree_t *t, const hnp_vpid_t *par,
                                  hnp_vpid_t v, hnp_vpid_t *queue)
{
    uint32_t head = 0, tail = 0;
    hnp_vpid_t u = v;

    for (;;) {
        for (hnp_vpid_t c = 1; c < t->n; c++)
            if (par[c] == u)
                queue[tail++] = c;
        if (head == tail)
            return tail;
        u = queue[head++];
    }
}

static uint32_t brute_depth(const hnp_vpid_t *par, hnp_vpid_t v)
{
    uint32_t d = 0;
    for (; v != 0; v = par[v])
        d++;
    return d;
}

static void check_vertex(const hnp_tree_t *t, const hnp_vpid_t *par,
                         hnp_vpid_t v, hnp_vpid_t *a, hnp_vpid_t *b)
{
    uint32_t nb = brute_descendants(t, par, v, b);
    uint32_t na = hnp_tree_descendants(t, v, a, t->n);

    CHECK(na == nb && memcmp(a, b, nb * sizeof(*a)) == 0,
          "n=%u descendants of %u", t->n, v);
    if (nb > 1) { /* a buffer shorter than the subtree */
        memset(a, 0xff, t->n * sizeof(*a));
        assert_int_equal(hnp_tree_descendants(t, v, a, nb / 2), nb);
        CHECK(memcmp(a, b, (nb / 2) * sizeof(*a)) == 0 &&
              a[nb / 2] == HNP_VPID_INVALID, "n=%u short buffer at %u",
              t->n, v);
    }
    CHECK(hnp_tree_depth(t, v) == brute_depth(par, v), "n=%u depth %u",
          t->n, v);
    for (hnp_vpid_t d = 0; d < t->n; d++) {
        bool below = d == v;
        for (uint32_t i = 0; i < nb && !below; i++)
            below = b[i] == d;
        CHECK(hnp_tree_in_subtree(t, v, d) == below, "n=%u %u below %u",
              t->n, d, v);
        hnp_vpid_t hop = hnp_tree_next_hop(t, v, d);
        if (d == v)
            CHECK(hop == v, "n=%u hop to self", t->n);
        else if (!below)
            CHECK(hop == par[v], "n=%u hop %u->%u up", t->n, v, d);
        else
            CHECK(par[hop] == v && hnp_tree_in_subtree(t, hop, d),
                  "n=%u hop %u->%u down", t->n, v, d);
    }
}

static void test_explicit_matches_brute_force(void **state)
{
    static const uint32_t ns[] = { 1, 2, 3, 10, 57, 200 };
    (void)state;
    for (size_t c = 0; c < NCOSTS; c++)
        for (size_t s = 0; s < sizeof(ns) / sizeof(ns[0]); s++) {
            hnp_tree_t t = greedy(ns[s], cost_cases[c].seq, cost_cases[c].rem);
            hnp_tree_t view = t; /* copies read the owner's arrays */
            hnp_vpid_t *par = parents_of(&view);
            hnp_vpid_t *a = malloc(t.n * sizeof(*a));
            hnp_vpid_t *b = malloc(t.n * sizeof(*b));
            uint32_t height = 0;
            assert_non_null(a);
            assert_non_null(b);
            for (hnp_vpid_t v = 0; v < t.n; v++) {
                check_vertex(&view, par, v, a, b);
                if (brute_depth(par, v) > height)
                    height = brute_depth(par, v);
            }
            assert_int_equal(hnp_tree_height(&view), height);
            assert_int_equal(hnp_tree_parent(&view, t.n), HNP_VPID_INVALID);
            assert_int_equal(hnp_tree_children(&view, t.n, a, t.n), 0);
            free(a);
            free(b);
            free(par);
            hnp_tree_release(&t);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_and_pair),
        cmocka_unit_test(test_doubling_by_hand),
        cmocka_unit_test(test_paper_costs_by_hand),
        cmocka_unit_test(test_zero_costs),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_model_closed_forms),
        cmocka_unit_test(test_valid_and_deterministic),
        cmocka_unit_test(test_never_slower_than_kary),
        cmocka_unit_test(test_explicit_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
