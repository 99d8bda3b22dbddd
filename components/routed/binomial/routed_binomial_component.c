/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `binomial` routed component: descriptor and selection. The tree has
 * no shape to tune, so there is no parameter.
 */
#include "config.h"

#include "routed_binomial.h"

/*
 * Below radix (70), above direct (10): with no user choice radix wins, as
 * in ORTE, because for the sizes hnp targets a 32-ary tree is shallower
 * (2 hops for a thousand daemons against 10) at a bounded fan-out. Binomial
 * remains the better tree when forwarding cost matters more than depth,
 * and is chosen over the star if radix declines.
 */
#define ROUTED_BINOMIAL_PRIORITY 50

static int routed_binomial_query(const hnp_mca_component_t *self,
                                 const void **module, int *priority)
{
    (void)self;
    *module = &routed_binomial_module;
    *priority = ROUTED_BINOMIAL_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_routed_binomial_component = {
    HNP_MCA_COMPONENT_INIT("routed", "binomial", HNP_ROUTED_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .query = routed_binomial_query,
};
