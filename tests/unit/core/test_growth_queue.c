/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the line of requests waiting for a growth (the HNP's
 * growth_queue.c): while daemons are being started, requests that need
 * others wait, in the order they came; when the growth ends each takes
 * its turn from the loop, the first that starts a growth of its own
 * keeps the others waiting; a request that left the line is never
 * called; hnp_rte_add_daemons() refuses to jump the line, and after a
 * daemon could not be started refuses naming it; the HNP's end frees
 * the line. The growth under way is stood for by a marker in
 * rte->growth (adding.c's growths need a launcher).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../loop_helpers.h"
#include "rte.h"

typedef struct fixture {
    hnp_setup_t setup;
    hnp_rte_t *rte;
    struct event *tick;      /* bounds each turn of the loop */
    int order[8];            /* the requests, as their turns came */
    int nturns;
    int grow_at;             /* this request starts a growth in its turn */
    bool busy_in_turn;       /* hnp_rte_growth_busy() in the last turn */
} fixture_t;

typedef struct request {
    fixture_t *f;
    int id;
    hnp_rte_growth_waiter_t *waiter;
} request_t;

static char growth_marker;   /* rte->growth while "daemons are started" */

static void growth_begins(hnp_rte_t *rte)
{
    rte->growth = (hnp_rte_growth_t *)&growth_marker;
}

/* What adding.c does at a growth's end. */
static void growth_ends(hnp_rte_t *rte)
{
    rte->growth = NULL;
    hnp_rte_growth_next_turn(rte);
}

static void turn(hnp_rte_t *rte, void *ctx)
{
    request_t *r = ctx;
    fixture_t *f = r->f;

    r->waiter = NULL;
    f->busy_in_turn = hnp_rte_growth_busy(rte);
    if (f->nturns < 8)
        f->order[f->nturns] = r->id;
    f->nturns++;
    if (r->id == f->grow_at)
        growth_begins(rte);
}

static void wait_in_line(fixture_t *f, request_t *r, int id)
{
    *r = (request_t){ .f = f, .id = id };
    assert_int_equal(hnp_rte_growth_wait(f->rte, turn, r, &r->waiter),
                     HNP_SUCCESS);
    assert_non_null(r->waiter);
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    char err[256] = "";

    assert_non_null(f);
    f->grow_at = -1;
    f->setup.core.if_include = (char *)"127.0.0.1/32";
    assert_int_equal(hnp_rte_create(&f->rte, &f->setup, true, 0, err,
                                    sizeof(err)),
                     HNP_SUCCESS);
    f->tick = event_new(f->rte->base, -1, EV_PERSIST, loop_tick, NULL);
    assert_non_null(f->tick);
    event_add(f->tick, &(struct timeval){ .tv_usec = 100000 });
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;

    f->rte->growth = NULL; /* the marker is no growth to free */
    event_free(f->tick);
    hnp_rte_destroy(f->rte);
    free(f);
    return 0;
}

static void test_turns_in_order_once_the_growth_ends(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;
    request_t r[3];

    assert_false(hnp_rte_growth_busy(rte));
    growth_begins(rte);
    assert_true(hnp_rte_growth_busy(rte));
    for (int i = 0; i < 3; i++)
        wait_in_line(f, &r[i], i + 1);
    assert_int_equal(hnp_rte_growth_waiting(rte), 3);
    /* nothing while the growth is under way, however long the loop runs */
    event_base_loop(rte->base, EVLOOP_NONBLOCK);
    assert_int_equal(f->nturns, 0);
    growth_ends(rte);
    assert_int_equal(f->nturns, 0); /* from the loop, not at once */
    assert_true(hnp_rte_growth_busy(rte)); /* nobody jumps the line */
    assert_true(LOOP_UNTIL(rte->base, 10.0, f->nturns == 3));
    assert_int_equal(f->order[0], 1);
    assert_int_equal(f->order[1], 2);
    assert_int_equal(f->order[2], 3);
    assert_false(f->busy_in_turn); /* the last in line goes */
    assert_int_equal(hnp_rte_growth_waiting(rte), 0);
    assert_false(hnp_rte_growth_busy(rte));
}

/* The first in line is not kept waiting by those behind it, and one that
 * starts a growth keeps them waiting until that ends. */
static void test_a_turn_that_grows_keeps_the_rest_waiting(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;
    request_t r[3];

    growth_begins(rte);
    for (int i = 0; i < 3; i++)
        wait_in_line(f, &r[i], i + 1);
    f->grow_at = 1;
    growth_ends(rte);
    assert_true(LOOP_UNTIL(rte->base, 10.0, f->nturns == 1));
    assert_false(f->busy_in_turn); /* 2 and 3 wait, yet 1 may grow */
    event_base_loop(rte->base, EVLOOP_NONBLOCK);
    assert_int_equal(f->nturns, 1);
    assert_int_equal(hnp_rte_growth_waiting(rte), 2);
    assert_true(hnp_rte_growth_busy(rte));
    growth_ends(rte);
    assert_true(LOOP_UNTIL(rte->base, 10.0, f->nturns == 3));
    assert_int_equal(f->order[1], 2);
    assert_int_equal(f->order[2], 3);
}

/* Its requester went away: out of line, never called; the others go. */
static void test_a_request_leaves_the_line(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;
    request_t r[3];

    growth_begins(rte);
    for (int i = 0; i < 3; i++)
        wait_in_line(f, &r[i], i + 1);
    hnp_rte_growth_unwait(rte, r[1].waiter);
    assert_int_equal(hnp_rte_growth_waiting(rte), 2);
    growth_ends(rte);
    assert_true(LOOP_UNTIL(rte->base, 10.0, f->nturns == 2));
    event_base_loop(rte->base, EVLOOP_NONBLOCK);
    assert_int_equal(f->nturns, 2);
    assert_int_equal(f->order[0], 1);
    assert_int_equal(f->order[1], 3);
    /* every one out of line: the turns due find nobody */
    growth_begins(rte);
    wait_in_line(f, &r[0], 4);
    hnp_rte_growth_unwait(rte, r[0].waiter);
    growth_ends(rte);
    event_base_loop(rte->base, EVLOOP_NONBLOCK);
    assert_int_equal(f->nturns, 2);
    assert_false(hnp_rte_growth_busy(rte));
}

/* With no growth under way, a request in line has its turn from the
 * loop (a caller that waits without need is not called back inside). */
static void test_no_growth_the_turn_comes_from_the_loop(void **state)
{
    fixture_t *f = *state;
    request_t r;

    wait_in_line(f, &r, 7);
    assert_int_equal(f->nturns, 0);
    assert_true(LOOP_UNTIL(f->rte->base, 10.0, f->nturns == 1));
    assert_int_equal(f->order[0], 7);
}

static void noop_added(hnp_rte_t *rte, int status, const char *why, void *ctx)
{
    (void)rte;
    (void)status;
    (void)why;
    (void)ctx;
    fail_msg("no growth may start here");
}

/* hnp_rte_add_daemons() refuses to jump the line, and after a daemon
 * could not be started refuses naming it; the turns still come. */
static void test_add_daemons_refuses(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;
    char *nodes[1] = { "n2" };
    char err[512] = "";
    request_t r;

    growth_begins(rte);
    wait_in_line(f, &r, 1);
    rte->growth = NULL; /* ended, the turn not taken yet */
    assert_int_equal(hnp_rte_add_daemons(rte, nodes, 1, noop_added, NULL,
                                         err, sizeof(err)),
                     HNP_ERR_EXISTS);
    assert_non_null(strstr(err, "wait for their turn"));
    rte->growth_broken = strdup("the daemon for node n2 (vpid 2) could not "
                                "be started");
    assert_non_null(rte->growth_broken);
    hnp_rte_growth_next_turn(rte);
    assert_true(LOOP_UNTIL(rte->base, 10.0, f->nturns == 1));
    err[0] = '\0';
    assert_int_equal(hnp_rte_add_daemons(rte, nodes, 1, noop_added, NULL,
                                         err, sizeof(err)),
                     HNP_ERR_NOT_AVAILABLE);
    assert_string_equal(err, "no more daemons can be started: the daemon "
                             "for node n2 (vpid 2) could not be started");
}

/* The HNP ends with requests in line and their turn due: all freed (the
 * sanitizers' and valgrind's runs check it), none called. */
static void test_end_with_requests_in_line(void **state)
{
    fixture_t *f = *state;
    hnp_rte_t *rte = f->rte;
    request_t r[3];

    growth_begins(rte);
    for (int i = 0; i < 3; i++)
        wait_in_line(f, &r[i], i + 1);
    growth_ends(rte); /* a turn is due */
    rte->growth = NULL;
    hnp_rte_growth_destroy(rte);
    assert_int_equal(hnp_rte_growth_waiting(rte), 0);
    event_base_loop(rte->base, EVLOOP_NONBLOCK);
    assert_int_equal(f->nturns, 0);
    growth_begins(rte);
    wait_in_line(f, &r[0], 4); /* and once more, left to hnp_rte_destroy */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_turns_in_order_once_the_growth_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_turn_that_grows_keeps_the_rest_waiting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_request_leaves_the_line, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_no_growth_the_turn_comes_from_the_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add_daemons_refuses, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_end_with_requests_in_line, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
