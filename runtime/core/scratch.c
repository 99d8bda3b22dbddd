/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scratch directories (hnp_rte.h): one root a kind, private to this
 * process, made at its first use and removed at its end; the components'
 * directories under it. Whoever guards the process against an abrupt end
 * (the daemon's sentinel) is told of each root as it is made.
 */
#include "config.h"

#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "rte.h"

#define SCRATCH_MEMORY_BASE "/dev/shm"

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *scratch_base(unsigned kind)
{
    struct stat st;
    const char *base = getenv("TMPDIR");

    if (kind == 1 && stat(SCRATCH_MEMORY_BASE, &st) == 0 &&
        S_ISDIR(st.st_mode) && access(SCRATCH_MEMORY_BASE, W_OK | X_OK) == 0)
        return SCRATCH_MEMORY_BASE;
    return base != NULL && base[0] != '\0' ? base : "/tmp";
}

static int root_make(hnp_rte_t *rte, unsigned kind, char *err, size_t errlen)
{
    const char *base = scratch_base(kind);
    char path[PATH_MAX];

    if (rte->scratch_root[kind] != NULL)
        return HNP_SUCCESS;
    int n = snprintf(path, sizeof(path), "%s/hnp-%lu-%ld-XXXXXX", base,
                     (unsigned long)getuid(), (long)getpid());
    if (n < 0 || (size_t)n >= sizeof(path)) {
        hnp_err_set(err, errlen, "cannot make a private directory under %s "
                    "(TMPDIR): the path is too long", base);
        return HNP_ERR_IO;
    }
    if (mkdtemp(path) == NULL) {
        hnp_err_set(err, errlen, "cannot make a private directory under %s "
                    "(TMPDIR): %s", base, strerror(errno));
        return HNP_ERR_IO;
    }
    if ((rte->scratch_root[kind] = strdup(path)) == NULL) {
        rmdir(path);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    if (rte->scratch_guard != NULL)
        rte->scratch_guard(rte->scratch_guard_ctx, kind, path);
    return HNP_SUCCESS;
}

static bool name_ok(const char *name)
{
    return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL &&
           strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int hnp_rte_scratch_make(hnp_rte_t *rte, const char *name, unsigned flags,
                         char **path, char *err, size_t errlen)
{
    unsigned kind = (flags & HNP_RTE_SCRATCH_MEMORY) ? 1 : 0;
    char dir[PATH_MAX];

    if (!name_ok(name) || path == NULL) {
        hnp_err_set(err, errlen, "scratch directory name '%s': expected one "
                    "path component", name != NULL ? name : "(null)");
        return HNP_ERR_BAD_PARAM;
    }
    int rc = root_make(rte, kind, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    int n = snprintf(dir, sizeof(dir), "%s/%s", rte->scratch_root[kind], name);
    if (n < 0 || (size_t)n >= sizeof(dir) || mkdir(dir, 0700) != 0) {
        hnp_err_set(err, errlen, "cannot make %s/%s: %s",
                    rte->scratch_root[kind], name,
                    n < 0 || (size_t)n >= sizeof(dir) ? "path too long"
                                                      : strerror(errno));
        return HNP_ERR_IO;
    }
    if ((*path = strdup(dir)) == NULL) {
        rmdir(dir);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

/* The root @p path is a directory strictly below, or -1. */
static int root_of(const hnp_rte_t *rte, const char *path)
{
    for (int k = 0; k < 2; k++) {
        const char *root = rte->scratch_root[k];
        size_t len = root != NULL ? strlen(root) : 0;
        if (len > 0 && strncmp(path, root, len) == 0 && path[len] == '/' &&
            name_ok(path + len + 1))
            return k;
    }
    return -1;
}

void hnp_rte_scratch_remove(hnp_rte_t *rte, const char *path)
{
    int k = rte != NULL && path != NULL ? root_of(rte, path) : -1;

    if (k < 0)
        return;
    remove_tree(path);
    /* A root left empty goes now (a job's end, the PMIx server's stop),
     * not at the process's end: however the process ends later, nothing
     * of the jobs that ended stays. The next use makes a new one. */
    if (rmdir(rte->scratch_root[k]) == 0) {
        free(rte->scratch_root[k]);
        rte->scratch_root[k] = NULL;
    }
}

void hnp_rte_scratch_empty(hnp_rte_t *rte)
{
    for (unsigned k = 0; k < 2; k++)
        if (rte->scratch_root[k] != NULL)
            remove_tree(rte->scratch_root[k]);
}

void hnp_rte_scratch_release(hnp_rte_t *rte)
{
    for (unsigned k = 0; k < 2; k++) {
        if (rte->scratch_root[k] != NULL)
            remove_tree(rte->scratch_root[k]);
        free(rte->scratch_root[k]);
        rte->scratch_root[k] = NULL;
    }
}
