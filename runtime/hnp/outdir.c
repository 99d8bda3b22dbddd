/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --output-filename DIR: each rank's output in DIR/rank.N/stdout and
 * stderr.
 *
 * DIR may lie where others can write (a shared scratch directory, /tmp),
 * so nothing below it is ever followed: a symbolic link planted at
 * DIR/rank.0/stdout would have the job's output overwrite whatever it
 * points at. Every rank's directory and files are made, or checked, before
 * anything is launched, so that a refusal costs no launch and leaves no
 * process behind. Each path is opened relative to its parent's descriptor
 * with O_NOFOLLOW and looked at again with fstat once open, so that
 * something swapped in between the check and the open is refused too.
 *
 * Directories are made 0700 and files 0600, as hnp's other files: a job's
 * output is its user's alone, and may hold what the job was given.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "outdir.h"

struct hnp_outdir {
    char *dir; /* as given, trailing slashes cut: for messages */
    int fd;    /* DIR itself */
};

static const char *const stream_names[] = { "stdout", "stderr" };

/* Why what @p st describes is not ours to write below (@p want_dir) or
 * into; NULL when it is. */
static const char *refusal(const struct stat *st, bool want_dir)
{
    if (S_ISLNK(st->st_mode))
        return "is a symbolic link";
    if (want_dir && !S_ISDIR(st->st_mode))
        return "is not a directory";
    if (!want_dir && !S_ISREG(st->st_mode))
        return "is not a regular file";
    if (st->st_uid != geteuid())
        return "belongs to another user";
    if (!want_dir && st->st_nlink > 1)
        return "has other hard links";
    return NULL;
}

static int refuse(const char *path, const char *why, char *err,
                  size_t errlen)
{
    hnp_err_set(err, errlen, "--output-filename: %s %s; hnp writes only "
                "directories and files of its own below the directory "
                "given (remove it, or give another directory)", path, why);
    return HNP_ERR_BAD_PARAM;
}

/* Open @p name in @p parent, a directory (@p want_dir) or a file to write,
 * created if missing and emptied; @p path names it in messages. */
static int open_below(int parent, const char *name, bool want_dir,
                      const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO swapped in after the look must not block hnp. */
    int flags = want_dir ? O_RDONLY | O_DIRECTORY
                         : O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY;
    const char *why = NULL;
    struct stat st;
    int fd;

    /* Look first: merely opening a FIFO or a device can block or act. */
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        (why = refusal(&st, want_dir)) != NULL)
        return refuse(path, why, err, errlen);
    fd = openat(parent, name, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            (why = refusal(&st, want_dir)) != NULL)
            return refuse(path, why, err, errlen);
        hnp_err_set(err, errlen, "--output-filename: cannot open %s: %s",
                    path, strerror(e));
        return HNP_ERR_IO;
    }
    if (fstat(fd, &st) == 0 && (why = refusal(&st, want_dir)) == NULL &&
        (want_dir || ftruncate(fd, 0) == 0))
        return fd;
    if (why == NULL)
        hnp_err_set(err, errlen, "--output-filename: cannot write %s: %s",
                    path, strerror(errno));
    close(fd);
    return why != NULL ? refuse(path, why, err, errlen) : HNP_ERR_IO;
}

/* DIR/rank.N, made if missing: its descriptor, or an error. */
static int open_rank_dir(const hnp_outdir_t *od, uint32_t rank, char *err,
                         size_t errlen)
{
    char name[32], path[4096];

    snprintf(name, sizeof(name), "rank.%u", rank);
    snprintf(path, sizeof(path), "%s/%s", od->dir, name);
    if (mkdirat(od->fd, name, 0700) != 0 && errno != EEXIST) {
        hnp_err_set(err, errlen, "--output-filename: cannot create %s: %s",
                    path, strerror(errno));
        return HNP_ERR_IO;
    }
    return open_below(od->fd, name, true, path, err, errlen);
}

int hnp_outdir_open(const hnp_outdir_t *od, uint32_t rank, const char *stream,
                    char *err, size_t errlen)
{
    char path[4096];
    int dirfd = open_rank_dir(od, rank, err, errlen);

    if (dirfd < 0)
        return dirfd;
    snprintf(path, sizeof(path), "%s/rank.%u/%s", od->dir, rank, stream);
    int fd = open_below(dirfd, stream, false, path, err, errlen);
    close(dirfd);
    return fd;
}

/* mkdir -p: every missing directory of @p dir, 0700; those that exist are
 * left as they are, symbolic links included (the user named them). */
static int make_parents(char *dir, char *err, size_t errlen)
{
    struct stat st;

    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char end = *p;
        *p = '\0';
        /* An existing directory may still say EACCES or EROFS. */
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            int e = errno;
            if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
                hnp_err_set(err, errlen, "--output-filename: cannot create "
                            "%s: %s", dir, strerror(e));
                *p = end;
                return HNP_ERR_IO;
            }
        }
        *p = end;
        if (end == '\0')
            return HNP_SUCCESS;
    }
}

static int make_rank(const hnp_outdir_t *od, uint32_t rank, char *err,
                     size_t errlen)
{
    for (size_t s = 0; s < 2; s++) {
        int fd = hnp_outdir_open(od, rank, stream_names[s], err, errlen);
        if (fd < 0)
            return fd;
        close(fd);
    }
    return HNP_SUCCESS;
}

int hnp_outdir_create(hnp_outdir_t **out, const char *dir, uint32_t nranks,
                      char *err, size_t errlen)
{
    size_t len = strlen(dir);
    hnp_outdir_t *od;
    int rc = HNP_SUCCESS;

    *out = NULL;
    if (len == 0) {
        hnp_err_set(err, errlen, "--output-filename: empty directory name");
        return HNP_ERR_BAD_PARAM;
    }
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if ((od = calloc(1, sizeof(*od))) == NULL ||
        (od->dir = strndup(dir, len)) == NULL) {
        free(od);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    od->fd = -1;
    rc = make_parents(od->dir, err, errlen);
    if (rc == HNP_SUCCESS &&
        (od->fd = open(od->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        hnp_err_set(err, errlen, "--output-filename: cannot open %s: %s",
                    od->dir, strerror(errno));
        rc = HNP_ERR_IO;
    }
    for (uint32_t r = 0; rc == HNP_SUCCESS && r < nranks; r++)
        rc = make_rank(od, r, err, errlen);
    if (rc != HNP_SUCCESS) {
        hnp_outdir_destroy(od);
        return rc;
    }
    *out = od;
    return HNP_SUCCESS;
}

void hnp_outdir_destroy(hnp_outdir_t *od)
{
    if (od == NULL)
        return;
    if (od->fd >= 0)
        close(od->fd);
    free(od->dir);
    free(od);
}
