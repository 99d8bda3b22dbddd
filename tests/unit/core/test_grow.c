/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of hnp_rte_grow(): daemons added to a running runtime take
 * the next vpids, and every table a process holds by vpid grows with it.
 * What was known stays (node names, contacts kept as text, the leaving
 * bits, routes and spawn parents); the new vpids are names the runtime
 * takes (node names, contacts, routing children the heartbeat watches);
 * a refused growth changes nothing.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rte.h"

/* The routing of the test: binomial, as routed binomial gives it. */
static int binomial_tree(uint32_t nprocs, hnp_tree_t *out)
{
    *out = hnp_tree_binomial(nprocs);
    return HNP_SUCCESS;
}

static hnp_vpid_t binomial_parent(hnp_vpid_t vpid, uint32_t nprocs)
{
    hnp_tree_t t = hnp_tree_binomial(nprocs);
    return hnp_tree_parent(&t, vpid);
}

static uint32_t binomial_children(hnp_vpid_t vpid, uint32_t nprocs,
                                  hnp_vpid_t *out, uint32_t max)
{
    hnp_tree_t t = hnp_tree_binomial(nprocs);
    return hnp_tree_children(&t, vpid, out, max);
}

static hnp_vpid_t binomial_next_hop(hnp_vpid_t self, hnp_vpid_t dest,
                                    uint32_t nprocs)
{
    hnp_tree_t t = hnp_tree_binomial(nprocs);
    return hnp_tree_next_hop(&t, self, dest);
}

static const hnp_routed_module_t binomial = {
    .spanning_tree = binomial_tree,
    .parent = binomial_parent,
    .children = binomial_children,
    .next_hop = binomial_next_hop,
};

/* A tree launcher's spawn tree: binary, which differs from what growth
 * makes of it (the new daemons below the HNP). */
static int binary_spawn_tree(struct hnp_rte *rte, uint32_t nprocs,
                             const hnp_tree_t *routing, hnp_tree_t *out)
{
    (void)rte;
    (void)routing;
    *out = hnp_tree_kary(nprocs, 2);
    return HNP_SUCCESS;
}

static const hnp_plm_module_t binary_plm = { .spawn_tree = binary_spawn_tree };

typedef struct fixture {
    hnp_setup_t setup;
    hnp_rte_t *rte;
} fixture_t;

static char *first_names[4] = { "head", "a", "b", "c" };
static char *added_names[4] = { "d", "e", "f", "g" };

/* Daemon 2 of 4 (vpids 0..3): binomial routing parent 0, no routing
 * children; the HNP's spawn child. Daemons 1 and 3 are no neighbours: it
 * keeps their contacts as text. */
static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    char err[256] = "";
    hnp_rte_t *rte;

    assert_non_null(f);
    f->setup.core.if_include = (char *)"127.0.0.1/32";
    assert_int_equal(hnp_rte_create(&f->rte, &f->setup, false, 2, err,
                                    sizeof(err)),
                     HNP_SUCCESS);
    rte = f->rte;
    if (hnp_rte_start_oob(rte, 4, err, sizeof(err)) != HNP_SUCCESS)
        fail_msg("%s", err);
    assert_int_equal(hnp_rte_set_procs(rte, 4, first_names), HNP_SUCCESS);
    rte->routed = &binomial;
    rte->plm = &binary_plm;
    assert_int_equal(hnp_rte_build_trees(rte), HNP_SUCCESS);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;

    hnp_rte_destroy(f->rte);
    free(f);
    return 0;
}

static void test_known_stays_new_names_taken(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;
    const char *uri = hnp_rte_my_uri(rte);

    assert_int_equal(hnp_rte_set_uri(rte, 1, uri), HNP_SUCCESS);
    assert_int_equal(hnp_rte_set_uri(rte, 3, uri), HNP_SUCCESS);
    assert_non_null(rte->uris[1]); /* kept as text: no neighbour */
    assert_int_not_equal(hnp_rte_set_uri(rte, 6, uri), HNP_SUCCESS);

    assert_int_equal(hnp_rte_grow(rte, 8, added_names), HNP_SUCCESS);
    assert_int_equal(hnp_rte_num_procs(rte), 8);
    for (hnp_vpid_t v = 0; v < 4; v++)
        assert_string_equal(hnp_rte_node_name(rte, v), first_names[v]);
    for (hnp_vpid_t v = 4; v < 8; v++)
        assert_string_equal(hnp_rte_node_name(rte, v), added_names[v - 4]);
    assert_string_equal(rte->uris[1], uri);
    assert_string_equal(rte->uris[3], uri);
    for (hnp_vpid_t v = 4; v < 8; v++) {
        assert_null(rte->uris[v]);
        assert_false(rte->uri_wanted[v]);
    }
    /* 6 is now its routing child (binomial: 6 without its top bit), a
     * contact it takes and a next hop */
    assert_int_equal(hnp_rte_set_uri(rte, 6, uri), HNP_SUCCESS);
    assert_int_equal(hnp_rte_next_hop(rte, 6), 6);
    assert_int_equal(hnp_rte_next_hop(rte, 5), 0);
    assert_int_equal(hnp_rte_route_parent(rte), 0);
}

static void test_spawn_tree_keeps_parents(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;

    assert_int_equal(hnp_rte_grow(rte, 7, added_names), HNP_SUCCESS);
    assert_int_equal(hnp_tree_parent(&rte->spawn_tree, 3), 1);
    for (hnp_vpid_t v = 4; v < 7; v++)
        assert_int_equal(hnp_tree_parent(&rte->spawn_tree, v), 0);
    assert_int_equal(rte->routing_tree.n, 7);
}

/* A daemon added later is welcomed with the runtime's size and its first
 * launch's (wire/welcome.h): the trees it builds are those the running
 * daemons grew into. */
static void test_added_daemon_builds_the_grown_trees(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *grown = f->rte, *added = NULL;
    char *all[7] = { "head", "a", "b", "c", "d", "e", "f" };
    char err[256] = "";

    assert_int_equal(hnp_rte_grow(grown, 7, added_names), HNP_SUCCESS);
    assert_int_equal(hnp_rte_create(&added, &f->setup, false, 5, err,
                                    sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(hnp_rte_set_procs(added, 7, all), HNP_SUCCESS);
    added->nfirst = 4;
    added->routed = &binomial;
    added->plm = &binary_plm;
    assert_int_equal(hnp_rte_build_trees(added), HNP_SUCCESS);
    for (hnp_vpid_t v = 0; v < 7; v++) {
        assert_int_equal(hnp_tree_parent(&added->spawn_tree, v),
                         hnp_tree_parent(&grown->spawn_tree, v));
        assert_int_equal(hnp_tree_parent(&added->routing_tree, v),
                         hnp_tree_parent(&grown->routing_tree, v));
    }
    assert_int_equal(hnp_rte_spawn_children(added, NULL, 0), 0);
    assert_int_equal(grown->nfirst, 4);
    hnp_rte_destroy(added);
}

static void test_heartbeat_watches_new_children(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;

    assert_int_equal(hnp_rte_heartbeat_start(rte, 30.0, 3), HNP_SUCCESS);
    assert_true(hnp_rte_heartbeat_watches(rte, 0));
    assert_false(hnp_rte_heartbeat_watches(rte, 6));
    assert_int_equal(hnp_rte_grow(rte, 8, added_names), HNP_SUCCESS);
    assert_true(hnp_rte_heartbeat_watches(rte, 0));
    assert_true(hnp_rte_heartbeat_watches(rte, 6));
    assert_false(hnp_rte_heartbeat_watches(rte, 5));
    hnp_rte_heartbeat_heard(rte, 7); /* within its table now */
}

static void test_leaving_bits_kept(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;
    char *many[20];

    for (int i = 0; i < 20; i++)
        many[i] = added_names[i % 4];
    rte->left = calloc(1, 1);
    assert_non_null(rte->left);
    rte->left[0] |= 1u << 3; /* daemon 3 said it leaves */
    assert_int_equal(hnp_rte_grow(rte, 24, many), HNP_SUCCESS);
    assert_true(hnp_rte_peer_left(rte, 3));
    for (hnp_vpid_t v = 4; v < 24; v++)
        assert_false(hnp_rte_peer_left(rte, v));
    rte->left[23 / 8] |= 1u << (23 % 8); /* its byte exists */
    assert_true(hnp_rte_peer_left(rte, 23));
}

/* An exchange without the grow hook cannot take added daemons. */
static const hnp_exchange_module_t fixed_exchange = { .grow = NULL };

static void test_refused_growth_changes_nothing(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;

    rte->exchange = &fixed_exchange;
    assert_false(hnp_rte_can_grow(rte));
    assert_int_equal(hnp_rte_grow(rte, 6, added_names), HNP_ERR_NOT_AVAILABLE);
    assert_int_equal(hnp_rte_grow_collectives(rte), HNP_ERR_NOT_AVAILABLE);
    rte->exchange = NULL;

    assert_int_equal(hnp_rte_grow(rte, 4, added_names), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_grow(rte, 3, added_names), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_grow(rte, 6, NULL), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_num_procs(rte), 4);
    assert_null(hnp_rte_node_name(rte, 4));
    assert_int_equal(rte->routing_tree.n, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_known_stays_new_names_taken,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_spawn_tree_keeps_parents, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_added_daemon_builds_the_grown_trees, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heartbeat_watches_new_children,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_leaving_bits_kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_refused_growth_changes_nothing,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
