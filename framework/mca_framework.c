/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The component architecture's context and the lifecycle of a framework:
 * register (parameters, then find components and register theirs), open
 * (apply the user's selection list), select (the highest priority), and
 * destroy (close, then unload).
 *
 * Components hand the parameter registry pointers into their own statics,
 * so a component's file stays loaded until the registry is gone, even when
 * the component itself was rejected.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mca_internal.h"

#define MCA_VERBOSE_LIFECYCLE 10
#define MCA_LIST_LEN 512
#define MCA_USER_COMPONENT_DIR "~/.hnp/components"

/* ------------------------------------------------------------ context */

static char *make_default_path(const char *installed)
{
    size_t len;
    char *path;

    if (installed == NULL || installed[0] == '\0')
        return strdup(MCA_USER_COMPONENT_DIR);
    len = strlen(installed) + strlen(MCA_USER_COMPONENT_DIR) + 2;
    if ((path = malloc(len)) != NULL)
        snprintf(path, len, "%s:%s", installed, MCA_USER_COMPONENT_DIR);
    return path;
}

int hnp_mca_create(hnp_mca_t **out, const hnp_mca_component_t *const *builtin,
                   const char *default_component_path, char *err,
                   size_t errlen)
{
    hnp_mca_t *mca = calloc(1, sizeof(*mca));
    int rc = HNP_ERR_NOMEM;

    if (mca == NULL)
        goto fail_nomem;
    if ((mca->default_path = make_default_path(default_component_path)) == NULL)
        goto fail_nomem;
    if ((mca->params = hnp_params_create()) == NULL)
        goto fail_nomem;
    rc = mca_repository_create(&mca->repo, err, errlen);
    if (rc != HNP_SUCCESS)
        goto fail;
    mca->builtin = builtin;
    mca->log = hnp_log_stream("mca");
    *out = mca;
    return HNP_SUCCESS;

fail_nomem:
    hnp_err_set(err, errlen, "out of memory creating the component architecture");
fail:
    if (mca != NULL) {
        if (mca->params != NULL)
            hnp_params_destroy(mca->params);
        free(mca->default_path);
        free(mca);
    }
    return rc;
}

static void close_components(hnp_mca_framework_t *fw)
{
    for (size_t i = fw->found.ncomponents; i > 0; i--) {
        hnp_mca_component_entry_t *entry = &fw->found.components[i - 1];
        const hnp_mca_component_t *c = entry->component;
        int rc;

        if (!entry->opened)
            continue;
        rc = c->close != NULL ? c->close(c) : HNP_SUCCESS;
        if (rc != HNP_SUCCESS)
            HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "closing %s component "
                        "'%s' failed: %s", fw->desc->name, c->name,
                        hnp_strerror(rc));
        entry->opened = false;
    }
}

void hnp_mca_close(hnp_mca_t *mca)
{
    if (mca == NULL)
        return;
    for (size_t i = mca->nframeworks; i > 0; i--)
        close_components(mca->frameworks[i - 1]);
}

void hnp_mca_destroy(hnp_mca_t *mca)
{
    if (mca == NULL)
        return;
    hnp_mca_close(mca);
    /* The registry goes first: it holds pointers into the components. */
    hnp_params_destroy(mca->params);
    for (size_t i = mca->nframeworks; i > 0; i--) {
        mca_found_release(&mca->frameworks[i - 1]->found);
        hnp_mca_selection_free(&mca->frameworks[i - 1]->sel);
        free(mca->frameworks[i - 1]);
    }
    free(mca->frameworks);
    mca_repository_destroy(mca->repo);
    if (mca->log_applied)
        hnp_log_set_file(NULL);
    if (mca->log_file != NULL)
        fclose(mca->log_file);
    free(mca->default_path);
    free(mca);
}

hnp_params_t *hnp_mca_params(hnp_mca_t *mca)
{
    return mca->params;
}

/* ------------------------------------------------------------ unknown */

static void join_names(char *buf, size_t len, const char *const *names)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; names != NULL && names[i] != NULL && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i > 0 ? ", " : "",
                         names[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void warn_unknown(const char *name, hnp_param_source_t source,
                         const char *detail, const char *const *suggestions,
                         void *ctx)
{
    hnp_mca_t *mca = ctx;
    char where[MCA_LIST_LEN], list[MCA_LIST_LEN];

    if (mca->foreign_claims != NULL &&
        mca->foreign_claims(name, mca->foreign_ctx))
        return;
    const char *what = hnp_param_source_name(source);

    /* The detail adds nothing when it only repeats the source's name. */
    if (detail == NULL || strcmp(detail, what) == 0)
        detail = "";
    snprintf(where, sizeof(where), "%s%s%s", what, detail[0] != '\0' ? " " : "",
             detail);
    join_names(list, sizeof(list), suggestions);
    if (list[0] != '\0')
        HNP_WARN(mca->log, "unknown parameter '%s' (set by %s); did you mean "
                 "%s?", name, where, list);
    else
        HNP_WARN(mca->log, "unknown parameter '%s' (set by %s)", name, where);
}

void hnp_mca_set_foreign_params(hnp_mca_t *mca,
                                bool (*claims)(const char *name, void *ctx),
                                void *ctx)
{
    mca->foreign_claims = claims;
    mca->foreign_ctx = ctx;
}

int hnp_mca_warn_unknown_params(hnp_mca_t *mca)
{
    /* Where only the chosen components are loaded, the others' parameters
     * look unknown; the process that chose has already warned the user. */
    if (mca->selected_only)
        return 0;
    return hnp_params_check_unknown(mca->params, warn_unknown, mca);
}

/* ------------------------------------------------------------ register */

static hnp_mca_framework_t *find_framework(const hnp_mca_t *mca,
                                           const char *name)
{
    for (size_t i = 0; i < mca->nframeworks; i++)
        if (strcmp(mca->frameworks[i]->desc->name, name) == 0)
            return mca->frameworks[i];
    return NULL;
}

/*
 * `<fw>_base_verbose` first: its storage is the log stream, which outlives
 * everything, so if `<fw>` then fails nothing points into @p fw.
 */
static int register_framework_params(hnp_mca_framework_t *fw, char *err,
                                     size_t errlen)
{
    const char *name = fw->desc->name;
    const hnp_param_desc_t verbose = {
        .framework = name, .component = "base", .name = "verbose",
        .type = HNP_PARAM_INT, .default_value = "0",
        .help = "Verbosity of the framework (0: quiet, 10: decisions, "
                "20 and up: details)",
        .level = 5, .storage = &fw->log->verbose,
    };
    const hnp_param_desc_t selection = {
        .framework = name, .component = NULL, .name = NULL,
        .type = HNP_PARAM_STRING, .default_value = "",
        .help = "Components to consider: a,b uses only those, ^a,b all but "
                "those; empty means all",
        .level = 2, .storage = &fw->selection,
    };
    int rc = hnp_param_register(fw->mca->params, &verbose, err, errlen);

    return rc != HNP_SUCCESS ? rc
                             : hnp_param_register(fw->mca->params, &selection,
                                                  err, errlen);
}

/*
 * A component whose register_params fails becomes a load failure, except
 * when a value the user set does not parse (HNP_ERR_BAD_PARAM): running
 * without the component would hide the mistake, so that is an error.
 */
static int register_component_params(hnp_mca_framework_t *fw, char *err,
                                     size_t errlen)
{
    size_t i = 0;

    while (i < fw->found.ncomponents) {
        const hnp_mca_component_t *c = fw->found.components[i].component;
        char reason[128];
        int rc;

        rc = c->register_params != NULL ? c->register_params(c, fw->mca->params)
                                        : HNP_SUCCESS;
        if (rc == HNP_SUCCESS) {
            i++;
            continue;
        }
        if (rc == HNP_ERR_BAD_PARAM) {
            hnp_err_set(err, errlen, "%s component %s: a parameter value "
                        "is not valid (see above)", fw->desc->name, c->name);
            return rc;
        }
        snprintf(reason, sizeof(reason), "registering its parameters "
                 "failed: %s", hnp_strerror(rc));
        HNP_VERBOSE(fw->mca->log, MCA_VERBOSE_LIFECYCLE, "%s component '%s' "
                    "rejected: %s", fw->desc->name, c->name, reason);
        rc = mca_found_reject(&fw->found, i, reason);
        if (rc != HNP_SUCCESS) {
            hnp_err_set(err, errlen, "out of memory registering %s "
                        "components", fw->desc->name);
            return rc;
        }
    }
    return HNP_SUCCESS;
}

static int check_desc(const hnp_mca_t *mca, const hnp_mca_framework_desc_t *desc,
                      char *err, size_t errlen)
{
    if (desc == NULL || desc->name == NULL || desc->name[0] == '\0' ||
        strnlen(desc->name, HNP_MCA_NAME_LEN) == HNP_MCA_NAME_LEN ||
        strchr(desc->name, '_') != NULL) {
        hnp_err_set(err, errlen, "bad framework name '%s'",
                    desc != NULL && desc->name != NULL ? desc->name : "(null)");
        return HNP_ERR_BAD_PARAM;
    }
    if (find_framework(mca, desc->name) != NULL) {
        hnp_err_set(err, errlen, "framework '%s' is already registered",
                    desc->name);
        return HNP_ERR_EXISTS;
    }
    return HNP_SUCCESS;
}

/* With selected_only, a selection that names exactly one component. */
static const char *only_component(const hnp_mca_framework_t *fw)
{
    const char *sel = fw->selection;

    if (!fw->mca->selected_only || sel == NULL || sel[0] == '\0' ||
        sel[0] == '^' || strchr(sel, ',') != NULL)
        return NULL;
    return sel;
}

void hnp_mca_load_selected_only(hnp_mca_t *mca, bool only)
{
    mca->selected_only = only;
}

int hnp_mca_open_module(hnp_mca_t *mca, const char *name, const char *symbol,
                        void **handle, void **sym, char *err, size_t errlen)
{
    return mca_repository_open_module(mca->repo, mca->component_path, name,
                                      symbol, handle, sym, err, errlen);
}

void hnp_mca_close_module(void *handle)
{
    mca_repository_close_module(handle);
}

/* The framework's components, and their parameters, once. The selection
 * is known before the search: a process told which component to use loads
 * that one alone. */
static int search_components(hnp_mca_framework_t *fw, char *err,
                             size_t errlen)
{
    hnp_mca_t *mca = fw->mca;
    int rc;

    if (fw->searched)
        return HNP_SUCCESS;
    fw->searched = true;
    rc = mca_repository_find(mca->repo, fw->desc->name,
                             fw->desc->interface_version, mca->component_path,
                             mca->builtin, only_component(fw), &fw->found, err,
                             errlen);
    if (rc == HNP_SUCCESS)
        rc = mca_tags_reserve(fw, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = register_component_params(fw, err, errlen);
    return rc;
}

int hnp_mca_framework_register(hnp_mca_t *mca,
                               const hnp_mca_framework_desc_t *desc,
                               hnp_mca_framework_t **out, char *err,
                               size_t errlen)
{
    hnp_mca_framework_t **grown, *fw = NULL;
    int rc = check_desc(mca, desc, err, errlen);

    if (rc == HNP_SUCCESS)
        rc = mca_register_own_params(mca, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    grown = realloc(mca->frameworks, (mca->nframeworks + 1) * sizeof(*grown));
    if (grown != NULL)
        mca->frameworks = grown;
    if (grown == NULL || (fw = calloc(1, sizeof(*fw))) == NULL) {
        hnp_err_set(err, errlen, "out of memory registering %s", desc->name);
        return HNP_ERR_NOMEM;
    }
    *fw = (hnp_mca_framework_t){ .mca = mca, .desc = desc,
                                 .log = hnp_log_stream(desc->name) };
    /* Owned by the context from here on: the registry points into it as
     * soon as its parameters are registered, so a failure below leaves it
     * to hnp_mca_destroy rather than freeing it under the registry. */
    mca->frameworks[mca->nframeworks++] = fw;
    rc = register_framework_params(fw, err, errlen);
    /* A process told which components to use (a daemon) loads those
     * alone, and those of a framework it may never open only if it does. */
    if (rc == HNP_SUCCESS && !(mca->selected_only && desc->load_when_opened))
        rc = search_components(fw, err, errlen);
    *out = fw;
    return rc;
}

/* ------------------------------------------------------------ open */

static const hnp_mca_load_failure_t *find_failure(const hnp_mca_framework_t *fw,
                                                  const char *name)
{
    for (size_t i = 0; i < fw->found.nfailures; i++)
        if (strcmp(fw->found.failures[i].component, name) == 0)
            return &fw->found.failures[i];
    return NULL;
}

/* "a, b, c" of the components found (all, or only those @p sel allows). */
static void list_components(const hnp_mca_framework_t *fw,
                            const hnp_mca_selection_t *sel, char *buf,
                            size_t len)
{
    size_t used = 0;

    snprintf(buf, len, "none");
    for (size_t i = 0; i < fw->found.ncomponents && used < len; i++) {
        const char *name = fw->found.components[i].component->name;
        int n;

        if (!hnp_mca_selection_allows(sel, name))
            continue;
        n = snprintf(buf + used, len - used, "%s%s", used > 0 ? ", " : "",
                     name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/*
 * Every name of an include list must exist, and must have loaded. Unknown
 * names in an exclude list only earn a warning: a parameter file shared by
 * several installations may exclude a component some of them lack.
 */
static int check_listed_names(hnp_mca_framework_t *fw,
                              const hnp_mca_selection_t *sel, char *err,
                              size_t errlen)
{
    char available[MCA_LIST_LEN];

    list_components(fw, NULL, available, sizeof(available));
    for (size_t i = 0; i < sel->count; i++) {
        const char *name = sel->names[i];
        const hnp_mca_load_failure_t *failure;

        if (mca_found_find(&fw->found, name) != NULL)
            continue;
        failure = find_failure(fw, name);
        if (failure != NULL && !sel->exclude) {
            hnp_err_set(err, errlen, "%s component '%s' was asked for but "
                        "could not be loaded: %s: %s", fw->desc->name, name,
                        failure->path, failure->reason);
            return HNP_ERR_LOAD;
        }
        if (failure != NULL)
            continue;
        if (!sel->exclude) {
            hnp_err_set(err, errlen, "unknown %s component '%s'; available: %s",
                        fw->desc->name, name, available);
            return HNP_ERR_NOT_FOUND;
        }
        HNP_WARN(fw->log, "excluding unknown %s component '%s'; available: %s",
                 fw->desc->name, name, available);
    }
    return HNP_SUCCESS;
}

/* Load failures the user did not ask about: one warning each, unless the
 * user excluded that component by name. */
static void warn_failures(hnp_mca_framework_t *fw,
                          const hnp_mca_selection_t *sel)
{
    for (size_t i = 0; i < fw->found.nfailures; i++) {
        const hnp_mca_load_failure_t *f = &fw->found.failures[i];

        if (sel->exclude && !hnp_mca_selection_allows(sel, f->component))
            continue;
        HNP_WARN(fw->log, "ignoring %s component '%s': %s: %s",
                 fw->desc->name, f->component, f->path, f->reason);
    }
}

static void open_selected(hnp_mca_framework_t *fw,
                          const hnp_mca_selection_t *sel)
{
    for (size_t i = 0; i < fw->found.ncomponents; i++) {
        hnp_mca_component_entry_t *e = &fw->found.components[i];
        const hnp_mca_component_t *c = e->component;
        int rc;

        if (!hnp_mca_selection_allows(sel, c->name)) {
            HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "component '%s' not "
                        "selected", c->name);
            continue;
        }
        rc = c->open != NULL ? c->open(c) : HNP_SUCCESS;
        e->opened = rc == HNP_SUCCESS;
        if (rc == HNP_SUCCESS)
            HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "component '%s' "
                        "opened", c->name);
        else if (rc == HNP_ERR_NOT_AVAILABLE)
            HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "component '%s' is "
                        "not available here", c->name);
        else
            HNP_WARN(fw->log, "%s component '%s' failed to open (%s); not "
                     "using it", fw->desc->name, c->name, hnp_strerror(rc));
    }
}

int hnp_mca_framework_open(hnp_mca_framework_t *fw, char *err, size_t errlen)
{
    hnp_mca_selection_t sel;
    char why[MCA_LIST_LEN];
    int rc;

    if (fw->opened) {
        hnp_err_set(err, errlen, "framework %s is already open", fw->desc->name);
        return HNP_ERR_EXISTS;
    }
    rc = search_components(fw, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    rc = hnp_mca_selection_parse(fw->selection, &sel, why, sizeof(why));
    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "parameter %s: %s", fw->desc->name, why);
        return rc;
    }
    rc = check_listed_names(fw, &sel, err, errlen);
    if (rc != HNP_SUCCESS) {
        hnp_mca_selection_free(&sel);
        return rc;
    }
    warn_failures(fw, &sel);
    open_selected(fw, &sel);
    fw->sel = sel;
    fw->opened = true;
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ select */

/* Ask one component, once; true when it offers a module (kept in the
 * entry for hnp_mca_framework_find_module). */
static bool query_component(hnp_mca_framework_t *fw,
                            hnp_mca_component_entry_t *entry,
                            const void **module, int *priority)
{
    const hnp_mca_component_t *c = entry->component;
    int rc = mca_query_explained(fw, c, module, priority);

    entry->queried = true;
    entry->module = rc == HNP_SUCCESS ? *module : NULL;
    entry->priority = rc == HNP_SUCCESS ? *priority : 0;

    if (rc == HNP_SUCCESS && *module != NULL) {
        HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "component '%s' offers "
                    "priority %d", c->name, *priority);
        return true;
    }
    if (rc == HNP_ERR_BAD_PARAM && fw->refused == NULL)
        fw->refused = c;
    if (rc == HNP_ERR_BAD_PARAM)
        return false;
    if (rc == HNP_ERR_NOT_AVAILABLE)
        HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "component '%s' declines",
                    c->name);
    else
        HNP_WARN(fw->log, "%s component '%s' failed its query (%s); not "
                 "using it", fw->desc->name, c->name,
                 rc == HNP_SUCCESS ? "no module" : hnp_strerror(rc));
    return false;
}

/* A component that refused a parameter's value fails the selection: the
 * job must not run with another component than the one the value was
 * meant for, and the user must not learn of it from a log line alone. */
static int check_refused(const hnp_mca_framework_t *fw, char *err,
                         size_t errlen)
{
    if (fw->refused == NULL)
        return HNP_SUCCESS;
    hnp_err_set(err, errlen, "%s component %s refuses the value of one of "
                "its parameters (see above)", fw->desc->name,
                fw->refused->name);
    return HNP_ERR_BAD_PARAM;
}

/* Query every opened component once; ties go to the name sorted first. */
static void query_all(hnp_mca_framework_t *fw)
{
    int best = 0;

    fw->queried = true;
    for (size_t i = 0; i < fw->found.ncomponents; i++) {
        const hnp_mca_component_t *c = fw->found.components[i].component;
        const void *module = NULL;
        int priority = 0;

        if (!fw->found.components[i].opened ||
            !query_component(fw, &fw->found.components[i], &module, &priority))
            continue;
        if (fw->selected == NULL || priority > best) {
            fw->selected = c;
            fw->module = module;
            best = priority;
        }
    }
    if (fw->selected != NULL)
        HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "selected component '%s' "
                    "(priority %d)", fw->selected->name, best);
}

int hnp_mca_framework_select(hnp_mca_framework_t *fw,
                             const hnp_mca_component_t **component,
                             const void **module, char *err, size_t errlen)
{
    char considered[MCA_LIST_LEN];

    if (!fw->opened) {
        hnp_err_set(err, errlen, "framework %s is not open", fw->desc->name);
        return HNP_ERR_BAD_PARAM;
    }
    if (!fw->queried)
        query_all(fw);
    if (check_refused(fw, err, errlen) != HNP_SUCCESS)
        return HNP_ERR_BAD_PARAM;
    if (fw->selected == NULL) {
        list_components(fw, &fw->sel, considered, sizeof(considered));
        hnp_err_set(err, errlen, "no %s component is available (considered: "
                    "%s)%s%s", fw->desc->name, considered,
                    fw->declined_why[0] != '\0' ? ": " : "",
                    fw->declined_why);
        return HNP_ERR_NOT_AVAILABLE;
    }
    *component = fw->selected;
    *module = fw->module;
    return HNP_SUCCESS;
}

int hnp_mca_framework_select_all(hnp_mca_framework_t *fw,
                                 const hnp_mca_component_entry_t **out,
                                 size_t max, size_t *count, char *err,
                                 size_t errlen)
{
    if (!fw->opened) {
        hnp_err_set(err, errlen, "framework %s is not open", fw->desc->name);
        return HNP_ERR_BAD_PARAM;
    }
    if (!fw->queried)
        query_all(fw);
    if (check_refused(fw, err, errlen) != HNP_SUCCESS)
        return HNP_ERR_BAD_PARAM;
    /* Components find_module opened only to describe them are allowed by
     * no selection list: rank() leaves them out. */
    *count = hnp_mca_selection_rank(fw->found.components,
                                    fw->found.ncomponents, &fw->sel, out, max);
    for (size_t i = 0; i < *count && i < max; i++)
        HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "active component '%s' "
                    "(priority %d)", out[i]->component->name,
                    out[i]->priority);
    return HNP_SUCCESS;
}

/* A component the selection left out, opened and queried to be described
 * only; one that cannot be opened is marked asked, and never again. */
static void describe_component(hnp_mca_framework_t *fw,
                               hnp_mca_component_entry_t *entry)
{
    const hnp_mca_component_t *c = entry->component;
    const void *module = NULL;
    int priority = 0;

    if (!entry->opened) {
        entry->opened = (c->open != NULL ? c->open(c) : HNP_SUCCESS) ==
                        HNP_SUCCESS;
        if (!entry->opened) {
            entry->queried = true;
            return;
        }
        HNP_VERBOSE(fw->log, MCA_VERBOSE_LIFECYCLE, "component '%s' opened "
                    "to be described", c->name);
    }
    query_component(fw, entry, &module, &priority);
}

int hnp_mca_framework_find_module(hnp_mca_framework_t *fw,
                                  bool (*accept)(void *ctx,
                                                 const void *module),
                                  void *ctx, const void **module)
{
    if (!fw->opened)
        return HNP_ERR_BAD_PARAM;
    if (!fw->queried)
        query_all(fw);
    for (size_t i = 0; i < fw->found.ncomponents; i++) {
        hnp_mca_component_entry_t *e = &fw->found.components[i];
        if (!e->queried)
            describe_component(fw, e);
        if (e->module != NULL && accept(ctx, e->module)) {
            *module = e->module;
            return HNP_SUCCESS;
        }
    }
    return HNP_ERR_NOT_FOUND;
}

/* ------------------------------------------------------------ accessors */

hnp_log_stream_t *hnp_mca_framework_log(hnp_mca_framework_t *fw)
{
    return fw->log;
}

const hnp_mca_framework_desc_t *hnp_mca_framework_desc(hnp_mca_framework_t *fw)
{
    return fw->desc;
}

size_t hnp_mca_framework_components(hnp_mca_framework_t *fw,
                                    const hnp_mca_component_entry_t **list)
{
    *list = fw->found.components;
    return fw->found.ncomponents;
}

size_t hnp_mca_framework_failures(hnp_mca_framework_t *fw,
                                  const hnp_mca_load_failure_t **list)
{
    *list = fw->found.failures;
    return fw->found.nfailures;
}
