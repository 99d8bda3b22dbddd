/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The component repository: the one place that talks to libltdl.
 *
 * A search looks at the built-in table first, then at each directory of the
 * component path in order. A file is a candidate when it is called
 * mca_<framework>_<name>.so; it is opened, its descriptor symbol looked up,
 * and the descriptor checked field by field (architecture version first,
 * since nothing else in the struct can be trusted before it) before the
 * component is accepted. Every step is logged on the "mca" stream.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <ltdl.h>
#ifdef HAVE_DLFCN_H
#include <dlfcn.h>
#endif
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mca_repository.h"

/* Verbosity of the verdict on each component, and of each step before it. */
#define MCA_VERBOSE_VERDICT 10
#define MCA_VERBOSE_STEP 20

#define MCA_SO_SUFFIX ".so"

static const bool keep_components_mapped = HNP_SANITIZERS;
#define MCA_REASON_LEN 512
/* "mca_" fw "_" name "_component" and the NUL */
#define MCA_SYMBOL_LEN (2 * HNP_MCA_NAME_LEN + 16)

struct mca_repository {
    lt_dladvise advise;
    hnp_log_stream_t *log;
};

/* One search in progress. */
typedef struct search {
    hnp_log_stream_t *log;
    lt_dladvise advise;
    const char *framework;
    uint32_t interface_version;
    char prefix[HNP_MCA_NAME_LEN + 8]; /* "mca_<framework>_" */
    const char *only;    /* load this component alone; NULL: all */
    mca_found_t *found;
} search_t;

static const char *ltdl_error(void)
{
    const char *text = lt_dlerror();

    return text != NULL ? text : "unknown libltdl error";
}

static int ltdl_failure(char *err, size_t errlen)
{
    hnp_err_set(err, errlen, "cannot initialise libltdl: %s", ltdl_error());
    return HNP_ERR_LOAD;
}

int mca_repository_create(mca_repository_t **out, char *err, size_t errlen)
{
    mca_repository_t *repo = calloc(1, sizeof(*repo));
    int rc;

    if (repo == NULL) {
        hnp_err_set(err, errlen, "out of memory creating the component repository");
        return HNP_ERR_NOMEM;
    }
    if (lt_dlinit() != 0) {
        rc = ltdl_failure(err, errlen);
        goto fail_init;
    }
    if (lt_dladvise_init(&repo->advise) != 0) {
        rc = ltdl_failure(err, errlen);
        goto fail_advise_init;
    }
    /* Components see the programs' symbols, never each other's. */
    if (lt_dladvise_local(&repo->advise) != 0) {
        rc = ltdl_failure(err, errlen);
        goto fail_advise_local;
    }
    repo->log = hnp_log_stream("mca");
    *out = repo;
    return HNP_SUCCESS;

fail_advise_local:
    lt_dladvise_destroy(&repo->advise);
fail_advise_init:
    lt_dlexit();
fail_init:
    free(repo);
    return rc;
}

void mca_repository_destroy(mca_repository_t *repo)
{
    if (repo == NULL)
        return;
    lt_dladvise_destroy(&repo->advise);
    lt_dlexit();
    free(repo);
}

/* ------------------------------------------------------------ found lists */

static int append_failure(mca_found_t *found, const char *path,
                          const char *framework, const char *component,
                          const char *reason)
{
    hnp_mca_load_failure_t *grown, *f;
    char *copies[4] = { strdup(path), strdup(framework), strdup(component),
                        strdup(reason) };

    grown = realloc(found->failures,
                    (found->nfailures + 1) * sizeof(*found->failures));
    if (grown == NULL || !copies[0] || !copies[1] || !copies[2] || !copies[3])
        goto fail;
    found->failures = grown;
    f = &found->failures[found->nfailures++];
    f->path = copies[0];
    f->framework = copies[1];
    f->component = copies[2];
    f->reason = copies[3];
    return HNP_SUCCESS;

fail:
    if (grown != NULL)
        found->failures = grown;
    for (int i = 0; i < 4; i++)
        free(copies[i]);
    return HNP_ERR_NOMEM;
}

/* Accept a component; @p path is NULL for a built-in one. */
static int append_component(mca_found_t *found,
                            const hnp_mca_component_t *component,
                            const char *path, void *handle)
{
    hnp_mca_component_entry_t *entries;
    void **handles;
    char *path_copy = NULL;

    if (path != NULL && (path_copy = strdup(path)) == NULL)
        return HNP_ERR_NOMEM;
    entries = realloc(found->components,
                      (found->ncomponents + 1) * sizeof(*entries));
    if (entries == NULL)
        goto fail;
    found->components = entries;
    if (handle != NULL) {
        handles = realloc(found->handles,
                          (found->nhandles + 1) * sizeof(*handles));
        if (handles == NULL)
            goto fail;
        found->handles = handles;
        found->handles[found->nhandles++] = handle;
    }
    entries[found->ncomponents++] = (hnp_mca_component_entry_t){
        .component = component, .path = path_copy, .opened = false };
    return HNP_SUCCESS;

fail:
    free(path_copy);
    return HNP_ERR_NOMEM;
}

const hnp_mca_component_entry_t *mca_found_find(const mca_found_t *found,
                                                const char *name)
{
    for (size_t i = 0; i < found->ncomponents; i++)
        if (strcmp(found->components[i].component->name, name) == 0)
            return &found->components[i];
    return NULL;
}

int mca_found_reject(mca_found_t *found, size_t index, const char *reason)
{
    hnp_mca_component_entry_t *entry = &found->components[index];
    const hnp_mca_component_t *c = entry->component;
    int rc;

    rc = append_failure(found, entry->path != NULL ? entry->path
                                                   : MCA_BUILTIN_PATH,
                        c->framework, c->name, reason);
    if (rc != HNP_SUCCESS)
        return rc;
    /* The file stays in found->handles: see the header. */
    free((char *)entry->path);
    memmove(entry, entry + 1,
            (found->ncomponents - index - 1) * sizeof(*entry));
    found->ncomponents--;
    return HNP_SUCCESS;
}

void mca_found_release(mca_found_t *found)
{
    for (size_t i = 0; i < found->ncomponents; i++)
        free((char *)found->components[i].path);
    for (size_t i = 0; i < found->nfailures; i++) {
        free((char *)found->failures[i].path);
        free((char *)found->failures[i].framework);
        free((char *)found->failures[i].component);
        free((char *)found->failures[i].reason);
    }
    for (size_t i = found->nhandles; i > 0; i--)
        lt_dlclose(found->handles[i - 1]);
    free(found->components);
    free(found->failures);
    free(found->handles);
    *found = (mca_found_t){ 0 };
}

static int record_failure(search_t *s, const char *path, const char *component,
                          const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int record_failure(search_t *s, const char *path, const char *component,
                          const char *fmt, ...)
{
    char reason[MCA_REASON_LEN];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    HNP_VERBOSE(s->log, MCA_VERBOSE_VERDICT, "%s: rejected: %s", path, reason);
    return append_failure(s->found, path, s->framework, component, reason);
}

/* ------------------------------------------------------------ checks */

static void format_version(char *buf, size_t len, uint32_t v)
{
    snprintf(buf, len, "%u.%u.%u", HNP_MCA_VERSION_MAJOR(v),
             HNP_MCA_VERSION_MINOR(v), HNP_MCA_VERSION_RELEASE(v));
}

static bool check_interface(const search_t *s, uint32_t theirs, char *reason,
                            size_t len)
{
    uint32_t ours = s->interface_version;
    char theirs_text[16], ours_text[16];

    if (HNP_MCA_VERSION_MAJOR(theirs) == HNP_MCA_VERSION_MAJOR(ours) &&
        HNP_MCA_VERSION_MINOR(theirs) <= HNP_MCA_VERSION_MINOR(ours))
        return true;
    format_version(theirs_text, sizeof(theirs_text), theirs);
    format_version(ours_text, sizeof(ours_text), ours);
    snprintf(reason, len, "built against %s interface %s, this hnp provides %s",
             s->framework, theirs_text, ours_text);
    return false;
}

/*
 * Check a descriptor that claims to be component @p name of the framework
 * searched, reading each field only once the ones before it passed.
 */
static bool check_component(const search_t *s, const char *where,
                            const hnp_mca_component_t *c, const char *name,
                            char *reason, size_t len)
{
    if (c->mca_abi_version != HNP_MCA_ABI_VERSION) {
        snprintf(reason, len, "built for component architecture version %u, "
                 "this hnp uses %u", (unsigned)c->mca_abi_version,
                 HNP_MCA_ABI_VERSION);
        return false;
    }
    if (strnlen(c->framework, HNP_MCA_NAME_LEN) == HNP_MCA_NAME_LEN ||
        strnlen(c->name, HNP_MCA_NAME_LEN) == HNP_MCA_NAME_LEN) {
        snprintf(reason, len, "its framework or component name is not "
                 "terminated within %d bytes", HNP_MCA_NAME_LEN);
        return false;
    }
    if (strcmp(c->framework, s->framework) != 0 || strcmp(c->name, name) != 0) {
        snprintf(reason, len, "its file name says %s component '%s', but the "
                 "component says it is %s component '%s'", s->framework, name,
                 c->framework, c->name);
        return false;
    }
    HNP_VERBOSE(s->log, MCA_VERBOSE_STEP, "%s: architecture version %u, "
                "%s interface %u.%u.%u", where, (unsigned)c->mca_abi_version,
                s->framework, HNP_MCA_VERSION_MAJOR(c->interface_version),
                HNP_MCA_VERSION_MINOR(c->interface_version),
                HNP_MCA_VERSION_RELEASE(c->interface_version));
    if (!check_interface(s, c->interface_version, reason, len))
        return false;
    if (c->query == NULL) {
        snprintf(reason, len, "it has no query function");
        return false;
    }
    return true;
}

static void log_accepted(const search_t *s, const hnp_mca_component_t *c,
                         const char *where)
{
    char version[16];

    format_version(version, sizeof(version), c->component_version);
    HNP_VERBOSE(s->log, MCA_VERBOSE_VERDICT, "%s: accepted %s component "
                "'%s' version %s", where, s->framework, c->name, version);
}

/* ------------------------------------------------------------ built-ins */

static int add_builtin(search_t *s, const hnp_mca_component_t *c)
{
    char name[HNP_MCA_NAME_LEN], reason[MCA_REASON_LEN];
    const hnp_mca_component_entry_t *earlier;

    snprintf(name, sizeof(name), "%.*s", HNP_MCA_NAME_LEN - 1, c->name);
    if (!check_component(s, MCA_BUILTIN_PATH, c, name, reason, sizeof(reason)))
        return record_failure(s, MCA_BUILTIN_PATH, name, "%s", reason);
    earlier = mca_found_find(s->found, name);
    if (earlier != NULL) {
        HNP_VERBOSE(s->log, MCA_VERBOSE_VERDICT, "skipping a second built-in "
                    "component '%s'", name);
        return HNP_SUCCESS;
    }
    log_accepted(s, c, MCA_BUILTIN_PATH);
    return append_component(s->found, c, NULL, NULL);
}

static int add_builtins(search_t *s, const hnp_mca_component_t *const *builtin)
{
    for (; builtin != NULL && *builtin != NULL; builtin++) {
        const hnp_mca_component_t *c = *builtin;

        /* Built in by this very build: only the framework needs sorting out. */
        if (c->mca_abi_version != HNP_MCA_ABI_VERSION ||
            strnlen(c->framework, HNP_MCA_NAME_LEN) == HNP_MCA_NAME_LEN ||
            strcmp(c->framework, s->framework) != 0 ||
            (s->only != NULL && strncmp(c->name, s->only, HNP_MCA_NAME_LEN) != 0))
            continue;
        int rc = add_builtin(s, c);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ files */

#ifdef HAVE_DLFCN_H
/*
 * libltdl tries each of its loaders in turn and keeps the last one's error:
 * for a file that exists but does not load (not a shared object, a library
 * it needs is missing) that is the preload loader's "file not found". Ask
 * the system loader for the real reason.
 */
static void explain_open_failure(const char *path, char *reason, size_t len)
{
    const char *ltdl_text = ltdl_error();
    void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    const char *text = handle == NULL ? dlerror() : NULL;

    size_t plen = strlen(path);

    if (handle != NULL)
        dlclose(handle);
    if (text == NULL)
        text = ltdl_text;
    /* The file's path is already part of every message about it. */
    if (strncmp(text, path, plen) == 0 && strncmp(text + plen, ": ", 2) == 0)
        text += plen + 2;
    snprintf(reason, len, "%s", text);
}
#else
static void explain_open_failure(const char *path, char *reason, size_t len)
{
    (void)path;
    snprintf(reason, len, "%s", ltdl_error());
}
#endif

/* Open @p path, which should hold component @p name, and check it. */
static int load_file(search_t *s, const char *path, const char *name)
{
    char symbol[MCA_SYMBOL_LEN], reason[MCA_REASON_LEN];
    const hnp_mca_component_t *c;
    lt_dlhandle handle;
    int rc;

    HNP_VERBOSE(s->log, MCA_VERBOSE_STEP, "%s: opening", path);
    handle = lt_dlopenadvise(path, s->advise);
    if (handle == NULL) {
        explain_open_failure(path, reason, sizeof(reason));
        return record_failure(s, path, name, "%s", reason);
    }
    snprintf(symbol, sizeof(symbol), "mca_%s_%s_component", s->framework, name);
    c = lt_dlsym(handle, symbol);
    if (c == NULL) {
        snprintf(reason, sizeof(reason), "it does not export the symbol %s "
                 "(%s)", symbol, ltdl_error());
        goto reject;
    }
    HNP_VERBOSE(s->log, MCA_VERBOSE_STEP, "%s: found symbol %s", path, symbol);
    if (!check_component(s, path, c, name, reason, sizeof(reason)))
        goto reject;
    rc = append_component(s->found, c, path, handle);
    if (rc != HNP_SUCCESS) {
        lt_dlclose(handle);
        return rc;
    }
    /* Under the sanitizers a component stays mapped after its close:
     * LeakSanitizer looks for leaks at exit, after the repository has
     * unloaded everything, and the stacks of what a component's library
     * kept (libpmix keeps blocks past PMIx_server_finalize) would then
     * point into unmapped code, which neither symbolizes nor matches a
     * suppression, or into whatever was mapped there since. */
    if (keep_components_mapped)
        lt_dlmakeresident(handle);
    log_accepted(s, c, path);
    return rc;

reject:
    lt_dlclose(handle);
    return record_failure(s, path, name, "%s", reason);
}

static char *join_path(const char *dir, const char *file)
{
    size_t len = strlen(dir) + strlen(file) + 2;
    char *path = malloc(len);

    if (path != NULL)
        snprintf(path, len, "%s/%s", dir, file);
    return path;
}

/* A candidate file name: mca_<framework>_<name>.so with a non-empty name. */
static bool is_candidate(const search_t *s, const char *file)
{
    size_t len = strlen(file), plen = strlen(s->prefix);
    size_t slen = strlen(MCA_SO_SUFFIX);

    return len > plen + slen && strncmp(file, s->prefix, plen) == 0 &&
           strcmp(file + len - slen, MCA_SO_SUFFIX) == 0;
}

static int consider_file(search_t *s, const char *dir, const char *file)
{
    size_t plen = strlen(s->prefix);
    size_t namelen = strlen(file) - plen - strlen(MCA_SO_SUFFIX);
    const hnp_mca_component_entry_t *earlier;
    char *path = join_path(dir, file);
    char *name = strndup(file + plen, namelen);
    int rc = HNP_ERR_NOMEM;

    if (path == NULL || name == NULL)
        goto out;
    if (namelen >= HNP_MCA_NAME_LEN) {
        rc = record_failure(s, path, name, "the component name is longer "
                            "than %d characters", HNP_MCA_NAME_LEN - 1);
        goto out;
    }
    earlier = mca_found_find(s->found, name);
    if (earlier != NULL) {
        HNP_VERBOSE(s->log, MCA_VERBOSE_VERDICT, "%s: skipped: %s component "
                    "'%s' was already found in %s", path, s->framework, name,
                    earlier->path != NULL ? earlier->path : MCA_BUILTIN_PATH);
        rc = HNP_SUCCESS;
        goto out;
    }
    rc = load_file(s, path, name);
out:
    free(name);
    free(path);
    return rc;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_strings(char **strings, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(strings[i]);
    free(strings);
}

static DIR *open_directory(search_t *s, const char *dir)
{
    DIR *d = opendir(dir);

    if (d != NULL)
        HNP_VERBOSE(s->log, MCA_VERBOSE_STEP, "searching directory %s", dir);
    else if (errno == ENOENT || errno == ENOTDIR)
        HNP_VERBOSE(s->log, MCA_VERBOSE_STEP, "skipping directory %s: it "
                    "does not exist", dir);
    else
        HNP_WARN(s->log, "cannot search component directory %s: %s", dir,
                 strerror(errno));
    return d;
}

/* The candidate file names of @p dir, sorted. A missing directory has none. */
static int list_candidates(search_t *s, const char *dir, char ***out,
                           size_t *count)
{
    DIR *d = open_directory(s, dir);
    char **names = NULL, **grown;
    struct dirent *entry;
    size_t n = 0;
    int rc = HNP_SUCCESS;

    if (d == NULL)
        goto out;
    while ((entry = readdir(d)) != NULL) {
        if (!is_candidate(s, entry->d_name))
            continue;
        grown = realloc(names, (n + 1) * sizeof(*names));
        if (grown == NULL || (grown[n] = strdup(entry->d_name)) == NULL) {
            names = grown != NULL ? grown : names;
            rc = HNP_ERR_NOMEM;
            break;
        }
        names = grown;
        n++;
    }
    closedir(d);
    if (rc != HNP_SUCCESS) {
        free_strings(names, n);
        return rc;
    }
    if (n > 1)
        qsort(names, n, sizeof(*names), compare_strings);
out:
    *out = names;
    *count = n;
    return rc;
}

static int search_directory(search_t *s, const char *dir)
{
    char **files;
    size_t nfiles;
    int rc;

    /* One component wanted: its file name is known, no listing needed
     * (every daemon's start-up, often on a shared file system). */
    if (s->only != NULL) {
        char file[HNP_MCA_NAME_LEN * 2 + 16];
        char *path;

        snprintf(file, sizeof(file), "%s%s%s", s->prefix, s->only, MCA_SO_SUFFIX);
        if ((path = join_path(dir, file)) == NULL)
            return HNP_ERR_NOMEM;
        rc = access(path, F_OK) == 0 ? consider_file(s, dir, file) : HNP_SUCCESS;
        free(path);
        return rc;
    }
    rc = list_candidates(s, dir, &files, &nfiles);
    if (rc != HNP_SUCCESS)
        return rc;
    for (size_t i = 0; rc == HNP_SUCCESS && i < nfiles; i++)
        rc = consider_file(s, dir, files[i]);
    free_strings(files, nfiles);
    return rc;
}

/* The directory named by path element [elem, elem+len), with ~ expanded. */
static char *expand_directory(const char *elem, size_t len)
{
    const char *home = getenv("HOME");
    size_t size;
    char *dir;

    if (elem[0] == '~' && (len == 1 || elem[1] == '/') && home != NULL &&
        home[0] != '\0') {
        size = strlen(home) + len;
        if ((dir = malloc(size)) != NULL)
            snprintf(dir, size, "%s%.*s", home, (int)(len - 1), elem + 1);
        return dir;
    }
    return strndup(elem, len);
}

/* Call @p fn on each directory of the colon-separated @p path in order (`~`
 * expanded, empty elements skipped) until it returns anything but
 * HNP_SUCCESS, which is returned. */
static int for_each_directory(const char *path,
                              int (*fn)(void *arg, const char *dir), void *arg)
{
    const char *elem = path;

    while (elem != NULL && *elem != '\0') {
        const char *colon = strchr(elem, ':');
        size_t len = colon != NULL ? (size_t)(colon - elem) : strlen(elem);

        if (len > 0) {
            char *dir = expand_directory(elem, len);
            int rc = dir != NULL ? fn(arg, dir) : HNP_ERR_NOMEM;

            free(dir);
            if (rc != HNP_SUCCESS)
                return rc;
        }
        elem = colon != NULL ? colon + 1 : NULL;
    }
    return HNP_SUCCESS;
}

static int search_one_directory(void *arg, const char *dir)
{
    return search_directory(arg, dir);
}

/* ------------------------------------------------------------ helper modules */

/* One helper-module search in progress. */
typedef struct module_search {
    mca_repository_t *repo;
    const char *file, *symbol;
    void *handle, *sym;
    char reasons[MCA_REASON_LEN]; /* of files that were there but failed */
} module_search_t;

/* HNP_SUCCESS: not here, go on; 1: found; < 0: out of memory. */
static int try_module_in(void *arg, const char *dir)
{
    module_search_t *m = arg;
    char *full = join_path(dir, m->file);

    if (full == NULL)
        return HNP_ERR_NOMEM;
    if (access(full, F_OK) == 0) {
        HNP_VERBOSE(m->repo->log, MCA_VERBOSE_STEP, "%s: opening", full);
        lt_dlhandle h = lt_dlopenadvise(full, m->repo->advise);
        m->sym = h != NULL ? lt_dlsym(h, m->symbol) : NULL;
        if (m->sym != NULL) {
            m->handle = h;
            free(full);
            return 1;
        }
        char why[MCA_REASON_LEN / 2];
        if (h == NULL)
            explain_open_failure(full, why, sizeof(why));
        else
            snprintf(why, sizeof(why), "%s", ltdl_error());
        size_t used = strlen(m->reasons);
        snprintf(m->reasons + used, sizeof(m->reasons) - used, "%s%s: %s",
                 used > 0 ? "; " : "", full, why);
        if (h != NULL)
            lt_dlclose(h);
    }
    free(full);
    return HNP_SUCCESS;
}

int mca_repository_open_module(mca_repository_t *repo, const char *path,
                               const char *name, const char *symbol,
                               void **handle, void **sym, char *err,
                               size_t errlen)
{
    char file[HNP_MCA_NAME_LEN * 2 + sizeof(MCA_SO_SUFFIX)];
    module_search_t m = { .repo = repo, .file = file, .symbol = symbol };
    int rc;

    snprintf(file, sizeof(file), "%s%s", name, MCA_SO_SUFFIX);
    rc = for_each_directory(path, try_module_in, &m);
    if (rc == 1) {
        *handle = m.handle;
        *sym = m.sym;
        return HNP_SUCCESS;
    }
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "out of memory looking for %s", file);
    else if (m.reasons[0] != '\0')
        hnp_err_set(err, errlen, "cannot load %s: %s", file, m.reasons);
    else
        hnp_err_set(err, errlen, "%s is in no directory of the component "
                    "path '%s'", file, path != NULL ? path : "");
    return rc != HNP_SUCCESS ? rc : HNP_ERR_LOAD;
}

void mca_repository_close_module(void *handle)
{
    if (handle != NULL)
        lt_dlclose(handle);
}

static int compare_entries(const void *a, const void *b)
{
    const hnp_mca_component_entry_t *x = a, *y = b;

    return strcmp(x->component->name, y->component->name);
}

static bool valid_framework_name(const char *name)
{
    size_t len = name != NULL ? strnlen(name, HNP_MCA_NAME_LEN) : 0;

    return len > 0 && len < HNP_MCA_NAME_LEN && strchr(name, '_') == NULL &&
           strchr(name, '/') == NULL;
}

int mca_repository_find(mca_repository_t *repo, const char *framework,
                        uint32_t interface_version, const char *path,
                        const hnp_mca_component_t *const *builtin,
                        const char *only, mca_found_t *found, char *err,
                        size_t errlen)
{
    mca_found_t result = { 0 };
    search_t s = { .log = repo->log, .advise = repo->advise,
                   .framework = framework, .only = only,
                   .interface_version = interface_version, .found = &result };
    int rc;

    if (!valid_framework_name(framework)) {
        hnp_err_set(err, errlen, "bad framework name '%s'",
                    framework != NULL ? framework : "(null)");
        return HNP_ERR_BAD_PARAM;
    }
    snprintf(s.prefix, sizeof(s.prefix), "mca_%s_", framework);
    HNP_VERBOSE(s.log, MCA_VERBOSE_VERDICT, "looking for %s components in "
                "the built-in table and in '%s'", framework,
                path != NULL ? path : "");
    rc = add_builtins(&s, builtin);
    if (rc == HNP_SUCCESS)
        rc = for_each_directory(path, search_one_directory, &s);
    if (rc != HNP_SUCCESS)
        goto fail;
    if (result.ncomponents > 1)
        qsort(result.components, result.ncomponents,
              sizeof(*result.components), compare_entries);
    HNP_VERBOSE(s.log, MCA_VERBOSE_VERDICT, "%s: %zu component(s) found, "
                "%zu file(s) rejected", framework, result.ncomponents,
                result.nfailures);
    *found = result;
    return HNP_SUCCESS;

fail:
    mca_found_release(&result);
    hnp_err_set(err, errlen, "looking for %s components: %s", framework,
                hnp_strerror(rc));
    return rc;
}
