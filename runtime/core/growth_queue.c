/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Growths one after the other (adding.c starts one at a time): a request
 * that needs daemons while a growth is under way waits in line, in the
 * order the requests came. When the growth ends, the first in line takes
 * its turn from the loop: it asks again what it needs (the growth before
 * may have started its daemons), and either starts a growth of its own
 * (the others wait on) or goes on without one (the next takes its turn).
 * After a daemon could not be started no growth starts (growth_broken):
 * the turns are still taken, so that a request needing no new daemon is
 * served and one needing one is refused with the reason, at once.
 */
#include "config.h"

#include <stdlib.h>

#include "rte.h"

struct hnp_rte_growth_waiter {
    hnp_rte_growth_waiter_t *next;
    hnp_rte_growth_turn_fn turn;
    void *ctx;
};

static void take_turns(hnp_rte_t *rte, void *cbdata)
{
    (void)cbdata;
    hnp_rte_timer_destroy(rte->growth_turns);
    rte->growth_turns = NULL;
    while (rte->growth == NULL && rte->growth_waiting != NULL) {
        hnp_rte_growth_waiter_t *w = rte->growth_waiting;
        rte->growth_waiting = w->next;
        rte->growth_turn_taken = true; /* it goes before those behind it */
        w->turn(rte, w->ctx);
        rte->growth_turn_taken = false;
        free(w);
    }
}

void hnp_rte_growth_next_turn(hnp_rte_t *rte)
{
    if (rte->growth_turns != NULL || rte->growth_waiting == NULL)
        return;
    rte->growth_turns = hnp_rte_timer_create(rte, 0, take_turns, NULL);
    if (rte->growth_turns == NULL) /* no memory for a timer: now, then */
        take_turns(rte, NULL);
}

bool hnp_rte_growth_busy(const hnp_rte_t *rte)
{
    return rte->growth != NULL ||
           (rte->growth_waiting != NULL && !rte->growth_turn_taken);
}

int hnp_rte_growth_wait(hnp_rte_t *rte, hnp_rte_growth_turn_fn turn,
                        void *ctx, hnp_rte_growth_waiter_t **out)
{
    hnp_rte_growth_waiter_t *w = calloc(1, sizeof(*w)), **at;

    *out = NULL;
    if (w == NULL || turn == NULL) {
        free(w);
        return w == NULL ? HNP_ERR_NOMEM : HNP_ERR_BAD_PARAM;
    }
    w->turn = turn;
    w->ctx = ctx;
    for (at = &rte->growth_waiting; *at != NULL; at = &(*at)->next)
        ;
    *at = w;
    if (rte->growth == NULL)
        hnp_rte_growth_next_turn(rte);
    *out = w;
    return HNP_SUCCESS;
}

uint32_t hnp_rte_growth_waiting(const hnp_rte_t *rte)
{
    uint32_t n = 0;

    for (const hnp_rte_growth_waiter_t *w = rte->growth_waiting; w != NULL;
         w = w->next)
        n++;
    return n;
}

void hnp_rte_growth_unwait(hnp_rte_t *rte, hnp_rte_growth_waiter_t *waiter)
{
    for (hnp_rte_growth_waiter_t **at = &rte->growth_waiting; *at != NULL;
         at = &(*at)->next)
        if (*at == waiter) {
            *at = waiter->next;
            free(waiter);
            return;
        }
}

void hnp_rte_growth_queue_destroy(hnp_rte_t *rte)
{
    hnp_rte_timer_destroy(rte->growth_turns);
    rte->growth_turns = NULL;
    while (rte->growth_waiting != NULL) {
        hnp_rte_growth_waiter_t *w = rte->growth_waiting;
        rte->growth_waiting = w->next;
        free(w);
    }
}
