/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the job map (runtime/hosts/jobmap.c).
 *
 * Hand-computed maps pin down the policies; a randomized sweep then checks
 * the invariants every map must keep (local ranks count up in rank order,
 * no node past its slots unless oversubscribed, no idle node in the map,
 * nodes in host order) against a plain re-computation of the policies.
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
#include "hosts/jobmap.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ helpers */

static hnp_nodelist_t hosts(const char *text)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    char err[256];

    if (hnp_nodelist_parse_hosts(&l, text, err, sizeof(err)) < 0)
        fail_msg("--host %s: %s", text, err);
    return l;
}

static hnp_map_request_t request(uint32_t np, hnp_map_policy_t policy)
{
    hnp_map_request_t r = { .np = np, .npernode = 0, .policy = policy,
                            .oversubscribe = false, .default_slots = 1 };
    return r;
}

static hnp_job_map_t build_ok(const char *text, const hnp_map_request_t *r)
{
    hnp_nodelist_t l = hosts(text);
    hnp_job_map_t m;
    char err[256] = "";

    int rc = hnp_job_map_build(&l, r, &m, err, sizeof(err));
    hnp_nodelist_free(&l);
    if (rc != HNP_SUCCESS)
        fail_msg("map of %s: %d %s", text, rc, err);
    return m;
}

/* The map must place rank r on want[r] (node names) and have the nodes
 * @p names in that order. */
static void expect_placement(const hnp_job_map_t *m, const char *const *want,
                             size_t nprocs)
{
    assert_int_equal(m->nprocs, nprocs);
    for (size_t r = 0; r < nprocs; r++) {
        assert_true(m->node_of[r] < m->nnodes);
        if (strcmp(m->node_names[m->node_of[r]], want[r]) != 0)
            fail_msg("rank %zu on %s, want %s", r,
                     m->node_names[m->node_of[r]], want[r]);
    }
}

#define EXPECT_PLACEMENT(m, ...)                                           \
    do {                                                                   \
        static const char *const want_[] = { __VA_ARGS__ };                \
        expect_placement(m, want_, NELEM(want_));                          \
    } while (0)

static void expect_nodes(const hnp_job_map_t *m, const char *const *names,
                         size_t n)
{
    assert_int_equal(m->nnodes, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(m->node_names[i], names[i]);
}

#define EXPECT_NODES(m, ...)                                               \
    do {                                                                   \
        static const char *const names_[] = { __VA_ARGS__ };               \
        expect_nodes(m, names_, NELEM(names_));                            \
    } while (0)

static void expect_u32(const uint32_t *got, const uint32_t *want, size_t n,
                       const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s[%zu] = %u, want %u", what, i, got[i], want[i]);
}

#define EXPECT_U32(got, ...)                                               \
    do {                                                                   \
        static const uint32_t want_[] = { __VA_ARGS__ };                   \
        expect_u32(got, want_, NELEM(want_), #got);                        \
    } while (0)

/* Build must fail with exactly @p message and leave @p map untouched. */
static void expect_map_error(const char *text, const hnp_map_request_t *r,
                             const char *message)
{
    hnp_nodelist_t l = hosts(text);
    hnp_job_map_t m;
    char err[256] = "";

    memset(&m, 0xab, sizeof(m));
    int rc = hnp_job_map_build(&l, r, &m, err, sizeof(err));
    hnp_nodelist_free(&l);
    if (rc != HNP_ERR_BAD_PARAM)
        fail_msg("map of %s: returned %d (%s)", text, rc, err);
    assert_string_equal(err, message);
    for (size_t i = 0; i < sizeof(m); i++)
        assert_int_equal(((unsigned char *)&m)[i], 0xab);
}

/* --------------------------------------------------------- the policies */

static void test_by_slot(void **state)
{
    hnp_map_request_t r = request(3, HNP_MAP_BY_SLOT);
    (void)state;

    hnp_job_map_t m = build_ok("a:2,b:2", &r);
    EXPECT_NODES(&m, "a", "b");
    EXPECT_PLACEMENT(&m, "a", "a", "b");
    EXPECT_U32(m.local_rank, 0, 1, 0);
    EXPECT_U32(m.local_size, 2, 1);
    hnp_job_map_free(&m);

    /* Two processes fit on a: b gets no process and no daemon. */
    r.np = 2;
    m = build_ok("a:2,b:2", &r);
    EXPECT_NODES(&m, "a");
    EXPECT_U32(m.local_size, 2);
    hnp_job_map_free(&m);
}

/* keep_idle_nodes: the hosts without a process follow those with, in
 * host order, with their slots, in the universe too. */
static void test_keep_idle_nodes(void **state)
{
    hnp_map_request_t r = request(1, HNP_MAP_BY_SLOT);
    (void)state;

    r.keep_idle_nodes = true;
    hnp_job_map_t m = build_ok("a:2,b:3,c:4", &r);
    EXPECT_NODES(&m, "a", "b", "c");
    EXPECT_PLACEMENT(&m, "a");
    EXPECT_U32(m.local_size, 1, 0, 0);
    EXPECT_U32(m.node_slots, 2, 3, 4);
    assert_int_equal(m.universe_size, 9);
    hnp_job_map_free(&m);

    /* One rank a node for two ranks: the third node stays, idle. */
    r.np = 2;
    r.npernode = 1;
    r.policy = HNP_MAP_BY_NODE;
    m = build_ok("a:1,b:1,c:1", &r);
    EXPECT_NODES(&m, "a", "b", "c");
    EXPECT_U32(m.local_size, 1, 1, 0);
    hnp_job_map_free(&m);
}

static void test_by_node(void **state)
{
    hnp_map_request_t r = request(4, HNP_MAP_BY_NODE);
    (void)state;

    hnp_job_map_t m = build_ok("a:2,b:2,c:2", &r);
    EXPECT_NODES(&m, "a", "b", "c");
    EXPECT_PLACEMENT(&m, "a", "b", "c", "a");
    EXPECT_U32(m.local_rank, 0, 0, 0, 1);
    EXPECT_U32(m.local_size, 2, 1, 1);
    hnp_job_map_free(&m);

    /* A full node drops out of the rounds. */
    r.np = 5;
    m = build_ok("a:1,b:3,c:2", &r);
    EXPECT_PLACEMENT(&m, "a", "b", "c", "b", "c");
    EXPECT_U32(m.local_rank, 0, 0, 0, 1, 1);
    hnp_job_map_free(&m);

    /* Fewer processes than nodes: the last nodes stay out. */
    r.np = 2;
    m = build_ok("x,y,z", &r);
    EXPECT_NODES(&m, "x", "y");
    hnp_job_map_free(&m);
}

static void test_np_defaults_to_slots(void **state)
{
    hnp_map_request_t r = request(0, HNP_MAP_BY_SLOT);
    (void)state;

    hnp_job_map_t m = build_ok("a:2,b:3", &r);
    EXPECT_PLACEMENT(&m, "a", "a", "b", "b", "b");
    EXPECT_U32(m.local_rank, 0, 1, 0, 1, 2);
    hnp_job_map_free(&m);

    /* Nodes nobody gave slots for get the request's default. */
    r.default_slots = 2;
    m = build_ok("a,b:3,c", &r);
    assert_int_equal(m.nprocs, 7);
    EXPECT_U32(m.local_size, 2, 3, 2);
    hnp_job_map_free(&m);

    /* ... and one when there is no default either. */
    r.default_slots = 0;
    m = build_ok("a,b", &r);
    EXPECT_PLACEMENT(&m, "a", "b");
    hnp_job_map_free(&m);
}

static void test_npernode(void **state)
{
    hnp_map_request_t r = request(0, HNP_MAP_BY_SLOT);
    (void)state;

    r.npernode = 2;
    r.default_slots = 4;
    hnp_job_map_t m = build_ok("a,b,c", &r);
    EXPECT_PLACEMENT(&m, "a", "a", "b", "b", "c", "c");
    EXPECT_U32(m.local_rank, 0, 1, 0, 1, 0, 1);
    EXPECT_U32(m.local_size, 2, 2, 2);
    hnp_job_map_free(&m);

    /* -n smaller than K * nodes: the last nodes stay out. */
    r.np = 3;
    m = build_ok("a,b,c", &r);
    EXPECT_NODES(&m, "a", "b");
    EXPECT_PLACEMENT(&m, "a", "a", "b");
    hnp_job_map_free(&m);

    /* By node with -N: round robin, never more than K on a node. */
    r.np = 5;
    r.policy = HNP_MAP_BY_NODE;
    m = build_ok("a,b,c", &r);
    EXPECT_PLACEMENT(&m, "a", "b", "c", "a", "b");
    EXPECT_U32(m.local_size, 2, 2, 1);
    hnp_job_map_free(&m);

    /* -N past a node's slots is oversubscription. */
    r.np = 0;
    r.policy = HNP_MAP_BY_SLOT;
    r.oversubscribe = true;
    m = build_ok("a:1,b:1", &r);
    EXPECT_PLACEMENT(&m, "a", "a", "b", "b");
    hnp_job_map_free(&m);
}

static void test_oversubscribe(void **state)
{
    hnp_map_request_t r = request(6, HNP_MAP_BY_SLOT);
    (void)state;

    r.oversubscribe = true;
    hnp_job_map_t m = build_ok("a:2,b:1", &r);
    EXPECT_PLACEMENT(&m, "a", "a", "b", "a", "b", "a");
    EXPECT_U32(m.local_rank, 0, 1, 0, 2, 1, 3);
    EXPECT_U32(m.local_size, 4, 2);
    hnp_job_map_free(&m);

    r.policy = HNP_MAP_BY_NODE;
    m = build_ok("a:1,b:3", &r);
    EXPECT_PLACEMENT(&m, "a", "b", "b", "b", "a", "b");
    EXPECT_U32(m.local_rank, 0, 0, 1, 2, 1, 3);
    hnp_job_map_free(&m);

    /* Oversubscribing is allowed, not forced: a fitting job fits. */
    r.np = 2;
    m = build_ok("a:1,b:3", &r);
    EXPECT_PLACEMENT(&m, "a", "b");
    hnp_job_map_free(&m);
}

static void test_errors(void **state)
{
    hnp_map_request_t r = request(20, HNP_MAP_BY_SLOT);
    (void)state;

    expect_map_error("n[1-4]:4", &r,
                     "20 processes requested but the 4 nodes have 16 slots "
                     "(use --oversubscribe to allow more)");
    r.policy = HNP_MAP_BY_NODE;
    expect_map_error("n[1-4]:4", &r,
                     "20 processes requested but the 4 nodes have 16 slots "
                     "(use --oversubscribe to allow more)");
    r.np = 2;
    expect_map_error("solo", &r,
                     "2 processes requested but the 1 node has 1 slot (use "
                     "--oversubscribe to allow more)");

    r.np = 7;
    r.npernode = 2;
    r.default_slots = 8;
    expect_map_error("a,b,c", &r,
                     "7 processes requested but -N 2 on 3 nodes makes 6");
    r.oversubscribe = true;
    expect_map_error("a,b,c", &r,
                     "7 processes requested but -N 2 on 3 nodes makes 6");

    r.np = 0;
    r.oversubscribe = false;
    expect_map_error("a:4,b:1", &r,
                     "-N 2 puts 2 processes on b, which has 1 slot (use "
                     "--oversubscribe to allow more)");

    /* The errors name the option the user gave, not -N. */
    r.npernode_option = "--map-by ppr:1:socket";
    expect_map_error("a:4,b:1", &r,
                     "--map-by ppr:1:socket (2 a node) puts 2 processes on "
                     "b, which has 1 slot (use --oversubscribe to allow "
                     "more)");
    r.np = 7;
    expect_map_error("a,b,c", &r, "7 processes requested but --map-by "
                     "ppr:1:socket (2 a node) on 3 nodes makes 6");
}

static void test_bad_requests(void **state)
{
    hnp_nodelist_t empty = { NULL, 0, 0 }, l = hosts("a:2");
    hnp_map_request_t r = request(1, HNP_MAP_BY_SLOT);
    hnp_job_map_t m;
    char err[256];
    (void)state;

    assert_int_equal(hnp_job_map_build(&empty, &r, &m, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_string_equal(err, "no hosts to run on");
    assert_int_equal(hnp_job_map_build(NULL, &r, &m, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_job_map_build(&l, NULL, &m, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    r.policy = (hnp_map_policy_t)7;
    assert_int_equal(hnp_job_map_build(&l, &r, &m, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_string_equal(err, "unknown mapping policy 7");

    /* Slots given as zero on every node: nothing to fill. */
    r = request(0, HNP_MAP_BY_SLOT);
    hnp_nodelist_t zero = { NULL, 0, 0 };
    assert_int_equal(hnp_nodelist_add(&zero, "z", 0, true), HNP_SUCCESS);
    assert_int_equal(hnp_job_map_build(&zero, &r, &m, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_string_equal(err, "the 1 node has no slots");

    /* Too many slots in all for a job that did not say -n. */
    assert_int_equal(hnp_nodelist_add(&zero, "big1", UINT32_MAX, true), 0);
    assert_int_equal(hnp_nodelist_add(&zero, "big2", 1, true), 0);
    assert_int_equal(hnp_job_map_build(&zero, &r, &m, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "4294967296 slots"));
    hnp_nodelist_free(&zero);
    hnp_nodelist_free(&l);
}

static void test_ranks_on(void **state)
{
    hnp_map_request_t r = request(7, HNP_MAP_BY_NODE);
    uint32_t out[8];
    (void)state;

    hnp_job_map_t m = build_ok("a:3,b:3,c:1", &r);
    assert_int_equal(hnp_job_map_ranks_on(&m, 0, out), 3);
    EXPECT_U32(out, 0, 3, 5);
    assert_int_equal(hnp_job_map_ranks_on(&m, 1, out), 3);
    EXPECT_U32(out, 1, 4, 6);
    assert_int_equal(hnp_job_map_ranks_on(&m, 2, out), 1);
    EXPECT_U32(out, 2);
    assert_int_equal(hnp_job_map_ranks_on(&m, 3, out), 0);
    assert_int_equal(hnp_job_map_ranks_on(NULL, 0, out), 0);

    hnp_job_map_free(&m);
    assert_null(m.node_names);
    assert_int_equal(m.nnodes, 0);
    hnp_job_map_free(&m);
    hnp_job_map_free(NULL);
}

/* ------------------------------------------------- randomized sweep */

/* Every map must hold these, whatever the request. */
static void check_invariants(const hnp_job_map_t *m, const hnp_nodelist_t *l,
                             const hnp_map_request_t *r)
{
    uint32_t *seen = calloc(m->nnodes, sizeof(*seen));
    uint32_t *ranks = malloc((m->nprocs + 1) * sizeof(*ranks));
    size_t host = 0;

    for (uint32_t r_ = 0; r_ < m->nprocs; r_++) {
        uint32_t n = m->node_of[r_];
        assert_true(n < m->nnodes);
        assert_int_equal(m->local_rank[r_], seen[n]++);
    }
    for (uint32_t n = 0; n < m->nnodes; n++) {
        assert_int_equal(seen[n], m->local_size[n]);
        assert_true(m->local_size[n] > 0);
        assert_int_equal(hnp_job_map_ranks_on(m, n, ranks), seen[n]);
        for (uint32_t k = 0; k < seen[n]; k++)
            assert_int_equal(m->node_of[ranks[k]], n);
        /* Host order, and within its slots unless oversubscribed. */
        while (host < l->count && strcmp(l->nodes[host].name,
                                         m->node_names[n]) != 0)
            host++;
        assert_true(host < l->count);
        uint32_t slots = l->nodes[host].slots_given ? l->nodes[host].slots
                                                    : r->default_slots;
        /* -N K on a node whose slots nobody gave: K is its slots. */
        if (r->npernode > 0 && !l->nodes[host].slots_given)
            slots = r->npernode;
        if (!r->oversubscribe)
            assert_true(m->local_size[n] <= slots);
        if (r->npernode > 0)
            assert_true(m->local_size[n] <= r->npernode);
    }
    free(ranks);
    free(seen);
}

static void test_random_requests(void **state)
{
    char err[256];
    unsigned built = 0;
    (void)state;

    srand(20240601);
    for (int iter = 0; iter < 3000; iter++) {
        hnp_nodelist_t l = { NULL, 0, 0 };
        uint32_t nhosts = 1 + (uint32_t)rand() % 12;
        for (uint32_t i = 0; i < nhosts; i++) {
            char name[16];
            snprintf(name, sizeof(name), "h%u", i);
            bool given = rand() % 3 != 0;
            assert_int_equal(hnp_nodelist_add(&l, name,
                                               given ? 1 + rand() % 5 : 0,
                                               given), 0);
        }
        hnp_map_request_t r = request((uint32_t)rand() % 40,
                                      rand() % 2 ? HNP_MAP_BY_NODE
                                                 : HNP_MAP_BY_SLOT);
        r.default_slots = 1 + (uint32_t)rand() % 3;
        r.npernode = rand() % 4 == 0 ? 1 + (uint32_t)rand() % 3 : 0;
        r.oversubscribe = rand() % 2;
        hnp_job_map_t m;
        if (hnp_job_map_build(&l, &r, &m, err, sizeof(err)) == 0) {
            assert_true(r.np == 0 || m.nprocs == r.np);
            check_invariants(&m, &l, &r);
            hnp_job_map_free(&m);
            built++;
        } else {
            assert_true(strstr(err, "requested") != NULL ||
                        strstr(err, "-N") != NULL);
        }
        hnp_nodelist_free(&l);
    }
    /* Both outcomes must be exercised for the sweep to mean anything. */
    assert_true(built > 1000 && built < 3000);
}

static void test_large_map(void **state)
{
    hnp_map_request_t r = request(0, HNP_MAP_BY_NODE);
    (void)state;

    /* 10^6 ranks over 10^4 nodes: linear, so quick even under valgrind. */
    hnp_job_map_t m = build_ok("n[00001-10000]:100", &r);
    assert_int_equal(m.nprocs, 1000000);
    assert_int_equal(m.nnodes, 10000);
    assert_string_equal(m.node_names[9999], "n10000");
    assert_int_equal(m.node_of[999999], 9999);
    assert_int_equal(m.local_rank[999999], 99);
    assert_int_equal(m.node_of[10000], 0);
    assert_int_equal(m.local_rank[10000], 1);
    hnp_job_map_free(&m);
}

/* Under srun the daemons are numbered in the allocation's order: the
 * map's nodes take that order, every rank staying where it was mapped. */
static void test_order_nodes(void **state)
{
    hnp_map_request_t r = request(7, HNP_MAP_BY_SLOT);
    hnp_job_map_t m = build_ok("c:2,a:3,d:2", &r);
    hnp_nodelist_t alloc = hosts("a,b,c,x");
    static const uint32_t local_rank[] = { 0, 1, 0, 1, 2, 0, 1 };
    (void)state;

    assert_int_equal(hnp_job_map_order_nodes(&m, &alloc), HNP_SUCCESS);
    EXPECT_NODES(&m, "a", "c", "d");
    EXPECT_PLACEMENT(&m, "c", "c", "a", "a", "a", "d", "d");
    expect_u32(m.local_rank, local_rank, 7, "local_rank");
    assert_int_equal(m.local_size[0], 3);
    assert_int_equal(m.local_size[1], 2);
    assert_int_equal(m.local_size[2], 2);
    assert_int_equal(m.node_slots[0], 3);
    assert_int_equal(m.node_slots[1], 2);
    hnp_nodelist_free(&alloc);
    hnp_job_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_slot),
        cmocka_unit_test(test_by_node),
        cmocka_unit_test(test_keep_idle_nodes),
        cmocka_unit_test(test_np_defaults_to_slots),
        cmocka_unit_test(test_npernode),
        cmocka_unit_test(test_oversubscribe),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_ranks_on),
        cmocka_unit_test(test_random_requests),
        cmocka_unit_test(test_large_map),
        cmocka_unit_test(test_order_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
