/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which names hnp takes for Open MPI's parameters (runtime/hnp/ompi_params.c)
 * and hands to the ranks as OMPI_MCA_*, rather than warning of them: those
 * of Open MPI's projects and frameworks, unless they fall in a family of
 * hnp's own parameters, where a misspelling of hnp's is likelier. And what
 * the ranks get, from which source, below what an app context sets.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hnp_errors.h"
#include "hnp/ompi_params.h"

static hnp_params_t *registry(void)
{
    static const hnp_param_desc_t descs[] = {
        { .framework = "plm", .type = HNP_PARAM_STRING, .default_value = "",
          .help = "selection", .level = 1 },
        { .framework = "routed", .type = HNP_PARAM_STRING,
          .default_value = "", .help = "selection", .level = 1 },
        { .framework = "oob", .component = "tcp", .name = "if_include",
          .type = HNP_PARAM_STRING, .default_value = "", .help = "if",
          .level = 1 },
        { .framework = "hwloc", .component = "base", .name = "topo_file",
          .type = HNP_PARAM_STRING, .default_value = "", .help = "topo",
          .level = 1 },
    };
    hnp_params_t *params = hnp_params_create();
    char err[256];

    assert_non_null(params);
    for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
        assert_int_equal(hnp_param_register(params, &descs[i], err,
                                            sizeof(err)), HNP_SUCCESS);
    return params;
}

static void test_claims(void **state)
{
    static const char *const ompi[] = {
        "btl", "pml", "mtl", "coll", "osc", "oob", "opal", "orte", "ompi",
        "btl_base_verbose", "btl_tcp_if_include", "pml_ucx_verbose",
        "coll_tuned_use_dynamic_rules", "mpi_yield_when_idle",
        "oob_base_verbose", "pmix_base_async_modex",
        "opal_common_ucx_opal_mem_hooks", NULL,
    };
    static const char *const not_ompi[] = {
        "btlx", "plm_rsh_agnet", "plm_rsh_no_tree_spawn", "oob_tcp_foo",
        "oob_tcp", "hwloc_base_binding_policy", "routed_radix_degre",
        "unknown_thing", "btl-tcp", "btl;rm", "", NULL,
    };
    hnp_params_t *params = registry();

    (void)state;
    for (const char *const *n = ompi; *n != NULL; n++)
        if (!hnp_ompi_param_claims(*n, params))
            fail_msg("%s not taken for Open MPI's", *n);
    for (const char *const *n = not_ompi; *n != NULL; n++)
        if (hnp_ompi_param_claims(*n, params))
            fail_msg("%s taken for Open MPI's", *n);
    hnp_params_destroy(params);
}

static const char *env_of(const hnp_app_t *app, const char *name)
{
    size_t len = strlen(name);

    for (size_t i = 0; i < app->nenv; i++)
        if (strncmp(app->env[i], name, len) == 0 && app->env[i][len] == '=')
            return app->env[i] + len + 1;
    return NULL;
}

static void test_forward(void **state)
{
    hnp_params_t *params = registry();
    char err[256], own[] = "OMPI_MCA_osc=mine";
    char *env_own[] = { own };
    hnp_app_t apps[2] = { { .np = 1 }, { .np = 1 } };
    hnp_args_t args = { .apps = apps, .napps = 2 };

    (void)state;
    apps[1].env = malloc(sizeof(char *));
    apps[1].env[0] = strdup(env_own[0]);
    apps[1].nenv = 1;
    setenv("OMPI_MCA_btl", "from-env", 1);
    setenv("OMPI_MCA_pml", "from-env", 1);
    assert_int_equal(hnp_param_set(params, "btl", "from-cmdline",
                                   HNP_PARAM_SRC_CMDLINE, "command line",
                                   err, sizeof(err)), HNP_SUCCESS);
    assert_int_equal(hnp_param_set(params, "pml", "from-file",
                                   HNP_PARAM_SRC_TUNE_FILE, "t:1", err,
                                   sizeof(err)), HNP_SUCCESS);
    assert_int_equal(hnp_param_set(params, "osc", "pt2pt",
                                   HNP_PARAM_SRC_CMDLINE, "command line",
                                   err, sizeof(err)), HNP_SUCCESS);
    assert_int_equal(hnp_param_set(params, "plm_rsh_agnet", "x",
                                   HNP_PARAM_SRC_CMDLINE, "command line",
                                   err, sizeof(err)), HNP_SUCCESS);
    assert_int_equal(hnp_ompi_params_forward(params, &args, err, sizeof(err)),
                     HNP_SUCCESS);
    for (size_t a = 0; a < 2; a++) {
        assert_string_equal(env_of(&apps[a], "OMPI_MCA_btl"), "from-cmdline");
        assert_string_equal(env_of(&apps[a], "OMPI_MCA_pml"), "from-env");
        assert_null(env_of(&apps[a], "OMPI_MCA_plm_rsh_agnet"));
    }
    assert_string_equal(env_of(&apps[0], "OMPI_MCA_osc"), "pt2pt");
    assert_string_equal(env_of(&apps[1], "OMPI_MCA_osc"), "mine");
    for (size_t a = 0; a < 2; a++) {
        for (size_t i = 0; i < apps[a].nenv; i++)
            free(apps[a].env[i]);
        free(apps[a].env);
    }
    unsetenv("OMPI_MCA_btl");
    unsetenv("OMPI_MCA_pml");
    hnp_params_destroy(params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claims),
        cmocka_unit_test(test_forward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
