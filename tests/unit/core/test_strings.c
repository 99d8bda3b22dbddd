/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp_rte_strings_copy(): the node names a daemon keeps for the runtime
 * and for each job, in one block that one free() releases.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/rte.h"

/* Every string of the copy lies inside the one block that holds its
 * pointers, after them: freeing the array frees the names. */
static void assert_one_block(char **copy, uint32_t n, size_t chars)
{
    const char *lo = (const char *)(copy + n + 1), *hi = lo + chars;

    for (uint32_t i = 0; i < n; i++)
        if (copy[i] != NULL)
            assert_true(copy[i] >= lo && copy[i] + strlen(copy[i]) < hi);
}

static void test_copy_in_one_block(void **state)
{
    char a[] = "n1", b[] = "node-two";
    char *names[] = { a, NULL, b };
    char **copy;

    (void)state;
    copy = hnp_rte_strings_copy(3, names, NULL);
    assert_non_null(copy);
    a[0] = 'X'; /* a copy, not the caller's strings */
    assert_string_equal(copy[0], "n1");
    assert_null(copy[1]);
    assert_string_equal(copy[2], "node-two");
    assert_null(copy[3]);
    assert_one_block(copy, 3, sizeof("n1") + sizeof("node-two"));
    free(copy);

    copy = hnp_rte_strings_copy(3, names, "");
    assert_non_null(copy);
    assert_string_equal(copy[1], "");
    assert_one_block(copy, 3, sizeof("X1") + sizeof("node-two") + 1);
    free(copy);
}

static void test_copy_of_nothing(void **state)
{
    char **copy;

    (void)state;
    copy = hnp_rte_strings_copy(0, NULL, NULL);
    assert_non_null(copy);
    assert_null(copy[0]);
    free(copy);
    /* no strings given: as many NULL entries */
    copy = hnp_rte_strings_copy(2, NULL, "");
    assert_non_null(copy);
    assert_null(copy[0]);
    assert_null(copy[1]);
    free(copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_in_one_block),
        cmocka_unit_test(test_copy_of_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
