/* SPDX-License-Identifier: BSD-3-Clause */
/* The descriptor probe of fdlimit.c: hnp_fd_none_open() says a range is
 * free only when no descriptor in it is open, whatever the count says. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "procs/fdlimit.h"

/* Well above what a test process holds, well below any limit. */
#define HIGH_FD 900

static void test_open_descriptor_seen(void **state)
{
    (void)state;
    assert_int_equal(dup2(STDERR_FILENO, HIGH_FD), HIGH_FD);
    assert_false(hnp_fd_none_open(HIGH_FD - 10, HIGH_FD + 10));
    assert_false(hnp_fd_none_open(HIGH_FD, HIGH_FD + 1));
    assert_true(hnp_fd_none_open(HIGH_FD + 1, HIGH_FD + 50));
    assert_true(hnp_fd_none_open(HIGH_FD - 50, HIGH_FD));
    close(HIGH_FD);
    assert_true(hnp_fd_none_open(HIGH_FD - 10, HIGH_FD + 10));
}

static void test_stdio_is_open(void **state)
{
    (void)state;
    assert_false(hnp_fd_none_open(0, 3));
}

static void test_unprobed_ranges(void **state)
{
    (void)state;
    /* Empty, reversed or too large: unknown, never "none open". */
    assert_false(hnp_fd_none_open(HIGH_FD, HIGH_FD));
    assert_false(hnp_fd_none_open(HIGH_FD + 1, HIGH_FD));
    assert_false(hnp_fd_none_open(HIGH_FD, HIGH_FD + HNP_FD_PROBE_MAX + 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_descriptor_seen),
        cmocka_unit_test(test_stdio_is_open),
        cmocka_unit_test(test_unprobed_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
