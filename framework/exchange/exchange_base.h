/* SPDX-License-Identifier: BSD-3-Clause */
/* The exchange framework's base: what the core needs to drive it (not installed). */
#ifndef HNP_EXCHANGE_BASE_H
#define HNP_EXCHANGE_BASE_H

#include "hnp_mca_base.h"
#include "hnp_exchange.h"

extern const hnp_mca_framework_desc_t hnp_exchange_framework;

#define HNP_EXCHANGE_BASE_MAX 16

/**
 * Choose again, for @p job, among the components the selection list
 * allows and whose query offered a module: each offers its job_priority
 * (or its query's priority); the highest wins, ties going to the name
 * sorted first. The framework must be open. *@p name gets the winner's
 * name; @p why (may be NULL) the priorities offered, for hnp --plan
 * ("flood 30, gather_scatter 20").
 */
int hnp_exchange_base_select_for(hnp_mca_framework_t *fw,
                                 const hnp_exchange_job_t *job,
                                 const char **name,
                                 const hnp_exchange_module_t **module,
                                 char *why, size_t whylen, char *err,
                                 size_t errlen);

/** The daemons the HNP holds connections with for @p module in @p job,
 *  besides its tree neighbours (the hnp_connections hook; 0 without). */
uint32_t hnp_exchange_base_hnp_connections(const hnp_exchange_module_t *module,
                                           const hnp_exchange_job_t *job);

#endif /* HNP_EXCHANGE_BASE_H */
