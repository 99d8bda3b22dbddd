/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp-info: what this installation of hnp consists of (frameworks and
 * components, where each was loaded from) and every parameter with its
 * value and where that value came from. It reads the same parameter
 * sources as hnp, so a user can try a setting here first. It registers the
 * frameworks but opens nothing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"
#include "hnp_log.h"

#define INFO_ERR_LEN 2048
#define INFO_LEVEL_MAX 9

/* Options of hnp-info that take values, so that hnp_setup does not take
 * those values for an application and stop looking for --mca. */
static const hnp_setup_option_t info_value_options[] = {
    { "--param", 2, NULL },
    { "--level", 1, NULL },
    { NULL, 0, NULL },
};

static void print_usage(void)
{
    printf("Usage: hnp-info [OPTION]...\n"
           "List the frameworks and components of hnp, or its parameters.\n"
           "\n"
           "  --param FRAMEWORK COMPONENT  show the parameters of COMPONENT\n"
           "                               of FRAMEWORK; either may be "
           "'all';\n"
           "                               'base' is the framework itself,\n"
           "                               'mca' the component "
           "architecture\n"
           "  --level N                    only parameters of level 1..N "
           "(default 9: all)\n"
           "  --parsable                   one fact a line, for scripts\n"
           "  --mca NAME VALUE             set a parameter, as hnp does\n"
           "  --tune FILE                  read parameters from FILE, as "
           "hnp does\n"
           "  -h, --help                   show this help and exit\n"
           "  -V, --version                show the version and exit\n"
           "\n"
           "Parameters are also read from HNP_MCA_<name> environment "
           "variables,\n"
           "~/.hnp/mca-params.conf and %s/hnp-mca-params.conf.\n"
           "See hnp-info(1).\n",
           HNP_SYSCONFDIR);
}

static int parse_level(const char *text, int *level, char *err,
                       size_t errlen)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);

    if (end == text || *end != '\0' || value < 1 || value > INFO_LEVEL_MAX) {
        hnp_err_set(err, errlen, "--level wants a number from 1 to %d, not "
                    "'%s'", INFO_LEVEL_MAX, text);
        return HNP_ERR_BAD_PARAM;
    }
    *level = (int)value;
    return HNP_SUCCESS;
}

/* Handles an option that takes values; returns the words it used (0: not
 * one of these) or an error. --mca and --tune are checked by hnp_setup;
 * here they are only stepped over. */
static int parse_valued_option(int avail, char **words,
                               hnp_info_options_t *opts, char *err,
                               size_t errlen)
{
    const char *arg = words[0];

    if (strcmp(arg, "--mca") == 0 || strcmp(arg, "-mca") == 0)
        return avail < 3 ? avail : 3;
    if (strcmp(arg, "--tune") == 0)
        return avail < 2 ? avail : 2;
    if (strcmp(arg, "--param") == 0) {
        if (avail < 3) {
            hnp_err_set(err, errlen, "--param needs a framework and a "
                        "component (--param FRAMEWORK|all COMPONENT|all)");
            return HNP_ERR_BAD_PARAM;
        }
        opts->param_framework = words[1];
        opts->param_component = words[2];
        return 3;
    }
    if (strcmp(arg, "--level") == 0) {
        if (avail < 2) {
            hnp_err_set(err, errlen, "--level needs a number from 1 to %d",
                        INFO_LEVEL_MAX);
            return HNP_ERR_BAD_PARAM;
        }
        int rc = parse_level(words[1], &opts->level, err, errlen);
        return rc < 0 ? rc : 2;
    }
    return 0;
}

static int parse_flag(const char *arg, hnp_info_options_t *opts, char *err,
                      size_t errlen)
{
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
        opts->help = true;
    else if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0)
        opts->version = true;
    else if (strcmp(arg, "--parsable") == 0 ||
             strcmp(arg, "--parseable") == 0)
        opts->parsable = true;
    else {
        hnp_err_set(err, errlen, "%s '%s'; see hnp-info --help",
                    arg[0] == '-' ? "unknown option" : "unexpected argument",
                    arg);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static int parse_options(int argc, char **argv, hnp_info_options_t *opts,
                         char *err, size_t errlen)
{
    int i = 1;

    while (i < argc) {
        int used = parse_valued_option(argc - i, argv + i, opts, err,
                                       errlen);
        if (used < 0)
            return used;
        if (used == 0) {
            int rc = parse_flag(argv[i], opts, err, errlen);
            if (rc < 0)
                return rc;
            used = 1;
        }
        i += used;
    }
    return HNP_SUCCESS;
}

static int run_listing(const hnp_info_options_t *opts, int *argc,
                       char **argv, char *err, size_t errlen)
{
    hnp_setup_t setup;

    int rc = hnp_setup_init_opts(&setup, argc, argv, info_value_options, err,
                                 errlen);
    if (rc < 0)
        return rc;
    if (opts->param_framework != NULL) {
        rc = hnp_info_print_params(&setup, opts, err, errlen);
    } else {
        hnp_info_print_version(opts->parsable);
        rc = hnp_info_print_components(&setup, opts->parsable);
    }
    if (rc == HNP_SUCCESS && opts->param_framework == NULL)
        hnp_info_print_launch_model(opts->parsable);
    hnp_setup_fini(&setup);
    return rc;
}

int main(int argc, char **argv)
{
    hnp_info_options_t opts = { .level = INFO_LEVEL_MAX };
    hnp_log_stream_t *log = hnp_log_stream("info");
    char err[INFO_ERR_LEN] = "";

    hnp_log_set_program("hnp-info");
    int rc = parse_options(argc, argv, &opts, err, sizeof(err));
    if (rc == HNP_SUCCESS && opts.help) {
        print_usage();
        return EXIT_SUCCESS;
    }
    if (rc == HNP_SUCCESS && opts.version) {
        printf("hnp-info (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
        return EXIT_SUCCESS;
    }
    if (rc == HNP_SUCCESS)
        rc = run_listing(&opts, &argc, argv, err, sizeof(err));
    /* A listing cut short by a full disk must not look complete. */
    if (rc == HNP_SUCCESS && (fflush(stdout) != 0 || ferror(stdout))) {
        hnp_err_set(err, sizeof(err), "cannot write the listing");
        rc = HNP_ERR_IO;
    }
    if (rc < 0) {
        HNP_ERROR_LOG(log, "%s", err[0] != '\0' ? err : hnp_strerror(rc));
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}
