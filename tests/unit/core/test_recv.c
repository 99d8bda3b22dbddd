/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of hnp_rte_recv()'s held messages: a message that arrives for
 * a tag with no handler is held, and once a handler is posted it is
 * delivered from the event loop, never inside the call that posted it; in
 * arrival order, ahead of messages that arrive later; to the handler the
 * tag has when it is delivered, and not lost if the handler is removed
 * first. Messages come in as messages to oneself, which the runtime
 * delivers from the loop as it does those from the network.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "rte.h"

#define TAG HNP_TAG_PLM_FIRST
#define OTHER_TAG (HNP_TAG_PLM_FIRST + 1)

/* What a handler saw: the payloads in order, and whether any came while
 * hnp_rte_recv() was running. */
typedef struct seen {
    char text[64];
    unsigned count;
    bool inside_recv;
} seen_t;

typedef struct fixture {
    hnp_setup_t setup;
    hnp_rte_t *rte;
} fixture_t;

static bool posting; /* a test is inside hnp_rte_recv() */

static void record(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                   const void *data, size_t len, void *cbdata)
{
    seen_t *seen = cbdata;

    assert_int_equal(src, hnp_rte_my_vpid(rte));
    (void)tag;
    if (posting)
        seen->inside_recv = true;
    strncat(seen->text, data, len);
    seen->count++;
}

static int post(hnp_rte_t *rte, uint32_t tag, hnp_rte_recv_fn fn, void *cbdata)
{
    posting = true;
    int rc = hnp_rte_recv(rte, tag, fn, cbdata);
    posting = false;
    return rc;
}

static void send_self(hnp_rte_t *rte, uint32_t tag, const char *text)
{
    assert_int_equal(hnp_rte_send(rte, hnp_rte_my_vpid(rte), tag, text,
                                  strlen(text)),
                     HNP_SUCCESS);
}

/* Turn the loop without blocking: everything here is due at once, and a
 * delivery that never comes fails the test instead of hanging it. */
static void run_loop(hnp_rte_t *rte)
{
    for (int i = 0; i < 10; i++)
        event_base_loop(rte->base, EVLOOP_NONBLOCK);
}

/* Send @p text to oneself with no handler for @p tag: it is held. */
static void hold(hnp_rte_t *rte, uint32_t tag, const char *text)
{
    send_self(rte, tag, text);
    run_loop(rte);
    assert_non_null(rte->held);
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    char err[256] = "";

    assert_non_null(f);
    assert_int_equal(hnp_rte_create(&f->rte, &f->setup, true, 0, err,
                                    sizeof(err)),
                     HNP_SUCCESS);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;

    hnp_rte_destroy(f->rte);
    free(f);
    return 0;
}

/* Turn the loop: the handler of @p seen then has @p text, one payload a
 * character, and none of it came inside hnp_rte_recv(). */
static void expect_delivered(hnp_rte_t *rte, const seen_t *seen,
                             const char *text)
{
    run_loop(rte);
    assert_string_equal(seen->text, text);
    assert_int_equal(seen->count, strlen(text));
    assert_false(seen->inside_recv);
}

/* Post @p seen's handler for @p tag: nothing before the loop turns, then
 * @p text (all it has had). */
static void post_and_expect(hnp_rte_t *rte, uint32_t tag, seen_t *seen,
                            const char *text)
{
    unsigned before = seen->count;

    assert_int_equal(post(rte, tag, record, seen), HNP_SUCCESS);
    assert_int_equal(seen->count, before);
    expect_delivered(rte, seen, text);
}

static void test_held_message_waits_for_the_loop(void **state)
{
    fixture_t *f = *state;
    seen_t seen = { 0 };

    hold(f->rte, TAG, "a");
    post_and_expect(f->rte, TAG, &seen, "a");
    assert_null(f->rte->held);
}

static void test_held_messages_keep_arrival_order(void **state)
{
    fixture_t *f = *state;
    seen_t seen = { 0 };

    hold(f->rte, TAG, "1");
    hold(f->rte, TAG, "2");
    /* Under way before the handler is posted, delivered after it: it must
     * not overtake the two held before it. */
    send_self(f->rte, TAG, "3");
    assert_int_equal(post(f->rte, TAG, record, &seen), HNP_SUCCESS);
    send_self(f->rte, TAG, "4");
    expect_delivered(f->rte, &seen, "1234");
}

static void test_replaced_handler_gets_the_held_messages(void **state)
{
    fixture_t *f = *state;
    seen_t first = { 0 }, second = { 0 };

    hold(f->rte, TAG, "x");
    hold(f->rte, TAG, "y");
    assert_int_equal(post(f->rte, TAG, record, &first), HNP_SUCCESS);
    assert_int_equal(post(f->rte, TAG, record, &second), HNP_SUCCESS);
    expect_delivered(f->rte, &second, "xy");
    assert_int_equal(first.count, 0);
}

static void test_removed_handler_leaves_them_held(void **state)
{
    fixture_t *f = *state;
    seen_t seen = { 0 };

    hold(f->rte, TAG, "k");
    assert_int_equal(post(f->rte, TAG, record, &seen), HNP_SUCCESS);
    assert_int_equal(post(f->rte, TAG, NULL, NULL), HNP_SUCCESS);
    expect_delivered(f->rte, &seen, "");
    assert_non_null(f->rte->held);
    /* Arrivals after the removal wait behind it, for the next handler. */
    hold(f->rte, TAG, "l");
    post_and_expect(f->rte, TAG, &seen, "kl");
}

static void test_other_tags_stay_held(void **state)
{
    fixture_t *f = *state;
    seen_t seen = { 0 }, other = { 0 };

    hold(f->rte, OTHER_TAG, "o");
    hold(f->rte, TAG, "t");
    post_and_expect(f->rte, TAG, &seen, "t");
    assert_non_null(f->rte->held);
    post_and_expect(f->rte, OTHER_TAG, &other, "o");
    assert_null(f->rte->held);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_held_message_waits_for_the_loop,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_held_messages_keep_arrival_order,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_replaced_handler_gets_the_held_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_removed_handler_leaves_them_held,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_tags_stay_held, setup,
                                        teardown),
    };

    return cmocka_run_group_tests_name("recv", tests, NULL, NULL);
}
