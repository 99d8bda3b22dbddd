/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of what happens to a rank when its daemon dies abruptly
 * (runtime/procs/odls.c, forkexec.c, sentinel.c): the parent-death signal
 * ends the rank, and the sentinel ends what the rank started. A helper
 * process plays the daemon and is SIGKILLed; alarm() bounds the program.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "hnp_errors.h"
#include "procs/odls.h"
#include "../loop_helpers.h"


#define TEST_ALARM 180
#define TEST_DEADLINE 15.0

/* ------------------------------------------------------------ death */

static void quiet_output(void *ctx, uint32_t jobid, uint32_t rank,
                         int stream, const void *data, size_t len)
{
    (void)ctx, (void)jobid, (void)rank, (void)stream, (void)data, (void)len;
}

static bool is_running(pid_t pid, const char *comm)
{
    char path[64], name[64] = "";
    FILE *fp;

    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    fp = fopen(path, "r");
    if (fp == NULL)
        return false;
    bool same = fgets(name, sizeof(name), fp) != NULL &&
                strncmp(name, comm, strlen(comm)) == 0 &&
                name[strlen(comm)] == '\n';
    fclose(fp);
    return same;
}

/* A scratch directory the helper hands its sentinel, or NULL; before it,
 * in the same slot, one it replaces (which must stay). */
static const char *helper_dir, *replaced_dir;

/* Runs in a forked helper that plays the daemon: no cmocka here. It
 * starts @p argv and writes its pid to @p report_fd. */
static void __attribute__((noreturn)) daemon_helper(int report_fd,
                                                    char *const *argv)
{
    struct event_base *base = event_base_new();
    hnp_children_t *children = NULL;
    hnp_odls_t *odls = NULL;
    hnp_odls_callbacks_t cb = { quiet_output, NULL, NULL };
    hnp_odls_proc_t proc = { 0, 0, argv, environ, NULL, NULL, NULL, NULL, 0, false };
    pid_t pid = -1;

    alarm(30);
    if (base == NULL || hnp_children_create(&children, base) != 0 ||
        hnp_odls_create(&odls, base, children, &cb) != 0 ||
        (replaced_dir != NULL &&
         hnp_odls_guard_dir(odls, 0, replaced_dir, NULL, 0) != 0) ||
        (helper_dir != NULL &&
         hnp_odls_guard_dir(odls, 0, helper_dir, NULL, 0) != 0) ||
        hnp_odls_launch(odls, &proc, &pid, NULL, 0) <= 0)
        _exit(1);
    if (write(report_fd, &pid, sizeof(pid)) != sizeof(pid))
        _exit(1);
    for (;;)
        pause();
}

/* Forks the helper that starts @p argv; the process's pid. */
static pid_t start_helper(char *const *argv, pid_t *helper)
{
    int fds[2];
    pid_t started = 0;

    assert_int_equal(pipe(fds), 0);
    *helper = fork();
    assert_true(*helper >= 0);
    if (*helper == 0) {
        close(fds[0]);
        daemon_helper(fds[1], argv);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &started, sizeof(started)),
                     sizeof(started));
    close(fds[0]);
    assert_true(started > 0);
    return started;
}

/* The helper dies by SIGKILL, with no chance to clean up; the kernel must
 * kill its process. This test becomes the subreaper to see it die. */
static void test_parent_death_kills(void **state)
{
    pid_t helper;
    int status = 0;

    (void)state;
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    pid_t sleeper = start_helper((char *const[]){ "sleep", "60", NULL },
                                 &helper);
    /* Killed before its exec, the child would exit on its own check of
     * getppid(); the signal is what this test is about. */
    double deadline = loop_now() + TEST_DEADLINE;
    while (!is_running(sleeper, "sleep") && loop_now() < deadline)
        usleep(1000);
    kill(helper, SIGKILL);
    assert_int_equal(waitpid(helper, NULL, 0), helper);

    deadline = loop_now() + TEST_DEADLINE;
    pid_t got = 0;
    while (got == 0 && loop_now() < deadline) {
        got = waitpid(sleeper, &status, WNOHANG);
        if (got == 0)
            usleep(10000);
    }
    if (got == 0)
        kill(sleeper, SIGKILL);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    assert_int_equal(got, sleeper);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* Whether @p parent has a child, from every process's /proc stat. */
static bool has_child(pid_t parent)
{
    DIR *proc = opendir("/proc");
    struct dirent *e;
    bool found = false;

    assert_non_null(proc);
    while (!found && (e = readdir(proc)) != NULL) {
        char path[300], line[512];
        int ppid = 0;
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        FILE *fp = fopen(path, "r");
        if (fp == NULL)
            continue;
        /* pid (comm) state ppid: comm may hold anything but its last ')' */
        if (fgets(line, sizeof(line), fp) != NULL) {
            char *end = strrchr(line, ')');
            found = end != NULL && sscanf(end + 1, " %*c %d", &ppid) == 1 &&
                    ppid == (int)parent;
        }
        fclose(fp);
    }
    closedir(proc);
    return found;
}

/* Reaps what comes to this process; whether the group @p pgid is empty and
 * no child is left (the helper's sentinel among them). */
static bool group_and_children_gone(pid_t pgid)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    return kill(-pgid, 0) != 0 && errno == ESRCH &&
           waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* What the process started dies too, though the parent-death signal
 * reaches the process alone: the helper's sentinel kills its group, then
 * exits. Orphans come to this test, the subreaper. */
static void test_parent_death_kills_descendants(void **state)
{
    pid_t helper;

    (void)state;
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    pid_t shell = start_helper(
        (char *const[]){ "sh", "-c", "sleep 60; true", NULL }, &helper);
    double deadline = loop_now() + TEST_DEADLINE;
    while (!has_child(shell) && loop_now() < deadline)
        usleep(1000);
    kill(helper, SIGKILL);
    assert_int_equal(waitpid(helper, NULL, 0), helper);

    deadline = loop_now() + TEST_DEADLINE;
    bool gone = false;
    while (!(gone = group_and_children_gone(shell)) && loop_now() < deadline)
        usleep(10000);
    if (!gone)
        kill(-shell, SIGKILL);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    assert_true(gone);
}

/* The helper's scratch directory goes with it: its sentinel kills the
 * process, which writes in the directory until then, waits for it to be
 * gone, and removes the directory and all in it. */
static void test_parent_death_removes_scratch(void **state)
{
    char dir[] = "/tmp/hnp-odls-death-XXXXXX";
    char kept[] = "/tmp/hnp-odls-kept-XXXXXX";
    char script[PATH_MAX + 128], path[PATH_MAX + 16];
    pid_t helper;
    struct stat st;

    (void)state;
    assert_non_null(mkdtemp(dir));
    assert_non_null(mkdtemp(kept));
    snprintf(path, sizeof(path), "%s/sub", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(script, sizeof(script),
             "while :; do echo x > %s/sub/file; sleep 0.02; done", dir);
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    helper_dir = dir;
    replaced_dir = kept;
    pid_t shell = start_helper((char *const[]){ "sh", "-c", script, NULL },
                               &helper);
    helper_dir = replaced_dir = NULL;
    snprintf(path, sizeof(path), "%s/sub/file", dir);
    double deadline = loop_now() + TEST_DEADLINE;
    while (stat(path, &st) != 0 && loop_now() < deadline)
        usleep(1000);
    kill(helper, SIGKILL);
    assert_int_equal(waitpid(helper, NULL, 0), helper);

    deadline = loop_now() + TEST_DEADLINE;
    bool gone = false;
    while (loop_now() < deadline &&
           !(gone = group_and_children_gone(shell) && stat(dir, &st) != 0))
        usleep(10000);
    if (!gone) {
        kill(-shell, SIGKILL);
        snprintf(script, sizeof(script), "rm -rf %s", dir);
        assert_int_equal(system(script), 0);
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    /* the directory its slot held before was replaced: not removed */
    bool kept_there = stat(kept, &st) == 0;
    rmdir(kept);
    assert_true(gone);
    assert_true(kept_there);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parent_death_kills),
        cmocka_unit_test(test_parent_death_kills_descendants),
        cmocka_unit_test(test_parent_death_removes_scratch),
    };

    alarm(TEST_ALARM);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
