/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open MPI's MCA parameters, handed to the ranks (ompi_params.h). Open MPI
 * reads OMPI_MCA_<name> from a rank's environment; mpirun puts every
 * --mca it does not own there, and passes on the OMPI_MCA_* of its own
 * environment to the nodes, whose daemons may start with an empty one.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "ompi_params.h"

#define OMPI_ENV_PREFIX "OMPI_MCA_"

extern char **environ;

/* ------------------------------------------------------------ to ranks */

struct ompi_env {
    char **entries; /* "OMPI_MCA_name=value", owned */
    size_t count;
    const hnp_params_t *params;
};

/* Put OMPI_MCA_@p name=@p value in @p env; one already there is replaced
 * only when @p replace. */
static int env_put(struct ompi_env *env, const char *name, size_t len,
                   const char *value, bool replace)
{
    char *entry = NULL;
    size_t i = 0;

    if (asprintf(&entry, OMPI_ENV_PREFIX "%.*s=%s", (int)len, name,
                 value) < 0)
        return HNP_ERR_NOMEM;
    len += strlen(OMPI_ENV_PREFIX) + 1;
    while (i < env->count && strncmp(env->entries[i], entry, len) != 0)
        i++;
    if (i < env->count) {
        if (replace) {
            free(env->entries[i]);
            env->entries[i] = entry;
        } else
            free(entry);
        return HNP_SUCCESS;
    }
    char **grown = realloc(env->entries, (env->count + 1) * sizeof(*grown));
    if (grown == NULL) {
        free(entry);
        return HNP_ERR_NOMEM;
    }
    env->entries = grown;
    env->entries[env->count++] = entry;
    return HNP_SUCCESS;
}

static int add_param(const char *name, const char *value,
                     hnp_param_source_t source, void *ctx)
{
    struct ompi_env *env = ctx;

    if (!hnp_ompi_param_claims(name, (void *)env->params))
        return 0;
    /* --mca and HNP_MCA_* beat an OMPI_MCA_* of the environment; a file's
     * value does not. */
    return env_put(env, name, strlen(name), value,
                   source >= HNP_PARAM_SRC_ENV) < 0 ? HNP_ERR_NOMEM : 0;
}

static int add_environment(struct ompi_env *env)
{
    size_t prefix = strlen(OMPI_ENV_PREFIX);

    for (char **e = environ; *e != NULL; e++) {
        const char *name = *e + prefix, *eq;
        if (strncmp(*e, OMPI_ENV_PREFIX, prefix) != 0 ||
            (eq = strchr(name, '=')) == NULL || eq == name)
            continue;
        if (env_put(env, name, (size_t)(eq - name), eq + 1, true) < 0)
            return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

int hnp_ompi_params_forward(const hnp_params_t *params, hnp_args_t *args,
                            char *err, size_t errlen)
{
    struct ompi_env env = { NULL, 0, params };
    int rc = add_environment(&env);

    if (rc == HNP_SUCCESS)
        rc = hnp_params_foreach_unregistered(params, add_param, &env);
    if (rc == HNP_SUCCESS)
        rc = hnp_args_add_default_env(args, env.entries, env.count);
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "out of memory passing Open MPI's "
                    "parameters to the processes");
    for (size_t i = 0; i < env.count; i++)
        free(env.entries[i]);
    free(env.entries);
    return rc;
}
