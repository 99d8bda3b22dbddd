/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LD_PRELOAD shim: the process's SLOW_SENDMSG_AT-th sendmsg (counted
 * from 1) waits SLOW_SENDMSG_SECONDS first, as a process starved on a
 * loaded node would. A DVM client's second sendmsg is its proof of the
 * secret (dvm-slow-client.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    static ssize_t (*real)(int, const struct msghdr *, int);
    static int count;
    const char *at = getenv("SLOW_SENDMSG_AT");
    const char *seconds = getenv("SLOW_SENDMSG_SECONDS");

    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "sendmsg");
    if (at != NULL && seconds != NULL && ++count == atoi(at)) {
        struct timespec ts = { atoi(seconds), 0 };
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return real(fd, msg, flags);
}
