/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `chain` component: its descriptor, its one parameter and its answer
 * to selection. The behaviour is in routed_chain_module.c.
 *
 * hnp finds this component by the file name mca_routed_chain.so and the
 * one symbol it exports, mca_routed_chain_component. Before using anything
 * else it checks the header fields filled by HNP_MCA_COMPONENT_INIT: the
 * layout version, that the framework and name agree with the file name,
 * and the routed interface version this file was compiled against.
 */
#include <hnp_log.h>
#include <hnp_mca.h>
#include <hnp_param.h>

#include "routed_chain.h"

#define CHAIN_STR_(x) #x
#define CHAIN_STR(x) CHAIN_STR_(x)

int routed_chain_priority = ROUTED_CHAIN_DEFAULT_PRIORITY;

/*
 * Parameters are registered with a type, a default in the text form a user
 * types, a help text and a level, and bound to a variable that the
 * registry keeps up to date whichever source (command line, environment,
 * files) sets it. The full name is routed_chain_priority.
 */
static int chain_register_params(const hnp_mca_component_t *self,
                                 hnp_params_t *params)
{
    char err[256] = "";
    const hnp_param_desc_t priority = {
        .framework = "routed",
        .component = "chain",
        .name = "priority",
        .type = HNP_PARAM_INT,
        .default_value = CHAIN_STR(ROUTED_CHAIN_DEFAULT_PRIORITY),
        .help = "Selection priority of the chain topology (higher wins "
                "when no routed component is named). The default keeps it "
                "below every in-tree topology; a chain is N hops deep, so "
                "raise it only to experiment.",
        .level = 5,
        .storage = &routed_chain_priority,
    };

    (void)self;
    int rc = hnp_param_register(params, &priority, err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(hnp_log_stream("routed"), "chain: %s", err);
    return rc;
}

/*
 * Offer the module. A component may decline here (return
 * HNP_ERR_NOT_AVAILABLE) when it cannot work in this environment; a chain
 * works everywhere, so it only reports its priority. Verbose messages go
 * to the framework's stream and show with --mca routed_base_verbose 1.
 */
static int chain_query(const hnp_mca_component_t *self, const void **module,
                       int *priority)
{
    HNP_VERBOSE(hnp_log_stream("routed"), 1,
                "%s: offering a chain with priority %d", self->name,
                routed_chain_priority);
    *module = &routed_chain_module;
    *priority = routed_chain_priority;
    return HNP_SUCCESS;
}

/* The one exported symbol. Its name must be mca_<framework>_<name>_component
 * and agree with the file name mca_<framework>_<name>.so. */
const hnp_mca_component_t mca_routed_chain_component = {
    HNP_MCA_COMPONENT_INIT("routed", "chain", HNP_ROUTED_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = chain_register_params,
    .query = chain_query,
};
