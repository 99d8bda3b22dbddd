/* SPDX-License-Identifier: BSD-3-Clause */
/* The `rsh` plm module: the HNP loops over every daemon. */
#include "config.h"

#include <stdlib.h>

#include "hnp_rte.h"
#include "plm_rsh.h"

/* The runtime's launcher bounds how many agents run at once and queues
 * the rest, so the HNP can hand it every daemon in one go. */
static int plm_rsh_launch_daemons(struct hnp_rte *rte)
{
    uint32_t n = hnp_rte_num_procs(rte);
    hnp_vpid_t *vpids;
    int rc;

    if (n < 2)
        return HNP_SUCCESS;
    vpids = malloc((n - 1) * sizeof(*vpids));
    if (vpids == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 1; i < n; i++)
        vpids[i - 1] = i;
    rc = hnp_rte_spawn_daemons(rte, vpids, n - 1);
    free(vpids);
    return rc;
}

/* No spawn_tree: the flat one, every daemon's spawn parent is the HNP.
 * No capability: daemons spawn nothing, and a flat tree needs no model. */
const hnp_plm_module_t plm_rsh_module = {
    .secret = HNP_PLM_SECRET_STDIN,
    .launch_daemons = plm_rsh_launch_daemons,
};
