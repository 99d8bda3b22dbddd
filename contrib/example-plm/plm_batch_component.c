/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `batch` component: its descriptor, its two parameters and its answer
 * to selection. The behaviour is in plm_batch_module.c.
 *
 * hnp finds this component by the file name mca_plm_batch.so and the one
 * symbol it exports, mca_plm_batch_component, and checks the plm interface
 * version it was compiled against (HNP_PLM_INTERFACE_VERSION) before using
 * anything else.
 */
#include <hnp_log.h>
#include <hnp_mca.h>
#include <hnp_param.h>

#include "plm_batch.h"

#define BATCH_STR_(x) #x
#define BATCH_STR(x) BATCH_STR_(x)

char *plm_batch_command;
int plm_batch_priority = PLM_BATCH_DEFAULT_PRIORITY;

static const hnp_param_desc_t batch_params[] = {
    { .framework = "plm", .component = "batch", .name = "command",
      .type = HNP_PARAM_STRING, .default_value = "example-batch-run",
      .help = "The batch system's command that starts a task on a node: "
              "called as COMMAND NODE RANK DAEMON-COMMAND..., found in PATH "
              "unless a path is given",
      .level = 3, .storage = &plm_batch_command },
    { .framework = "plm", .component = "batch", .name = "priority",
      .type = HNP_PARAM_INT,
      .default_value = BATCH_STR(PLM_BATCH_DEFAULT_PRIORITY),
      .help = "Selection priority of the batch launcher (higher wins when "
              "no plm is named); the default keeps it below every in-tree "
              "launcher",
      .level = 5, .storage = &plm_batch_priority },
};

static int batch_register_params(const hnp_mca_component_t *self,
                                 hnp_params_t *params)
{
    char err[256] = "";
    int rc = HNP_SUCCESS;

    for (size_t i = 0; rc == HNP_SUCCESS &&
                       i < sizeof(batch_params) / sizeof(batch_params[0]);
         i++)
        rc = hnp_param_register(params, &batch_params[i], err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(hnp_log_stream(self->framework), "%s: %s", self->name,
                      err);
    return rc;
}

/*
 * Offer the module. A launcher tied to a real batch system would decline
 * (HNP_ERR_NOT_AVAILABLE) outside an allocation. The query also runs in
 * every daemon this component started (hnpd --plm batch), before the
 * HNP's parameters arrive, so it must not depend on them.
 */
static int batch_query(const hnp_mca_component_t *self, const void **module,
                       int *priority)
{
    HNP_VERBOSE(hnp_log_stream(self->framework), 1,
                "%s: offering the batch launcher with priority %d",
                self->name, plm_batch_priority);
    *module = &plm_batch_module;
    *priority = plm_batch_priority;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT const hnp_mca_component_t mca_plm_batch_component = {
    HNP_MCA_COMPONENT_INIT("plm", "batch", HNP_PLM_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = batch_register_params,
    .query = batch_query,
};
