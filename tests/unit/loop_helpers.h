/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event-loop helpers for the unit tests of code that runs on libevent:
 * a timer callback that only wakes the loop, the monotonic clock, and
 * running the loop until a condition holds or a deadline passes (so that
 * no test can hang); and whether a process the test started has died.
 */
#ifndef HNP_TEST_LOOP_HELPERS_H
#define HNP_TEST_LOOP_HELPERS_H

#include <errno.h>
#include <event2/event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

/* For a persistent timer that bounds each turn of the loop. */
static inline void loop_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

static inline double loop_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Turn @p base until @p cond (an expression) holds: true, or false once
 * @p seconds have passed. */
#define LOOP_UNTIL(base, seconds, cond)                                     \
    __extension__({                                                         \
        double loop_deadline_ = loop_now() + (seconds);                     \
        bool loop_ok_ = true;                                               \
        while (!(cond)) {                                                   \
            if (loop_now() > loop_deadline_) {                              \
                loop_ok_ = false;                                           \
                break;                                                      \
            }                                                               \
            event_base_loop((base), EVLOOP_ONCE);                           \
        }                                                                   \
        loop_ok_;                                                           \
    })

/* Dead, whoever reaps it: gone, or a zombie of another parent. */
static inline bool process_gone(pid_t pid)
{
    char path[64], stat[256];
    FILE *fp;

    if (kill(pid, 0) != 0 && errno == ESRCH)
        return true;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fp = fopen(path, "r");
    if (fp == NULL)
        return true;
    bool zombie = fgets(stat, sizeof(stat), fp) != NULL &&
                  strstr(stat, ") Z ") != NULL;
    fclose(fp);
    return zombie;
}

#endif /* HNP_TEST_LOOP_HELPERS_H */
