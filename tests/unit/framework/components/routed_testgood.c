/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test-only component: a well-formed routed component with one parameter,
 * routed_testgood_priority, which its query returns as its priority.
 */
#include "config.h"

#include "hnp_routed.h"

HNP_COMPONENT_EXPORT
extern const hnp_mca_component_t mca_routed_testgood_component;

static int testgood_priority;

/* Never called: the tests only check that the module comes back. */
static const hnp_routed_module_t testgood_module;

static int testgood_register_params(const hnp_mca_component_t *self,
                                    hnp_params_t *params)
{
    const hnp_param_desc_t priority = {
        .framework = "routed", .component = "testgood", .name = "priority",
        .type = HNP_PARAM_INT, .default_value = "20",
        .help = "Priority the test component offers", .level = 9,
        .storage = &testgood_priority,
    };

    (void)self;
    return hnp_param_register(params, &priority, NULL, 0);
}

static int testgood_query(const hnp_mca_component_t *self, const void **module,
                          int *priority)
{
    (void)self;
    *module = &testgood_module;
    *priority = testgood_priority;
    return HNP_SUCCESS;
}

const hnp_mca_component_t mca_routed_testgood_component = {
    HNP_MCA_COMPONENT_INIT("routed", "testgood", HNP_ROUTED_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = testgood_register_params,
    .query = testgood_query,
};
