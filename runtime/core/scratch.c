/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scratch directories (hnp_rte.h): one root a kind, private to this
 * process, made at its first use and removed at its end; the components'
 * directories under it. Whoever guards the process against an abrupt end
 * (the daemon's sentinel) is told of each root as it is made.
 *
 * A process killed together with its guard (Slurm ends a step's processes
 * all at once, with SIGKILL) leaves its roots behind: the first root a
 * process makes under a base first removes the roots there of this user's
 * processes that are gone. A root is left alone while its maker lives
 * (by the pid in its name) and while anyone holds the lock its maker took
 * on it (flock, which a process of another pid namespace that shares the
 * base holds too). Where many processes share a base, each looks at a
 * share of the roots there (SCRATCH_SWEEP_LOOKS).
 */
#include "config.h"

#define _XOPEN_SOURCE_EXTENDED 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
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

/* The pid in @p name when it is a root of this user's ("hnp-UID-PID-"
 * and mkdtemp's six characters), else 0. */
static pid_t root_maker(const char *name, const char *prefix, size_t plen)
{
    char *end = NULL;
    long pid;

    if (strncmp(name, prefix, plen) != 0 || name[plen] < '1' ||
        name[plen] > '9')
        return 0;
    errno = 0;
    pid = strtol(name + plen, &end, 10);
    if (errno != 0 || pid <= 0 || pid > INT32_MAX || *end != '-' ||
        strlen(end + 1) != 6)
        return 0;
    return (pid_t)pid;
}

/* The root @p name under @p base of a process that is gone, if nobody
 * holds its lock: removed with what is in it. */
static void remove_if_dead(const char *base, const char *name, pid_t maker)
{
    char path[PATH_MAX];
    struct stat st;
    int fd;

    if (maker == getpid() || kill(maker, 0) == 0 || errno != ESRCH)
        return;
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", base, name) >=
        sizeof(path))
        return;
    fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && st.st_uid == getuid() &&
        flock(fd, LOCK_EX | LOCK_NB) == 0)
        remove_tree(path);
    close(fd);
}

/* Each process that makes a root looks at no more than about this many
 * others: many daemons sharing one base (a simulated cluster: a thousand
 * on one machine) would otherwise each look at every other's root. With
 * more, each root is looked at by chance, and a dead one is still found
 * by one of the many that look. */
#define SCRATCH_SWEEP_LOOKS 64

/* Whether to look at one of the roots under a base holding @p subdirs
 * directories (a directory's link count is 2 plus its subdirectories; 0
 * when the file system does not count them): every one while there are
 * few, else SCRATCH_SWEEP_LOOKS of them on average. */
static bool sweep_looks(unsigned *seed, unsigned long subdirs)
{
    if (subdirs <= SCRATCH_SWEEP_LOOKS)
        return true;
    return (unsigned long)rand_r(seed) % subdirs < SCRATCH_SWEEP_LOOKS;
}

static void sweep_dead_roots(hnp_rte_t *rte, unsigned kind, const char *base)
{
    char prefix[64];
    size_t plen;
    DIR *dir;
    struct stat st;
    struct timespec now;
    unsigned long subdirs = 0;
    unsigned seed;

    if (rte->scratch_swept[kind])
        return;
    rte->scratch_swept[kind] = true;
    plen = (size_t)snprintf(prefix, sizeof(prefix), "hnp-%lu-",
                            (unsigned long)getuid());
    if ((dir = opendir(base)) == NULL)
        return;
    if (fstat(dirfd(dir), &st) == 0 && st.st_nlink > 2)
        subdirs = (unsigned long)st.st_nlink - 2;
    clock_gettime(CLOCK_MONOTONIC, &now);
    seed = (unsigned)getpid() ^ (unsigned)now.tv_nsec;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        pid_t maker = root_maker(e->d_name, prefix, plen);
        if (maker > 0 && sweep_looks(&seed, subdirs))
            remove_if_dead(base, e->d_name, maker);
    }
    closedir(dir);
}

/* The root's lock, held while it is ours. */
static int root_lock(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void root_forget(hnp_rte_t *rte, unsigned kind)
{
    free(rte->scratch_root[kind]);
    rte->scratch_root[kind] = NULL;
    if (rte->scratch_lock[kind] >= 0)
        close(rte->scratch_lock[kind]);
    rte->scratch_lock[kind] = -1;
}

static int root_make(hnp_rte_t *rte, unsigned kind, char *err, size_t errlen)
{
    const char *base = scratch_base(kind);
    char path[PATH_MAX];

    if (rte->scratch_root[kind] != NULL)
        return HNP_SUCCESS;
    sweep_dead_roots(rte, kind, base);
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
    /* where flock is refused (a file system without locks), the maker's
     * pid alone keeps the root */
    rte->scratch_lock[kind] = root_lock(path);
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
    if (rmdir(rte->scratch_root[k]) == 0)
        root_forget(rte, (unsigned)k);
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
        if (rte->scratch_root[k] != NULL) {
            remove_tree(rte->scratch_root[k]);
            root_forget(rte, k);
        }
    }
}
