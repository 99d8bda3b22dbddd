/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "exchange_base.h"

const hnp_mca_framework_desc_t hnp_exchange_framework = {
    .name = "exchange",
    .description = "contact all-gather: phase 2, every daemon learns every URI",
    .interface_version = HNP_EXCHANGE_INTERFACE_VERSION,
};
