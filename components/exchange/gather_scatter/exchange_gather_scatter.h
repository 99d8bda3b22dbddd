/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file exchange_gather_scatter.h
 * @brief The `gather_scatter` exchange component: the vanilla all-gather.
 *
 * Every process sends its contribution to the HNP; once the HNP holds all
 * of them it sends the whole table to every daemon. Two steps, but the HNP
 * talks to every daemon: O(N) connections and O(N^2) bytes at one process.
 */
#ifndef EXCHANGE_GATHER_SCATTER_H
#define EXCHANGE_GATHER_SCATTER_H

#include "hnp_exchange.h"

/** Its message tags (hnp_mca.h), listed in its descriptor. */
enum {
    /** daemon -> HNP */
    GATHER_SCATTER_TAG_CONTRIBUTION = HNP_TAG_EXCHANGE_FIRST,
    GATHER_SCATTER_TAG_TABLE, /**< HNP -> daemon */
};

extern const hnp_exchange_module_t exchange_gather_scatter_module;

#endif /* EXCHANGE_GATHER_SCATTER_H */
