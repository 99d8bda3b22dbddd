/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file pmi_pmix.h
 * @brief The `pmix` pmi component: a PMIx server on libpmix, for Open MPI.
 *
 * Each daemon runs one libpmix server for the ranks of its node. libpmix
 * calls the server module from its own progress thread; every such call is
 * queued and handed to the daemon's event loop (pmi_pmix_queue.c), where
 * it is served through the runtime services: a fence is an all-gather of
 * every daemon's blob, a direct modex a request to the daemon hosting the
 * rank, an abort ends the job with the rank's code.
 */
#ifndef PMI_PMIX_H
#define PMI_PMIX_H

#include <stdbool.h>

#include "hnp_pmi.h"

extern const hnp_pmi_module_t pmi_pmix_module;

/** The component's parameters (pmi_pmix_component.c). */
typedef struct pmi_pmix_params {
    int priority;          /**< pmi_pmix_priority */
    bool share_topology;   /**< pmi_pmix_share_topology */
    char *gds;             /**< pmi_pmix_gds ("": libpmix's choice) */
    double call_timeout;   /**< pmi_pmix_call_timeout, seconds */
    double hello_timeout;  /**< pmi_pmix_hello_timeout, seconds */
    double connect_cards_wait; /**< pmi_pmix_connect_cards_wait, seconds
                                    (0: a connect carries no cards) */
    bool spawn_failure_ends_job; /**< pmi_pmix_spawn_failure_ends_job */
    size_t store_meta;     /**< pmi_pmix_store_meta_segment, bytes */
    size_t store_data;     /**< pmi_pmix_store_data_segment, bytes */
} pmi_pmix_params_t;

extern pmi_pmix_params_t pmi_pmix_params;

#endif /* PMI_PMIX_H */
