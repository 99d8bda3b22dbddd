/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "forkenv.h"

struct hnp_pmi_fork {
    char **vars;   /* "NAME=value", one a name */
    size_t nvars, cap_vars;
    int *fds;
    size_t nfds, cap_fds;
};

hnp_pmi_fork_t *hnp_fork_create(void)
{
    return calloc(1, sizeof(hnp_pmi_fork_t));
}

void hnp_fork_destroy(hnp_pmi_fork_t *fork)
{
    if (fork == NULL)
        return;
    for (size_t i = 0; i < fork->nvars; i++)
        free(fork->vars[i]);
    for (size_t i = 0; i < fork->nfds; i++)
        close(fork->fds[i]);
    free(fork->vars);
    free(fork->fds);
    free(fork);
}

static int grow(void **array, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap != 0 ? *cap : 8;
    void *grown;

    if (need <= *cap)
        return HNP_SUCCESS;
    while (n < need)
        n *= 2;
    if ((grown = realloc(*array, n * size)) == NULL)
        return HNP_ERR_NOMEM;
    *array = grown;
    *cap = n;
    return HNP_SUCCESS;
}

/* The entry of @p vars whose name is the @p len bytes at @p name. */
static char **find_var(char *const *vars, size_t n, const char *name,
                       size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(vars[i], name, len) == 0 && vars[i][len] == '=')
            return (char **)&vars[i];
    return NULL;
}

int hnp_pmi_fork_setenv(hnp_pmi_fork_t *fork, const char *name,
                        const char *value)
{
    size_t len = name != NULL ? strlen(name) : 0;
    char *entry, **old;

    if (fork == NULL || len == 0 || strchr(name, '=') != NULL ||
        value == NULL)
        return HNP_ERR_BAD_PARAM;
    if ((entry = malloc(len + strlen(value) + 2)) == NULL)
        return HNP_ERR_NOMEM;
    memcpy(entry, name, len);
    entry[len] = '=';
    strcpy(entry + len + 1, value);
    if ((old = find_var(fork->vars, fork->nvars, name, len)) != NULL) {
        free(*old);
        *old = entry;
        return HNP_SUCCESS;
    }
    if (grow((void **)&fork->vars, &fork->cap_vars, fork->nvars + 1,
             sizeof(*fork->vars)) != HNP_SUCCESS) {
        free(entry);
        return HNP_ERR_NOMEM;
    }
    fork->vars[fork->nvars++] = entry;
    return HNP_SUCCESS;
}

int hnp_pmi_fork_keep_fd(hnp_pmi_fork_t *fork, int fd)
{
    if (fork == NULL || fd <= 2)
        return HNP_ERR_BAD_PARAM;
    if (grow((void **)&fork->fds, &fork->cap_fds, fork->nfds + 1,
             sizeof(*fork->fds)) != HNP_SUCCESS) {
        close(fd); /* handed over: the caller no longer owns it */
        return HNP_ERR_NOMEM;
    }
    fork->fds[fork->nfds++] = fd;
    return HNP_SUCCESS;
}

char **hnp_fork_environ(const hnp_pmi_fork_t *fork, char *const *base)
{
    size_t n = 0, k = 0;
    char **env;

    while (base != NULL && base[n] != NULL)
        n++;
    if ((env = calloc(n + fork->nvars + 1, sizeof(*env))) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (find_var(fork->vars, fork->nvars, base[i],
                     strcspn(base[i], "=")) == NULL)
            env[k++] = base[i];
    for (size_t i = 0; i < fork->nvars; i++)
        env[k++] = fork->vars[i];
    return env;
}

const int *hnp_fork_fds(const hnp_pmi_fork_t *fork, size_t *count)
{
    *count = fork->nfds;
    return fork->fds;
}
