/* The command line of hnp, in the style of mpirun. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_args.h"
#include "hnp_errors.h"

void hnp_args_usage(FILE *out)
{
    fprintf(out,
"usage: hnp [options] program [arguments...]\n"
"\n"
"  -n, -np N               start N processes (default: one per slot)\n"
"  -N, --npernode K        start K processes on every node\n"
"  --host LIST             hosts, e.g. a,b:4,node[001-016] (slots after ':')\n"
"  --hostfile FILE         hosts, one a line, optional slots=N\n"
"  --map-by slot|node      fill each node in turn (default), or round robin\n"
"  --oversubscribe         allow more processes than slots\n"
"  --prefix DIR            start the daemons as DIR/bin/hnpd\n"
"  --timing                print the time of each launch phase\n"
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
    v = strtoul(text != NULL ? text : "", &end, 10);
    if (text == NULL || *text == '\0' || *end != '\0' || errno != 0 ||
        v == 0 || v > UINT32_MAX || text[0] == '-') {
        hnp_err_set(err, errlen, "option %s expects a positive number, got "
                    "\"%s\"", opt, text != NULL ? text : "");
        return HNP_ERR_BAD_PARAM;
    }
    *out = (uint32_t)v;
    return HNP_SUCCESS;
}

static int parse_map_by(const char *text, hnp_map_policy_t *out, char *err,
                        size_t errlen)
{
    if (text != NULL && strcmp(text, "slot") == 0)
        *out = HNP_MAP_BY_SLOT;
    else if (text != NULL && strcmp(text, "node") == 0)
        *out = HNP_MAP_BY_NODE;
    else {
        hnp_err_set(err, errlen, "option --map-by expects slot or node, got "
                    "\"%s\"", text != NULL ? text : "");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static bool is(const char *arg, const char *a, const char *b)
{
    return strcmp(arg, a) == 0 || (b != NULL && strcmp(arg, b) == 0);
}

/* Options that take a value. Returns 1 when @p opt was one of them. */
static int parse_valued(hnp_args_t *args, const char *opt, char *value,
                        char *err, size_t errlen)
{
    if (is(opt, "-n", "-np") || is(opt, "--np", "-c"))
        return parse_count(opt, value, &args->np, err, errlen) ?: 1;
    if (is(opt, "-N", "--npernode"))
        return parse_count(opt, value, &args->npernode, err, errlen) ?: 1;
    if (is(opt, "--host", "-H") || is(opt, "--hosts", NULL))
        args->hosts = value;
    else if (is(opt, "--hostfile", "--machinefile"))
        args->hostfile = value;
    else if (is(opt, "--prefix", NULL))
        args->prefix = value;
    else if (is(opt, "--map-by", NULL))
        return parse_map_by(value, &args->map_by, err, errlen) ?: 1;
    else
        return 0;
    return 1;
}

static int parse_flag(hnp_args_t *args, const char *opt)
{
    if (is(opt, "--oversubscribe", NULL))
        args->oversubscribe = true;
    else if (is(opt, "--timing", NULL))
        args->timing = true;
    else if (is(opt, "-h", "--help"))
        args->help = true;
    else if (is(opt, "-V", "--version"))
        args->version = true;
    else
        return 0;
    return 1;
}

int hnp_args_parse(hnp_args_t *args, int argc, char **argv, char *err,
                   size_t errlen)
{
    int i = 1;

    memset(args, 0, sizeof(*args));
    args->map_by = HNP_MAP_BY_SLOT;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--") == 0) {
            i++;
            break;
        }
        if (parse_flag(args, opt))
            continue;
        char *value = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = parse_valued(args, opt, value, err, errlen);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            hnp_err_set(err, errlen, "unknown option %s (see hnp --help)", opt);
            return HNP_ERR_BAD_PARAM;
        }
        if (value == NULL) {
            hnp_err_set(err, errlen, "option %s needs a value", opt);
            return HNP_ERR_BAD_PARAM;
        }
        i++;
    }
    args->app_argv = argv + i;
    args->app_argc = argc - i;
    if (args->app_argc == 0 && !args->help && !args->version) {
        hnp_err_set(err, errlen, "no program to run (see hnp --help)");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}
