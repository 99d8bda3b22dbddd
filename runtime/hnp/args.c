/* SPDX-License-Identifier: BSD-3-Clause */
/* The command line of hnp, in the style of mpirun. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "hnp_errors.h"

void hnp_args_usage(FILE *out)
{
    fprintf(out,
"usage: hnp [options] program [args...] [: [-n N] program [args...]]...\n"
"\n"
"Placement\n"
"  -n, -np N               start N processes (default: one per slot)\n"
"  -N, --npernode K        start K processes on every node\n"
"  --host LIST             hosts, e.g. a,a,b:4,node[001-016],[fe80::1]:2\n"
"                          (slots after ':'; a name again is a slot more)\n"
"  --hostfile FILE         hosts, one a line, optional slots=N; with --host,\n"
"                          --host picks among them\n"
"  --oversubscribe         allow more processes than slots\n"
"Mapping and binding (see hnp(1))\n"
"  --map-by slot|node|core|socket|numa|hwthread|ppr:N:OBJ[:PE=n]\n"
"                          where ranks go (default: fill each node's slots)\n"
"  --rank-by slot|node|core|socket|numa\n"
"                          the order of the ranks over the places\n"
"  --bind-to none|hwthread|core|socket|numa|cpu-list[:overload-allowed,\n"
"            if-supported,ordered]\n"
"                          what each rank is bound to (default none)\n"
"  --cpus-per-proc N       N CPUs a rank (as --map-by numa:PE=N)\n"
"  --use-hwthread-cpus     hardware threads are the CPUs, not cores\n"
"  --cpu-list LIST         use only these CPUs (logical numbers)\n"
"  --rankfile, -rf FILE    each rank's node and CPUs, Open MPI's format\n"
"  --report-bindings       print each rank's binding, bound or not\n"
"  --display-map           print the map before the launch\n"
"  --display-allocation    print the nodes and their slots\n"
"Environment (-x and --wdir: of their app context only)\n"
"  -x NAME[=VALUE]         pass NAME (hnp's value, or VALUE) to the processes\n"
"  --wdir DIR              run the processes in DIR (default: hnp's; a\n"
"                          relative DIR is hnp's working directory's)\n"
"  --prefix DIR            start the daemons as DIR/bin/hnpd\n"
"Input and output\n"
"  --stdin RANK|all|none   where hnp's stdin goes (default: rank 0)\n"
"  --tag-output            prefix each line with [jobid,rank]<stream>:\n"
"  --timestamp-output      prefix each line with the time its node read it\n"
"                          (UTC, 2026-11-27T15:53:04.123456Z)\n"
"  --merge-stderr-to-stdout\n"
"                          the processes' stderr into their stdout\n"
"  --output-filename DIR[:nojobid,nocopy]\n"
"                          also write each rank's output to\n"
"                          DIR/1/rank.N/stdout and stderr (see hnp(1))\n"
"Control\n"
"  --timeout SECONDS       end the job when it runs longer (status 124)\n"
"  --report-state-on-timeout\n"
"                          on timeout, first print each rank's node, pid\n"
"                          and state\n"
"  --get-stack-traces      on timeout, first print each running rank's\n"
"                          stack (gdb on its node)\n"
"  --timing                print the time of each launch phase\n"
"  --plan[=text|csv|dot]   launch nothing; print the spawn tree chosen and\n"
"                          the launch model's time of it and of other trees\n"
"  --mca NAME VALUE        set a parameter (see hnp-info --param all all)\n"
"  --tune FILE             read parameters from FILE\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n");
}

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

static int parse_choice(const char *opt, const char *text,
                        const char *const *words, int *out, char *err,
                        size_t errlen)
{
    for (int i = 0; words[i] != NULL; i++)
        if (strcmp(text, words[i]) == 0) {
            *out = i;
            return HNP_SUCCESS;
        }
    hnp_err_set(err, errlen, "option %s expects %s or %s, got \"%s\"", opt,
                words[0], words[1], text);
    return HNP_ERR_BAD_PARAM;
}

static int parse_stdin(const char *text, int64_t *out, char *err,
                       size_t errlen)
{
    uint32_t rank;

    if (strcmp(text, "all") == 0)
        *out = HNP_STDIN_ALL;
    else if (strcmp(text, "none") == 0)
        *out = HNP_STDIN_NONE;
    else if (strcmp(text, "0") == 0)
        *out = 0;
    else if (parse_count("--stdin", text, &rank, NULL, 0) == HNP_SUCCESS)
        *out = rank;
    else {
        hnp_err_set(err, errlen, "option --stdin expects a rank, all or "
                    "none, got \"%s\"", text);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* -x NAME takes hnp's own value; a NAME hnp does not have is a mistake. */
static int add_env(hnp_app_t *app, const char *text, char *err,
                   size_t errlen)
{
    char *entry, **grown;

    if (text[0] == '\0' || text[0] == '=') {
        hnp_err_set(err, errlen, "option -x expects NAME or NAME=VALUE, got "
                    "\"%s\"", text);
        return HNP_ERR_BAD_PARAM;
    }
    if (strchr(text, '=') != NULL)
        entry = strdup(text);
    else if (getenv(text) == NULL) {
        hnp_err_set(err, errlen, "-x %s: %s is not set in hnp's environment "
                    "(use -x %s=VALUE)", text, text, text);
        return HNP_ERR_NOT_FOUND;
    } else if (asprintf(&entry, "%s=%s", text, getenv(text)) < 0)
        entry = NULL;
    grown = entry ? realloc(app->env, (app->nenv + 1) * sizeof(char *)) : NULL;
    if (grown == NULL) {
        free(entry);
        return HNP_ERR_NOMEM;
    }
    app->env = grown;
    app->env[app->nenv++] = entry;
    return HNP_SUCCESS;
}

/* --wdir, absolute: a relative one is hnp's working directory's, as
 * mpirun makes it, since a daemon over ssh starts in the home directory. */
static int set_wdir(hnp_app_t *app, const char *text, char *err,
                    size_t errlen)
{
    char cwd[4096];
    char *dir = NULL;

    if (text[0] == '\0') {
        hnp_err_set(err, errlen, "option --wdir expects a directory");
        return HNP_ERR_BAD_PARAM;
    }
    if (text[0] == '/')
        dir = strdup(text);
    else if (getcwd(cwd, sizeof(cwd)) == NULL) {
        hnp_err_set(err, errlen, "--wdir %s: cannot tell hnp's working "
                    "directory to resolve it against: %s", text,
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

/* --host and --hostfile hold for the whole job: every context is mapped
 * over the same nodes. The same value in several contexts is harmless;
 * another one would leak into the other contexts, so it is refused. */
static int set_job_hosts(hnp_args_t *args, char **field, const char *opt,
                         char *value, char *err, size_t errlen)
{
    if (*field != NULL && strcmp(*field, value) != 0) {
        hnp_err_set(err, errlen, "%s %s in app context %zu: hnp maps every "
                    "app context over the same hosts, and %s %s is given "
                    "already (give it once, for all)", opt, value,
                    args->napps, opt, *field);
        return HNP_ERR_BAD_PARAM;
    }
    *field = value;
    return HNP_SUCCESS;
}

static bool is(const char *arg, const char *a, const char *b)
{
    return strcmp(arg, a) == 0 || (b != NULL && strcmp(arg, b) == 0);
}

static int parse_valued_more(hnp_args_t *args, hnp_app_t *app,
                             const char *opt, char *value, char *err,
                             size_t errlen)
{
    int rc = hnp_mapping_parse_valued(args, opt, value, err, errlen);

    if (rc != 0)
        return rc;
    if (is(opt, "--stdin", NULL))
        rc = parse_stdin(value, &args->stdin_target, err, errlen);
    else if (is(opt, "--timeout", NULL))
        rc = parse_seconds(opt, value, &args->timeout, err, errlen);
    else if (is(opt, "-x", NULL))
        rc = add_env(app, value, err, errlen);
    else if (is(opt, "--wdir", "-wdir"))
        rc = set_wdir(app, value, err, errlen);
    else
        return 0;
    return rc < 0 ? rc : 1;
}

/* Options that take a value. 1: it was one; 0: it was not; < 0: error. */
static int parse_valued(hnp_args_t *args, hnp_app_t *app, const char *opt,
                        char *value, char *err, size_t errlen)
{
    int rc = HNP_SUCCESS;

    if (is(opt, "-n", "-np") || is(opt, "--np", "-c"))
        rc = parse_count(opt, value, &app->np, err, errlen);
    else if (is(opt, "-N", "--npernode"))
        rc = parse_count(opt, value, &args->npernode, err, errlen);
    else if (is(opt, "--host", "-H") || is(opt, "--hosts", NULL))
        rc = set_job_hosts(args, &args->hosts, "--host", value, err, errlen);
    else if (is(opt, "--hostfile", "--machinefile"))
        rc = set_job_hosts(args, &args->hostfile, "--hostfile", value, err,
                           errlen);
    else if (is(opt, "--prefix", NULL))
        args->prefix = value;
    else if (is(opt, "--output-filename", NULL))
        args->output_dir = value;
    else
        return parse_valued_more(args, app, opt, value, err, errlen);
    return rc < 0 ? rc : 1;
}

/* The output and --timeout options without a value. */
static bool parse_output_flag(hnp_args_t *args, const char *opt)
{
    if (is(opt, "--timestamp-output", NULL))
        args->timestamp_output = true;
    else if (is(opt, "--merge-stderr-to-stdout", NULL))
        args->merge_stderr = true;
    else if (is(opt, "--report-state-on-timeout", NULL))
        args->report_state_on_timeout = true;
    else if (is(opt, "--get-stack-traces", NULL))
        args->get_stack_traces = true;
    else
        return false;
    return true;
}

static int parse_flag(hnp_args_t *args, const char *opt)
{
    if (parse_output_flag(args, opt))
        return 1;
    if (is(opt, "--oversubscribe", NULL))
        args->oversubscribe = true;
    else if (is(opt, "--timing", NULL))
        args->timing = true;
    else if (is(opt, "--tag-output", NULL))
        args->tag_output = true;
    else if (hnp_mapping_parse_flag(args, opt))
        return 1;
    else if (is(opt, "-h", "--help"))
        args->help = true;
    else if (is(opt, "-V", "--version"))
        args->version = true;
    else
        return 0;
    return 1;
}

/* --plan or --plan=FORMAT. 1: it was; 0: another option; < 0: error. */
static int parse_plan(hnp_args_t *args, const char *opt, char *err,
                      size_t errlen)
{
    static const char *const words[] = { "text", "csv", "dot", NULL };
    int choice = 0, rc;

    if (strcmp(opt, "--plan") == 0) {
        args->plan = HNP_PLAN_TEXT;
        return 1;
    }
    if (strncmp(opt, "--plan=", 7) != 0)
        return 0;
    rc = parse_choice("--plan", opt + 7, words, &choice, NULL, 0);
    if (rc < 0) {
        hnp_err_set(err, errlen, "option --plan expects text, csv or dot, "
                    "got \"%s\"", opt + 7);
        return rc;
    }
    args->plan = (hnp_plan_format_t)(HNP_PLAN_TEXT + choice);
    return 1;
}

/* The options of one app context, up to its program. Returns the index of
 * the program, or a negative error. */
static int parse_options(hnp_args_t *args, hnp_app_t *app, int i, int argc,
                         char **argv, char *err, size_t errlen)
{
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--") == 0)
            return i + 1;
        if (parse_flag(args, opt))
            continue;
        int plan = parse_plan(args, opt, err, errlen);
        if (plan < 0)
            return plan;
        if (plan > 0)
            continue;
        if (i + 1 >= argc) {
            int known = parse_valued(args, app, opt, "", NULL, 0);
            hnp_err_set(err, errlen, known != 0 ? "option %s needs a value"
                        : "unknown option %s (see hnp --help)", opt);
            return HNP_ERR_BAD_PARAM;
        }
        int rc = parse_valued(args, app, opt, argv[i + 1], err, errlen);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            hnp_err_set(err, errlen, "unknown option %s (see hnp --help)", opt);
            return HNP_ERR_BAD_PARAM;
        }
        i++;
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
    /* A plan launches nothing, so it needs no program. */
    if (app->argc == 0 && !args->help && !args->version &&
        args->plan == HNP_PLAN_NONE) {
        hnp_err_set(err, errlen, "no program to run%s (see hnp --help)",
                    args->napps > 1 ? " after ':'" : "");
        return HNP_ERR_BAD_PARAM;
    }
    argv[start + app->argc] = NULL; /* the ':' ends this app's argv */
    return HNP_SUCCESS;
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
    if (rc == HNP_SUCCESS && !args->help && !args->version)
        rc = check_apps(args, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = check_timeout_reports(args, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_mapping_finish(args, err, errlen);
    if (rc != HNP_SUCCESS)
        hnp_args_free(args);
    return rc;
}

void hnp_args_free(hnp_args_t *args)
{
    for (size_t a = 0; a < args->napps; a++) {
        hnp_app_t *app = &args->apps[a];
        for (size_t i = 0; i < app->nenv; i++)
            free(app->env[i]);
        free(app->env);
        free(app->wdir);
    }
    free(args->apps);
    hnp_mapping_free(&args->mapping);
    args->apps = NULL;
    args->napps = 0;
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
