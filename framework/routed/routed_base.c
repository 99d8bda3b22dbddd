/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "routed_base.h"

const hnp_mca_framework_desc_t hnp_routed_framework = {
    .name = "routed",
    .description = "routing topology: who forwards to whom",
    .interface_version = HNP_ROUTED_INTERFACE_VERSION,
    .tag_first = HNP_TAG_ROUTED_FIRST,
};
