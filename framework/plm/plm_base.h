/* SPDX-License-Identifier: BSD-3-Clause */
/* The plm framework's base: what the core needs to drive it (not installed). */
#ifndef HNP_PLM_BASE_H
#define HNP_PLM_BASE_H

#include "hnp_mca_base.h"
#include "hnp_plm.h"

extern const hnp_mca_framework_desc_t hnp_plm_framework;

#endif /* HNP_PLM_BASE_H */
