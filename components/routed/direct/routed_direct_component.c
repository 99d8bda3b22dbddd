/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `direct` routed component: descriptor and selection.
 *
 * It registers no parameter of its own: a star has nothing to tune.
 */
#include "config.h"

#include "routed_direct.h"

/*
 * The lowest priority of the in-tree topologies: with no user choice the
 * HNP should not hold a connection to every daemon, which is what made
 * vanilla ORTE's launch stall in connection storms (paper 002). Still
 * eligible, so `--mca routed direct` picks it and it is the fallback when
 * the trees decline.
 */
#define ROUTED_DIRECT_PRIORITY 10

static int routed_direct_query(const hnp_mca_component_t *self,
                               const void **module, int *priority)
{
    (void)self;
    *module = &routed_direct_module;
    *priority = ROUTED_DIRECT_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_routed_direct_component = {
    HNP_MCA_COMPONENT_INIT("routed", "direct", HNP_ROUTED_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .query = routed_direct_query,
};
