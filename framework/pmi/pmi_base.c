/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pmi_base.h"

const hnp_mca_framework_desc_t hnp_pmi_framework = {
    .name = "pmi",
    .description = "the application processes' wire-up: PMI-1/2, PMIx",
    .interface_version = HNP_PMI_INTERFACE_VERSION,
    .tag_first = HNP_TAG_PMI_FIRST,
    .all_active = true,
    /* a daemon loads libpmix only for a job that can use it */
    .load_when_opened = true,
};

static int check_module(const hnp_mca_component_entry_t *e, char *err,
                        size_t errlen)
{
    const hnp_pmi_module_t *m = e->module;

    if (m->job_start == NULL || m->child_setup == NULL || m->job_end == NULL) {
        hnp_err_set(err, errlen, "pmi component '%s' lacks job_start, "
                    "child_setup or job_end", e->component->name);
        return HNP_ERR_BAD_PARAM;
    }
    if (m->serves == 0 && !(m->needs & HNP_PMI_NEEDS_EVERY_JOB)) {
        hnp_err_set(err, errlen, "pmi component '%s' serves no interface "
                    "(serves is 0) and does not ask to see every job "
                    "(HNP_PMI_NEEDS_EVERY_JOB): it would never be loaded",
                    e->component->name);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* Each name of the comma list @p wanted must be among the active. */
static int check_wanted(const hnp_pmi_active_t *active, const char *wanted,
                        char *err, size_t errlen)
{
    const char *p = wanted;

    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        bool found = false;

        for (size_t i = 0; i < active->count && !found; i++)
            found = strlen(active->names[i]) == len &&
                    strncmp(active->names[i], p, len) == 0;
        if (!found) {
            hnp_err_set(err, errlen, "pmi component '%.*s', which the HNP "
                        "uses, is not available here", (int)len, p);
            return HNP_ERR_NOT_AVAILABLE;
        }
        p += len + (p[len] == ',');
    }
    return HNP_SUCCESS;
}

int hnp_pmi_base_select(hnp_mca_framework_t *fw, const char *wanted,
                        hnp_pmi_active_t *out, char *err, size_t errlen)
{
    const hnp_mca_component_entry_t *found[HNP_PMI_MAX_ACTIVE];
    size_t count = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    if (wanted != NULL && wanted[0] == '\0')
        return HNP_SUCCESS;
    rc = hnp_mca_framework_open(fw, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_mca_framework_select_all(fw, found, HNP_PMI_MAX_ACTIVE,
                                          &count, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if (count > HNP_PMI_MAX_ACTIVE) {
        hnp_err_set(err, errlen, "%zu pmi components are active, at most %d "
                    "may be (restrict them with --mca pmi)", count,
                    HNP_PMI_MAX_ACTIVE);
        return HNP_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < count; i++) {
        rc = check_module(found[i], err, errlen);
        if (rc != HNP_SUCCESS) {
            memset(out, 0, sizeof(*out));
            return rc;
        }
        out->names[i] = found[i]->component->name;
        out->modules[i] = found[i]->module;
    }
    out->count = count;
    rc = wanted != NULL ? check_wanted(out, wanted, err, errlen) : HNP_SUCCESS;
    if (rc != HNP_SUCCESS)
        memset(out, 0, sizeof(*out));
    return rc;
}

int hnp_pmi_base_names(const hnp_pmi_active_t *active, char *buf, size_t len)
{
    int total = 0;

    if (len > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < active->count; i++) {
        size_t at = (size_t)total < len ? (size_t)total : len;
        total += snprintf(buf + at, len - at, "%s%s", i > 0 ? "," : "",
                          active->names[i]);
    }
    return total;
}

uint32_t hnp_pmi_base_serves(const hnp_pmi_active_t *active)
{
    uint32_t serves = 0;

    for (size_t i = 0; i < active->count; i++)
        serves |= active->modules[i]->serves;
    return serves;
}
