/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixture shared by test_repository (the loader) and test_framework
 * (the lifecycle): a fresh temporary directory per test into which the
 * test-only components are copied from the build tree, a captured log,
 * built-in components linked into the test, and short-hands that fail the
 * test on any unexpected error.
 */
#ifndef HNP_TEST_REPOSITORY_FIXTURE_H
#define HNP_TEST_REPOSITORY_FIXTURE_H

#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "hnp_mca_base.h"
#include "hnp_routed.h"

#define ERR_LEN 4096
#define PATH_LEN 1024
#define FIXTURE_EVENTS_LEN 256

typedef struct fixture {
    char tmp[512]; /* a fresh directory, removed afterwards */
    char *log;     /* every message: "<severity> <stream>: <text>\n" */
    size_t loglen;
    hnp_mca_t *mca;
    hnp_mca_framework_t *routed;
    char *saved_home;
} fixture_t;

/* cmocka setup and teardown: state is a fixture_t. */
int fixture_setup(void **state);
int fixture_teardown(void **state);

/* What the built-in components were asked to do: "open:alpha close:alpha ". */
extern char fixture_events[FIXTURE_EVENTS_LEN];

/*
 * Built-in tables. alpha (priority 10), beta (30) and builtin_testgood (5)
 * record open and close; shy's open says not available; noparams fails to
 * register its parameters; newer is built for a newer interface minor; a
 * plm component in with_testgood must be ignored by routed; picky, in
 * with_picky beside alpha and beta, refuses a parameter's value.
 */
extern const hnp_mca_component_t builtin_testgood;
extern const hnp_mca_component_t *const no_builtins[];
extern const hnp_mca_component_t *const alpha_beta[];
extern const hnp_mca_component_t *const with_testgood[];
extern const hnp_mca_component_t *const odd_ones[];
extern const hnp_mca_component_t *const with_picky[];
/* beside alpha, reluctant declines and says why in a verbose message */
extern const hnp_mca_component_t *const with_reluctant[];
/* alpha (no tags), taga and tagb (both list message tag 305), tagout (a
 * tag outside the routed framework's hundred). */
extern const hnp_mca_component_t *const with_tag_clash[];

/* The captured log (setup starts capturing; this resumes it). */
void fixture_capture_log(fixture_t *f);
void assert_logged(const fixture_t *f, const char *text);
void assert_not_logged(const fixture_t *f, const char *text);
size_t count_logged(const fixture_t *f, const char *text);
/* Messages of severity letter E, W, I or V. */
size_t count_severity(const fixture_t *f, char letter);

/* Files under tmp: tmp/<sub> created with its parents. */
const char *subdir(const fixture_t *f, const char *sub, char *dir, size_t len);
/* tmp/<sub> as a string only. */
const char *dir_of(const fixture_t *f, const char *sub, char *buf, size_t len);
/* Copy the built test component @p name into tmp/<sub>. */
void install(const fixture_t *f, const char *sub, const char *name);
void write_file(const fixture_t *f, const char *sub, const char *file,
                const char *text);
/* tmp/<sub>/mca_routed_<name>.so */
void so_path(const fixture_t *f, const char *sub, const char *name, char *buf,
             size_t len);

/* The lifecycle, step by step. */
void create_mca(fixture_t *f, const hnp_mca_component_t *const *builtin);
void set_param(fixture_t *f, const char *name, const char *value);
/* Default sources (HOME=tmp/home, component path @p path, full verbosity,
 * @p extra "NAME=VALUE" or NULL), then register routed. */
int register_routed(fixture_t *f, const char *path, const char *extra,
                    char *err, size_t errlen);
/* create (unless done) and register_routed, failing on error. */
void start_env(fixture_t *f, const hnp_mca_component_t *const *builtin,
               const char *path, const char *extra);
void start(fixture_t *f, const hnp_mca_component_t *const *builtin,
           const char *path);
void open_routed(fixture_t *f);
/* Open and select; returns the selected component's name. */
const char *select_routed(fixture_t *f);

/* What the repository found. */
const hnp_mca_component_entry_t *entry(fixture_t *f, const char *name);
const hnp_mca_load_failure_t *failure(fixture_t *f, const char *name);
/* Component @p name was rejected from @p path with a reason containing
 * @p text. */
void assert_failure(fixture_t *f, const char *name, const char *path,
                    const char *text);

#define FIXTURE_CASE(t) \
    cmocka_unit_test_setup_teardown(t, fixture_setup, fixture_teardown)

#endif /* HNP_TEST_REPOSITORY_FIXTURE_H */
