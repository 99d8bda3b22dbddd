/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --output-filename DIR: each rank's output in DIR/1/rank.N/stdout and
 * stderr, Open MPI 4.1's layout: 1 is the job, N the rank with as many
 * digits as the number of ranks has (rank.00 to rank.11 for 12 ranks).
 * DIR:nojobid leaves the job's directory out (DIR/rank.N); DIR:nocopy
 * writes the files only, nothing to hnp's stdout and stderr; both may be
 * given (DIR:nojobid,nocopy), in any case.
 *
 * DIR may lie where others can write (a shared scratch directory, /tmp),
 * so nothing below it is ever followed: a symbolic link planted at
 * DIR/1/rank.0/stdout would have the job's output overwrite whatever it
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
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "outdir.h"

struct hnp_outdir {
    char *dir;  /* where the ranks' directories are (DIR/1), for
                   messages */
    int fd;     /* that directory */
    int digits; /* of N in rank.N */
    uint32_t job; /* DIR/JOB: the job's number (1 for a standalone hnp) */
    bool nocopy;
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

/* @p name in @p parent (@p path in messages), a directory made if
 * missing: its descriptor, or an error. */
static int open_dir_below(int parent, const char *name, const char *path,
                          char *err, size_t errlen)
{
    if (mkdirat(parent, name, 0700) != 0 && errno != EEXIST) {
        hnp_err_set(err, errlen, "--output-filename: cannot create %s: %s",
                    path, strerror(errno));
        return HNP_ERR_IO;
    }
    return open_below(parent, name, true, path, err, errlen);
}

int hnp_outdir_open(const hnp_outdir_t *od, uint32_t rank, const char *stream,
                    char *err, size_t errlen)
{
    char name[32], path[4096];
    int dirfd;

    snprintf(name, sizeof(name), "rank.%0*u", od->digits, rank);
    snprintf(path, sizeof(path), "%s/%s", od->dir, name);
    if ((dirfd = open_dir_below(od->fd, name, path, err, errlen)) < 0)
        return dirfd;
    snprintf(path, sizeof(path), "%s/%s/%s", od->dir, name, stream);
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

/* The directives of DIR:nojobid,nocopy, cut off @p dir. A suffix after
 * the last ':' that is not a list of them is part of the name. */
static void take_directives(char *dir, bool *jobid, bool *nocopy)
{
    char *colon = strrchr(dir, ':');
    bool no_jobid = false, no_copy = false;

    if (colon == NULL)
        return;
    for (char *word = colon + 1; *word != '\0';) {
        size_t len = strcspn(word, ",");
        if (len == 7 && strncasecmp(word, "nojobid", 7) == 0)
            no_jobid = true;
        else if (len == 6 && strncasecmp(word, "nocopy", 6) == 0)
            no_copy = true;
        else
            return;
        word += len + (word[len] == ',');
    }
    *colon = '\0';
    *jobid = !no_jobid;
    *nocopy = no_copy;
}

/* Digits of @p nranks: those of N in rank.N, as Open MPI counts them. */
static int rank_digits(uint32_t nranks)
{
    int digits = 1;

    for (uint32_t n = nranks / 10; n > 0; n /= 10)
        digits++;
    return digits;
}

/* DIR (made as mkdir -p does, and followed), then DIR/1 (made, not
 * followed) unless @p jobid is false: @p od's directory. */
static int open_top(hnp_outdir_t *od, bool jobid, char *err, size_t errlen)
{
    int rc = make_parents(od->dir, err, errlen), top;
    char *job_path = NULL;
    char job[16];

    snprintf(job, sizeof(job), "%u", od->job);
    if (rc != HNP_SUCCESS)
        return rc;
    if ((top = open(od->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        hnp_err_set(err, errlen, "--output-filename: cannot open %s: %s",
                    od->dir, strerror(errno));
        return HNP_ERR_IO;
    }
    if (!jobid) {
        od->fd = top;
        return HNP_SUCCESS;
    }
    if (asprintf(&job_path, "%s%s%s", od->dir,
                 strcmp(od->dir, "/") != 0 ? "/" : "", job) < 0) {
        close(top);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    od->fd = open_dir_below(top, job, job_path, err, errlen);
    close(top);
    free(od->dir);
    od->dir = job_path;
    return od->fd < 0 ? od->fd : HNP_SUCCESS;
}

int hnp_outdir_create(hnp_outdir_t **out, const char *dir, uint32_t job,
                      uint32_t nranks, char *err, size_t errlen)
{
    hnp_outdir_t *od;
    bool jobid = true;
    size_t len;
    int rc;

    *out = NULL;
    if ((od = calloc(1, sizeof(*od))) == NULL ||
        (od->dir = strdup(dir)) == NULL) {
        free(od);
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    od->fd = -1;
    od->job = job;
    od->digits = rank_digits(nranks);
    take_directives(od->dir, &jobid, &od->nocopy);
    len = strlen(od->dir);
    while (len > 1 && od->dir[len - 1] == '/')
        od->dir[--len] = '\0';
    if (len == 0) {
        hnp_err_set(err, errlen, "--output-filename: empty directory name");
        rc = HNP_ERR_BAD_PARAM;
    } else {
        rc = open_top(od, jobid, err, errlen);
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

bool hnp_outdir_nocopy(const hnp_outdir_t *od)
{
    return od != NULL && od->nocopy;
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
