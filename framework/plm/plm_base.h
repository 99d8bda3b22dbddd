/* SPDX-License-Identifier: BSD-3-Clause */
/* The plm framework's base: what the core needs to drive it (not installed). */
#ifndef HNP_PLM_BASE_H
#define HNP_PLM_BASE_H

#include "hnp_mca_base.h"
#include "hnp_plm.h"

extern const hnp_mca_framework_desc_t hnp_plm_framework;

/**
 * Whether the module of plm component @p name keeps the promises of its
 * flags (each capability's hook is set), starts daemons (launch_daemons)
 * and names a known way for the secret. HNP_ERR_BAD_PARAM, with @p err
 * naming the component and what is wrong, when it does not.
 */
int hnp_plm_module_check(const hnp_plm_module_t *module, const char *name,
                         char *err, size_t errlen);

#endif /* HNP_PLM_BASE_H */
