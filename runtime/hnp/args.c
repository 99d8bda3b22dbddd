/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command line of hnp, in the style of mpirun: what each option of
 * options.c's table does, the app contexts, the appfile.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appfile.h"
#include "args.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "options.h"

static int parse_count(const char *opt, const char *text, uint32_t *out,
                       char *err, size_t errlen)
{
    char *end = NULL;
    unsigned long v;

    errno = 0;
    v = strtoul(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno != 0 || v == 0 ||
        v > UINT32_MAX || text[0] == '-') {
        hnp_err_set(err, errlen, "option %s expects a positive number, got "
                    "\"%s\"", opt, text);
        return HNP_ERR_BAD_PARAM;
    }
    *out = (uint32_t)v;
    return HNP_SUCCESS;
}

static int parse_seconds(const char *opt, const char *text, double *out,
                         char *err, size_t errlen)
{
    char *end = NULL;
    double v = strtod(text, &end);

    if (*text == '\0' || *end != '\0' || !isfinite(v) || v <= 0) {
        hnp_err_set(err, errlen, "option %s expects a number of seconds "
                    "above 0, got \"%s\"", opt, text);
        return HNP_ERR_BAD_PARAM;
    }
    *out = v;
    return HNP_SUCCESS;
}

static int parse_stdin(const char *opt, const char *text, int64_t *out,
                       char *err, size_t errlen)
{
    uint32_t rank;

    if (strcmp(text, "all") == 0)
        *out = HNP_STDIN_ALL;
    else if (strcmp(text, "none") == 0)
        *out = HNP_STDIN_NONE;
    else if (strcmp(text, "0") == 0)
        *out = 0;
    else if (parse_count(opt, text, &rank, NULL, 0) == HNP_SUCCESS)
        *out = rank;
    else {
        hnp_err_set(err, errlen, "option %s expects a rank, all or none, "
                    "got \"%s\"", opt, text);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* Put "NAME=value" (owned by the callee from here) into @p app's
 * variables: in place of the one of that name, or after them. */
static int set_env_entry(hnp_app_t *app, char *entry)
{
    size_t len = strcspn(entry, "=");
    char **grown;

    for (size_t i = 0; i < app->nenv; i++)
        if (strncmp(app->env[i], entry, len + 1) == 0) {
            free(app->env[i]);
            app->env[i] = entry;
            return HNP_SUCCESS;
        }
    grown = realloc(app->env, (app->nenv + 1) * sizeof(char *));
    if (grown == NULL) {
        free(entry);
        return HNP_ERR_NOMEM;
    }
    app->env = grown;
    app->env[app->nenv++] = entry;
    return HNP_SUCCESS;
}

/* -x NAME takes hnp's own value. A NAME hnp does not have is warned of
 * and left out, as mpirun does: generic scripts pass -x LD_LIBRARY_PATH
 * whether or not it is set. */
static int add_env(hnp_app_t *app, const char *opt, const char *text,
                   char *err, size_t errlen)
{
    char *entry;

    if (text[0] == '\0' || text[0] == '=') {
        hnp_err_set(err, errlen, "option %s expects NAME or NAME=VALUE, got "
                    "\"%s\"", opt, text);
        return HNP_ERR_BAD_PARAM;
    }
    if (strchr(text, '=') != NULL)
        entry = strdup(text);
    else if (getenv(text) == NULL) {
        HNP_WARN(hnp_log_stream("hnp"), "%s %s: %s is not set in hnp's "
                 "environment; the processes do not get it (%s %s=VALUE "
                 "gives it a value)", opt, text, text, opt, text);
        return HNP_SUCCESS;
    } else if (asprintf(&entry, "%s=%s", text, getenv(text)) < 0)
        entry = NULL;
    return entry != NULL ? set_env_entry(app, entry) : HNP_ERR_NOMEM;
}

/* -env NAME VALUE, -genv NAME VALUE: "NAME=VALUE", or NULL with @p err
 * set. */
static char *env_pair(const char *opt, const char *name, const char *value,
                      char *err, size_t errlen)
{
    char *entry = NULL;

    if (name[0] == '\0' || strchr(name, '=') != NULL) {
        hnp_err_set(err, errlen, "option %s expects a variable's NAME and its "
                    "VALUE as two words, got \"%s\" for NAME", opt, name);
        return NULL;
    }
    if (asprintf(&entry, "%s=%s", name, value) < 0) {
        hnp_err_set(err, errlen, "out of memory");
        return NULL;
    }
    return entry;
}

static int add_genv(hnp_args_t *args, const char *opt, char **values,
                    char *err, size_t errlen)
{
    char *entry = env_pair(opt, values[0], values[1], err, errlen);
    hnp_app_t all = { .env = args->genv, .nenv = args->ngenv };
    int rc = entry != NULL ? set_env_entry(&all, entry) : HNP_ERR_BAD_PARAM;

    args->genv = all.env;
    args->ngenv = all.nenv;
    return rc;
}

/* --wdir, absolute: a relative one is hnp's working directory's, as
 * mpirun makes it, since a daemon over ssh starts in the home directory. */
static int set_wdir(hnp_app_t *app, const char *opt, const char *text,
                    char *err, size_t errlen)
{
    char cwd[4096];
    char *dir = NULL;

    if (text[0] == '\0') {
        hnp_err_set(err, errlen, "option %s expects a directory", opt);
        return HNP_ERR_BAD_PARAM;
    }
    if (text[0] == '/')
        dir = strdup(text);
    else if (getcwd(cwd, sizeof(cwd)) == NULL) {
        hnp_err_set(err, errlen, "%s %s: cannot tell hnp's working "
                    "directory to resolve it against: %s", opt, text,
                    strerror(errno));
        return HNP_ERR_IO;
    } else if (asprintf(&dir, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "",
                        text) < 0)
        dir = NULL;
    if (dir == NULL)
        return HNP_ERR_NOMEM;
    free(app->wdir);
    app->wdir = dir;
    return HNP_SUCCESS;
}

/* --host and --hostfile belong to the app context they are given in, as
 * in Open MPI's mpirun: each context is placed on its own hosts (those of
 * a context that gives none are the job's, all contexts' together). The
 * job's fields keep the first value given, for a job of one context. */
static int set_context_hosts(hnp_args_t *args, hnp_app_t *app, bool file,
                             const char *opt, char *value, char *err,
                             size_t errlen)
{
    if (value[0] == '\0') {
        hnp_err_set(err, errlen, "option %s expects %s", opt,
                    file ? "a file" : "a list of hosts");
        return HNP_ERR_BAD_PARAM;
    }
    if (file) {
        app->hostfile = value;
        if (args->hostfile == NULL)
            args->hostfile = value;
    } else {
        app->hosts = value;
        if (args->hosts == NULL)
            args->hosts = value;
    }
    return HNP_SUCCESS;
}

static int set_appfile(hnp_args_t *args, const char *opt, char *value,
                       char *err, size_t errlen)
{
    if (args->appfile != NULL) {
        hnp_err_set(err, errlen, "option %s %s: %s is given already, and "
                    "an appfile cannot name another", opt, value,
                    args->appfile);
        return HNP_ERR_BAD_PARAM;
    }
    args->appfile = value;
    return HNP_SUCCESS;
}

/* Options of the app context @p app. */
static int apply_context_option(hnp_app_t *app, const hnp_option_t *o,
                                const char *opt, char **values, char *err,
                                size_t errlen)
{
    switch (o->id) {
    case OPT_NP:
        return parse_count(opt, values[0], &app->np, err, errlen);
    case OPT_ENV:
        return add_env(app, opt, values[0], err, errlen);
    case OPT_ENV_PAIR: {
        char *entry = env_pair(opt, values[0], values[1], err, errlen);
        return entry != NULL ? set_env_entry(app, entry) : HNP_ERR_BAD_PARAM;
    }
    case OPT_WDIR:
        return set_wdir(app, opt, values[0], err, errlen);
    default:
        return HNP_ERR_BAD_PARAM;
    }
}

/* mpirun's --launch-agent CMD, the daemon each node starts: hnp's is
 * DIR/bin/hnpd, which --prefix DIR names. */
static int set_launch_agent(hnp_args_t *args, const char *opt, char *value,
                            char *err, size_t errlen)
{
    static const char daemon[] = "/bin/hnpd";
    size_t len = strlen(value), dlen = sizeof(daemon) - 1;

    if (value[0] != '/' || len <= dlen ||
        strcmp(value + len - dlen, daemon) != 0) {
        hnp_err_set(err, errlen, "%s %s: hnp's daemons are DIR/bin/hnpd, "
                    "started by absolute path: give %s DIR/bin/hnpd, or "
                    "--prefix DIR", opt, value, opt);
        return HNP_ERR_BAD_PARAM;
    }
    value[len - dlen] = '\0'; /* DIR, as --prefix takes it */
    args->prefix = value;
    return HNP_SUCCESS;
}

/* Options of the job that take a value. */
static int apply_valued(hnp_args_t *args, const hnp_option_t *o,
                        const char *opt, char **values, char *err,
                        size_t errlen)
{
    int rc;

    switch (o->id) {
    case OPT_NPERNODE:
        return parse_count(opt, values[0], &args->npernode, err, errlen);
    case OPT_DEFAULT_HOSTFILE:
        args->default_hostfile = values[0];
        return HNP_SUCCESS;
    case OPT_PREFIX:
        args->prefix = values[0];
        return HNP_SUCCESS;
    case OPT_LAUNCH_AGENT:
        return set_launch_agent(args, opt, values[0], err, errlen);
    case OPT_OUTPUT_FILENAME:
        args->output_dir = values[0];
        return HNP_SUCCESS;
    case OPT_STDIN:
        return parse_stdin(opt, values[0], &args->stdin_target, err, errlen);
    case OPT_TIMEOUT:
        return parse_seconds(opt, values[0], &args->timeout, err, errlen);
    case OPT_APP:
        return set_appfile(args, opt, values[0], err, errlen);
    case OPT_GENV:
        return add_genv(args, opt, values, err, errlen);
    case OPT_MAPPING:
        rc = hnp_mapping_parse_valued(args, o->names[0], values[0], err,
                                      errlen);
        return rc < 0 ? rc : HNP_SUCCESS;
    case OPT_REPORT_URI:
        args->report_uri = values[0];
        return HNP_SUCCESS;
    case OPT_DVM_URI:
        args->dvm_uri = values[0];
        return HNP_SUCCESS;
    default:
        return HNP_ERR_BAD_PARAM;
    }
}

/* The output and --timeout options without a value. */
static bool apply_output_flag(hnp_args_t *args, const hnp_option_t *o)
{
    switch (o->id) {
    case OPT_TIMESTAMP_OUTPUT:
        args->timestamp_output = true;
        break;
    case OPT_MERGE_STDERR:
        args->merge_stderr = true;
        break;
    case OPT_REPORT_STATE_ON_TIMEOUT:
        args->report_state_on_timeout = true;
        break;
    case OPT_GET_STACK_TRACES:
        args->get_stack_traces = true;
        break;
    case OPT_PREPEND_RANK:
        args->prepend_rank = true;
        break;
    default:
        return false;
    }
    return true;
}

/* The persistent runtime's flags (dvm.h). */
static bool apply_dvm_flag(hnp_args_t *args, const hnp_option_t *o)
{
    switch (o->id) {
    case OPT_DVM:
        args->dvm = true;
        break;
    case OPT_DAEMONIZE:
        args->daemonize = true;
        break;
    case OPT_DVM_JOBS:
        args->dvm_jobs = true;
        break;
    case OPT_DVM_STOP:
        args->dvm_stop = true;
        break;
    case OPT_DVM_WAIT:
    case OPT_DVM_NOWAIT: /* the last one given holds */
        args->dvm_nowait = o->id == OPT_DVM_NOWAIT;
        break;
    default:
        return false;
    }
    return true;
}

/* Flags: options that take no value. */
static int apply_flag(hnp_args_t *args, const hnp_option_t *o)
{
    if (apply_output_flag(args, o) || apply_dvm_flag(args, o))
        return HNP_SUCCESS;
    switch (o->id) {
    case OPT_MAPPING_FLAG:
        hnp_mapping_parse_flag(args, o->names[0]);
        break;
    case OPT_BYNODE: /* Open MPI's old spellings */
    case OPT_BYSLOT:
        return hnp_mapping_parse_valued(args, "--map-by",
                                        o->id == OPT_BYNODE ? "node" : "slot",
                                        NULL, 0) < 0 ? HNP_ERR_BAD_PARAM
                                                     : HNP_SUCCESS;
    case OPT_OVERSUBSCRIBE:
    case OPT_NOOVERSUBSCRIBE: /* the last one given holds */
        args->oversubscribe = o->id == OPT_OVERSUBSCRIBE;
        break;
    case OPT_TIMING:
        args->timing = true;
        break;
    case OPT_TAG_OUTPUT:
        args->tag_output = true;
        break;
    case OPT_PLAN:
        args->plan = HNP_PLAN_TEXT;
        break;
    case OPT_HELP:
        args->help = true;
        break;
    case OPT_VERSION:
        args->version = true;
        break;
    case OPT_VERBOSE:
        args->verbose = true;
        break;
    case OPT_QUIET:
        args->quiet = true;
        break;
    case OPT_ALLOW_ROOT: /* hnp never refuses root */
        break;
    case OPT_GENVALL:
        args->genvall = true;
        break;
    default:
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static int apply_option(hnp_args_t *args, hnp_app_t *app,
                        const hnp_option_t *o, const char *opt, char **values,
                        char *err, size_t errlen)
{
    if (o->id == OPT_SETUP) {
        hnp_err_set(err, errlen, "%s sets a parameter of the whole job: give "
                    "it before the first program, not after ':' or in an "
                    "appfile", opt);
        return HNP_ERR_BAD_PARAM;
    }
    if (o->id <= OPT_WDIR) /* of the app context */
        return apply_context_option(app, o, opt, values, err, errlen);
    if (o->id == OPT_HOST || o->id == OPT_HOSTFILE)
        return set_context_hosts(args, app, o->id == OPT_HOSTFILE, opt,
                                 values[0], err, errlen);
    if (o->nvalues > 0)
        return apply_valued(args, o, opt, values, err, errlen);
    return apply_flag(args, o);
}

/* --plan=FORMAT. 1: it was; 0: another option; < 0: error. */
static int parse_plan_format(hnp_args_t *args, const char *opt, char *err,
                             size_t errlen)
{
    static const char *const words[] = { "text", "csv", "dot" };
    const char *format;

    if (strncmp(opt, "--plan=", 7) != 0 && strncmp(opt, "-plan=", 6) != 0)
        return 0;
    format = strchr(opt, '=') + 1;
    for (int i = 0; i < 3; i++)
        if (strcmp(format, words[i]) == 0) {
            args->plan = (hnp_plan_format_t)(HNP_PLAN_TEXT + i);
            return 1;
        }
    hnp_err_set(err, errlen, "option --plan expects text, csv or dot, got "
                "\"%s\"", format);
    return HNP_ERR_BAD_PARAM;
}

/* The option at argv[i] with its values. Returns the words it took, or a
 * negative error. */
static int parse_one(hnp_args_t *args, hnp_app_t *app, int i, int argc,
                     char **argv, char *err, size_t errlen)
{
    const char *opt = argv[i];
    const hnp_option_t *o = hnp_option_find(opt);
    int rc = parse_plan_format(args, opt, err, errlen);

    if (rc != 0)
        return rc;
    if (o == NULL)
        return hnp_option_unknown(opt, err, errlen);
    if (argc - i - 1 < o->nvalues) {
        hnp_err_set(err, errlen, o->nvalues == 1 ? "option %s needs a value"
                    : "option %s needs a name and a value (%s NAME VALUE)",
                    opt, opt);
        return HNP_ERR_BAD_PARAM;
    }
    rc = apply_option(args, app, o, opt, argv + i + 1, err, errlen);
    return rc < 0 ? rc : 1 + o->nvalues;
}

/* The options of one app context, up to its program. Returns the index of
 * the program, or a negative error. */
static int parse_options(hnp_args_t *args, hnp_app_t *app, int i, int argc,
                         char **argv, char *err, size_t errlen)
{
    while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
        if (strcmp(argv[i], "--") == 0)
            return i + 1;
        int used = parse_one(args, app, i, argc, argv, err, errlen);
        if (used < 0)
            return used;
        i += used;
    }
    return i;
}

static hnp_app_t *new_app(hnp_args_t *args)
{
    hnp_app_t *grown = realloc(args->apps, (args->napps + 1) * sizeof(*grown));

    if (grown == NULL)
        return NULL;
    args->apps = grown;
    memset(&grown[args->napps], 0, sizeof(*grown));
    return &grown[args->napps++];
}

/* One app context: options, program, arguments up to ':' or the end. */
static int parse_app(hnp_args_t *args, int *i, int argc, char **argv,
                     char *err, size_t errlen)
{
    hnp_app_t *app = new_app(args);
    int start;

    if (app == NULL)
        return HNP_ERR_NOMEM;
    start = parse_options(args, app, *i, argc, argv, err, errlen);
    if (start < 0)
        return start;
    app->argv = argv + start;
    while (start + app->argc < argc && strcmp(argv[start + app->argc], ":") != 0)
        app->argc++;
    *i = start + app->argc + 1;
    /* A plan launches nothing, so it needs no program; an appfile gives
     * the programs. */
    if (app->argc == 0 && !args->help && !args->version &&
        args->plan == HNP_PLAN_NONE && args->appfile == NULL &&
        !args->dvm && !args->dvm_jobs && !args->dvm_stop) {
        hnp_err_set(err, errlen, "no program to run%s (see hnp --help)",
                    args->napps > 1 ? " after ':'" : "");
        return HNP_ERR_BAD_PARAM;
    }
    argv[start + app->argc] = NULL; /* the ':' ends this app's argv */
    return HNP_SUCCESS;
}

static void free_app(hnp_app_t *app)
{
    for (size_t i = 0; i < app->nenv; i++)
        free(app->env[i]);
    free(app->env);
    free(app->wdir);
}

/* ------------------------------------------------------------- --app */

/* One line of the appfile: one app context. Its words are kept, since
 * the context's argv points into them. */
static int appfile_line(void *ctx, char **words, int nwords, unsigned lineno,
                        char *err, size_t errlen)
{
    hnp_args_t *args = ctx;
    char ***grown = realloc(args->appfile_lines,
                            (args->nappfile_lines + 1) * sizeof(*grown));
    int next = 0, rc;

    (void)lineno;
    if (grown == NULL) {
        hnp_appfile_words_free(words);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    args->appfile_lines = grown;
    grown[args->nappfile_lines++] = words;
    /* Before parsing, which would end the words at a ':' (and lose the
     * rest to hnp_appfile_words_free). */
    for (int w = 0; w < nwords; w++)
        if (strcmp(words[w], ":") == 0) {
            hnp_err_set(err, errlen, "':' in an appfile: one app context a "
                        "line");
            return HNP_ERR_BAD_PARAM;
        }
    rc = parse_app(args, &next, nwords, words, err, errlen);
    if (rc == HNP_SUCCESS && args->apps[args->napps - 1].argc == 0) {
        hnp_err_set(err, errlen, "no program on this line");
        rc = HNP_ERR_BAD_PARAM;
    }
    return rc;
}

/* Give @p app each of @p env ("NAME=value") whose NAME it does not set. */
static int add_missing(hnp_app_t *app, char *const *env, size_t nenv)
{
    size_t own = app->nenv;

    for (size_t e = 0; e < nenv; e++) {
        size_t len = strcspn(env[e], "=") + 1;
        bool set = false;
        for (size_t i = 0; i < own && !set; i++)
            set = strncmp(app->env[i], env[e], len) == 0;
        char *copy = set ? NULL : strdup(env[e]);
        if (!set && (copy == NULL || set_env_entry(app, copy) < 0))
            return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

int hnp_args_add_default_env(hnp_args_t *args, char *const *env,
                             size_t nenv)
{
    for (size_t a = 0; a < args->napps; a++)
        if (add_missing(&args->apps[a], env, nenv) < 0)
            return HNP_ERR_NOMEM;
    return HNP_SUCCESS;
}

/* What the command line gives with --app (-x, --wdir) is every appfile
 * context's, unless its line says otherwise. */
static int inherit(hnp_app_t *app, const hnp_app_t *from)
{
    if (add_missing(app, from->env, from->nenv) < 0)
        return HNP_ERR_NOMEM;
    if (app->hosts == NULL && app->hostfile == NULL) {
        app->hosts = from->hosts;
        app->hostfile = from->hostfile;
    }
    if (app->wdir == NULL && from->wdir != NULL &&
        (app->wdir = strdup(from->wdir)) == NULL)
        return HNP_ERR_NOMEM;
    return HNP_SUCCESS;
}

static int read_appfile(hnp_args_t *args, char *err, size_t errlen)
{
    hnp_app_t cmdline = args->apps[0];
    int rc = HNP_SUCCESS;

    if (args->napps > 1 || cmdline.argc > 0 || cmdline.np > 0) {
        hnp_err_set(err, errlen, "--app %s gives the programs and their -n: "
                    "the command line must give neither", args->appfile);
        return HNP_ERR_BAD_PARAM;
    }
    free(args->apps);
    args->apps = NULL;
    args->napps = 0;
    rc = hnp_appfile_read(args->appfile, appfile_line, args, err, errlen);
    if (rc == HNP_SUCCESS && args->napps == 0) {
        hnp_err_set(err, errlen, "appfile %s names no program",
                    args->appfile);
        rc = HNP_ERR_BAD_PARAM;
    }
    for (size_t a = 0; rc == HNP_SUCCESS && a < args->napps; a++)
        rc = inherit(&args->apps[a], &cmdline);
    free_app(&cmdline);
    return rc;
}

/* ---------------------------------------------------------------------- */

/* -genvall: all of hnp's environment but the runtime's own HNP_*, which
 * the daemons keep from the processes too. */
static bool passed_by_genvall(const char *entry)
{
    return strncmp(entry, "HNP_", 4) != 0 && strchr(entry, '=') != NULL;
}

/* -genv, then -genvall: every context's, below what it sets itself. */
static int apply_global_env(hnp_args_t *args)
{
    size_t n = 0;
    char **all = NULL;
    int rc = HNP_SUCCESS;

    if (args->genvall) {
        while (environ[n] != NULL)
            n++;
        all = calloc(n + 1, sizeof(*all));
        if (all == NULL)
            return HNP_ERR_NOMEM;
        n = 0;
        for (size_t i = 0; environ[i] != NULL; i++)
            if (passed_by_genvall(environ[i]))
                all[n++] = environ[i];
    }
    for (size_t a = 0; rc == HNP_SUCCESS && a < args->napps; a++) {
        rc = add_missing(&args->apps[a], args->genv, args->ngenv);
        if (rc == HNP_SUCCESS)
            rc = add_missing(&args->apps[a], all, n);
    }
    free(all);
    return rc;
}

static int check_apps(const hnp_args_t *args, char *err, size_t errlen)
{
    if (args->napps < 2)
        return HNP_SUCCESS;
    for (size_t a = 0; a < args->napps; a++)
        if (args->apps[a].np == 0) {
            hnp_err_set(err, errlen, "app context %zu (%s) needs -n: with "
                        "several programs, each says how many processes it "
                        "runs", a + 1, args->apps[a].argv[0]);
            return HNP_ERR_BAD_PARAM;
        }
    return HNP_SUCCESS;
}

/* --dvm serves, --dvm-uri submits: each with what it needs. */
static int check_dvm(const hnp_args_t *args, char *err, size_t errlen)
{
    bool client = args->dvm_uri != NULL || args->dvm_jobs || args->dvm_stop;

    if (args->dvm && client)
        hnp_err_set(err, errlen, "--dvm starts a DVM; --dvm-uri, --dvm-jobs "
                    "and --dvm-stop talk to a running one: not both");
    else if (args->dvm && args->report_uri == NULL)
        hnp_err_set(err, errlen, "--dvm needs --report-uri FILE: the file "
                    "its clients find it by");
    else if (args->dvm && args->napps > 0 && args->apps[0].argc > 0)
        hnp_err_set(err, errlen, "--dvm runs no program of its own (%s): "
                    "submit it with hnp --dvm-uri FILE", args->apps[0].argv[0]);
    else if (!args->dvm && (args->report_uri != NULL || args->daemonize))
        hnp_err_set(err, errlen, "%s goes with --dvm", args->daemonize
                    ? "--daemonize" : "--report-uri");
    else if ((args->dvm_jobs || args->dvm_stop) && args->dvm_uri == NULL &&
             getenv("HNP_DVM_URI") == NULL)
        hnp_err_set(err, errlen, "%s needs --dvm-uri FILE (or HNP_DVM_URI)",
                    args->dvm_jobs ? "--dvm-jobs" : "--dvm-stop");
    else
        return HNP_SUCCESS;
    return HNP_ERR_BAD_PARAM;
}

/* What happens on timeout needs a timeout. */
static int check_timeout_reports(const hnp_args_t *args, char *err,
                                 size_t errlen)
{
    if (args->timeout > 0 ||
        (!args->report_state_on_timeout && !args->get_stack_traces))
        return HNP_SUCCESS;
    hnp_err_set(err, errlen, "%s acts when --timeout expires: give "
                "--timeout SECONDS too",
                args->get_stack_traces ? "--get-stack-traces"
                                       : "--report-state-on-timeout");
    return HNP_ERR_BAD_PARAM;
}

int hnp_args_parse(hnp_args_t *args, int argc, char **argv, char *err,
                   size_t errlen)
{
    int i = 1, rc = HNP_SUCCESS;

    memset(args, 0, sizeof(*args));
    args->map_by = HNP_MAP_BY_SLOT;
    while (rc == HNP_SUCCESS && i < argc + (args->napps == 0))
        rc = parse_app(args, &i, argc, argv, err, errlen);
    if (rc == HNP_SUCCESS && args->appfile != NULL && !args->help &&
        !args->version)
        rc = read_appfile(args, err, errlen);
    if (rc == HNP_SUCCESS && !args->help && !args->version)
        rc = check_apps(args, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = check_timeout_reports(args, err, errlen);
    if (rc == HNP_SUCCESS && !args->help && !args->version)
        rc = check_dvm(args, err, errlen);
    if (rc == HNP_SUCCESS && apply_global_env(args) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "out of memory");
        rc = HNP_ERR_NOMEM;
    }
    if (rc == HNP_SUCCESS)
        rc = hnp_mapping_finish(args, err, errlen);
    if (rc != HNP_SUCCESS)
        hnp_args_free(args);
    return rc;
}

void hnp_args_free(hnp_args_t *args)
{
    for (size_t a = 0; a < args->napps; a++)
        free_app(&args->apps[a]);
    free(args->apps);
    for (size_t l = 0; l < args->nappfile_lines; l++)
        hnp_appfile_words_free(args->appfile_lines[l]);
    free(args->appfile_lines);
    for (size_t i = 0; i < args->ngenv; i++)
        free(args->genv[i]);
    free(args->genv);
    hnp_mapping_free(&args->mapping);
    args->apps = NULL;
    args->napps = 0;
    args->appfile_lines = NULL;
    args->nappfile_lines = 0;
    args->genv = NULL;
    args->ngenv = 0;
}

uint32_t hnp_args_total_np(const hnp_args_t *args)
{
    uint32_t total = 0;

    for (size_t a = 0; a < args->napps; a++)
        total += args->apps[a].np;
    return total;
}

const hnp_app_t *hnp_args_app_of(const hnp_args_t *args, uint32_t rank)
{
    for (size_t a = args->napps; a-- > 0;)
        if (rank >= args->apps[a].first_rank)
            return &args->apps[a];
    return &args->apps[0];
}
