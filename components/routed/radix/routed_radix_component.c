/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `radix` routed component: descriptor, the `routed_radix_degree`
 * parameter and selection.
 */
#include "config.h"

#include "hnp_log.h"
#include "routed_radix.h"

#define ROUTED_RADIX_STR_(x) #x
#define ROUTED_RADIX_STR(x) ROUTED_RADIX_STR_(x)

/*
 * Priorities of the in-tree topologies, highest wins when the user names
 * none: radix 70 > binomial 50 > direct 10. Radix is the default, as in
 * ORTE: with k = 32 the tree is as shallow as a binomial one for any job
 * hnp targets (log_32 of a thousand daemons is 2 hops, log_2 is 10), while
 * the HNP's fan-out stays bounded by k instead of growing with log2 N or N.
 */
#define ROUTED_RADIX_PRIORITY 70

unsigned int routed_radix_degree = ROUTED_RADIX_DEFAULT_DEGREE;

static int routed_radix_register_params(const hnp_mca_component_t *self,
                                        hnp_params_t *params)
{
    char err[256] = "";
    const hnp_param_desc_t degree = {
        .framework = "routed",
        .component = "radix",
        .name = "degree",
        .type = HNP_PARAM_UNSIGNED,
        .default_value = ROUTED_RADIX_STR(ROUTED_RADIX_DEFAULT_DEGREE),
        .help = "Children of each process in the radix routing tree (the k "
                "of a k-ary tree rooted at the HNP; at least 2). A larger k "
                "makes the tree shallower, log_k(N) hops, but gives each "
                "process more connections and more messages to forward.",
        .level = 4,
        .storage = &routed_radix_degree,
    };

    (void)self;
    int rc = hnp_param_register(params, &degree, err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(hnp_log_stream("routed"), "radix: %s", err);
    return rc;
}

/*
 * A degree below 2 is not a radix tree (0 would be the star of `direct`,
 * 1 a chain as deep as the job is wide). The component refuses it, which
 * fails the selection before launch: falling back to another topology
 * would run what the user did not ask for, under an error message.
 */
static int routed_radix_query(const hnp_mca_component_t *self,
                              const void **module, int *priority)
{
    (void)self;
    if (routed_radix_degree < 2) {
        HNP_ERROR_LOG(hnp_log_stream("routed"),
                      "routed_radix_degree = %u: a radix tree needs a degree "
                      "of at least 2 (use --mca routed direct for a star)",
                      routed_radix_degree);
        return HNP_ERR_BAD_PARAM;
    }
    *module = &routed_radix_module;
    *priority = ROUTED_RADIX_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_routed_radix_component = {
    HNP_MCA_COMPONENT_INIT("routed", "radix", HNP_ROUTED_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = routed_radix_register_params,
    .query = routed_radix_query,
};
