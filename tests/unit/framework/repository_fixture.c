/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixture shared by the repository and framework tests. */
#include "repository_fixture.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "routed_base.h"

/* ------------------------------------------------------------ built-ins */

/* What the built-in components were asked to do, in order. */
char fixture_events[FIXTURE_EVENTS_LEN];

static void record_event(const char *what, const hnp_mca_component_t *self)
{
    size_t used = strlen(fixture_events);

    snprintf(fixture_events + used, sizeof(fixture_events) - used, "%s:%s ", what, self->name);
}

static int fake_open(const hnp_mca_component_t *self)
{
    record_event("open", self);
    return HNP_SUCCESS;
}

static int fake_close(const hnp_mca_component_t *self)
{
    record_event("close", self);
    return HNP_SUCCESS;
}

static const hnp_routed_module_t fake_module;

/* The priority is the component version, to keep the table declarative. */
static int fake_query(const hnp_mca_component_t *self, const void **module,
                      int *priority)
{
    *module = &fake_module;
    *priority = (int)self->component_version;
    return HNP_SUCCESS;
}

/* As a component does when a parameter's value is one it cannot use. */
static int refusing_query(const hnp_mca_component_t *self,
                          const void **module, int *priority)
{
    (void)self;
    (void)module;
    (void)priority;
    return HNP_ERR_BAD_PARAM;
}

/* Declines, saying why as a component does: a verbose message. */
static int reluctant_query(const hnp_mca_component_t *self,
                           const void **module, int *priority)
{
    (void)self;
    (void)module;
    (void)priority;
    HNP_VERBOSE(hnp_log_stream("routed"), 5, "reluctant: no network here");
    return HNP_ERR_NOT_AVAILABLE;
}

static int shy_open(const hnp_mca_component_t *self)
{
    (void)self;
    return HNP_ERR_NOT_AVAILABLE;
}

static int failing_register(const hnp_mca_component_t *self,
                            hnp_params_t *params)
{
    (void)self;
    (void)params;
    return HNP_ERROR;
}

#define FAKE(comp, prio)                                                     \
    HNP_MCA_COMPONENT_INIT("routed", comp, HNP_ROUTED_INTERFACE_VERSION,     \
                           (uint32_t)(prio)),                                \
        .open = fake_open, .close = fake_close, .query = fake_query

static const hnp_mca_component_t alpha = { FAKE("alpha", 10) };
static const hnp_mca_component_t beta = { FAKE("beta", 30) };
const hnp_mca_component_t builtin_testgood = { FAKE("testgood", 5) };
static const hnp_mca_component_t shy = {
    HNP_MCA_COMPONENT_INIT("routed", "shy", HNP_ROUTED_INTERFACE_VERSION, 99),
    .open = shy_open, .query = fake_query,
};
static const hnp_mca_component_t noparams = {
    HNP_MCA_COMPONENT_INIT("routed", "noparams", HNP_ROUTED_INTERFACE_VERSION,
                           99),
    .register_params = failing_register, .query = fake_query,
};
static const hnp_mca_component_t newer = {
    HNP_MCA_COMPONENT_INIT("routed", "newer",
                           HNP_ROUTED_INTERFACE_VERSION + HNP_MCA_VERSION(0, 1, 0),
                           99),
    .query = fake_query,
};
static const hnp_mca_component_t picky = {
    HNP_MCA_COMPONENT_INIT("routed", "picky", HNP_ROUTED_INTERFACE_VERSION,
                           99),
    .query = refusing_query,
};
static const hnp_mca_component_t other_framework = {
    HNP_MCA_COMPONENT_INIT("plm", "alpha", HNP_MCA_VERSION(1, 0, 0), 99),
    .query = fake_query,
};

static const hnp_mca_component_t reluctant = {
    HNP_MCA_COMPONENT_INIT("routed", "reluctant", HNP_ROUTED_INTERFACE_VERSION,
                           99),
    .query = reluctant_query,
};

/* Message tags: taga and tagb both list 305; tagout lists one of the
 * exchange framework's. */
static const uint32_t tags_305[] = { 301, 305, 0 };
static const uint32_t tags_205[] = { 205, 0 };
static const hnp_mca_component_t taga = {
    HNP_MCA_COMPONENT_INIT("routed", "taga", HNP_ROUTED_INTERFACE_VERSION, 99),
    .query = fake_query, .tags = tags_305 + 1,
};
static const hnp_mca_component_t tagb = {
    HNP_MCA_COMPONENT_INIT("routed", "tagb", HNP_ROUTED_INTERFACE_VERSION, 99),
    .query = fake_query, .tags = tags_305,
};
static const hnp_mca_component_t tagout = {
    HNP_MCA_COMPONENT_INIT("routed", "tagout", HNP_ROUTED_INTERFACE_VERSION,
                           99),
    .query = fake_query, .tags = tags_205,
};

const hnp_mca_component_t *const no_builtins[] = { NULL };
const hnp_mca_component_t *const with_tag_clash[] = { &alpha, &tagb, &taga,
                                                      &tagout, NULL };
const hnp_mca_component_t *const alpha_beta[] = { &beta, &alpha, NULL };
const hnp_mca_component_t *const with_testgood[] = {
    &builtin_testgood, &other_framework, NULL
};
const hnp_mca_component_t *const odd_ones[] = {
    &alpha, &shy, &noparams, &newer, NULL
};
const hnp_mca_component_t *const with_picky[] = { &beta, &alpha, &picky,
                                                  NULL };
const hnp_mca_component_t *const with_reluctant[] = { &alpha, &reluctant,
                                                      NULL };

/* ------------------------------------------------------------ log */

static void capture(void *ctx, hnp_log_severity_t sev, const char *stream,
                    const char *message)
{
    static const char letters[] = "EWIV";
    fixture_t *f = ctx;
    size_t add = strlen(stream) + strlen(message) + 6;
    char *grown = realloc(f->log, f->loglen + add);

    assert_non_null(grown);
    f->log = grown;
    f->loglen += (size_t)snprintf(f->log + f->loglen, add, "%c %s: %s\n",
                                  letters[sev], stream, message);
}

void assert_logged(const fixture_t *f, const char *text)
{
    if (f->log == NULL || strstr(f->log, text) == NULL)
        fail_msg("not in the log: \"%s\"\nlog:\n%s", text,
                 f->log != NULL ? f->log : "");
}

void assert_not_logged(const fixture_t *f, const char *text)
{
    if (f->log != NULL && strstr(f->log, text) != NULL)
        fail_msg("unexpectedly in the log: \"%s\"\nlog:\n%s", text, f->log);
}

size_t count_logged(const fixture_t *f, const char *text)
{
    size_t n = 0;

    for (const char *p = f->log; p != NULL && (p = strstr(p, text)) != NULL;
         p += strlen(text))
        n++;
    return n;
}

void fixture_capture_log(fixture_t *f)
{
    hnp_log_set_handler(capture, f);
}

/* ------------------------------------------------------------ files */

static const char *builddir(void)
{
    const char *dir = getenv("top_builddir");

    return dir != NULL && dir[0] != '\0' ? dir : HNP_TEST_BUILDDIR;
}

static void copy_file(const char *from, const char *to)
{
    char buf[8192];
    size_t n;
    FILE *in = fopen(from, "rb"), *out;

    if (in == NULL)
        fail_msg("cannot open %s (build the test components first): %s",
                 from, strerror(errno));
    out = fopen(to, "wb");
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* tmp/<sub>, created with its parents; returns the path in @p dir. */
const char *subdir(const fixture_t *f, const char *sub, char *dir,
                   size_t len)
{
    size_t base = strlen(f->tmp) + 1;

    snprintf(dir, len, "%s/%s", f->tmp, sub);
    for (char *slash = strchr(dir + base, '/'); slash != NULL;
         slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            fail_msg("mkdir %s: %s", dir, strerror(errno));
        *slash = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        fail_msg("mkdir %s: %s", dir, strerror(errno));
    return dir;
}

/* Copy test component @p name into tmp/<sub> as mca_routed_<as>.so. */
static void install_as(const fixture_t *f, const char *sub, const char *name,
                       const char *as)
{
    char from[PATH_LEN], to[PATH_LEN], dir[PATH_LEN];

    snprintf(from, sizeof(from), "%s/tests/unit/framework/components/.libs/"
             "mca_routed_%s.so", builddir(), name);
    snprintf(to, sizeof(to), "%s/mca_routed_%s.so",
             subdir(f, sub, dir, sizeof(dir)), as);
    copy_file(from, to);
}

void install(const fixture_t *f, const char *sub, const char *name)
{
    install_as(f, sub, name, name);
}

void write_file(const fixture_t *f, const char *sub, const char *file,
                const char *text)
{
    char path[PATH_LEN], dir[PATH_LEN];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", subdir(f, sub, dir, sizeof(dir)),
             file);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* ------------------------------------------------------------ fixture */

int fixture_setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    const char *tmpdir = getenv("TMPDIR");
    const char *home = getenv("HOME");

    if (f == NULL)
        return -1;
    snprintf(f->tmp, sizeof(f->tmp), "%s/hnp-repo-XXXXXX",
             tmpdir != NULL && tmpdir[0] != '\0' ? tmpdir : "/tmp");
    if (mkdtemp(f->tmp) == NULL) {
        free(f);
        return -1;
    }
    f->saved_home = home != NULL ? strdup(home) : NULL;
    fixture_events[0] = '\0';
    fixture_capture_log(f);
    *state = f;
    return 0;
}

int fixture_teardown(void **state)
{
    fixture_t *f = *state;

    hnp_mca_destroy(f->mca);
    hnp_log_set_handler(NULL, NULL);
    nftw(f->tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (f->saved_home != NULL)
        setenv("HOME", f->saved_home, 1);
    else
        unsetenv("HOME");
    free(f->saved_home);
    free(f->log);
    free(f);
    return 0;
}

void create_mca(fixture_t *f, const hnp_mca_component_t *const *builtin)
{
    char err[ERR_LEN] = "";

    if (hnp_mca_create(&f->mca, builtin, "", err, sizeof(err)) != HNP_SUCCESS)
        fail_msg("hnp_mca_create: %s", err);
}

/* Set a parameter as the command line would. */
void set_param(fixture_t *f, const char *name, const char *value)
{
    char err[ERR_LEN] = "";

    if (hnp_param_set(hnp_mca_params(f->mca), name, value,
                      HNP_PARAM_SRC_CMDLINE, NULL, err, sizeof(err)) != 0)
        fail_msg("setting %s=%s: %s", name, value, err);
}

/*
 * Read the default sources with HOME=tmp/home, the component path @p path,
 * full verbosity and @p extra (may be NULL) in the environment, then
 * register the routed framework.
 */
int register_routed(fixture_t *f, const char *path, const char *extra,
                    char *err, size_t errlen)
{
    char home[PATH_LEN + 8], dir[PATH_LEN], env_path[PATH_LEN * 3];
    char *envp[] = { home, env_path, (char *)"HNP_MCA_mca_base_verbose=20",
                     (char *)extra, NULL };
    int rc;

    snprintf(home, sizeof(home), "HOME=%s", subdir(f, "home", dir, sizeof(dir)));
    snprintf(env_path, sizeof(env_path), "HNP_MCA_mca_base_component_path=%s",
             path);
    setenv("HOME", home + 5, 1);
    rc = hnp_mca_load_default_sources(f->mca, envp, NULL, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    return hnp_mca_framework_register(f->mca, &hnp_routed_framework,
                                      &f->routed, err, errlen);
}

/* Everything in one go, failing the test on any error. */
void start_env(fixture_t *f, const hnp_mca_component_t *const *builtin,
               const char *path, const char *extra)
{
    char err[ERR_LEN] = "";

    if (f->mca == NULL)
        create_mca(f, builtin);
    if (register_routed(f, path, extra, err, sizeof(err)) != HNP_SUCCESS)
        fail_msg("registering routed: %s", err);
}

void start(fixture_t *f, const hnp_mca_component_t *const *builtin,
           const char *path)
{
    start_env(f, builtin, path, NULL);
}

/* tmp/<sub> (not created), as a path element. */
const char *dir_of(const fixture_t *f, const char *sub, char *buf,
                   size_t len)
{
    snprintf(buf, len, "%s/%s", f->tmp, sub);
    return buf;
}

void open_routed(fixture_t *f)
{
    char err[ERR_LEN] = "";

    if (hnp_mca_framework_open(f->routed, err, sizeof(err)) != HNP_SUCCESS)
        fail_msg("opening routed: %s", err);
}

const char *select_routed(fixture_t *f)
{
    const hnp_mca_component_t *component = NULL;
    const void *module = NULL;
    char err[ERR_LEN] = "";

    open_routed(f);
    if (hnp_mca_framework_select(f->routed, &component, &module, err,
                                 sizeof(err)) != HNP_SUCCESS)
        fail_msg("selecting routed: %s", err);
    assert_non_null(module);
    return component->name;
}

const hnp_mca_component_entry_t *entry(fixture_t *f, const char *name)
{
    const hnp_mca_component_entry_t *list;
    size_t n = hnp_mca_framework_components(f->routed, &list);

    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].component->name, name) == 0)
            return &list[i];
    return NULL;
}

const hnp_mca_load_failure_t *failure(fixture_t *f, const char *name)
{
    const hnp_mca_load_failure_t *list;
    size_t n = hnp_mca_framework_failures(f->routed, &list);

    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].component, name) == 0)
            return &list[i];
    return NULL;
}

/* The failure of component @p name: its path, and a reason with @p text. */
void assert_failure(fixture_t *f, const char *name, const char *path,
                    const char *text)
{
    const hnp_mca_load_failure_t *fl = failure(f, name);

    if (fl == NULL)
        fail_msg("component %s was not rejected\nlog:\n%s", name,
                 f->log != NULL ? f->log : "");
    assert_string_equal(fl->path, path);
    assert_string_equal(fl->framework, "routed");
    if (strstr(fl->reason, text) == NULL)
        fail_msg("reason for %s: \"%s\" lacks \"%s\"", name, fl->reason, text);
}

void so_path(const fixture_t *f, const char *sub, const char *name,
             char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s/mca_routed_%s.so", f->tmp, sub, name);
}

/* How many messages of severity letter @p letter (E, W, I, V) were logged. */
size_t count_severity(const fixture_t *f, char letter)
{
    char prefix[3] = { letter, ' ', '\0' };
    size_t n = 0;

    for (const char *line = f->log; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');

        n += strncmp(line, prefix, 2) == 0;
        line = end != NULL ? end + 1 : NULL;
    }
    return n;
}
