/* SPDX-License-Identifier: BSD-3-Clause */
/* The `gather_scatter` exchange component: descriptor and selection. */
#include "config.h"

#include "exchange_gather_scatter.h"

/* The vanilla way, chosen when the user names nothing: it works with every
 * launcher. `flood` takes over by itself from exchange_flood_min_nodes
 * daemons (256) when the spawn tree is not flat (its job_priority). */
#define EXCHANGE_GATHER_SCATTER_PRIORITY 20

static const uint32_t gather_scatter_tags[] = {
    GATHER_SCATTER_TAG_CONTRIBUTION, GATHER_SCATTER_TAG_TABLE, 0
};

static int gather_scatter_query(const hnp_mca_component_t *self,
                                const void **module, int *priority)
{
    (void)self;
    *module = &exchange_gather_scatter_module;
    *priority = EXCHANGE_GATHER_SCATTER_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_exchange_gather_scatter_component = {
    HNP_MCA_COMPONENT_INIT("exchange", "gather_scatter",
                           HNP_EXCHANGE_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .query = gather_scatter_query,
    .tags = gather_scatter_tags,
};
