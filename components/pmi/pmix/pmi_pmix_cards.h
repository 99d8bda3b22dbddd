/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint data ("cards") of processes carried with a connect across
 * jobs: what libpmix gives for a direct modex of one process (its data
 * of remote scope, packed by libpmix), kept by the daemons of the other
 * participants so that libpmix's direct-modex requests for that process
 * are answered on the node instead of by its node over the network.
 *
 * A daemon's part of the connect is a run of cards; the runtime's
 * collective hands every daemon the concatenation of all parts. One card
 * on the wire: the namespace (string), the rank (u32), the data (blob).
 * This file knows nothing of libpmix: it is the codec and the store.
 */
#ifndef PMI_PMIX_CARDS_H
#define PMI_PMIX_CARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

/* Bounds of what a card may hold (a namespace as libpmix's, 255 bytes;
 * one process's data). */
#define PMI_PMIX_CARD_MAX_NSLEN 255
#define PMI_PMIX_CARD_MAX_BYTES (1u << 20)

/* The cards this daemon holds, by namespace then rank (owned). */
typedef struct pmi_pmix_card_set pmi_pmix_card_set_t;
typedef struct pmi_pmix_cards {
    pmi_pmix_card_set_t *sets;
    size_t count;   /* cards held */
    size_t bytes;   /* their data */
} pmi_pmix_cards_t;

/* Whether a card read off the wire is kept: @p nspace and @p rank name a
 * process this daemon may be asked about (a known job, a rank inside it,
 * not one of this node's). */
typedef bool (*pmi_pmix_card_wanted_fn)(const char *nspace, uint32_t rank,
                                        void *cbdata);

/* Append one card to @p buf (check hnp_buffer_status() at the end). */
void pmi_pmix_cards_pack(hnp_buffer_t *buf, const char *nspace,
                         uint32_t rank, const void *data, size_t len);

/* Read the run of cards @p data, @p len: all of it or nothing. The cards
 * @p wanted keeps are stored (a card already held is replaced), the
 * others skipped; *@p learned (may be NULL) counts those kept.
 * HNP_ERR_BAD_PARAM when the input is not a run of valid cards (nothing
 * is stored then), HNP_ERR_NOMEM. */
int pmi_pmix_cards_learn(pmi_pmix_cards_t *cards, const void *data,
                         size_t len, pmi_pmix_card_wanted_fn wanted,
                         void *cbdata, size_t *learned);

/* The card of rank @p rank of @p nspace: whether it is held, and then its
 * data (owned by @p cards, valid until the next learn or forget). */
bool pmi_pmix_cards_find(const pmi_pmix_cards_t *cards, const char *nspace,
                         uint32_t rank, const void **data, size_t *len);

/* Drop the cards of @p nspace (NULL: all of them). */
void pmi_pmix_cards_forget(pmi_pmix_cards_t *cards, const char *nspace);

#endif /* PMI_PMIX_CARDS_H */
