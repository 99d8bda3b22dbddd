/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "plm_base.h"

const hnp_mca_framework_desc_t hnp_plm_framework = {
    .name = "plm",
    .description = "process launch: phase 1, one daemon onto every node",
    .interface_version = HNP_PLM_INTERFACE_VERSION,
    .tag_first = HNP_TAG_PLM_FIRST,
};

/* The core trusts the flags (it never calls a hook to find out whether it
 * is there), so a module is checked once, when it is selected. */
int hnp_plm_module_check(const hnp_plm_module_t *module, const char *name,
                         char *err, size_t errlen)
{
    const char *wrong = NULL;

    if (module->launch_daemons == NULL)
        wrong = "has no launch_daemons";
    else if ((module->capabilities & HNP_PLM_CAP_SPAWNS_TREE) &&
             module->spawn_subtree == NULL)
        wrong = "says it spawns a tree (HNP_PLM_CAP_SPAWNS_TREE) but has no "
                "spawn_subtree";
    else if ((module->capabilities & HNP_PLM_CAP_LAUNCH_MODEL) &&
             module->launch_model == NULL)
        wrong = "says it follows the launch model (HNP_PLM_CAP_LAUNCH_MODEL) "
                "but has no launch_model";
    else if (module->launch_added != NULL && module->daemon_identity == NULL)
        wrong = "starts added daemons (launch_added) that cannot be told who "
                "they are (it has no daemon_identity)";
    else if (module->secret != HNP_PLM_SECRET_STDIN &&
             module->secret != HNP_PLM_SECRET_FILE)
        wrong = "names an unknown way for the secret";
    if (wrong == NULL)
        return HNP_SUCCESS;
    hnp_err_set(err, errlen, "plm component '%s' %s", name, wrong);
    return HNP_ERR_BAD_PARAM;
}
