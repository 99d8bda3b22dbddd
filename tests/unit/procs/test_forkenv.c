/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a child gets from the pmi components (runtime/procs/forkenv.c): a
 * later value of a name replaces an earlier one and the daemon's own; bad
 * names are refused; descriptors handed over are closed with the fork
 * spec; and odls starts a child that inherits several of them under their
 * own numbers.
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

#include "hnp_errors.h"
#include "procs/forkenv.h"

static size_t count_name(char *const *env, const char *prefix)
{
    size_t n = 0;

    for (; *env != NULL; env++)
        n += strncmp(*env, prefix, strlen(prefix)) == 0;
    return n;
}

static const char *value_of(char *const *env, const char *name)
{
    size_t len = strlen(name);

    for (; *env != NULL; env++)
        if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
            return *env + len + 1;
    return NULL;
}

static void test_later_wins(void **state)
{
    char *base[] = { "PATH=/bin", "PMI_RANK=9", "HOME=/h", NULL };
    hnp_pmi_fork_t *fork = hnp_fork_create();
    char **env;

    (void)state;
    assert_non_null(fork);
    assert_int_equal(hnp_pmi_fork_setenv(fork, "PMI_RANK", "0"), HNP_SUCCESS);
    assert_int_equal(hnp_pmi_fork_setenv(fork, "A", "1"), HNP_SUCCESS);
    assert_int_equal(hnp_pmi_fork_setenv(fork, "A", "2"), HNP_SUCCESS);
    assert_int_equal(hnp_pmi_fork_setenv(fork, "EMPTY", ""), HNP_SUCCESS);
    assert_non_null(env = hnp_fork_environ(fork, base));
    assert_string_equal(value_of(env, "PMI_RANK"), "0");
    assert_string_equal(value_of(env, "A"), "2");
    assert_string_equal(value_of(env, "EMPTY"), "");
    assert_string_equal(value_of(env, "PATH"), "/bin");
    assert_int_equal(count_name(env, "PMI_RANK="), 1);
    assert_int_equal(count_name(env, "A="), 1);
    free(env);
    hnp_fork_destroy(fork);
}

static void test_bad_names(void **state)
{
    hnp_pmi_fork_t *fork = hnp_fork_create();

    (void)state;
    assert_int_equal(hnp_pmi_fork_setenv(fork, "", "x"), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_pmi_fork_setenv(fork, "A=B", "x"),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_pmi_fork_setenv(fork, NULL, "x"), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_pmi_fork_keep_fd(fork, 2), HNP_ERR_BAD_PARAM);
    hnp_fork_destroy(fork);
    hnp_fork_destroy(NULL);
}

/* Descriptors handed over are the spec's: listed in order, closed with
 * it. */
static void test_fds_closed_with_the_fork(void **state)
{
    hnp_pmi_fork_t *fork = hnp_fork_create();
    int p1[2], p2[2];
    const int *fds;
    size_t n = 0;

    (void)state;
    assert_int_equal(pipe(p1), 0);
    assert_int_equal(pipe(p2), 0);
    assert_int_equal(hnp_pmi_fork_keep_fd(fork, p1[1]), HNP_SUCCESS);
    assert_int_equal(hnp_pmi_fork_keep_fd(fork, p2[1]), HNP_SUCCESS);
    fds = hnp_fork_fds(fork, &n);
    assert_int_equal(n, 2);
    assert_int_equal(fds[0], p1[1]);
    assert_int_equal(fds[1], p2[1]);
    hnp_fork_destroy(fork);
    assert_int_equal(fcntl(p1[1], F_GETFD), -1);
    assert_int_equal(fcntl(p2[1], F_GETFD), -1);
    close(p1[0]);
    close(p2[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_later_wins),
        cmocka_unit_test(test_bad_names),
        cmocka_unit_test(test_fds_closed_with_the_fork),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
