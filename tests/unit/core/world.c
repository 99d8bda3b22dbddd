/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixture of the application-job tests (see world.h). */
#include "world.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

fake_gather_t fake_gathers[FAKE_GATHERS];
unsigned fake_ngathers;
static world_t *current; /* the world the fake exchange gathers in */

double world_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

fake_gather_t *fake_gather_find(uint32_t id)
{
    for (unsigned i = 0; i < fake_ngathers; i++)
        if (fake_gathers[i].id == id)
            return &fake_gathers[i];
    return NULL;
}

static bool everyone_joined(const fake_gather_t *g)
{
    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++)
        if (g->joins[v] == 0)
            return false;
    return true;
}

static void finish(fake_gather_t *g)
{
    g->done = true;
    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++) {
        for (hnp_vpid_t from = 0; from < WORLD_PROCS; from++)
            g->cb[v].learned(g->cb[v].cbdata, from, g->data[from],
                             g->len[from]);
        g->cb[v].complete(g->cb[v].cbdata, HNP_SUCCESS);
    }
}

static int fake_allgather(hnp_rte_t *rte, uint32_t id, const void *data,
                          size_t len, const hnp_exchange_callbacks_t *cb)
{
    hnp_vpid_t self = hnp_rte_my_vpid(rte);
    fake_gather_t *g = fake_gather_find(id);

    assert_true(len <= sizeof(g->data[0]));
    if (g == NULL) {
        assert_true(fake_ngathers < FAKE_GATHERS);
        g = &fake_gathers[fake_ngathers++];
        g->id = id;
    }
    g->joins[self]++;
    g->len[self] = len;
    if (len > 0)
        memcpy(g->data[self], data, len);
    g->cb[self] = *cb;
    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++)
        if (g->joins[v] == 0 && current->rte[v] != NULL)
            hnp_rte_collective_seen(current->rte[v], id);
    if (everyone_joined(g) && !g->done)
        finish(g);
    return HNP_SUCCESS;
}

static const hnp_exchange_module_t fake_exchange = {
    .allgather = fake_allgather,
};

static void start(world_t *w, hnp_vpid_t v)
{
    static char *names[WORLD_PROCS] = { "head", "n0", "n1" };
    char err[256] = "";
    hnp_rte_t *rte;

    assert_int_equal(hnp_rte_create(&w->rte[v], &w->setup, v == 0, v, err,
                                    sizeof(err)),
                     HNP_SUCCESS);
    rte = w->rte[v];
    if (hnp_rte_start_oob(rte, WORLD_PROCS, err, sizeof(err)) != HNP_SUCCESS)
        fail_msg("vpid %u: %s", v, err);
    assert_int_equal(hnp_rte_set_procs(rte, WORLD_PROCS, names), HNP_SUCCESS);
    rte->exchange = &fake_exchange;
    if (v != 0)
        hnp_rte_set_ready(rte); /* as after its welcome */
}

int world_setup(void **state)
{
    world_t *w = calloc(1, sizeof(*w));

    assert_non_null(w);
    w->setup.core.if_include = (char *)"127.0.0.1/32";
    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++)
        start(w, v);
    for (hnp_vpid_t a = 0; a < WORLD_PROCS; a++)
        for (hnp_vpid_t b = 0; b < WORLD_PROCS; b++)
            if (a != b)
                assert_int_equal(hnp_rte_set_uri(w->rte[a], b,
                                                 hnp_rte_my_uri(w->rte[b])),
                                 HNP_SUCCESS);
    memset(fake_gathers, 0, sizeof(fake_gathers));
    fake_ngathers = 0;
    current = w;
    *state = w;
    return 0;
}

void world_stop(world_t *w, hnp_vpid_t vpid)
{
    hnp_rte_destroy(w->rte[vpid]);
    w->rte[vpid] = NULL;
}

int world_teardown(void **state)
{
    world_t *w = *state;

    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++)
        world_stop(w, v);
    current = NULL;
    free(w);
    return 0;
}

void world_turn(world_t *w)
{
    struct timespec pause = { 0, 200000 }; /* the sockets' turn */

    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++)
        if (w->rte[v] != NULL)
            event_base_loop(w->rte[v]->base, EVLOOP_NONBLOCK);
    nanosleep(&pause, NULL);
}

void world_settle(world_t *w)
{
    double until = world_now() + 0.1;

    while (world_now() < until)
        world_turn(w);
}
