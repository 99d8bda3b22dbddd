/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test-only component whose file (mca_routed_misnamed.so) and symbol say
 * "misnamed" while its descriptor says "othername": the loader must reject it.
 */
#include "config.h"

#include "hnp_routed.h"

HNP_COMPONENT_EXPORT
extern const hnp_mca_component_t mca_routed_misnamed_component;

static int misnamed_query(const hnp_mca_component_t *self, const void **module,
                          int *priority)
{
    (void)self;
    *module = NULL;
    *priority = 0;
    return HNP_ERR_NOT_AVAILABLE;
}

const hnp_mca_component_t mca_routed_misnamed_component = {
    HNP_MCA_COMPONENT_INIT("routed", "othername", HNP_ROUTED_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .query = misnamed_query,
};
