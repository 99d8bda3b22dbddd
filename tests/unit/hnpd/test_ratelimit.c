/* SPDX-License-Identifier: BSD-3-Clause */
/* The limit on what a daemon sends the HNP of its log: so many lines a
 * second, the rest counted. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hnpd/ratelimit.h"

static unsigned admitted(hnpd_ratelimit_t *rl, unsigned tries, double now)
{
    unsigned n = 0;

    for (unsigned i = 0; i < tries; i++)
        n += hnpd_ratelimit_admit(rl, now);
    return n;
}

static void test_at_most_so_many_a_window(void **state)
{
    hnpd_ratelimit_t rl;

    (void)state;
    hnpd_ratelimit_init(&rl, 5, 1.0);
    assert_int_equal(admitted(&rl, 12, 100.0), 5);
    assert_int_equal(admitted(&rl, 3, 100.9), 0);
    assert_true(hnpd_ratelimit_window_end(&rl) == 101.0);
    /* what was held back is counted once */
    assert_int_equal(hnpd_ratelimit_take_suppressed(&rl), 10);
    assert_int_equal(hnpd_ratelimit_take_suppressed(&rl), 0);
}

static void test_a_new_window_lets_lines_through_again(void **state)
{
    hnpd_ratelimit_t rl;

    (void)state;
    hnpd_ratelimit_init(&rl, 2, 1.0);
    assert_int_equal(admitted(&rl, 4, 10.0), 2);
    assert_int_equal(admitted(&rl, 4, 11.0), 2);
    assert_int_equal(hnpd_ratelimit_take_suppressed(&rl), 4);
    /* a window begins with its first line, not on a grid */
    assert_int_equal(admitted(&rl, 1, 15.7), 1);
    assert_int_equal(admitted(&rl, 2, 16.5), 1);
    assert_true(hnpd_ratelimit_window_end(&rl) == 16.7);
    assert_int_equal(admitted(&rl, 1, 16.7), 1);
}

static void test_a_clock_gone_back_starts_a_window(void **state)
{
    hnpd_ratelimit_t rl;

    (void)state;
    hnpd_ratelimit_init(&rl, 1, 1.0);
    assert_int_equal(admitted(&rl, 2, 50.0), 1);
    assert_int_equal(admitted(&rl, 2, 40.0), 1);
    assert_int_equal(hnpd_ratelimit_take_suppressed(&rl), 2);
}

static void test_zero_means_no_limit(void **state)
{
    hnpd_ratelimit_t rl;

    (void)state;
    hnpd_ratelimit_init(&rl, 0, 1.0);
    assert_int_equal(admitted(&rl, 10000, 1.0), 10000);
    assert_int_equal(hnpd_ratelimit_take_suppressed(&rl), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_at_most_so_many_a_window),
        cmocka_unit_test(test_a_new_window_lets_lines_through_again),
        cmocka_unit_test(test_a_clock_gone_back_starts_a_window),
        cmocka_unit_test(test_zero_means_no_limit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
