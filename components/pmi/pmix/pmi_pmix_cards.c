/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cards a connect carries (pmi_pmix_cards.h): the codec, checked in
 * full before anything is stored, and the store, one set a namespace
 * with its cards by rank.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "pmi_pmix_cards.h"

typedef struct card {
    void *data;   /* NULL: none held (an empty card holds a 1-byte block) */
    size_t len;
} card_t;

struct pmi_pmix_card_set {
    pmi_pmix_card_set_t *next;
    char nspace[PMI_PMIX_CARD_MAX_NSLEN + 1];
    card_t *by_rank;
    uint32_t nranks;   /* room in by_rank */
};

void pmi_pmix_cards_pack(hnp_buffer_t *buf, const char *nspace,
                         uint32_t rank, const void *data, size_t len)
{
    hnp_pack_string(buf, nspace);
    hnp_pack_u32(buf, rank);
    hnp_pack_blob(buf, data, len);
}

/* One card off @p rd; its namespace is malloc'd. */
static int read_card(hnp_reader_t *rd, char **nspace, uint32_t *rank,
                     const void **data, size_t *len)
{
    *nspace = hnp_unpack_string(rd);
    *rank = hnp_unpack_u32(rd);
    *data = hnp_unpack_blob(rd, len);
    if (hnp_reader_status(rd) != HNP_SUCCESS || *nspace == NULL ||
        (*nspace)[0] == '\0' || strlen(*nspace) > PMI_PMIX_CARD_MAX_NSLEN ||
        *len > PMI_PMIX_CARD_MAX_BYTES) {
        free(*nspace);
        *nspace = NULL;
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static pmi_pmix_card_set_t *set_find(const pmi_pmix_cards_t *cards,
                                     const char *nspace)
{
    for (pmi_pmix_card_set_t *s = cards->sets; s != NULL; s = s->next)
        if (strcmp(s->nspace, nspace) == 0)
            return s;
    return NULL;
}

static pmi_pmix_card_set_t *set_get(pmi_pmix_cards_t *cards,
                                    const char *nspace)
{
    pmi_pmix_card_set_t *s = set_find(cards, nspace);

    if (s != NULL || (s = calloc(1, sizeof(*s))) == NULL)
        return s;
    memcpy(s->nspace, nspace, strlen(nspace) + 1);
    s->next = cards->sets;
    cards->sets = s;
    return s;
}

static int store(pmi_pmix_cards_t *cards, const char *nspace, uint32_t rank,
                 const void *data, size_t len)
{
    pmi_pmix_card_set_t *s = set_get(cards, nspace);
    void *copy;

    if (s == NULL || rank == UINT32_MAX)
        return s == NULL ? HNP_ERR_NOMEM : HNP_ERR_BAD_PARAM;
    if (rank >= s->nranks) {
        uint32_t room = s->nranks > 0 ? s->nranks : 16;
        while (room <= rank)
            room = room > UINT32_MAX / 2 ? rank + 1 : room * 2;
        card_t *grown = realloc(s->by_rank, (size_t)room * sizeof(*grown));
        if (grown == NULL)
            return HNP_ERR_NOMEM;
        memset(grown + s->nranks, 0, (size_t)(room - s->nranks) *
                                         sizeof(*grown));
        s->by_rank = grown;
        s->nranks = room;
    }
    if ((copy = malloc(len > 0 ? len : 1)) == NULL)
        return HNP_ERR_NOMEM;
    if (len > 0)
        memcpy(copy, data, len);
    card_t *c = &s->by_rank[rank];
    if (c->data != NULL) {
        cards->count--;
        cards->bytes -= c->len;
        free(c->data);
    }
    *c = (card_t){ copy, len };
    cards->count++;
    cards->bytes += len;
    return HNP_SUCCESS;
}

/* Every card of @p data, stored (@p keep) or only checked. */
static int walk(pmi_pmix_cards_t *cards, const void *data, size_t len,
                bool keep, pmi_pmix_card_wanted_fn wanted, void *cbdata,
                size_t *learned)
{
    hnp_reader_t rd;
    int rc = HNP_SUCCESS;

    hnp_reader_init(&rd, data, len);
    while (rc == HNP_SUCCESS && hnp_reader_remaining(&rd) > 0) {
        char *nspace;
        uint32_t rank;
        const void *card;
        size_t clen;
        rc = read_card(&rd, &nspace, &rank, &card, &clen);
        if (rc == HNP_SUCCESS && keep && wanted(nspace, rank, cbdata)) {
            rc = store(cards, nspace, rank, card, clen);
            if (rc == HNP_SUCCESS && learned != NULL)
                (*learned)++;
        }
        free(nspace);
    }
    return rc;
}

int pmi_pmix_cards_learn(pmi_pmix_cards_t *cards, const void *data,
                         size_t len, pmi_pmix_card_wanted_fn wanted,
                         void *cbdata, size_t *learned)
{
    int rc;

    if (learned != NULL)
        *learned = 0;
    if (cards == NULL || wanted == NULL || (len > 0 && data == NULL))
        return HNP_ERR_BAD_PARAM;
    /* checked in full first: a malformed run stores nothing (only a
     * failed allocation can leave part of a valid run stored) */
    rc = walk(cards, data, len, false, wanted, cbdata, NULL);
    if (rc == HNP_SUCCESS)
        rc = walk(cards, data, len, true, wanted, cbdata, learned);
    return rc;
}

bool pmi_pmix_cards_find(const pmi_pmix_cards_t *cards, const char *nspace,
                         uint32_t rank, const void **data, size_t *len)
{
    const pmi_pmix_card_set_t *s = set_find(cards, nspace);

    if (s == NULL || rank >= s->nranks || s->by_rank[rank].data == NULL)
        return false;
    *data = s->by_rank[rank].data;
    *len = s->by_rank[rank].len;
    return true;
}

static void set_free(pmi_pmix_cards_t *cards, pmi_pmix_card_set_t *s)
{
    for (uint32_t r = 0; r < s->nranks; r++)
        if (s->by_rank[r].data != NULL) {
            cards->count--;
            cards->bytes -= s->by_rank[r].len;
            free(s->by_rank[r].data);
        }
    free(s->by_rank);
    free(s);
}

void pmi_pmix_cards_forget(pmi_pmix_cards_t *cards, const char *nspace)
{
    pmi_pmix_card_set_t **at = &cards->sets;

    while (*at != NULL) {
        pmi_pmix_card_set_t *s = *at;
        if (nspace != NULL && strcmp(s->nspace, nspace) != 0) {
            at = &s->next;
            continue;
        }
        *at = s->next;
        set_free(cards, s);
    }
}
