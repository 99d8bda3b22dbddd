/* SPDX-License-Identifier: BSD-3-Clause */
/* The `slurm` plm component: descriptor, parameters and selection. */
#include "config.h"

#include <stdlib.h>

#include "hnp_log.h"
#include "plm_slurm.h"

/* Inside an allocation, Slurm knows the nodes and starts processes on them
 * faster and more reliably than a remote shell: it wins over prsh (20) and
 * rsh (10). Outside one it declines, so it never gets in the way. */
#define PLM_SLURM_PRIORITY 30

char *plm_slurm_args;

static int plm_slurm_register(const hnp_mca_component_t *self,
                              hnp_params_t *params)
{
    char err[256] = "";
    const hnp_param_desc_t args = {
        .framework = "plm", .component = "slurm", .name = "args",
        .type = HNP_PARAM_STRING, .default_value = "", .level = 4,
        .help = "Extra arguments for the srun that starts the daemons "
                "(words separated by blanks)",
        .storage = &plm_slurm_args,
    };
    int rc = hnp_param_register(params, &args, err, sizeof(err));

    (void)self;
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(hnp_log_stream("plm"), "slurm: %s", err);
    return rc;
}

static int plm_slurm_query(const hnp_mca_component_t *self,
                           const void **module, int *priority)
{
    (void)self;
    if (getenv("SLURM_JOB_ID") == NULL) {
        HNP_VERBOSE(hnp_log_stream("plm"), 5, "slurm: not inside a Slurm "
                    "allocation (SLURM_JOB_ID is not set): run hnp under "
                    "salloc or sbatch");
        return HNP_ERR_NOT_AVAILABLE;
    }
    *module = &plm_slurm_module;
    *priority = PLM_SLURM_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_plm_slurm_component = {
    HNP_MCA_COMPONENT_INIT("plm", "slurm", HNP_PLM_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = plm_slurm_register,
    .query = plm_slurm_query,
};
