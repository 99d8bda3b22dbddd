/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the child watcher (runtime/procs/children.c): exit statuses and
 * signals reach the callback of the right pid exactly once, unwatched and
 * forgotten children are reaped silently, callbacks may watch and forget,
 * and no exit is lost whatever the order of exit, SIGCHLD and watch.
 *
 * Every wait runs the event loop with a deadline, and alarm() bounds the
 * whole program, so a broken watcher fails instead of hanging.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "procs/children.h"
#include "hnp_errors.h"
#include "../loop_helpers.h"

#define TEST_DEADLINE 10.0   /* seconds any single wait may take */
#define TEST_ALARM 120       /* seconds the whole program may take */

typedef struct fixture {
    struct event_base *base;
    struct event *tick;       /* bounds each loop turn */
    hnp_children_t *children;
} fixture_t;

typedef struct record {
    pid_t pid;
    int calls;
    int status;
} record_t;

typedef bool (*cond_fn)(void *arg);

static bool run_until(fixture_t *f, cond_fn cond, void *arg)
{
    return LOOP_UNTIL(f->base, TEST_DEADLINE, cond(arg));
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static fixture_t *fixture_new(bool with_watcher)
{
    fixture_t *f = calloc(1, sizeof(*f));
    struct timeval tv = { 0, 10000 };

    assert_non_null(f);
    f->base = event_base_new();
    assert_non_null(f->base);
    f->tick = event_new(f->base, -1, EV_PERSIST, loop_tick, NULL);
    assert_int_equal(event_add(f->tick, &tv), 0);
    if (with_watcher)
        assert_int_equal(hnp_children_create(&f->children, f->base), 0);
    return f;
}

static void fixture_free(fixture_t *f)
{
    hnp_children_destroy(f->children);
    event_free(f->tick);
    event_base_free(f->base);
    free(f);
}

static int setup(void **state)
{
    *state = fixture_new(true);
    return 0;
}

static int teardown(void **state)
{
    fixture_free(*state);
    return 0;
}

/* A child that exits with @p code, or dies of @p sig when it is not 0. */
static pid_t spawn(int code, int sig)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (sig != 0) {
            signal(sig, SIG_DFL);
            raise(sig);
        }
        _exit(code);
    }
    return pid;
}

/* A child that waits until it is killed. */
static pid_t spawn_sleeper(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

static void record_exit(void *ctx, pid_t pid, int status)
{
    record_t *r = ctx;
    assert_int_equal(pid, r->pid);
    r->calls++;
    r->status = status;
}

static bool all_called(void *arg)
{
    record_t *r = arg;
    for (; r->pid != 0; r++)
        if (r->calls == 0)
            return false;
    return true;
}

/* Whether @p pid has been reaped (by anyone): it is no child of ours. */
static bool reaped(void *arg)
{
    siginfo_t info;
    pid_t pid = *(pid_t *)arg;

    /* WNOWAIT: looking must not reap it in the watcher's place. */
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 &&
           errno == ECHILD;
}

static void test_exit_statuses(void **state)
{
    fixture_t *f = *state;
    record_t r[5] = { { spawn(0, 0), 0, 0 }, { spawn(7, 0), 0, 0 },
                      { spawn(0, SIGKILL), 0, 0 },
                      { spawn(0, SIGUSR1), 0, 0 }, { 0, 0, 0 } };

    for (int i = 0; i < 4; i++)
        assert_int_equal(hnp_children_watch(f->children, r[i].pid,
                                            record_exit, &r[i]), 0);
    assert_int_equal(hnp_children_count(f->children), 4);
    assert_true(run_until(f, all_called, r));
    assert_true(WIFEXITED(r[0].status) && WEXITSTATUS(r[0].status) == 0);
    assert_true(WIFEXITED(r[1].status) && WEXITSTATUS(r[1].status) == 7);
    assert_true(WIFSIGNALED(r[2].status) && WTERMSIG(r[2].status) == SIGKILL);
    assert_true(WIFSIGNALED(r[3].status) && WTERMSIG(r[3].status) == SIGUSR1);
    /* Once each, and no more on later turns of the loop. */
    sleep_ms(50);
    event_base_loop(f->base, EVLOOP_NONBLOCK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(r[i].calls, 1);
    assert_int_equal(hnp_children_count(f->children), 0);
}

static void test_many_children(void **state)
{
    fixture_t *f = *state;
    enum { N = 64 };
    record_t r[N + 1] = { { 0, 0, 0 } };

    for (int i = 0; i < N; i++) {
        r[i].pid = spawn(i + 1, 0);
        assert_int_equal(hnp_children_watch(f->children, r[i].pid,
                                            record_exit, &r[i]), 0);
    }
    assert_true(run_until(f, all_called, r));
    for (int i = 0; i < N; i++) {
        assert_int_equal(r[i].calls, 1);
        assert_int_equal(WEXITSTATUS(r[i].status), i + 1);
    }
}

static void test_unwatched_reaped_silently(void **state)
{
    fixture_t *f = *state;
    pid_t stray = spawn(3, 0);
    record_t r[2] = { { spawn(0, 0), 0, 0 }, { 0, 0, 0 } };

    assert_int_equal(hnp_children_watch(f->children, r[0].pid, record_exit,
                                        &r[0]), 0);
    assert_true(run_until(f, all_called, r));
    assert_true(run_until(f, reaped, &stray));
    assert_int_equal(r[0].calls, 1);
}

static void test_forget(void **state)
{
    fixture_t *f = *state;
    record_t r = { spawn(5, 0), 0, 0 };

    assert_int_equal(hnp_children_watch(f->children, r.pid, record_exit, &r),
                     0);
    hnp_children_forget(f->children, r.pid);
    assert_int_equal(hnp_children_count(f->children), 0);
    assert_true(run_until(f, reaped, &r.pid));
    assert_int_equal(r.calls, 0);
    hnp_children_forget(f->children, r.pid); /* unknown now: harmless */
}

/* The callback of the first child watches a new child and forgets a
 * third, from inside the reaping loop. */
typedef struct reentry {
    hnp_children_t *children;
    record_t first, second, forgotten;
} reentry_t;

static void reentrant_exit(void *ctx, pid_t pid, int status)
{
    reentry_t *re = ctx;

    record_exit(&re->first, pid, status);
    re->second.pid = spawn(11, 0);
    assert_int_equal(hnp_children_watch(re->children, re->second.pid,
                                        record_exit, &re->second), 0);
    hnp_children_forget(re->children, re->forgotten.pid);
    kill(re->forgotten.pid, SIGKILL);
}

static bool second_called(void *arg)
{
    return ((reentry_t *)arg)->second.calls > 0;
}

static void test_reentrant_callbacks(void **state)
{
    fixture_t *f = *state;
    reentry_t re = { .children = f->children };

    re.forgotten.pid = spawn_sleeper();
    assert_int_equal(hnp_children_watch(f->children, re.forgotten.pid,
                                        record_exit, &re.forgotten), 0);
    re.first.pid = spawn(0, 0);
    assert_int_equal(hnp_children_watch(f->children, re.first.pid,
                                        reentrant_exit, &re), 0);
    assert_true(run_until(f, second_called, &re));
    assert_true(run_until(f, reaped, &re.forgotten.pid));
    assert_int_equal(re.first.calls, 1);
    assert_int_equal(WEXITSTATUS(re.second.status), 11);
    assert_int_equal(re.forgotten.calls, 0);
    assert_int_equal(hnp_children_count(f->children), 0);
}

/* Exit and SIGCHLD both happen before the watch (the loop has not run):
 * the reaping, which only the loop does, still finds the watch. */
static void test_exit_before_watch(void **state)
{
    fixture_t *f = *state;
    record_t r[2] = { { spawn(9, 0), 0, 0 }, { 0, 0, 0 } };

    sleep_ms(100);
    assert_int_equal(hnp_children_watch(f->children, r[0].pid, record_exit,
                                        &r[0]), 0);
    assert_true(run_until(f, all_called, r));
    assert_int_equal(WEXITSTATUS(r[0].status), 9);
}

/* A zombie from before the watcher existed: its SIGCHLD was never seen. */
static void test_zombie_before_watcher(void **state)
{
    fixture_t *f = fixture_new(false);
    record_t r[2] = { { spawn(4, 0), 0, 0 }, { 0, 0, 0 } };

    (void)state;
    sleep_ms(100);
    assert_int_equal(hnp_children_create(&f->children, f->base), 0);
    assert_int_equal(hnp_children_watch(f->children, r[0].pid, record_exit,
                                        &r[0]), 0);
    assert_true(run_until(f, all_called, r));
    assert_int_equal(WEXITSTATUS(r[0].status), 4);
    fixture_free(f);
}

static void test_watch_errors(void **state)
{
    fixture_t *f = *state;
    record_t r = { spawn_sleeper(), 0, 0 };

    assert_int_equal(hnp_children_watch(f->children, getpid(), record_exit,
                                        &r), HNP_ERR_NOT_FOUND);
    assert_int_equal(hnp_children_watch(f->children, 0, record_exit, &r),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_children_watch(f->children, r.pid, NULL, &r),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_children_watch(f->children, r.pid, record_exit, &r),
                     0);
    assert_int_equal(hnp_children_watch(f->children, r.pid, record_exit, &r),
                     HNP_ERR_EXISTS);
    assert_int_equal(hnp_children_count(f->children), 1);
    kill(r.pid, SIGKILL);
    record_t all[2] = { r, { 0, 0, 0 } };
    hnp_children_forget(f->children, r.pid);
    assert_int_equal(hnp_children_watch(f->children, r.pid, record_exit,
                                        &all[0]), 0);
    assert_true(run_until(f, all_called, all));
    assert_true(WIFSIGNALED(all[0].status));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exit_statuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_children, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwatched_reaped_silently, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_forget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reentrant_callbacks, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_exit_before_watch, setup,
                                        teardown),
        cmocka_unit_test(test_zombie_before_watcher),
        cmocka_unit_test_setup_teardown(test_watch_errors, setup, teardown),
    };

    alarm(TEST_ALARM);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
