/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of selection lists: "a,b" includes, "^a,b" excludes. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hnp_mca_base.h"

#define ERR_LEN 256

static void test_empty_selects_all(void **state)
{
    const char *texts[] = { NULL, "", "   ", "\t" };
    char err[ERR_LEN];

    (void)state;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        hnp_mca_selection_t sel;

        assert_int_equal(hnp_mca_selection_parse(texts[i], &sel, err,
                                                 sizeof(err)), HNP_SUCCESS);
        assert_false(sel.exclude);
        assert_int_equal(sel.count, 0);
        assert_true(hnp_mca_selection_allows(&sel, "anything"));
        hnp_mca_selection_free(&sel);
    }
    assert_true(hnp_mca_selection_allows(NULL, "anything"));
}

static void test_include_list(void **state)
{
    hnp_mca_selection_t sel;
    char err[ERR_LEN];

    (void)state;
    assert_int_equal(hnp_mca_selection_parse("prsh,rsh", &sel, err,
                                             sizeof(err)), HNP_SUCCESS);
    assert_false(sel.exclude);
    assert_int_equal(sel.count, 2);
    assert_string_equal(sel.names[0], "prsh");
    assert_string_equal(sel.names[1], "rsh");
    assert_true(hnp_mca_selection_allows(&sel, "rsh"));
    assert_true(hnp_mca_selection_allows(&sel, "prsh"));
    assert_false(hnp_mca_selection_allows(&sel, "slurm"));
    assert_false(hnp_mca_selection_allows(&sel, "rs"));
    hnp_mca_selection_free(&sel);
    assert_int_equal(sel.count, 0);
    assert_null(sel.names);
}

static void test_exclude_list(void **state)
{
    hnp_mca_selection_t sel;
    char err[ERR_LEN];

    (void)state;
    assert_int_equal(hnp_mca_selection_parse("^rsh", &sel, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_true(sel.exclude);
    assert_int_equal(sel.count, 1);
    assert_false(hnp_mca_selection_allows(&sel, "rsh"));
    assert_true(hnp_mca_selection_allows(&sel, "prsh"));
    hnp_mca_selection_free(&sel);

    assert_int_equal(hnp_mca_selection_parse("^rsh,slurm", &sel, err,
                                             sizeof(err)), HNP_SUCCESS);
    assert_true(sel.exclude);
    assert_int_equal(sel.count, 2);
    assert_false(hnp_mca_selection_allows(&sel, "slurm"));
    assert_true(hnp_mca_selection_allows(&sel, "prsh"));
    hnp_mca_selection_free(&sel);
}

static void test_whitespace_trimmed(void **state)
{
    hnp_mca_selection_t sel;
    char err[ERR_LEN];

    (void)state;
    assert_int_equal(hnp_mca_selection_parse("  ^ gather_scatter ,\tflood  ",
                                             &sel, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_true(sel.exclude);
    assert_int_equal(sel.count, 2);
    assert_string_equal(sel.names[0], "gather_scatter");
    assert_string_equal(sel.names[1], "flood");
    hnp_mca_selection_free(&sel);

    assert_int_equal(hnp_mca_selection_parse(" radix ", &sel, err,
                                             sizeof(err)), HNP_SUCCESS);
    assert_int_equal(sel.count, 1);
    assert_string_equal(sel.names[0], "radix");
    hnp_mca_selection_free(&sel);
}

/* A bad list fails, names itself in the message, and leaves @p sel alone. */
static void expect_error(const char *text, const char *fragment)
{
    char *sentinel_names[] = { (char *)"untouched" };
    hnp_mca_selection_t sel = { .exclude = true, .count = 1,
                                .names = sentinel_names };
    char err[ERR_LEN] = "";
    char quoted[ERR_LEN];

    assert_int_equal(hnp_mca_selection_parse(text, &sel, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    snprintf(quoted, sizeof(quoted), "'%s'", text);
    if (strstr(err, quoted) == NULL || strstr(err, fragment) == NULL)
        fail_msg("error for %s: \"%s\" lacks %s or \"%s\"", quoted, err,
                 quoted, fragment);
    assert_true(sel.exclude);
    assert_int_equal(sel.count, 1);
    assert_ptr_equal(sel.names, sentinel_names);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("a,,b", "empty component name");
    expect_error("a,", "empty component name");
    expect_error(",a", "empty component name");
    expect_error("a, ,b", "empty component name");
    expect_error("^", "excludes nothing");
    expect_error("  ^  ", "excludes nothing");
    expect_error("^,a", "empty component name");
    expect_error("a,^b", "'^' may only start the list");
    expect_error("^a,^b", "'^' may only start the list");
    expect_error("a^", "'^' may only start the list");
    expect_error("a b", "bad character ' '");
    expect_error("a;b", "bad character ';'");
    expect_error("../x", "bad character '.'");
    expect_error("abcdefghijklmnopqrstuvwxyz0123456789", "longer than 31");
}

static void test_longest_name(void **state)
{
    const char *name = "abcdefghijklmnopqrstuvwxyz01234"; /* 31 */
    hnp_mca_selection_t sel;
    char err[ERR_LEN];

    (void)state;
    assert_int_equal(strlen(name), HNP_MCA_NAME_LEN - 1);
    assert_int_equal(hnp_mca_selection_parse(name, &sel, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_string_equal(sel.names[0], name);
    hnp_mca_selection_free(&sel);
}

static void test_free_is_idempotent(void **state)
{
    hnp_mca_selection_t sel = { .exclude = false, .count = 0, .names = NULL };

    (void)state;
    hnp_mca_selection_free(&sel);
    hnp_mca_selection_free(&sel);
    hnp_mca_selection_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_selects_all),
        cmocka_unit_test(test_include_list),
        cmocka_unit_test(test_exclude_list),
        cmocka_unit_test(test_whitespace_trimmed),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_longest_name),
        cmocka_unit_test(test_free_is_idempotent),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
