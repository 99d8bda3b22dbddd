/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The component architecture's own parameters: where components are
 * searched, its verbosity, and where the log goes (log_output), with the
 * sources every program reads (the environment, the user's and the
 * system's files).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mca_internal.h"

#define MCA_USER_PARAM_FILE "/.hnp/mca-params.conf"

/* Send the log to where `log_output` says; a file's name gets @p suffix.
 * On an error the log stays where it was. */
static int apply_log_output(hnp_mca_t *mca, const char *suffix, char *err,
                            size_t errlen)
{
    const char *value = mca->log_output != NULL ? mca->log_output : "";
    FILE *fp = NULL, *previous = mca->log_file;
    char path[4096];

    if (value[0] == '\0' || strcmp(value, "stderr") == 0) {
        fp = NULL;
    } else if (strcmp(value, "stdout") == 0) {
        fp = stdout;
    } else if (strncmp(value, "file:", 5) == 0 && value[5] != '\0') {
        snprintf(path, sizeof(path), "%s%s", value + 5, suffix);
        /* "e": the programs fork; their children must not inherit it. */
        if ((fp = fopen(path, "ae")) == NULL) {
            hnp_err_set(err, errlen, "log_output: cannot open '%s': %s",
                        path, strerror(errno));
            return HNP_ERR_IO;
        }
    } else {
        hnp_err_set(err, errlen, "bad value '%s' for parameter log_output: "
                    "expected stderr, stdout or file:PATH", value);
        return HNP_ERR_BAD_PARAM;
    }
    hnp_log_set_file(fp);
    mca->log_file = fp != NULL && fp != stdout ? fp : NULL;
    if (previous != NULL)
        fclose(previous);
    mca->log_applied = true;
    return HNP_SUCCESS;
}

int hnp_mca_apply_log_output(hnp_mca_t *mca, const char *file_suffix,
                             char *err, size_t errlen)
{
    return apply_log_output(mca, file_suffix != NULL ? file_suffix : "", err,
                            errlen);
}

FILE *hnp_mca_log_file(const hnp_mca_t *mca)
{
    return mca->log_file;
}

/* See mca_internal.h. */
int mca_register_own_params(hnp_mca_t *mca, char *err, size_t errlen)
{
    const hnp_param_desc_t descs[] = {
        { .framework = "mca", .component = "base", .name = "component_path",
          .type = HNP_PARAM_STRING, .default_value = mca->default_path,
          .help = "Colon-separated directories searched for components "
                  "(mca_<framework>_<name>.so), in order; ~ is $HOME",
          .level = 4, .storage = &mca->component_path },
        { .framework = "mca", .component = "base", .name = "verbose",
          .type = HNP_PARAM_INT, .default_value = "0",
          .help = "Verbosity of the component architecture: 10 shows each "
                  "component found or rejected, 20 every step of the search",
          .level = 5, .storage = &mca->log->verbose },
        /* The runtime's core (its jobs, all-gathers, requests, daemons)
         * is no framework: its stream's verbosity is set here. */
        { .framework = "rte", .component = "base", .name = "verbose",
          .type = HNP_PARAM_INT, .default_value = "0",
          .help = "Verbosity of the runtime's core (jobs, all-gathers, "
                  "requests, daemons): 1 each job's begin and end on a "
                  "node, 2 every all-gather joined or dropped",
          .level = 5, .storage = &hnp_log_stream("rte")->verbose },
        /* A process-wide setting: no component, so its name is log_output. */
        { .framework = "log", .component = NULL, .name = "output",
          .type = HNP_PARAM_STRING, .default_value = "stderr",
          .help = "Where messages go: stderr, stdout or file:PATH",
          .level = 3, .storage = &mca->log_output },
    };
    int rc;

    for (; mca->own_params < sizeof(descs) / sizeof(descs[0]);
         mca->own_params++) {
        rc = hnp_param_register(mca->params, &descs[mca->own_params], err,
                                errlen);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return mca->log_applied ? HNP_SUCCESS
                            : apply_log_output(mca, "", err, errlen);
}

/* NAME's value in @p envp, or the process's own environment without one. */
static const char *env_value(char *const *envp, const char *name)
{
    size_t len = strlen(name);

    if (envp == NULL)
        return getenv(name);
    for (; *envp != NULL; envp++)
        if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
            return *envp + len + 1;
    return NULL;
}

static int load_user_file(hnp_mca_t *mca, const char *home, char *err,
                          size_t errlen)
{
    size_t len;
    char *path;
    int rc;

    if (home == NULL || home[0] == '\0')
        return HNP_SUCCESS;
    len = strlen(home) + strlen(MCA_USER_PARAM_FILE) + 1;
    if ((path = malloc(len)) == NULL) {
        hnp_err_set(err, errlen, "out of memory reading the user's parameters");
        return HNP_ERR_NOMEM;
    }
    snprintf(path, len, "%s%s", home, MCA_USER_PARAM_FILE);
    rc = hnp_params_load_file(mca->params, path, HNP_PARAM_SRC_USER_FILE,
                              true, err, errlen);
    free(path);
    return rc;
}

int hnp_mca_load_default_sources(hnp_mca_t *mca, char *const *envp,
                                 const char *system_file, char *err,
                                 size_t errlen)
{
    int rc;

    rc = hnp_params_load_env(mca->params, envp != NULL ? envp : environ, err,
                             errlen);
    if (rc == HNP_SUCCESS)
        rc = load_user_file(mca, env_value(envp, "HOME"), err, errlen);
    if (rc == HNP_SUCCESS && system_file != NULL)
        rc = hnp_params_load_file(mca->params, system_file,
                                  HNP_PARAM_SRC_SYSTEM_FILE, true, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = mca_register_own_params(mca, err, errlen);
    return rc;
}
