/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixture of the daemon launcher's unit tests (test_launch.c,
 * test_launch_secret.c): an event loop, a child watcher, a temporary
 * directory with a space in its name, and two scripts written there.
 *
 * The agent records its argv and stdin, then behaves as its first argument
 * says (succeed, fail like ssh with 255 for a number of attempts, fail with
 * 1, print a lot, hang, leave a process holding its output, stay until
 * told what status to exit with, as an agent with its daemon attached
 * does) and finally runs its last argument with `sh -c`, as a remote shell
 * would. The "daemon" records its argv and stdin.
 *
 * Every wait runs the event loop with a deadline.
 */
#ifndef HNP_TEST_LAUNCH_FIXTURE_H
#define HNP_TEST_LAUNCH_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <event2/event.h>

#include "launch/launcher.h"
#include "../loop_helpers.h"

#define TEST_DEADLINE 15.0
#define TEST_ALARM 180
#define MAX_VPIDS 8
#define SECRET "00112233445566778899aabbccddeeff"

typedef struct outcome {
    int done;
    int failed;
    int status;
    char *node, *command, *output;
} outcome_t;

typedef struct fixture {
    struct event_base *base;
    struct event *tick;
    hnp_children_t *children;
    hnp_launcher_t *launcher;
    outcome_t outcomes[MAX_VPIDS + 1]; /* the last: every larger vpid */
    char dir[64];
    char agent[PATH_MAX];
    char daemon[PATH_MAX];
} fixture_t;

typedef bool (*cond_fn)(fixture_t *f, void *arg);

bool run_until(fixture_t *f, cond_fn cond, void *arg);
bool nothing_pending(fixture_t *f, void *arg);
bool file_exists(fixture_t *f, void *arg);
bool pid_gone(fixture_t *f, void *arg);
/** The whole of @p path (NUL bytes included), NUL-terminated; *len set. */
char *slurp(const char *path, size_t *len);
/** f->dir/NAME.NODE, in a static buffer. */
char *path_in(fixture_t *f, const char *name, const char *node);
pid_t read_pid(fixture_t *f, const char *name, const char *node);
/** Compare a file of NUL-terminated words with @p words. */
void assert_words(const char *path, char *const *words);
/** The launcher's callbacks: they count in f->outcomes. */
void on_failed(void *ctx, hnp_vpid_t vpid, const char *node,
               const char *command, int wait_status, const char *output);
void on_done(void *ctx, hnp_vpid_t vpid);
/** A launcher with the fixture's daemon and callbacks, its secret files
 *  under f->dir. */
int launcher_new(fixture_t *f, char *const *agent, unsigned max,
                 unsigned retries, double delay);
/** Write @p text to f->dir/NAME, executable; its path into @p path. */
void write_script(fixture_t *f, const char *name, const char *text,
                  char *path);
int launch_setup(void **state);
int launch_teardown(void **state);

#define AGENT(f, mode) ((char *const[]){ (f)->agent, (mode), NULL })

#endif /* HNP_TEST_LAUNCH_FIXTURE_H */
