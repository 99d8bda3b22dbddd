/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "plm_base.h"

const hnp_mca_framework_desc_t hnp_plm_framework = {
    .name = "plm",
    .description = "process launch: phase 1, one daemon onto every node",
    .interface_version = HNP_PLM_INTERFACE_VERSION,
};
