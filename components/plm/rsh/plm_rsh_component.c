/* SPDX-License-Identifier: BSD-3-Clause */
/* The `rsh` plm component: descriptor and selection. Its parameters
 * (plm_rsh_agent, plm_rsh_num_concurrent, ...) belong to the launch code
 * every plm shares, so the runtime registers them. */
#include "config.h"

#include "plm_rsh.h"

/* The fallback launcher: any other plm that can run here is preferred. */
#define PLM_RSH_PRIORITY 10

static int plm_rsh_query(const hnp_mca_component_t *self, const void **module,
                         int *priority)
{
    (void)self;
    *module = &plm_rsh_module;
    *priority = PLM_RSH_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_plm_rsh_component = {
    HNP_MCA_COMPONENT_INIT("plm", "rsh", HNP_PLM_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .query = plm_rsh_query,
};
