/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The endpoint data a connect across jobs carries (pmi_pmix_cards.h).
 * Before its part of the connect, a daemon asks its own libpmix for the
 * data of each participant that runs on its node (what libpmix would
 * send another node for a direct modex of it: at once for a process that
 * has committed its data). Once the connect is done, every daemon keeps
 * the cards of the participants of other nodes: libpmix's direct-modex
 * requests for them (Open MPI asks for each new peer, one at a time) are
 * then answered on the node. A process that has not committed yet is not
 * waited for beyond pmi_pmix_connect_cards_wait: its peers ask its node,
 * as without cards.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

/* The asks of one connect. Each ask out holds it, and so does the
 * connect until it went on. */
typedef struct card_round {
    pmi_pmix_connect_cards_fn ready; /* NULL once called */
    void *cbdata;
    unsigned refs;
    unsigned waiting;           /* asks not answered yet */
    unsigned asked;
    size_t max_bytes;
    hnp_buffer_t buf;
    hnp_rte_timer_t *deadline;
} card_round_t;

typedef struct card_ask {
    pmi_pmix_call_t call;
    struct card_ask *next;      /* asks_out, until answered */
    card_round_t *round;
    pmix_proc_t proc;
    pmix_status_t status;
    char *data;
    size_t len;
} card_ask_t;

/* The asks libpmix has not answered yet (the loop's alone: linked before
 * the ask, unlinked when its answer runs here). */
static card_ask_t *asks_out;

static void ask_unlink(card_ask_t *ask)
{
    for (card_ask_t **link = &asks_out; *link != NULL; link = &(*link)->next)
        if (*link == ask) {
            *link = ask->next;
            return;
        }
}

static void round_release(card_round_t *round)
{
    if (--round->refs > 0)
        return;
    hnp_buffer_release(&round->buf);
    free(round);
}

/* The connect goes on with the cards that came. */
static void round_finish(card_round_t *round)
{
    pmi_pmix_connect_cards_fn ready = round->ready;
    uint8_t *data = NULL;
    size_t len = 0;

    if (ready == NULL)
        return;
    round->ready = NULL;
    hnp_rte_timer_destroy(round->deadline);
    round->deadline = NULL;
    if (round->waiting > 0)
        HNP_VERBOSE(pmi_pmix_log(), 2, "pmix: a connect goes on without the "
                    "data of %u of this node's %u processes (not given by "
                    "libpmix within %g s: pmi_pmix_connect_cards_wait)",
                    round->waiting, round->asked,
                    pmi_pmix_params.connect_cards_wait);
    if (round->buf.len > round->max_bytes) {
        HNP_VERBOSE(pmi_pmix_log(), 1, "pmix: the data of this node's "
                    "processes for a connect, %zu bytes, is more than the "
                    "%zu a collective carries per node: sent without it",
                    round->buf.len, round->max_bytes);
        hnp_buffer_release(&round->buf);
        hnp_buffer_init(&round->buf);
    }
    if (round->buf.len > 0)
        data = hnp_buffer_steal(&round->buf, &len);
    ready(round->cbdata, data, data != NULL ? len : 0);
    round_release(round);
}

static void round_deadline(hnp_rte_t *rte, void *cbdata)
{
    (void)rte;
    round_finish(cbdata);
}

static void card_run(pmi_pmix_call_t *call)
{
    card_ask_t *ask = (card_ask_t *)call;
    card_round_t *round = ask->round;

    ask_unlink(ask);
    if (round->ready != NULL && ask->status == PMIX_SUCCESS)
        pmi_pmix_cards_pack(&round->buf, ask->proc.nspace, ask->proc.rank,
                            ask->data, ask->len);
    if (round->ready != NULL && --round->waiting == 0)
        round_finish(round);
    round_release(round);
    free(ask->data);
    free(ask);
}

/* From libpmix's thread. */
static void card_answered(pmix_status_t status, char *data, size_t sz,
                          void *cbdata)
{
    card_ask_t *ask = cbdata;

    ask->status = pmi_pmix_modex_copy(status, data, sz, &ask->data,
                                      &ask->len);
    pmi_pmix_queue_post(&pmi_pmix_server, &ask->call, card_run);
}

static void ask_one(card_round_t *round, const char *nspace, uint32_t rank)
{
    card_ask_t *ask = calloc(1, sizeof(*ask));

    if (ask == NULL)
        return; /* its peers will ask its node */
    ask->round = round;
    PMIX_LOAD_PROCID(&ask->proc, nspace, rank);
    round->refs++;
    round->waiting++;
    round->asked++;
    ask->next = asks_out;
    asks_out = ask;
    if (PMIx_server_dmodex_request(&ask->proc, card_answered, ask) ==
        PMIX_SUCCESS)
        return;
    ask_unlink(ask);
    round->refs--;
    round->waiting--;
    free(ask);
}

/* Ask for every participant of @p procs that runs here (one named twice
 * is asked twice: its card travels twice, and is held once). */
static void ask_local(card_round_t *round, const pmix_proc_t procs[],
                      size_t nprocs)
{
    for (size_t i = 0; i < nprocs; i++) {
        const pmi_pmix_job_t *pj = pmi_pmix_job_find(procs[i].nspace);
        if (pj == NULL)
            continue; /* no rank of it here */
        const hnp_pmi_job_t *job = pj->job;
        bool all = procs[i].rank == PMIX_RANK_WILDCARD;
        for (uint32_t r = all ? 0 : procs[i].rank;
             r < job->nprocs && (all || r == procs[i].rank); r++)
            if (job->node_of[r] == job->my_node)
                ask_one(round, pj->nspace, r);
    }
}

void pmi_pmix_connect_cards_collect(const pmix_proc_t procs[], size_t nprocs,
                            size_t max_bytes, pmi_pmix_connect_cards_fn ready,
                            void *cbdata)
{
    card_round_t *round = NULL;

    if (pmi_pmix_params.connect_cards_wait <= 0 ||
        (round = calloc(1, sizeof(*round))) == NULL) {
        ready(cbdata, NULL, 0);
        return;
    }
    *round = (card_round_t){ .ready = ready, .cbdata = cbdata, .refs = 1,
                             .max_bytes = max_bytes };
    hnp_buffer_init(&round->buf);
    ask_local(round, procs, nprocs);
    if (round->waiting > 0)
        round->deadline = hnp_rte_timer_create(
            pmi_pmix_server.rte, pmi_pmix_params.connect_cards_wait,
            round_deadline, round);
    if (round->waiting == 0 || round->deadline == NULL)
        round_finish(round);
}

void pmi_pmix_connect_cards_stop(void)
{
    /* libpmix's threads are gone: what it never answered ends as if
     * refused, and its round goes on without it, or goes. */
    while (asks_out != NULL) {
        asks_out->status = PMIX_ERR_UNREACH;
        card_run(&asks_out->call);
    }
}

/* ------------------------------------------------------ the other end */

/* A card is kept for a rank of a job registered here that runs on
 * another node: those are the ones libpmix may ask the host about. */
static bool card_wanted(const char *nspace, uint32_t rank, void *cbdata)
{
    const pmi_pmix_job_t *pj = pmi_pmix_job_find(nspace);
    uint32_t nprocs = 0;

    (void)cbdata;
    if (pj != NULL)
        return rank < pj->job->nprocs &&
               pj->job->node_of[rank] != pj->job->my_node;
    return pmi_pmix_foreign_size(nspace, &nprocs) && rank < nprocs;
}

void pmi_pmix_connect_cards_take(const void *data, size_t len, size_t nprocs)
{
    size_t learned = 0;
    int rc;

    if (len == 0)
        return;
    rc = pmi_pmix_cards_learn(&pmi_pmix_server.cards, data, len, card_wanted,
                              NULL, &learned);
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: the endpoint data a connect "
                      "across %zu processes brought (%zu bytes) is not "
                      "usable: %s; their peers here will ask their nodes",
                      nprocs, len, hnp_strerror(rc));
    else
        HNP_VERBOSE(pmi_pmix_log(), 2, "pmix: a connect across %zu "
                    "processes brought the endpoint data of %zu processes of "
                    "other nodes (%zu bytes); %zu held here", nprocs,
                    learned, len, pmi_pmix_server.cards.count);
}

bool pmi_pmix_connect_card(const char *nspace, uint32_t rank, char **data,
                           size_t *len)
{
    const void *held;
    size_t n;

    if (!pmi_pmix_cards_find(&pmi_pmix_server.cards, nspace, rank, &held,
                             &n) ||
        (*data = malloc(n > 0 ? n : 1)) == NULL)
        return false;
    if (n > 0)
        memcpy(*data, held, n);
    *len = n;
    return true;
}
