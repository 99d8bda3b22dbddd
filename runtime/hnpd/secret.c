/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job secret, as the launcher sent it: one line of hex on stdin, or in
 * a file whose path the command line gives (HNP_PLM_SECRET_FILE). The file
 * is removed as soon as it is open, whatever it holds: it is this job's,
 * and nobody else is to read it. One that another user could read, or
 * that is not ours, is refused.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

#define SECRET_WAIT_MS 60000

/* One line from @p fd, waiting for it at most SECRET_WAIT_MS. */
static int read_secret_line(int fd, uint8_t secret[HNP_SECRET_LEN])
{
    char line[2 * HNP_SECRET_LEN + 2];
    size_t got = 0;
    struct pollfd pfd = { .fd = fd, .events = POLLIN };

    while (got < sizeof(line) - 1) {
        if (poll(&pfd, 1, SECRET_WAIT_MS) <= 0)
            break;
        ssize_t n = read(fd, line + got, sizeof(line) - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (memchr(line, '\n', got) != NULL)
            break;
    }
    line[got] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    return hnp_secret_from_hex(line, secret);
}

static int open_secret_file(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0) {
        hnp_err_set(err, errlen, "cannot open the secret file %s: %s", path,
                    strerror(errno));
        return -1;
    }
    if (unlink(path) != 0)
        hnp_err_set(err, errlen, "cannot remove the secret file %s: %s", path,
                    strerror(errno));
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
             st.st_uid != geteuid() || (st.st_mode & (S_IRWXG | S_IRWXO)))
        hnp_err_set(err, errlen, "the secret file %s is not a file of this "
                    "user's that only this user can read", path);
    else
        return fd;
    close(fd);
    return -1;
}

int hnpd_read_secret(const char *file, uint8_t secret[HNP_SECRET_LEN],
                     char *err, size_t errlen)
{
    int fd = file != NULL ? open_secret_file(file, err, errlen) : STDIN_FILENO;
    int rc;

    if (fd < 0)
        return HNP_ERR_IO;
    rc = read_secret_line(fd, secret);
    if (file != NULL)
        close(fd);
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "no valid job secret %s%s",
                    file != NULL ? "in " : "on stdin",
                    file != NULL ? file : "");
    return rc == HNP_SUCCESS ? HNP_SUCCESS : HNP_ERR_BAD_PARAM;
}
