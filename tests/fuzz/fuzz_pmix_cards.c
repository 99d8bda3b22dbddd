/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the endpoint data a connect across jobs carries
 * (components/pmi/pmix/pmi_pmix_cards.c), as another daemon's part of
 * the collective arrives: a run of cards (namespace string, rank u32,
 * data blob). It is read into a store that already holds one card.
 *  - refused: the store is as before;
 *  - accepted: every card of an even rank below 64 (those the target
 *    wants) is held with the data of its last copy in the run, the cards
 *    of other ranks are not, and forgetting the namespaces leaves the
 *    store empty with no bytes counted.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "hnp_buffer.h"
#include "hnp_errors.h"
#include "pmi/pmix/pmi_pmix_cards.h"

#define HELD_NSPACE "held-before"

static bool wanted(const char *nspace, uint32_t rank, void *cbdata)
{
    (void)nspace;
    (void)cbdata;
    return rank < 64 && rank % 2 == 0;
}

typedef struct card {
    char *nspace;
    uint32_t rank;
    const void *data;
    size_t len;
} card_t;

/* The run read again with the reader alone; NULL if it does not read. */
static card_t *read_all(const uint8_t *data, size_t size, size_t *n)
{
    hnp_reader_t rd;
    card_t *cards = NULL;

    *n = 0;
    hnp_reader_init(&rd, data, size);
    while (hnp_reader_remaining(&rd) > 0) {
        card_t *grown = realloc(cards, (*n + 1) * sizeof(*cards));
        FUZZ_CHECK(grown != NULL);
        cards = grown;
        card_t *c = &cards[*n];
        c->nspace = hnp_unpack_string(&rd);
        c->rank = hnp_unpack_u32(&rd);
        c->data = hnp_unpack_blob(&rd, &c->len);
        (*n)++;
        FUZZ_CHECK(hnp_reader_status(&rd) == HNP_SUCCESS);
    }
    return cards;
}

static bool last_copy(const card_t *cards, size_t n, size_t i)
{
    for (size_t k = i + 1; k < n; k++)
        if (cards[k].rank == cards[i].rank &&
            strcmp(cards[k].nspace, cards[i].nspace) == 0)
            return false;
    return true;
}

static void check_accepted(pmi_pmix_cards_t *store, const uint8_t *data,
                           size_t size, size_t learned)
{
    size_t n, kept = 0;
    card_t *cards = read_all(data, size, &n);

    for (size_t i = 0; i < n; i++) {
        const void *got;
        size_t len;
        bool held = pmi_pmix_cards_find(store, cards[i].nspace,
                                        cards[i].rank, &got, &len);
        if (!wanted(cards[i].nspace, cards[i].rank, NULL)) {
            FUZZ_CHECK(!held || strcmp(cards[i].nspace, HELD_NSPACE) == 0);
            continue;
        }
        kept++;
        FUZZ_CHECK(held);
        if (last_copy(cards, n, i))
            FUZZ_CHECK(len == cards[i].len &&
                       (len == 0 || memcmp(got, cards[i].data, len) == 0));
    }
    FUZZ_CHECK(kept == learned);
    for (size_t i = 0; i < n; i++) {
        pmi_pmix_cards_forget(store, cards[i].nspace);
        free(cards[i].nspace);
    }
    free(cards);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmi_pmix_cards_t store = { 0 };
    hnp_buffer_t held;
    size_t learned = 0;
    const void *got;
    size_t len;

    hnp_buffer_init(&held);
    pmi_pmix_cards_pack(&held, HELD_NSPACE, 2, "before", 6);
    FUZZ_CHECK(pmi_pmix_cards_learn(&store, held.data, held.len, wanted,
                                    NULL, NULL) == HNP_SUCCESS);
    hnp_buffer_release(&held);
    int rc = pmi_pmix_cards_learn(&store, data, size, wanted, NULL, &learned);
    FUZZ_CHECK(rc == HNP_SUCCESS || rc == HNP_ERR_BAD_PARAM);
    if (rc != HNP_SUCCESS) {
        FUZZ_CHECK(learned == 0 && store.count == 1 && store.bytes == 6);
        FUZZ_CHECK(pmi_pmix_cards_find(&store, HELD_NSPACE, 2, &got, &len) &&
                   len == 6 && memcmp(got, "before", 6) == 0);
    } else {
        check_accepted(&store, data, size, learned);
    }
    pmi_pmix_cards_forget(&store, NULL);
    FUZZ_CHECK(store.count == 0 && store.bytes == 0 && store.sets == NULL);
    return 0;
}
