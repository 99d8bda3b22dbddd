/* SPDX-License-Identifier: BSD-3-Clause */
/* The `simple` pmi component: descriptor and selection. */
#include "config.h"

#include "pmi_simple.h"

/* Serving costs nothing until a rank speaks: always active, after pmix
 * (whose environment is the larger one to set up first). */
#define PMI_SIMPLE_PRIORITY 20

static int simple_query(const hnp_mca_component_t *self, const void **module,
                        int *priority)
{
    (void)self;
    *module = &pmi_simple_module;
    *priority = PMI_SIMPLE_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_pmi_simple_component = {
    HNP_MCA_COMPONENT_INIT("pmi", "simple", HNP_PMI_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .query = simple_query,
};
