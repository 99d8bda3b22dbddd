/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The secret's file (secret.h). The directory is made with mkdtemp (mode
 * 0700, a name nobody can guess), so no other user can place a file or a
 * link where the secret goes; the file is still opened with O_EXCL and
 * O_NOFOLLOW, so that even a leftover of our own is never written through.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secret.h"

int launch_secret_dir_create(const char *base, char **dir, char *err,
                             size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    char *path = NULL;

    if (base == NULL || base[0] == '\0')
        base = tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp";
    if (asprintf(&path, "%s/hnp-secret.XXXXXX", base) < 0) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    if (mkdtemp(path) == NULL) {
        hnp_err_set(err, errlen, "cannot make a private directory for the "
                    "job secret in %s: %s", base, strerror(errno));
        free(path);
        return HNP_ERR_IO;
    }
    *dir = path;
    return HNP_SUCCESS;
}

int launch_secret_write(const char *path, const char *line, char *err,
                        size_t errlen)
{
    size_t len = strlen(line);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  S_IRUSR | S_IWUSR);
    const char *why = NULL;

    if (fd < 0) {
        hnp_err_set(err, errlen, "cannot create the secret file %s: %s", path,
                    strerror(errno));
        return HNP_ERR_IO;
    }
    /* The umask may only take bits away; the daemon wants exactly these. */
    if (fchmod(fd, S_IRUSR | S_IWUSR) != 0)
        why = strerror(errno);
    else {
        ssize_t n = write(fd, line, len);
        if (n != (ssize_t)len)
            why = n < 0 ? strerror(errno) : "short write";
    }
    if (close(fd) != 0 && why == NULL)
        why = strerror(errno);
    if (why == NULL)
        return HNP_SUCCESS;
    hnp_err_set(err, errlen, "cannot write the secret file %s: %s", path, why);
    unlink(path);
    return HNP_ERR_IO;
}
