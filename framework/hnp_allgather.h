/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_allgather.h
 * @brief What an all-gather tells its caller.
 *
 * An all-gather is the exchange framework's operation (hnp_exchange.h); the
 * runtime services offer it to the pmi components for their fences
 * (hnp_rte_allgather() in hnp_rte.h). Both speak of its progress with these
 * callbacks, which live here so that neither header includes the other
 * framework's.
 */
#ifndef HNP_ALLGATHER_H
#define HNP_ALLGATHER_H

#include <stddef.h>

#include "hnp_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What an all-gather tells its caller. */
typedef struct hnp_exchange_callbacks {
    /** The contribution of @p vpid is known here (called once per vpid). */
    void (*learned)(void *cbdata, hnp_vpid_t vpid, const void *data,
                    size_t len);
    /** Every contribution is known here (status 0), or the operation failed. */
    void (*complete)(void *cbdata, int status);
    void *cbdata;
} hnp_exchange_callbacks_t;

#ifdef __cplusplus
}
#endif

#endif /* HNP_ALLGATHER_H */
