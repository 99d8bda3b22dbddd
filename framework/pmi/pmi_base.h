/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pmi framework's base: what the core needs to drive it (not
 * installed). Unlike the other frameworks, every component that does not
 * decline is active, highest priority first.
 */
#ifndef HNP_PMI_BASE_H
#define HNP_PMI_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_mca_base.h"
#include "hnp_pmi.h"

extern const hnp_mca_framework_desc_t hnp_pmi_framework;

/** More pmi components than this at once is a configuration we refuse. */
#define HNP_PMI_MAX_ACTIVE 8

/** The active components, highest priority first. The names and modules
 *  belong to the framework (valid until it is destroyed). */
typedef struct hnp_pmi_active {
    size_t count;
    const char *names[HNP_PMI_MAX_ACTIVE];
    const hnp_pmi_module_t *modules[HNP_PMI_MAX_ACTIVE];
} hnp_pmi_active_t;

/**
 * Open @p fw and take every component that offers a module. With @p wanted
 * (a daemon: the HNP's list, "a,b", as the parameter `pmi` already
 * restricts the framework to) every name listed must be active, else an
 * error names the component; "" opens nothing and leaves no component
 * active. A module without job_start, child_setup or job_end is refused.
 */
int hnp_pmi_base_select(hnp_mca_framework_t *fw, const char *wanted,
                        hnp_pmi_active_t *out, char *err, size_t errlen);

/** "a,b": the active components' names in order ("" for none), the
 *  length it needs like snprintf. */
int hnp_pmi_base_names(const hnp_pmi_active_t *active, char *buf,
                       size_t len);

/** The union of the active modules' HNP_PMI_SERVES_* flags. */
uint32_t hnp_pmi_base_serves(const hnp_pmi_active_t *active);

#endif /* HNP_PMI_BASE_H */
