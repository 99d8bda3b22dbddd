/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test-only shared object that exports a descriptor under the wrong name
 * (mca_routed_nosymbol_descriptor, not ..._component): the loader must
 * report the missing symbol.
 */
#include "config.h"

#include "hnp_routed.h"

HNP_COMPONENT_EXPORT
extern const hnp_mca_component_t mca_routed_nosymbol_descriptor;

static int nosymbol_query(const hnp_mca_component_t *self, const void **module,
                          int *priority)
{
    (void)self;
    *module = NULL;
    *priority = 0;
    return HNP_ERR_NOT_AVAILABLE;
}

const hnp_mca_component_t mca_routed_nosymbol_descriptor = {
    HNP_MCA_COMPONENT_INIT("routed", "nosymbol", HNP_ROUTED_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .query = nosymbol_query,
};
