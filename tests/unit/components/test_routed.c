/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the three in-tree routed components (direct, radix,
 * binomial), whose sources are compiled into this program: their
 * descriptors, their parameters registered in a real registry, their
 * selection priorities, and every module answer against the tree math.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hnp_log.h"
#include "hnp_param.h"
#include "hnp_routed.h"
#include "routed/binomial/routed_binomial.h"
#include "routed/direct/routed_direct.h"
#include "routed/radix/routed_radix.h"

extern const hnp_mca_component_t mca_routed_direct_component;
extern const hnp_mca_component_t mca_routed_radix_component;
extern const hnp_mca_component_t mca_routed_binomial_component;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond))                                                       \
            fail_msg(__VA_ARGS__);                                         \
    } while (0)

/* ------------------------------------------------------- log capture */

/* The last error the components logged, so tests can read what a user
 * would see. */
static struct {
    int errors;
    char stream[32];
    char message[512];
} captured;

static void capture_log(void *ctx, hnp_log_severity_t sev, const char *stream,
                        const char *message)
{
    (void)ctx;
    if (sev != HNP_LOG_ERROR)
        return;
    captured.errors++;
    snprintf(captured.stream, sizeof(captured.stream), "%s", stream);
    snprintf(captured.message, sizeof(captured.message), "%s", message);
}

static int setup_capture(void **state)
{
    (void)state;
    memset(&captured, 0, sizeof(captured));
    hnp_log_set_handler(capture_log, NULL);
    routed_radix_degree = ROUTED_RADIX_DEFAULT_DEGREE;
    return 0;
}

static int teardown_capture(void **state)
{
    (void)state;
    hnp_log_set_handler(NULL, NULL);
    routed_radix_degree = ROUTED_RADIX_DEFAULT_DEGREE;
    return 0;
}

/* ------------------------------------------- modules vs. tree math */

/* Every answer of @p m over @p nprocs processes equals the tree's. */
static void check_module_against(const hnp_routed_module_t *m,
                                 const hnp_tree_t *want, const char *name)
{
    uint32_t n = want->n;
    hnp_tree_t got;
    hnp_vpid_t a[128], b[128];

    assert_int_equal(m->spanning_tree(n, &got), HNP_SUCCESS);
    CHECK(got.kind == want->kind && got.n == n && got.arity == want->arity,
          "%s n=%u: spanning_tree is not the expected tree", name, n);
    for (hnp_vpid_t v = 0; v <= n; v++) { /* v = n: out of range too */
        CHECK(m->parent(v, n) == hnp_tree_parent(want, v),
              "%s n=%u: parent(%u)", name, n, v);
        uint32_t nc = m->children(v, n, a, 128);
        CHECK(nc == hnp_tree_children(want, v, b, 128) &&
                  memcmp(a, b, (nc < 128 ? nc : 128) * sizeof(*a)) == 0,
              "%s n=%u: children(%u)", name, n, v);
        for (hnp_vpid_t d = 0; d <= n; d++)
            CHECK(m->next_hop(v, d, n) == hnp_tree_next_hop(want, v, d),
                  "%s n=%u: next_hop(%u, %u)", name, n, v, d);
    }
    for (size_t i = 0; i < sizeof(m->reserved) / sizeof(m->reserved[0]); i++)
        assert_null(m->reserved[i]);
}

static void test_direct_is_flat(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= 70; n++) {
        hnp_tree_t want = hnp_tree_kary(n, 0);
        check_module_against(&routed_direct_module, &want, "direct");
    }
    /* A daemon's next hop is the HNP whoever the destination. */
    for (hnp_vpid_t d = 0; d < 20; d++)
        if (d != 7)
            assert_int_equal(routed_direct_module.next_hop(7, d, 20), 0);
    assert_int_equal(routed_direct_module.next_hop(0, 13, 20), 13);
    assert_int_equal(routed_direct_module.parent(19, 20), 0);
    assert_int_equal(routed_direct_module.children(0, 20, NULL, 0), 19);
}

static void test_binomial_is_binomial(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= 70; n++) {
        hnp_tree_t want = hnp_tree_binomial(n);
        check_module_against(&routed_binomial_module, &want, "binomial");
    }
    assert_int_equal(routed_binomial_module.parent(6, 8), 2);
    assert_int_equal(routed_binomial_module.next_hop(0, 7, 8), 1);
}

/* The radix module follows routed_radix_degree, whatever it is now. */
static void test_radix_follows_degree(void **state)
{
    static const unsigned degrees[] = { 2, 3, 8, 32 };
    (void)state;
    for (size_t i = 0; i < sizeof(degrees) / sizeof(degrees[0]); i++) {
        routed_radix_degree = degrees[i];
        for (uint32_t n = 1; n <= 70; n++) {
            hnp_tree_t want = hnp_tree_kary(n, degrees[i]);
            check_module_against(&routed_radix_module, &want, "radix");
        }
    }
    routed_radix_degree = 4;
    assert_int_equal(routed_radix_module.parent(5, 30), 1);
    assert_int_equal(routed_radix_module.children(1, 30, NULL, 0), 4);
    assert_int_equal(routed_radix_module.next_hop(1, 21, 30), 5);
    assert_int_equal(routed_radix_module.next_hop(2, 21, 30), 0);
}

static void test_spanning_tree_rejects_bad_arguments(void **state)
{
    const hnp_routed_module_t *modules[] = {
        &routed_direct_module, &routed_radix_module, &routed_binomial_module,
    };
    hnp_tree_t t;
    (void)state;
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(modules[i]->spanning_tree(0, &t), HNP_ERR_BAD_PARAM);
        assert_int_equal(modules[i]->spanning_tree(4, NULL), HNP_ERR_BAD_PARAM);
    }
}

/* ------------------------------------------------------- components */

/* The descriptor carries the names and versions the loader checks first,
 * and query hands back the component's own module. */
static void check_descriptor(const hnp_mca_component_t *c, const char *name,
                             const hnp_routed_module_t *module, int *priority)
{
    const void *got = NULL;

    assert_int_equal(c->mca_abi_version, HNP_MCA_ABI_VERSION);
    assert_string_equal(c->framework, "routed");
    assert_string_equal(c->name, name);
    assert_int_equal(c->interface_version, HNP_ROUTED_INTERFACE_VERSION);
    assert_int_equal(HNP_MCA_VERSION_MAJOR(c->component_version), 1);
    assert_non_null(c->query);
    assert_int_equal(c->query(c, &got, priority), HNP_SUCCESS);
    assert_ptr_equal(got, module);
    for (size_t i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++)
        assert_null(c->reserved[i]);
}

/* With no user choice the selection takes the highest priority: radix,
 * then binomial, then direct. */
static void test_descriptors_and_priorities(void **state)
{
    int direct, radix, binomial;
    (void)state;

    check_descriptor(&mca_routed_direct_component, "direct",
                     &routed_direct_module, &direct);
    check_descriptor(&mca_routed_radix_component, "radix",
                     &routed_radix_module, &radix);
    check_descriptor(&mca_routed_binomial_component, "binomial",
                     &routed_binomial_module, &binomial);
    assert_true(radix > binomial);
    assert_true(binomial > direct);
    assert_true(direct > 0);
    assert_int_equal(captured.errors, 0);
}

/* Register every component's parameters in a fresh registry. */
static hnp_params_t *register_all(void)
{
    const hnp_mca_component_t *all[] = { &mca_routed_direct_component,
                                         &mca_routed_radix_component,
                                         &mca_routed_binomial_component };
    hnp_params_t *params = hnp_params_create();

    assert_non_null(params);
    for (size_t i = 0; i < 3; i++)
        if (all[i]->register_params != NULL)
            assert_int_equal(all[i]->register_params(all[i], params),
                             HNP_SUCCESS);
    return params;
}

static void test_degree_parameter_registered(void **state)
{
    hnp_param_info_t info;
    (void)state;

    routed_radix_degree = 5; /* registration must overwrite it */
    hnp_params_t *params = register_all();
    assert_int_equal(routed_radix_degree, 32);
    assert_int_equal(hnp_param_lookup(params, "routed_radix_degree", &info),
                     HNP_SUCCESS);
    assert_string_equal(info.full_name, "routed_radix_degree");
    assert_string_equal(info.framework, "routed");
    assert_string_equal(info.component, "radix");
    assert_int_equal(info.type, HNP_PARAM_UNSIGNED);
    assert_string_equal(info.default_value, "32");
    assert_int_equal(info.source, HNP_PARAM_SRC_DEFAULT);
    assert_true(info.level >= 1 && info.level <= 9);
    assert_non_null(info.help);
    assert_true(strlen(info.help) > 40);

    /* A value set after registration reaches the module at once. */
    assert_int_equal(hnp_param_set(params, "routed_radix_degree", "3",
                                   HNP_PARAM_SRC_CMDLINE, NULL, NULL, 0),
                     HNP_SUCCESS);
    assert_int_equal(routed_radix_degree, 3);
    assert_int_equal(routed_radix_module.parent(4, 20), 1);
    hnp_params_destroy(params);
}

/* A value set before registration (environment, files) is applied by it. */
static void test_degree_set_before_registration(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    assert_non_null(params);
    assert_int_equal(hnp_param_set(params, "routed_radix_degree", "8",
                                   HNP_PARAM_SRC_ENV, "HNP_MCA_routed_radix_degree",
                                   NULL, 0),
                     HNP_SUCCESS);
    assert_int_equal(mca_routed_radix_component.register_params(
                         &mca_routed_radix_component, params),
                     HNP_SUCCESS);
    assert_int_equal(routed_radix_degree, 8);
    hnp_tree_t t;
    assert_int_equal(routed_radix_module.spanning_tree(100, &t), HNP_SUCCESS);
    assert_int_equal(t.arity, 8);
    hnp_params_destroy(params);
}

/* Degrees 0 and 1 make radix refuse the value (which fails the selection)
 * with an error naming the parameter and the value; a good degree makes
 * it available again. */
static void test_bad_degree_refused(void **state)
{
    static const char *const bad[] = { "0", "1" };
    char expected[64];
    (void)state;

    hnp_params_t *params = register_all();
    for (size_t i = 0; i < 2; i++) {
        const void *module = NULL;
        int priority = -1;
        captured.errors = 0;
        assert_int_equal(hnp_param_set(params, "routed_radix_degree", bad[i],
                                       HNP_PARAM_SRC_CMDLINE, NULL, NULL, 0),
                         HNP_SUCCESS);
        assert_int_equal(mca_routed_radix_component.query(
                             &mca_routed_radix_component, &module, &priority),
                         HNP_ERR_BAD_PARAM);
        assert_null(module);
        assert_int_equal(priority, -1);
        assert_int_equal(captured.errors, 1);
        assert_string_equal(captured.stream, "routed");
        snprintf(expected, sizeof(expected), "routed_radix_degree = %s",
                 bad[i]);
        CHECK(strstr(captured.message, expected) != NULL,
              "message \"%s\" does not name \"%s\"", captured.message,
              expected);
    }

    const void *module = NULL;
    int priority = 0;
    assert_int_equal(hnp_param_set(params, "routed_radix_degree", "2",
                                   HNP_PARAM_SRC_CMDLINE, NULL, NULL, 0),
                     HNP_SUCCESS);
    assert_int_equal(mca_routed_radix_component.query(
                         &mca_routed_radix_component, &module, &priority),
                     HNP_SUCCESS);
    assert_ptr_equal(module, &routed_radix_module);
    hnp_params_destroy(params);
}

/* A value that is not an unsigned number is refused by the registry and
 * leaves the degree alone. */
static void test_degree_wrong_type(void **state)
{
    char err[256] = "";
    (void)state;

    hnp_params_t *params = register_all();
    assert_true(hnp_param_set(params, "routed_radix_degree", "wide",
                              HNP_PARAM_SRC_CMDLINE, NULL, err,
                              sizeof(err)) < 0);
    assert_int_equal(routed_radix_degree, 32);
    CHECK(strstr(err, "routed_radix_degree") != NULL,
          "error \"%s\" does not name the parameter", err);
    hnp_params_destroy(params);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup_capture, teardown_capture)
    const struct CMUnitTest tests[] = {
        T(test_direct_is_flat),
        T(test_binomial_is_binomial),
        T(test_radix_follows_degree),
        T(test_spanning_tree_rejects_bad_arguments),
        T(test_descriptors_and_priorities),
        T(test_degree_parameter_registered),
        T(test_degree_set_before_registration),
        T(test_bad_degree_refused),
        T(test_degree_wrong_type),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
