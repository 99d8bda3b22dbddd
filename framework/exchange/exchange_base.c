/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "exchange_base.h"

const hnp_mca_framework_desc_t hnp_exchange_framework = {
    .name = "exchange",
    .description = "contact all-gather: phase 2, every daemon learns every URI",
    .interface_version = HNP_EXCHANGE_INTERFACE_VERSION,
    .tag_first = HNP_TAG_EXCHANGE_FIRST,
};

static int offered(const hnp_mca_component_entry_t *e,
                   const hnp_exchange_job_t *job)
{
    const hnp_exchange_module_t *m = e->module;

    return m->job_priority != NULL ? m->job_priority(job, e->priority)
                                   : e->priority;
}

int hnp_exchange_base_select_for(hnp_mca_framework_t *fw,
                                 const hnp_exchange_job_t *job,
                                 const char **name,
                                 const hnp_exchange_module_t **module,
                                 char *why, size_t whylen, char *err,
                                 size_t errlen)
{
    const hnp_mca_component_entry_t *found[HNP_EXCHANGE_BASE_MAX];
    const hnp_mca_component_entry_t *best = NULL;
    size_t count = 0, used = 0;
    int best_priority = 0;
    int rc = hnp_mca_framework_select_all(fw, found, HNP_EXCHANGE_BASE_MAX,
                                          &count, err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    if (why != NULL && whylen > 0)
        why[0] = '\0';
    if (count > HNP_EXCHANGE_BASE_MAX)
        count = HNP_EXCHANGE_BASE_MAX;
    /* Ties go to the name sorted first, as in hnp_mca_framework_select. */
    for (size_t i = 0; i < count; i++) {
        int p = offered(found[i], job);
        if (best == NULL || p > best_priority ||
            (p == best_priority && strcmp(found[i]->component->name,
                                          best->component->name) < 0)) {
            best = found[i];
            best_priority = p;
        }
        if (why != NULL && used < whylen)
            used += (size_t)snprintf(why + used, whylen - used, "%s%s %d",
                                     i > 0 ? ", " : "",
                                     found[i]->component->name, p);
    }
    if (best == NULL) {
        hnp_err_set(err, errlen, "no exchange component is available");
        return HNP_ERR_NOT_AVAILABLE;
    }
    *name = best->component->name;
    *module = best->module;
    return HNP_SUCCESS;
}

uint32_t hnp_exchange_base_hnp_connections(const hnp_exchange_module_t *module,
                                           const hnp_exchange_job_t *job)
{
    return module->hnp_connections != NULL ? module->hnp_connections(job) : 0;
}
