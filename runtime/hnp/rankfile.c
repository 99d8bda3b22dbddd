/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --rankfile, in Open MPI's format: one rank a line,
 *
 *   rank 0=node1 slot=1:0-2     socket 1, its cores 0 to 2
 *   rank 1=+n1 slot=0,2         the second node of the host list, cores 0, 2
 *   rank 2=node3 slot=0:*       every core of socket 0
 *
 * '#' starts a comment. The HNP reads the hosts; the slot= text goes to
 * the rank's daemon, which binds it on its topology (runtime/bind).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "hnp_errors.h"
#include "mapping.h"

typedef struct rank_line {
    uint32_t rank;
    char host[256];
    char spec[256];
} rank_line_t;

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* "rank N=HOST [slot=SPEC]"; 1: a rank, 0: blank or comment, < 0: bad */
static int parse_line(char *line, rank_line_t *out)
{
    const char *p;
    char *end;
    size_t len;

    line[strcspn(line, "#\n")] = '\0';
    p = skip_space(line);
    if (*p == '\0')
        return 0;
    if (strncmp(p, "rank", 4) != 0)
        return HNP_ERR_BAD_PARAM;
    p = skip_space(p + 4);
    errno = 0;
    unsigned long r = strtoul(p, &end, 10);
    if (end == p || errno != 0 || r >= UINT32_MAX)
        return HNP_ERR_BAD_PARAM;
    p = skip_space(end);
    if (*p++ != '=')
        return HNP_ERR_BAD_PARAM;
    p = skip_space(p);
    len = strcspn(p, " \t\r");
    if (len == 0 || len >= sizeof(out->host))
        return HNP_ERR_BAD_PARAM;
    out->rank = (uint32_t)r;
    memcpy(out->host, p, len);
    out->host[len] = '\0';
    out->spec[0] = '\0';
    p = skip_space(p + len);
    if (*p == '\0')
        return 1;
    if (strncmp(p, "slot", 4) != 0 || *(p = skip_space(p + 4)) != '=')
        return HNP_ERR_BAD_PARAM;
    p = skip_space(p + 1);
    len = strcspn(p, " \t\r");
    if (len == 0 || len >= sizeof(out->spec) || *skip_space(p + len) != '\0')
        return HNP_ERR_BAD_PARAM;
    memcpy(out->spec, p, len);
    out->spec[len] = '\0';
    return 1;
}

/* The index in @p nodes of a rankfile's host: a name, or +nK (the K-th
 * node of the list). A name not in the list is added when @p may_add. */
static int host_index(hnp_nodelist_t *nodes, const char *host, bool may_add,
                      uint32_t *out)
{
    if (host[0] == '+' && host[1] == 'n' && isdigit((unsigned char)host[2])) {
        unsigned long k = strtoul(host + 2, NULL, 10);
        if (k >= nodes->count)
            return HNP_ERR_NOT_FOUND;
        *out = (uint32_t)k;
        return HNP_SUCCESS;
    }
    for (size_t i = 0; i < nodes->count; i++)
        if (strcmp(nodes->nodes[i].name, host) == 0) {
            *out = (uint32_t)i;
            return HNP_SUCCESS;
        }
    if (!may_add)
        return HNP_ERR_NOT_FOUND;
    if (hnp_nodelist_add(nodes, host, 0, false) != HNP_SUCCESS)
        return HNP_ERR_NOMEM;
    *out = (uint32_t)(nodes->count - 1);
    return HNP_SUCCESS;
}

/* Room for rank @p r in the growing arrays. */
static int grow(uint32_t r, uint32_t *cap, uint32_t **index, char ***specs)
{
    uint32_t n = *cap;

    if (r < n)
        return HNP_SUCCESS;
    while (n <= r)
        n = n == 0 ? 16 : n * 2;
    uint32_t *i2 = realloc(*index, n * sizeof(**index));
    if (i2 != NULL)
        *index = i2;
    char **s2 = i2 != NULL ? realloc(*specs, n * sizeof(**specs)) : NULL;
    if (s2 == NULL)
        return HNP_ERR_NOMEM;
    *specs = s2;
    for (uint32_t k = *cap; k < n; k++) {
        (*index)[k] = UINT32_MAX;
        s2[k] = NULL;
    }
    *cap = n;
    return HNP_SUCCESS;
}

static int read_lines(FILE *f, const char *path, hnp_nodelist_t *nodes,
                      bool may_add, uint32_t **index, char ***specs,
                      uint32_t *nranks, char *err, size_t errlen)
{
    char line[1024];
    unsigned lineno = 0;
    uint32_t cap = 0;
    rank_line_t rl;

    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        int rc = parse_line(line, &rl);
        if (rc == 0)
            continue;
        if (rc < 0) {
            hnp_err_set(err, errlen, "%s:%u: expected \"rank N=HOST "
                        "slot=SPEC\"", path, lineno);
            return HNP_ERR_BAD_PARAM;
        }
        if (grow(rl.rank, &cap, index, specs) != HNP_SUCCESS)
            return HNP_ERR_NOMEM;
        if ((*index)[rl.rank] != UINT32_MAX) {
            hnp_err_set(err, errlen, "%s:%u: rank %u is placed twice", path,
                        lineno, rl.rank);
            return HNP_ERR_BAD_PARAM;
        }
        rc = host_index(nodes, rl.host, may_add, &(*index)[rl.rank]);
        if (rc != HNP_SUCCESS) {
            hnp_err_set(err, errlen, "%s:%u: host %s is not among the hosts "
                        "of the job", path, lineno, rl.host);
            return rc;
        }
        if (((*specs)[rl.rank] = strdup(rl.spec)) == NULL)
            return HNP_ERR_NOMEM;
        if (rl.rank >= *nranks)
            *nranks = rl.rank + 1;
    }
    return HNP_SUCCESS;
}

/* Every rank of the job has a line: a rank without one has no place. */
static int check_complete(const char *path, const uint32_t *index,
                          uint32_t nranks, uint32_t np, char *err,
                          size_t errlen)
{
    uint32_t n = np > 0 ? np : nranks;

    for (uint32_t r = 0; r < n; r++)
        if (r >= nranks || index[r] == UINT32_MAX) {
            hnp_err_set(err, errlen, "%s: no line places rank %u", path, r);
            return HNP_ERR_BAD_PARAM;
        }
    if (n == 0) {
        hnp_err_set(err, errlen, "%s: no ranks", path);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

int hnp_mapping_read_rankfile(hnp_args_t *args, hnp_nodelist_t *nodes,
                              bool may_add, uint32_t **node_index,
                              uint32_t *nranks, char *err, size_t errlen)
{
    hnp_mapping_t *m = &args->mapping;
    uint32_t *index = NULL, n = 0, np = hnp_args_total_np(args);
    char **specs = NULL;
    FILE *f = fopen(m->rankfile, "r");
    int rc;

    if (f == NULL) {
        hnp_err_set(err, errlen, "--rankfile %s: %s", m->rankfile,
                    strerror(errno));
        return HNP_ERR_NOT_FOUND;
    }
    rc = read_lines(f, m->rankfile, nodes, may_add, &index, &specs, &n, err,
                    errlen);
    fclose(f);
    if (rc == HNP_SUCCESS)
        rc = check_complete(m->rankfile, index, n, np, err, errlen);
    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory reading %s", m->rankfile);
    if (rc == HNP_SUCCESS) {
        uint32_t used = np > 0 ? np : n;
        for (uint32_t r = used; r < n; r++) /* lines past -n: unused */
            free(specs[r]);
        m->place.specs = specs;
        m->place.nspecs = used;
        *node_index = index;
        *nranks = used;
        return HNP_SUCCESS;
    }
    for (uint32_t r = 0; specs != NULL && r < n; r++)
        free(specs[r]);
    free(specs);
    free(index);
    return rc;
}
