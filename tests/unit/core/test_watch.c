/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptor watches of hnp_rte.h (runtime/core/watch.c), on a pipe: the
 * callback never runs inside the call that made the watch, even for a
 * descriptor ready already; it runs from the loop for each readiness asked
 * for, again while the descriptor stays ready, and never after the watch
 * is gone, including when the callback itself destroyed it.
 */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rte.h"
#include "../loop_helpers.h"

#define DEADLINE 5.0

typedef struct fixture {
    hnp_setup_t setup;
    hnp_rte_t *rte;
    int fds[2];
    hnp_rte_fd_watch_t *watch;
    unsigned calls;
    unsigned ready;       /* what the last call said */
    int fd;               /* the descriptor the last call named */
    bool destroy_inside;  /* the callback destroys its watch */
} fixture_t;

static void on_ready(hnp_rte_t *rte, int fd, unsigned ready, void *cbdata)
{
    fixture_t *f = cbdata;

    assert_ptr_equal(rte, f->rte);
    f->calls++;
    f->ready = ready;
    f->fd = fd;
    if (f->destroy_inside) {
        hnp_rte_fd_watch_destroy(f->watch);
        f->watch = NULL;
    }
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    char err[256] = "";

    assert_non_null(f);
    assert_int_equal(hnp_rte_create(&f->rte, &f->setup, true, 0, err,
                                    sizeof(err)), HNP_SUCCESS);
    assert_int_equal(pipe2(f->fds, O_CLOEXEC | O_NONBLOCK), 0);
    f->fd = -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;

    hnp_rte_fd_watch_destroy(f->watch);
    hnp_rte_destroy(f->rte);
    close(f->fds[0]);
    close(f->fds[1]);
    free(f);
    return 0;
}

/* Turn the loop once without blocking: what is ready now gets its call. */
static void turn(fixture_t *f)
{
    event_base_loop(f->rte->base, EVLOOP_NONBLOCK);
}

static void test_read_from_loop_only(void **state)
{
    fixture_t *f = *state;
    char byte;

    assert_int_equal(write(f->fds[1], "x", 1), 1);
    f->watch = hnp_rte_fd_watch_create(f->rte, f->fds[0], HNP_RTE_FD_READ,
                                       on_ready, f);
    assert_non_null(f->watch);
    assert_int_equal(f->calls, 0);
    assert_true(LOOP_UNTIL(f->rte->base, DEADLINE, f->calls > 0));
    assert_int_equal(f->ready, HNP_RTE_FD_READ);
    assert_int_equal(f->fd, f->fds[0]);
    /* Still readable: called again. */
    unsigned before = f->calls;
    assert_true(LOOP_UNTIL(f->rte->base, DEADLINE, f->calls > before));
    /* Drained: no more calls. */
    assert_int_equal(read(f->fds[0], &byte, 1), 1);
    turn(f);
    before = f->calls;
    turn(f);
    turn(f);
    assert_int_equal(f->calls, before);
}

static void test_write_readiness(void **state)
{
    fixture_t *f = *state;

    f->watch = hnp_rte_fd_watch_create(f->rte, f->fds[1], HNP_RTE_FD_WRITE,
                                       on_ready, f);
    assert_non_null(f->watch);
    assert_int_equal(f->calls, 0);
    assert_true(LOOP_UNTIL(f->rte->base, DEADLINE, f->calls > 0));
    assert_int_equal(f->ready, HNP_RTE_FD_WRITE);
    assert_int_equal(f->fd, f->fds[1]);
}

/* Destroyed inside its callback: called once, however ready it stays. */
static void test_destroy_inside_callback(void **state)
{
    fixture_t *f = *state;

    assert_int_equal(write(f->fds[1], "x", 1), 1);
    f->destroy_inside = true;
    f->watch = hnp_rte_fd_watch_create(f->rte, f->fds[0],
                                       HNP_RTE_FD_READ | HNP_RTE_FD_WRITE,
                                       on_ready, f);
    assert_true(LOOP_UNTIL(f->rte->base, DEADLINE, f->calls > 0));
    assert_null(f->watch);
    turn(f);
    turn(f);
    assert_int_equal(f->calls, 1);
}

/* Destroyed before the loop ran: never called. */
static void test_destroy_before_loop(void **state)
{
    fixture_t *f = *state;

    assert_int_equal(write(f->fds[1], "x", 1), 1);
    f->watch = hnp_rte_fd_watch_create(f->rte, f->fds[0], HNP_RTE_FD_READ,
                                       on_ready, f);
    hnp_rte_fd_watch_destroy(f->watch);
    f->watch = NULL;
    turn(f);
    turn(f);
    assert_int_equal(f->calls, 0);
}

static void test_bad_arguments(void **state)
{
    fixture_t *f = *state;

    assert_null(hnp_rte_fd_watch_create(f->rte, -1, HNP_RTE_FD_READ,
                                        on_ready, f));
    assert_null(hnp_rte_fd_watch_create(f->rte, f->fds[0], 0, on_ready, f));
    assert_null(hnp_rte_fd_watch_create(f->rte, f->fds[0], 4, on_ready, f));
    assert_null(hnp_rte_fd_watch_create(f->rte, f->fds[0], HNP_RTE_FD_READ,
                                        NULL, f));
    hnp_rte_fd_watch_destroy(NULL);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_read_from_loop_only),
        T(test_write_readiness),
        T(test_destroy_inside_callback),
        T(test_destroy_before_loop),
        T(test_bad_arguments),
    };
#undef T
    alarm(60);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
