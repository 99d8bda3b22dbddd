/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test-only component built against a routed interface one major version
 * ahead of this hnp's: the loader must reject it.
 */
#include "config.h"

#include "hnp_routed.h"

#define BADIFACE_INTERFACE_VERSION                                          \
    HNP_MCA_VERSION(HNP_MCA_VERSION_MAJOR(HNP_ROUTED_INTERFACE_VERSION) + 1, \
                    0, 0)

HNP_COMPONENT_EXPORT
extern const hnp_mca_component_t mca_routed_badiface_component;

static int badiface_query(const hnp_mca_component_t *self, const void **module,
                          int *priority)
{
    (void)self;
    *module = NULL;
    *priority = 0;
    return HNP_ERR_NOT_AVAILABLE;
}

const hnp_mca_component_t mca_routed_badiface_component = {
    HNP_MCA_COMPONENT_INIT("routed", "badiface", BADIFACE_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .query = badiface_query,
};
