/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp --dvm --daemonize (dvm.h): the DVM goes on in a child process and
 * the command returns once the report file is written, or with the
 * status of a DVM that failed before.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dvm.h"

/* --daemonize: the parent's end of the pipe the child reports on. Owned
 * by the process, as the detaching is. */
static int detach_fd = -1;

int hnp_dvm_daemonize(void)
{
    int p[2], status = 1;
    char ready = 0;
    pid_t pid;

    if (pipe(p) != 0)
        return 1;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        close(p[0]);
        detach_fd = p[1];
        setsid();
        return -1;
    }
    close(p[1]);
    while (read(p[0], &ready, 1) < 0 && errno == EINTR)
        ;
    close(p[0]);
    if (ready == 1)
        return 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool hnp_dvm_detached(void)
{
    char ready = 1;
    int null;

    if (detach_fd < 0)
        return false;
    null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        fflush(stdout);
        fflush(stderr);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        close(null);
    }
    if (write(detach_fd, &ready, 1) != 1)
        HNP_VERBOSE(hnp_log_stream("hnp"), 1, "the waiting parent is gone");
    close(detach_fd);
    detach_fd = -1;
    return true;
}
