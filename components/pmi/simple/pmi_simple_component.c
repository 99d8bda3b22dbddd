/* SPDX-License-Identifier: BSD-3-Clause */
/* The `simple` pmi component: descriptor, the parameter
 * `pmi_simple_max_kvs_bytes` and selection. */
#include "config.h"

#include "hnp_errors.h"
#include "hnp_log.h"
#include "pmi_simple.h"

/* Serving costs nothing until a rank speaks: always active, after pmix
 * (whose environment is the larger one to set up first). */
#define PMI_SIMPLE_PRIORITY 20

size_t pmi_simple_max_kvs_bytes;

static int simple_register_params(const hnp_mca_component_t *self,
                                  hnp_params_t *params)
{
    char err[256] = "";
    const hnp_param_desc_t max_kvs = {
        .framework = "pmi",
        .component = "simple",
        .name = "max_kvs_bytes",
        .type = HNP_PARAM_SIZE,
        .default_value = "64M",
        .help = "What one rank may store with PMI-1/PMI-2 puts (put, "
                "kvs-put, info-putnodeattr): the bytes of its keys and "
                "values, and 64 more a key for the daemon's bookkeeping; "
                "a key it puts again counts once, at its new size. A put "
                "past it fails (rc=-1: the rank's MPI library sees an "
                "error) and hnp says once per rank which rank, on which "
                "node, reached the bound. It bounds "
                "what a rank can make its daemon hold, and the node's part "
                "of each fence. 0: no bound.",
        .level = 5,
        .storage = &pmi_simple_max_kvs_bytes,
    };

    (void)self;
    int rc = hnp_param_register(params, &max_kvs, err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(hnp_log_stream("pmi"), "simple: %s", err);
    return rc;
}

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
    .register_params = simple_register_params,
    .query = simple_query,
};
