/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of selection lists: "a,b" includes, "^a,b" excludes; the
 * ranking of every accepted component (a framework of several active). */
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

/* Components named a..e, sorted by name, as the repository lists them:
 * c declined (no module). */
static const hnp_mca_component_t rank_components[5] = {
    { .name = "a" }, { .name = "b" }, { .name = "c" }, { .name = "d" },
    { .name = "e" },
};
static const int rank_module;

static void rank_entries(hnp_mca_component_entry_t e[5],
                         const int priorities[5])
{
    for (int i = 0; i < 5; i++) {
        memset(&e[i], 0, sizeof(e[i]));
        e[i].component = &rank_components[i];
        e[i].module = i == 2 ? NULL : &rank_module;
        e[i].priority = priorities[i];
    }
}

static void expect_ranked(const hnp_mca_component_entry_t **out, size_t n,
                          const char *want)
{
    char got[64] = "";

    for (size_t i = 0; i < n; i++) {
        strcat(got, out[i]->component->name);
        strcat(got, i + 1 < n ? "," : "");
    }
    assert_string_equal(got, want);
}

/* Every accepted component, highest priority first, ties by name; what
 * the list allows alone; a declined one never. */
static void test_rank_all_accepted(void **state)
{
    static const int prio[5] = { 10, 30, 99, 10, 20 };
    hnp_mca_component_entry_t e[5];
    const hnp_mca_component_entry_t *out[5];
    hnp_mca_selection_t sel;
    char err[ERR_LEN];

    (void)state;
    rank_entries(e, prio);
    assert_int_equal(hnp_mca_selection_rank(e, 5, NULL, out, 5), 4);
    expect_ranked(out, 4, "b,e,a,d");

    assert_int_equal(hnp_mca_selection_parse("d,c,a", &sel, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(hnp_mca_selection_rank(e, 5, &sel, out, 5), 2);
    expect_ranked(out, 2, "a,d");
    hnp_mca_selection_free(&sel);

    assert_int_equal(hnp_mca_selection_parse("^b", &sel, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(hnp_mca_selection_rank(e, 5, &sel, out, 5), 3);
    expect_ranked(out, 3, "e,a,d");
    hnp_mca_selection_free(&sel);
}

/* A short output keeps the best, and the count says how many there are. */
static void test_rank_truncated(void **state)
{
    static const int prio[5] = { 1, 2, 0, 3, 4 };
    hnp_mca_component_entry_t e[5];
    const hnp_mca_component_entry_t *out[2];

    (void)state;
    rank_entries(e, prio);
    assert_int_equal(hnp_mca_selection_rank(e, 5, NULL, out, 2), 4);
    expect_ranked(out, 2, "e,d");
    assert_int_equal(hnp_mca_selection_rank(e, 5, NULL, out, 0), 4);
    assert_int_equal(hnp_mca_selection_rank(e, 0, NULL, out, 2), 0);
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
        cmocka_unit_test(test_rank_all_accepted),
        cmocka_unit_test(test_rank_truncated),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
