/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which parameter names are Open MPI's (ompi_names.h): every program
 * installs the rule at start-up, so that `--mca btl self,tcp` or a
 * `btl = ^openib` line of ~/.hnp/mca-params.conf is not warned of as
 * unknown; hnp hands these to the ranks (runtime/hnp/ompi_params.c).
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "hnp_errors.h"
#include "ompi_names.h"

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
