/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the component repository: the test-only components
 * (tests/unit/framework/components) are copied from the build tree into a fresh
 * directory with junk beside them, the repository searches it, and the
 * captured log shows what a user would be told about each file.
 */
#include "repository_fixture.h"

#include <string.h>

static void test_good_component_loads(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN], expect[PATH_LEN];
    const hnp_mca_load_failure_t *failures;
    const hnp_mca_component_entry_t *e;
    const void *module = NULL;
    int priority = -1;

    install(f, "comps", "testgood");
    start(f, no_builtins, dir_of(f, "comps", dir, sizeof(dir)));
    e = entry(f, "testgood");
    assert_non_null(e);
    so_path(f, "comps", "testgood", expect, sizeof(expect));
    assert_string_equal(e->path, expect);
    assert_false(e->opened);
    assert_int_equal(hnp_mca_framework_failures(f->routed, &failures), 0);
    assert_int_equal(e->component->query(e->component, &module, &priority),
                     HNP_SUCCESS);
    assert_non_null(module);
    assert_int_equal(priority, 20);
    assert_logged(f, "V mca: searching directory ");
    assert_logged(f, "mca_routed_testgood.so: opening");
    assert_logged(f, "found symbol mca_routed_testgood_component");
    char expected[96];
    snprintf(expected, sizeof(expected), "architecture version 1, routed "
             "interface %u.", HNP_MCA_VERSION_MAJOR(HNP_ROUTED_INTERFACE_VERSION));
    assert_logged(f, expected);
    assert_logged(f, "accepted routed component 'testgood' version 1.0.0");
    assert_int_equal(count_severity(f, 'W'), 0);
}

static void test_component_parameter(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN];
    hnp_param_info_t info;

    install(f, "comps", "testgood");
    create_mca(f, no_builtins);
    set_param(f, "routed_testgood_priority", "77");
    start(f, no_builtins, dir_of(f, "comps", dir, sizeof(dir)));
    assert_int_equal(hnp_param_lookup(hnp_mca_params(f->mca),
                                      "routed_testgood_priority", &info),
                     HNP_SUCCESS);
    assert_string_equal(info.value, "77");
    assert_string_equal(select_routed(f), "testgood");
    assert_true(entry(f, "testgood")->opened);
}

static void expect_interface_text(char *buf, size_t len, unsigned major)
{
    uint32_t ours = HNP_ROUTED_INTERFACE_VERSION;

    snprintf(buf, len, "built against routed interface %u.0.0, this hnp "
             "provides %u.%u.%u", major, HNP_MCA_VERSION_MAJOR(ours),
             HNP_MCA_VERSION_MINOR(ours), HNP_MCA_VERSION_RELEASE(ours));
}

static void test_bad_components_rejected(void **state)
{
    fixture_t *f = *state;
    const char *bad[] = { "badiface", "badabi", "misnamed", "nosymbol" };
    char dir[PATH_LEN], path[PATH_LEN], text[PATH_LEN + 256];
    const hnp_mca_load_failure_t *failures;
    const hnp_mca_component_entry_t *list;

    install(f, "comps", "testgood");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        install(f, "comps", bad[i]);
    write_file(f, "comps", "mca_routed_junk.so", "not a shared object\n");
    write_file(f, "comps", "mca_plm_junk.so", "another framework's\n");
    write_file(f, "comps", "README", "not a candidate\n");
    start(f, no_builtins, dir_of(f, "comps", dir, sizeof(dir)));

    assert_int_equal(hnp_mca_framework_components(f->routed, &list), 1);
    assert_string_equal(list[0].component->name, "testgood");
    assert_int_equal(hnp_mca_framework_failures(f->routed, &failures), 5);
    so_path(f, "comps", "badiface", path, sizeof(path));
    expect_interface_text(text, sizeof(text),
                          HNP_MCA_VERSION_MAJOR(HNP_ROUTED_INTERFACE_VERSION) + 1);
    assert_failure(f, "badiface", path, text);
    so_path(f, "comps", "badabi", path, sizeof(path));
    assert_failure(f, "badabi", path, "built for component architecture "
                   "version 2, this hnp uses 1");
    so_path(f, "comps", "misnamed", path, sizeof(path));
    assert_failure(f, "misnamed", path, "file name says routed component "
                   "'misnamed', but the component says it is routed "
                   "component 'othername'");
    so_path(f, "comps", "nosymbol", path, sizeof(path));
    assert_failure(f, "nosymbol", path, "does not export the symbol "
                   "mca_routed_nosymbol_component");
    so_path(f, "comps", "junk", path, sizeof(path));
    assert_failure(f, "junk", path, "");
    assert_true(strlen(failure(f, "junk")->reason) > 0);
#ifdef HAVE_DLFCN_H
    /* The system loader's reason, not libltdl's last loader's. */
    assert_null(strstr(failure(f, "junk")->reason, "file not found"));
#endif
    assert_int_equal(count_logged(f, ": rejected: "), 5);
    assert_not_logged(f, "mca_plm_junk.so");
    assert_not_logged(f, "README");
    assert_int_equal(count_severity(f, 'W'), 0);

    /* Nobody asked for them: one warning each, naming file and reason. */
    assert_string_equal(select_routed(f), "testgood");
    assert_int_equal(count_severity(f, 'W'), 5);
    snprintf(text, sizeof(text), "W routed: ignoring routed component "
             "'badabi': %s/mca_routed_badabi.so: built for component "
             "architecture version 2", dir);
    assert_logged(f, text);
}

static void test_duplicates_first_wins(void **state)
{
    fixture_t *f = *state;
    char path[PATH_LEN * 2 + 1], first[PATH_LEN], second[PATH_LEN];
    char expect[PATH_LEN * 3];
    const hnp_mca_component_entry_t *list;

    install(f, "first", "testgood");
    install(f, "second", "testgood");
    snprintf(path, sizeof(path), "%s:%s", dir_of(f, "first", first, sizeof(first)),
             dir_of(f, "second", second, sizeof(second)));
    start(f, no_builtins, path);
    assert_int_equal(hnp_mca_framework_components(f->routed, &list), 1);
    so_path(f, "first", "testgood", first, sizeof(first));
    so_path(f, "second", "testgood", second, sizeof(second));
    assert_string_equal(list[0].path, first);
    snprintf(expect, sizeof(expect), "V mca: %s: skipped: routed component "
             "'testgood' was already found in %s", second, first);
    assert_logged(f, expect);
    snprintf(expect, sizeof(expect), "%s: opening", second);
    assert_not_logged(f, expect);
    assert_int_equal(count_severity(f, 'W'), 0);
}

/* A broken file earlier on the path does not hide a good one after it. */
static void test_broken_copy_does_not_hide_good_one(void **state)
{
    fixture_t *f = *state;
    char path[PATH_LEN * 2 + 1], first[PATH_LEN], second[PATH_LEN];

    write_file(f, "first", "mca_routed_testgood.so", "junk\n");
    install(f, "second", "testgood");
    snprintf(path, sizeof(path), "%s:%s", dir_of(f, "first", first, sizeof(first)),
             dir_of(f, "second", second, sizeof(second)));
    start(f, no_builtins, path);
    so_path(f, "first", "testgood", first, sizeof(first));
    so_path(f, "second", "testgood", second, sizeof(second));
    assert_failure(f, "testgood", first, "");
    assert_string_equal(entry(f, "testgood")->path, second);

    /* Asking for it by name is fine; the broken file is still reported. */
    set_param(f, "routed", "testgood");
    assert_string_equal(select_routed(f), "testgood");
    assert_int_equal(count_severity(f, 'W'), 1);
    assert_logged(f, "W routed: ignoring routed component 'testgood': ");
}

static void test_missing_directories(void **state)
{
    fixture_t *f = *state;
    char path[PATH_LEN * 3], comps[PATH_LEN], nope[PATH_LEN], expect[PATH_LEN * 2];

    install(f, "comps", "testgood");
    snprintf(path, sizeof(path), "::%s:%s::/nonexistent/hnp/components:",
             dir_of(f, "nope", nope, sizeof(nope)),
             dir_of(f, "comps", comps, sizeof(comps)));
    start(f, no_builtins, path);
    assert_non_null(entry(f, "testgood"));
    snprintf(expect, sizeof(expect), "V mca: skipping directory %s: it does "
             "not exist", nope);
    assert_logged(f, expect);
    assert_logged(f, "skipping directory /nonexistent/hnp/components: it "
                  "does not exist");
    assert_int_equal(count_severity(f, 'W'), 0);
    assert_int_equal(count_severity(f, 'E'), 0);
}

static void test_tilde_is_home(void **state)
{
    fixture_t *f = *state;
    char expect[PATH_LEN];

    install(f, "home", "testgood"); /* a file right in $HOME */
    install(f, "home/comps", "testgood");
    start(f, no_builtins, "~/comps:~");
    snprintf(expect, sizeof(expect), "%s/home/comps/mca_routed_testgood.so",
             f->tmp);
    assert_string_equal(entry(f, "testgood")->path, expect);
    snprintf(expect, sizeof(expect), "%s/home/mca_routed_testgood.so: "
             "skipped", f->tmp);
    assert_logged(f, expect);
}

static void test_builtin_first(void **state)
{
    fixture_t *f = *state;
    char dir[PATH_LEN], expect[PATH_LEN * 2];
    const hnp_mca_component_entry_t *e;

    install(f, "comps", "testgood");
    start(f, with_testgood, dir_of(f, "comps", dir, sizeof(dir)));
    e = entry(f, "testgood");
    assert_non_null(e);
    assert_null(e->path);
    assert_ptr_equal(e->component, &builtin_testgood);
    /* Another framework's built-in component is not ours. */
    assert_null(entry(f, "alpha"));
    snprintf(expect, sizeof(expect), "%s/mca_routed_testgood.so: skipped: "
             "routed component 'testgood' was already found in (built in)",
             dir);
    assert_logged(f, expect);
    assert_not_logged(f, "mca_routed_testgood.so: opening");
    assert_logged(f, "(built in): accepted routed component 'testgood'");
}

/* Built-ins pass the same checks, and may fail to register parameters. */
static void test_builtin_checks(void **state)
{
    fixture_t *f = *state;
    const hnp_mca_component_entry_t *list;
    char text[256];

    start(f, odd_ones, "");
    assert_int_equal(hnp_mca_framework_components(f->routed, &list), 2);
    assert_string_equal(list[0].component->name, "alpha");
    assert_string_equal(list[1].component->name, "shy");
    assert_failure(f, "noparams", "(built in)",
                   "registering its parameters failed");
    snprintf(text, sizeof(text), "built against routed interface %u.%u.%u",
             HNP_MCA_VERSION_MAJOR(HNP_ROUTED_INTERFACE_VERSION),
             HNP_MCA_VERSION_MINOR(HNP_ROUTED_INTERFACE_VERSION) + 1,
             HNP_MCA_VERSION_RELEASE(HNP_ROUTED_INTERFACE_VERSION));
    assert_failure(f, "newer", "(built in)", text);

    /* shy would win (priority 99) but is not available here: silently. */
    assert_string_equal(select_routed(f), "alpha");
    assert_false(entry(f, "shy")->opened);
    assert_int_equal(count_severity(f, 'W'), 2);
    assert_not_logged(f, "W routed: ignoring routed component 'shy'");
}

/* A daemon told which component to use opens that one file alone: the
 * others beside it, broken ones included, are neither opened nor reported,
 * and a name with no file is no failure either. */
/* Start as a daemon does: told which routed component to use (tmp/comps). */
static void start_selected(fixture_t *f, const char *name)
{
    char dir[PATH_LEN];

    create_mca(f, no_builtins);
    set_param(f, "routed", name);
    hnp_mca_load_selected_only(f->mca, true);
    start(f, no_builtins, dir_of(f, "comps", dir, sizeof(dir)));
}

static void test_selected_only(void **state)
{
    fixture_t *f = *state;
    const hnp_mca_component_entry_t *list;
    const hnp_mca_load_failure_t *failures;

    install(f, "comps", "testgood");
    install(f, "comps", "badabi");
    write_file(f, "comps", "mca_routed_junk.so", "not a shared object\n");
    start_selected(f, "testgood");
    assert_int_equal(hnp_mca_framework_components(f->routed, &list), 1);
    assert_string_equal(list[0].component->name, "testgood");
    assert_int_equal(hnp_mca_framework_failures(f->routed, &failures), 0);
    assert_logged(f, "mca_routed_testgood.so: opening");
    assert_not_logged(f, "mca_routed_badabi.so");
    assert_not_logged(f, "mca_routed_junk.so");
}

static void test_selected_only_missing(void **state)
{
    fixture_t *f = *state;
    const hnp_mca_component_entry_t *list;
    const hnp_mca_load_failure_t *failures;

    install(f, "comps", "testgood");
    start_selected(f, "nosuch");
    assert_int_equal(hnp_mca_framework_components(f->routed, &list), 0);
    assert_int_equal(hnp_mca_framework_failures(f->routed, &failures), 0);
    assert_not_logged(f, "mca_routed_testgood.so");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_CASE(test_good_component_loads),
        FIXTURE_CASE(test_component_parameter),
        FIXTURE_CASE(test_bad_components_rejected),
        FIXTURE_CASE(test_duplicates_first_wins),
        FIXTURE_CASE(test_broken_copy_does_not_hide_good_one),
        FIXTURE_CASE(test_missing_directories),
        FIXTURE_CASE(test_tilde_is_home),
        FIXTURE_CASE(test_builtin_first),
        FIXTURE_CASE(test_builtin_checks),
        FIXTURE_CASE(test_selected_only),
        FIXTURE_CASE(test_selected_only_missing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
