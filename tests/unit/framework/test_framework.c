/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the framework lifecycle: selection by priority and by the
 * user's include or exclude list, the errors and warnings about components
 * that are unknown or failed to load, closing, and the architecture's own
 * parameters. Built-in components stand in for most of the cast; the
 * test-only components are loaded from a temporary directory.
 */
#include "repository_fixture.h"

#include <stdlib.h>
#include <string.h>

#include "routed_base.h"

static void test_select_by_priority(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN];

    install(f, "comps", "testgood"); /* priority 20 */
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_string_equal(select_routed(f), "beta"); /* 30 */
    assert_string_equal(fixture_events, "open:alpha open:beta ");
}

/* Message tags are reserved at load: a second component listing a tag is
 * refused naming both, one listing a tag outside its framework's hundred
 * is refused naming the range, and the others are kept. */
static void test_tag_collision_refused(void **state)
{
    fixture_t *f = *state;

    start(f, with_tag_clash, "");
    assert_non_null(entry(f, "alpha"));
    assert_non_null(entry(f, "taga"));
    assert_null(entry(f, "tagb"));
    assert_null(entry(f, "tagout"));
    assert_failure(f, "tagb", "(built in)", "its message tag 305 is "
                   "reserved by routed component 'taga' already");
    assert_failure(f, "tagout", "(built in)", "its message tag 205 is "
                   "outside the routed framework's tags (300..399)");
    assert_logged(f, "W routed: routed component 'tagb' (built in) refused: "
                  "its message tag 305 is reserved by routed component "
                  "'taga' already");
    assert_string_equal(select_routed(f), "taga");
}

static void test_select_priority_from_parameter(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN];

    install(f, "comps", "testgood");
    create_mca(f, alpha_beta);
    set_param(f, "routed_testgood_priority", "40");
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_string_equal(select_routed(f), "testgood");
}

static void test_select_tie_goes_to_first_name(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN];

    install(f, "comps", "testgood");
    create_mca(f, alpha_beta);
    set_param(f, "routed_testgood_priority", "30");
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_string_equal(select_routed(f), "beta");
}

static void test_include_list(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN];

    install(f, "comps", "testgood");
    create_mca(f, alpha_beta);
    set_param(f, "routed", "alpha, testgood");
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_string_equal(select_routed(f), "testgood");
    assert_string_equal(fixture_events, "open:alpha ");
    assert_false(entry(f, "beta")->opened);
}

static void test_exclude_list(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN];

    install(f, "comps", "testgood");
    create_mca(f, alpha_beta);
    set_param(f, "routed", "^beta");
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_string_equal(select_routed(f), "testgood");
    assert_string_equal(fixture_events, "open:alpha ");
}

static void test_unknown_name_lists_available(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN], err[ERR_LEN] = "";
    const hnp_mca_component_t *component = NULL;
    const void *module = NULL;

    install(f, "comps", "testgood");
    create_mca(f, alpha_beta);
    set_param(f, "routed", "alpha,bogus");
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_int_equal(hnp_mca_framework_open(f->routed, err, sizeof(err)),
                     HNP_ERR_NOT_FOUND);
    assert_string_equal(err, "unknown routed component 'bogus'; available: "
                        "alpha, beta, testgood");
    assert_string_equal(fixture_events, ""); /* nothing was opened */
    assert_int_equal(hnp_mca_framework_select(f->routed, &component, &module,
                                              err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_null(component);
}

static void test_exclude_unknown_name_warns(void **state)
{
    fixture_t *f = *state;

    create_mca(f, alpha_beta);
    set_param(f, "routed", "^bogus");
    start(f, alpha_beta, "");
    assert_string_equal(select_routed(f), "beta");
    assert_logged(f, "W routed: excluding unknown routed component 'bogus'; "
                  "available: alpha, beta\n");
}

static void test_listed_failure_is_error(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN], path[PATH_LEN], err[ERR_LEN] = "", expect[ERR_LEN];

    install(f, "comps", "badiface");
    create_mca(f, alpha_beta);
    set_param(f, "routed", "alpha,badiface");
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_int_equal(hnp_mca_framework_open(f->routed, err, sizeof(err)),
                     HNP_ERR_LOAD);
    so_path(f, "comps", "badiface", path, sizeof(path));
    snprintf(expect, sizeof(expect), "routed component 'badiface' was asked "
             "for but could not be loaded: %s: built against routed "
             "interface ", path);
    if (strncmp(err, expect, strlen(expect)) != 0)
        fail_msg("error \"%s\" does not start with \"%s\"", err, expect);
    assert_string_equal(fixture_events, "");
    assert_int_equal(count_severity(f, 'W'), 0);
}

static void test_unlisted_failure_warns(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN], path[PATH_LEN], expect[ERR_LEN];

    install(f, "comps", "badiface");
    create_mca(f, alpha_beta);
    set_param(f, "routed", "alpha");
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_string_equal(select_routed(f), "alpha");
    so_path(f, "comps", "badiface", path, sizeof(path));
    snprintf(expect, sizeof(expect), "W routed: ignoring routed component "
             "'badiface': %s: built against routed interface ", path);
    assert_logged(f, expect);
    assert_int_equal(count_severity(f, 'W'), 1);
}

static void test_excluded_failure_is_quiet(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN];

    install(f, "comps", "badiface");
    create_mca(f, alpha_beta);
    set_param(f, "routed", "^badiface");
    start(f, alpha_beta, dir_of(f, "comps", dir, sizeof(dir)));
    assert_string_equal(select_routed(f), "beta");
    assert_int_equal(count_severity(f, 'W'), 0);
}

static void test_bad_selection_syntax(void **state)
{
    fixture_t *f = *state;
    char err[ERR_LEN] = "";

    create_mca(f, alpha_beta);
    set_param(f, "routed", "alpha,^beta");
    start(f, alpha_beta, "");
    assert_int_equal(hnp_mca_framework_open(f->routed, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "parameter routed: "));
    assert_non_null(strstr(err, "'alpha,^beta'"));
    assert_string_equal(fixture_events, "");
}

static void test_none_available(void **state)
{
    fixture_t *f = *state;
    const hnp_mca_component_t *component = NULL;
    const void *module = NULL;
    char err[ERR_LEN] = "";

    create_mca(f, odd_ones);
    set_param(f, "routed", "shy");
    start(f, odd_ones, "");
    open_routed(f);
    assert_int_equal(hnp_mca_framework_select(f->routed, &component, &module,
                                              err, sizeof(err)),
                     HNP_ERR_NOT_AVAILABLE);
    assert_string_equal(err, "no routed component is available (considered: "
                        "shy)");
    assert_null(component);
    assert_null(module);
}

/* A component the user named that declines: its reason is in the error,
 * however quiet the framework; not named, it declines quietly. */
static void test_named_component_says_why(void **state)
{
    fixture_t *f = *state;
    const hnp_mca_component_t *component = NULL;
    const void *module = NULL;
    char err[ERR_LEN] = "";

    create_mca(f, with_reluctant);
    set_param(f, "routed", "reluctant");
    start(f, with_reluctant, "");
    open_routed(f);
    assert_int_equal(hnp_mca_framework_select(f->routed, &component, &module,
                                              err, sizeof(err)),
                     HNP_ERR_NOT_AVAILABLE);
    assert_string_equal(err, "no routed component is available (considered: "
                        "reluctant): reluctant: no network here");
    assert_not_logged(f, "no network here");
    assert_int_equal(hnp_log_stream("routed")->verbose, 0);
}

/* A component that refuses a parameter's value fails the selection, even
 * with others available: the job must not run with another one. */
static void test_refused_value_fails_selection(void **state)
{
    fixture_t *f = *state;
    const hnp_mca_component_t *component = NULL;
    const hnp_mca_component_entry_t *all[4];
    const void *module = NULL;
    char err[ERR_LEN] = "";
    size_t count = 0;

    create_mca(f, with_picky);
    start(f, with_picky, "");
    open_routed(f);
    assert_int_equal(hnp_mca_framework_select(f->routed, &component, &module,
                                              err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_string_equal(err, "routed component picky refuses the value of "
                        "one of its parameters (see above)");
    assert_null(component);
    assert_int_equal(hnp_mca_framework_select_all(f->routed, all, 4, &count,
                                                  err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
}

/* Excluded, it is not asked: its parameters do not matter. */
static void test_refusing_component_excluded(void **state)
{
    fixture_t *f = *state;

    create_mca(f, with_picky);
    set_param(f, "routed", "^picky");
    start(f, with_picky, "");
    assert_string_equal(select_routed(f), "beta");
}

static void test_nothing_found(void **state)
{
    fixture_t *f = *state;
    const hnp_mca_component_t *component = NULL;
    const void *module = NULL;
    const hnp_mca_component_entry_t *list;
    char err[ERR_LEN] = "";

    start(f, no_builtins, "");
    assert_int_equal(hnp_mca_framework_components(f->routed, &list), 0);
    open_routed(f);
    assert_int_equal(hnp_mca_framework_select(f->routed, &component, &module,
                                              err, sizeof(err)),
                     HNP_ERR_NOT_AVAILABLE);
    assert_string_equal(err, "no routed component is available (considered: "
                        "none)");
}

static void test_close_in_reverse_order(void **state)
{
    fixture_t *f = *state;
    const hnp_mca_component_t *first = NULL, *again = NULL;
    const void *module = NULL;
    char err[ERR_LEN] = "";

    start(f, alpha_beta, "");
    assert_string_equal(select_routed(f), "beta");
    first = entry(f, "beta")->component;
    assert_int_equal(hnp_mca_framework_select(f->routed, &again, &module, err,
                                              sizeof(err)), HNP_SUCCESS);
    assert_ptr_equal(again, first);
    hnp_mca_destroy(f->mca);
    f->mca = NULL;
    assert_string_equal(fixture_events,
                        "open:alpha open:beta close:beta close:alpha ");
}

static void test_register_twice(void **state)
{
    fixture_t *f = *state;
    hnp_mca_framework_t *second = NULL;
    char err[ERR_LEN] = "";

    start(f, alpha_beta, "");
    assert_int_equal(hnp_mca_framework_register(f->mca, &hnp_routed_framework,
                                                &second, err, sizeof(err)),
                     HNP_ERR_EXISTS);
    assert_null(second);
    assert_string_equal(err, "framework 'routed' is already registered");
    assert_ptr_equal(hnp_mca_framework_desc(f->routed), &hnp_routed_framework);
}

/* ------------------------------------------------------------ parameters */

static void test_unknown_parameter_warns(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN];

    install(f, "comps", "testgood");
    create_mca(f, no_builtins);
    set_param(f, "routed_testgood_priorty", "3");
    start(f, no_builtins, dir_of(f, "comps", dir, sizeof(dir)));
    assert_int_equal(hnp_mca_warn_unknown_params(f->mca), 1);
    assert_logged(f, "W mca: unknown parameter 'routed_testgood_priorty'");
    assert_logged(f, "routed_testgood_priority");
}

/* Names another program owns (hnp hands Open MPI's to the ranks) are not
 * warned of when the hook claims them; the others still are; and each
 * comes with its value to whoever hands them on. */
static bool claims_foreign(const char *name, void *ctx)
{
    (void)ctx;
    return strncmp(name, "foreign_", 8) == 0;
}

static int collect_unregistered(const char *name, const char *value,
                                hnp_param_source_t source, void *ctx)
{
    char *seen = ctx;

    (void)source;
    snprintf(seen + strlen(seen), 128 - strlen(seen), "%s=%s;", name, value);
    return 0;
}

static void test_foreign_parameters(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN], seen[128] = "";

    install(f, "comps", "testgood");
    create_mca(f, no_builtins);
    set_param(f, "foreign_btl", "tcp");
    set_param(f, "routed_testgood_priorty", "3");
    hnp_mca_set_foreign_params(f->mca, claims_foreign, NULL);
    start(f, no_builtins, dir_of(f, "comps", dir, sizeof(dir)));
    assert_int_equal(hnp_mca_warn_unknown_params(f->mca), 2);
    assert_not_logged(f, "foreign_btl");
    assert_logged(f, "W mca: unknown parameter 'routed_testgood_priorty'");
    assert_int_equal(hnp_params_foreach_unregistered(
                         hnp_mca_params(f->mca), collect_unregistered, seen),
                     0);
    assert_string_equal(seen, "foreign_btl=tcp;routed_testgood_priorty=3;");
}

/* An error longer than its buffer says it was cut, and by how much. */
static void test_error_cut(void **state)
{
    char big[1000], buf[200];

    (void)state;
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    hnp_err_set(buf, sizeof(buf), "name %s", big);
    assert_int_equal(strlen(buf), sizeof(buf) - 1);
    const char *tail = strstr(buf, "... (");
    assert_non_null(tail);
    assert_int_equal(atoi(tail + 5), (int)(5 + sizeof(big) - 1 -
                                           (size_t)(tail - buf)));
    assert_string_equal(buf + strlen(buf) - 11, " bytes cut)");
    hnp_err_set(buf, sizeof(buf), "short %d", 1);
    assert_string_equal(buf, "short 1");
}

static void test_user_file_then_environment(void **state)
{
    fixture_t *f = *state;

    write_file(f, "home/.hnp", "mca-params.conf", "# test\nrouted = alpha\n");
    start(f, alpha_beta, "");
    assert_string_equal(select_routed(f), "alpha");
    hnp_mca_destroy(f->mca);
    f->mca = NULL;

    start_env(f, alpha_beta, "", "HNP_MCA_routed=beta");
    assert_string_equal(select_routed(f), "beta");
}

static void test_framework_verbosity(void **state)
{
    fixture_t *f = *state;

    create_mca(f, alpha_beta);
    set_param(f, "routed_base_verbose", "10");
    start(f, alpha_beta, "");
    assert_int_equal(hnp_mca_framework_log(f->routed)->verbose, 10);
    assert_string_equal(select_routed(f), "beta");
    assert_logged(f, "V routed: selected component 'beta' (priority 30)");
    assert_logged(f, "V routed: component 'alpha' offers priority 10");
}

static void test_log_output_file(void **state)
{
    fixture_t *f = *state;
    char value[PATH_LEN + 8], line[512] = "";
    FILE *fp;

    snprintf(value, sizeof(value), "file:%s/hnp.log", f->tmp);
    create_mca(f, alpha_beta);
    set_param(f, "log_output", value);
    hnp_log_set_handler(NULL, NULL);
    start(f, alpha_beta, "");
    HNP_WARN(hnp_mca_framework_log(f->routed), "to the file");
    hnp_mca_destroy(f->mca); /* puts the log back on stderr */
    f->mca = NULL;
    fixture_capture_log(f);

    fp = fopen(value + 5, "r");
    assert_non_null(fp);
    while (fgets(line, sizeof(line), fp) != NULL &&
           strstr(line, "to the file") == NULL)
        ;
    fclose(fp);
    assert_non_null(strstr(line, "warning: to the file"));
}

static void test_bad_log_output(void **state)
{
    fixture_t *f = *state;
    char err[ERR_LEN] = "";

    create_mca(f, alpha_beta);
    set_param(f, "log_output", "syslog");
    assert_int_equal(register_routed(f, "", NULL, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_string_equal(err, "bad value 'syslog' for parameter log_output: "
                        "expected stderr, stdout or file:PATH");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_CASE(test_select_by_priority),
        FIXTURE_CASE(test_tag_collision_refused),
        FIXTURE_CASE(test_select_priority_from_parameter),
        FIXTURE_CASE(test_select_tie_goes_to_first_name),
        FIXTURE_CASE(test_include_list),
        FIXTURE_CASE(test_exclude_list),
        FIXTURE_CASE(test_unknown_name_lists_available),
        FIXTURE_CASE(test_exclude_unknown_name_warns),
        FIXTURE_CASE(test_listed_failure_is_error),
        FIXTURE_CASE(test_unlisted_failure_warns),
        FIXTURE_CASE(test_excluded_failure_is_quiet),
        FIXTURE_CASE(test_bad_selection_syntax),
        FIXTURE_CASE(test_none_available),
        FIXTURE_CASE(test_named_component_says_why),
        FIXTURE_CASE(test_refused_value_fails_selection),
        FIXTURE_CASE(test_refusing_component_excluded),
        FIXTURE_CASE(test_nothing_found),
        FIXTURE_CASE(test_close_in_reverse_order),
        FIXTURE_CASE(test_register_twice),
        FIXTURE_CASE(test_unknown_parameter_warns),
        FIXTURE_CASE(test_foreign_parameters),
        cmocka_unit_test(test_error_cut),
        FIXTURE_CASE(test_user_file_then_environment),
        FIXTURE_CASE(test_framework_verbosity),
        FIXTURE_CASE(test_log_output_file),
        FIXTURE_CASE(test_bad_log_output),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
