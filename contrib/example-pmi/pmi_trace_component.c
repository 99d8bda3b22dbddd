/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `trace` component: its descriptor, its two parameters and its answer
 * to selection. The hooks are in pmi_trace_module.c.
 */
#include <hnp_log.h>
#include <hnp_mca.h>
#include <hnp_param.h>

#include "pmi_trace.h"

#define TRACE_STR_(x) #x
#define TRACE_STR(x) TRACE_STR_(x)

char *pmi_trace_dir;
int pmi_trace_priority = PMI_TRACE_DEFAULT_PRIORITY;

static const hnp_param_desc_t trace_params[] = {
    { .framework = "pmi", .component = "trace", .name = "dir",
      .type = HNP_PARAM_STRING, .default_value = "",
      .help = "A directory where each daemon appends a line per hook to "
              "NODE.log (NODE its node's name); empty: the pmi log stream "
              "alone",
      .level = 3, .storage = &pmi_trace_dir },
    { .framework = "pmi", .component = "trace", .name = "priority",
      .type = HNP_PARAM_INT,
      .default_value = TRACE_STR(PMI_TRACE_DEFAULT_PRIORITY),
      .help = "Order of the trace hooks among the active pmi components "
              "(higher first)",
      .level = 5, .storage = &pmi_trace_priority },
};

static int trace_register_params(const hnp_mca_component_t *self,
                                 hnp_params_t *params)
{
    char err[256] = "";
    int rc = HNP_SUCCESS;

    for (size_t i = 0; rc == HNP_SUCCESS &&
                       i < sizeof(trace_params) / sizeof(trace_params[0]);
         i++)
        rc = hnp_param_register(params, &trace_params[i], err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(hnp_log_stream(self->framework), "%s: %s", self->name,
                      err);
    return rc;
}

/* Offered everywhere: in hnp (which only learns that the daemons must load
 * it) and in each daemon. */
static int trace_query(const hnp_mca_component_t *self, const void **module,
                       int *priority)
{
    (void)self;
    *module = &pmi_trace_module;
    *priority = pmi_trace_priority;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT const hnp_mca_component_t mca_pmi_trace_component = {
    HNP_MCA_COMPONENT_INIT("pmi", "trace", HNP_PMI_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = trace_register_params,
    .query = trace_query,
};
