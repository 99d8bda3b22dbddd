/* SPDX-License-Identifier: BSD-3-Clause */
/* The routed framework's base: what the core needs to drive it (not installed). */
#ifndef HNP_ROUTED_BASE_H
#define HNP_ROUTED_BASE_H

#include "hnp_mca_base.h"
#include "hnp_routed.h"

extern const hnp_mca_framework_desc_t hnp_routed_framework;

#endif /* HNP_ROUTED_BASE_H */
