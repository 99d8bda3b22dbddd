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

/* The first word of an Open MPI parameter: its projects, then the
 * frameworks of Open MPI 4.1's OPAL, ORTE and OMPI layers. */
static const char *const ompi_words[] = {
    "opal", "orte", "ompi", "mpi",
    "allocator", "backtrace", "btl", "compress", "crs", "dl", "event",
    "hwloc", "if", "installdirs", "memchecker", "memcpy", "memory", "mpool",
    "patcher", "pmix", "pstat", "rcache", "reachable", "shmem", "timer",
    "errmgr", "ess", "filem", "grpcomm", "iof", "odls", "oob", "plm", "ras",
    "regx", "rmaps", "rml", "routed", "rtc", "schizo", "snapc", "sstore",
    "state",
    "bml", "coll", "crcp", "fbtl", "fcoll", "fs", "hook", "io", "mtl", "op",
    "osc", "pml", "rte", "sharedfp", "topo", "vprotocol",
    NULL,
};

/* Letters, digits and '_': what an environment variable's name holds. */
static bool plain_name(const char *name)
{
    if (name[0] == '\0' || name[0] == '_')
        return false;
    for (const char *c = name; *c != '\0'; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') ||
              (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            return false;
    return true;
}

static bool ompi_word(const char *word, size_t len)
{
    for (const char *const *w = ompi_words; *w != NULL; w++)
        if (strlen(*w) == len && strncmp(*w, word, len) == 0)
            return true;
    return false;
}

struct family {
    const char *name;
    size_t prefix; /* the length of the first two words and the '_' between */
    bool hnps;
};

static int shares_family(const hnp_param_info_t *info, void *ctx)
{
    struct family *f = ctx;
    const char *n = info->full_name;

    if (strncmp(n, f->name, f->prefix) == 0 &&
        (n[f->prefix] == '_' || n[f->prefix] == '\0'))
        f->hnps = true;
    return f->hnps;
}

/* hnp's own: a first word that names a parameter of hnp's (a framework's
 * selection parameter: plm, routed, pmi, exchange), or first two words
 * that one of hnp's parameters begins with (oob_tcp, hwloc_base). */
static bool hnps_family(const hnp_params_t *params, const char *name)
{
    size_t first = strcspn(name, "_");
    struct family f = { name, 0, false };
    hnp_param_info_t info;
    char word[64];

    if (first < sizeof(word)) {
        memcpy(word, name, first);
        word[first] = '\0';
        if (hnp_param_lookup(params, word, &info) == HNP_SUCCESS)
            return true;
    }
    if (name[first] == '\0')
        return false;
    f.prefix = first + 1 + strcspn(name + first + 1, "_");
    hnp_params_foreach(params, shares_family, &f);
    return f.hnps;
}

bool hnp_ompi_param_claims(const char *name, void *params)
{
    return plain_name(name) && ompi_word(name, strcspn(name, "_")) &&
           !hnps_family(params, name);
}

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
