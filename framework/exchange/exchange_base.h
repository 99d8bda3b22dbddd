/* SPDX-License-Identifier: BSD-3-Clause */
/* The exchange framework's base: what the core needs to drive it (not installed). */
#ifndef HNP_EXCHANGE_BASE_H
#define HNP_EXCHANGE_BASE_H

#include "hnp_mca_base.h"
#include "hnp_exchange.h"

extern const hnp_mca_framework_desc_t hnp_exchange_framework;

#endif /* HNP_EXCHANGE_BASE_H */
