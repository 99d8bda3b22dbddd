/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plm interface as the core reads it: the base's check of a module's
 * capability flags against its hooks, and what the in-tree launchers say
 * of themselves (rsh, prsh; slurm has its own test) — the flags the core
 * acts on instead of their names, and prsh's launch model.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "plm_base.h"
#include "plm/prsh/plm_prsh.h"
#include "plm/rsh/plm_rsh.h"

static int launch(struct hnp_rte *rte) { (void)rte; return HNP_SUCCESS; }

static int model(struct hnp_rte *rte, hnp_plm_launch_model_t *out)
{
    (void)rte;
    (void)out;
    return HNP_SUCCESS;
}

static int added(struct hnp_rte *rte, hnp_vpid_t first, uint32_t count)
{
    (void)rte;
    (void)first;
    (void)count;
    return HNP_SUCCESS;
}

static void test_check_accepts(void **state)
{
    const hnp_plm_module_t flat = { .launch_daemons = launch };
    const hnp_plm_module_t tree = {
        .capabilities = HNP_PLM_CAP_SPAWNS_TREE | HNP_PLM_CAP_LAUNCH_MODEL,
        .secret = HNP_PLM_SECRET_FILE, .launch_daemons = launch,
        .spawn_subtree = launch, .launch_model = model,
    };
    char err[256] = "";

    (void)state;
    assert_int_equal(hnp_plm_module_check(&flat, "flat", err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(hnp_plm_module_check(&tree, "tree", err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(hnp_plm_module_check(&plm_rsh_module, "rsh", err,
                                          sizeof(err)), HNP_SUCCESS);
    assert_int_equal(hnp_plm_module_check(&plm_prsh_module, "prsh", err,
                                          sizeof(err)), HNP_SUCCESS);
}

/* A flag is a promise the core acts on without looking at the hook. */
static void test_check_rejects(void **state)
{
    static const struct {
        hnp_plm_module_t module;
        const char *says;
    } bad[] = {
        { { .capabilities = 0 }, "has no launch_daemons" },
        { { .capabilities = HNP_PLM_CAP_SPAWNS_TREE, .launch_daemons = launch },
          "HNP_PLM_CAP_SPAWNS_TREE) but has no spawn_subtree" },
        { { .capabilities = HNP_PLM_CAP_LAUNCH_MODEL, .launch_daemons = launch },
          "HNP_PLM_CAP_LAUNCH_MODEL) but has no launch_model" },
        { { .secret = (hnp_plm_secret_t)7, .launch_daemons = launch },
          "unknown way for the secret" },
        { { .launch_daemons = launch, .launch_added = added },
          "(launch_added) that cannot be told who they are" },
    };
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(hnp_plm_module_check(&bad[i].module, "odd", err,
                                              sizeof(err)), HNP_ERR_BAD_PARAM);
        assert_non_null(strstr(err, "plm component 'odd' "));
        assert_non_null(strstr(err, bad[i].says));
    }
}

/* rsh: a flat launch through the agent, nothing to ask of it. */
static void test_rsh_says(void **state)
{
    (void)state;
    assert_int_equal(plm_rsh_module.capabilities, 0);
    assert_int_equal(plm_rsh_module.secret, HNP_PLM_SECRET_STDIN);
    assert_null(plm_rsh_module.spawn_subtree);
    assert_null(plm_rsh_module.launch_model);
    assert_null(plm_rsh_module.daemon_identity);
}

/* prsh: a tree that follows the model, the model its parameters' values,
 * and calibration only when asked for and the tree depends on it. */
static void test_prsh_model(void **state)
{
    hnp_plm_launch_model_t m;
    const struct {
        int model, tree;
        bool calibrate, estimate;
    } cases[] = {
        { PLM_PRSH_MODEL_FIXED, PLM_PRSH_TREE_GREEDY, false, false },
        { PLM_PRSH_MODEL_AUTO, PLM_PRSH_TREE_KARY, false, true },
        { PLM_PRSH_MODEL_AUTO, PLM_PRSH_TREE_ROUTED, false, true },
        { PLM_PRSH_MODEL_AUTO, PLM_PRSH_TREE_GREEDY, true, true },
    };

    (void)state;
    assert_int_equal(plm_prsh_module.capabilities,
                     HNP_PLM_CAP_SPAWNS_TREE | HNP_PLM_CAP_LAUNCH_MODEL);
    assert_int_equal(plm_prsh_module.secret, HNP_PLM_SECRET_STDIN);
    assert_null(plm_prsh_module.daemon_identity);
    plm_prsh_seq = 0.007;
    plm_prsh_rem = 0.172;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        plm_prsh_model = cases[i].model;
        plm_prsh_tree = cases[i].tree;
        memset(&m, 0xff, sizeof(m));
        assert_int_equal(plm_prsh_module.launch_model(NULL, &m), HNP_SUCCESS);
        assert_true(m.seq == 0.007 && m.rem == 0.172);
        assert_string_equal(m.seq_param, "plm_prsh_seq");
        assert_string_equal(m.rem_param, "plm_prsh_rem");
        assert_int_equal(m.calibrate, cases[i].calibrate);
        assert_int_equal(m.estimate, cases[i].estimate);
    }
}

/* prsh spawning along the routing tree hands a tree of its own (the one
 * ownership rule of hnp_tree.h): the caller releases both, an explicit
 * routing tree included, and the spawn tree is the routing tree's shape. */
static void test_prsh_routed_tree_is_the_callers(void **state)
{
    hnp_tree_t routing, spawn;

    (void)state;
    plm_prsh_tree = PLM_PRSH_TREE_ROUTED;
    plm_prsh_spawning_degree = 0;
    assert_int_equal(hnp_tree_greedy(50, 0.01, 0.05, &routing), HNP_SUCCESS);
    assert_int_equal(plm_prsh_module.spawn_tree(NULL, 50, &routing, &spawn),
                     HNP_SUCCESS);
    assert_int_equal(spawn.kind, HNP_TREE_EXPLICIT);
    assert_int_equal(spawn.n, 50);
    assert_ptr_not_equal(spawn.shape, routing.shape);
    for (hnp_vpid_t v = 0; v < 50; v++)
        assert_int_equal(hnp_tree_parent(&spawn, v),
                         hnp_tree_parent(&routing, v));
    hnp_tree_release(&routing);
    /* still whole once the routing tree is gone */
    assert_int_equal(hnp_tree_children(&spawn, 0, NULL, 0) > 0, true);
    assert_int_equal(hnp_tree_height(&spawn) > 0, true);
    hnp_tree_release(&spawn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_accepts),
        cmocka_unit_test(test_check_rejects),
        cmocka_unit_test(test_rsh_says),
        cmocka_unit_test(test_prsh_model),
        cmocka_unit_test(test_prsh_routed_tree_is_the_callers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
