/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of local launch (runtime/procs/odls.c, with children.c and
 * forkexec.c): output complete and in order, every exit reported after its
 * output, exec and chdir failures reported with their errno, the
 * environment, PATH and working directory honoured, a clean signal state
 * and process group in the child, kill_all's grace, a job's kill and
 * signal that spare another job's processes, destroy, and a
 * descendant that keeps the pipes open (a daemon's abrupt death:
 * test_odls_death.c).
 *
 * Every wait runs the event loop with a deadline, and alarm() bounds the
 * whole program; every process started is ended before its test returns.
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

#define TEST_DEADLINE 15.0
#define TEST_ALARM 180
#define MAX_RANKS 8

extern char **environ;

typedef struct result {
    char *out, *err;
    size_t out_len, err_len;
    int out_eofs, err_eofs;
    int exits;
    bool output_after_exit;
    bool eof_before_exit;
    pid_t pid;
    int status;
    int exec_errno;
    double exit_time;
    uint32_t jobid;         /* as the callbacks named it */
} result_t;

typedef struct fixture {
    struct event_base *base;
    struct event *tick;
    hnp_children_t *children;
    hnp_odls_t *odls;
    result_t results[MAX_RANKS];
    char dir[64];
} fixture_t;

/* ------------------------------------------------------------ helpers */

typedef bool (*cond_fn)(fixture_t *f, void *arg);

static bool run_until(fixture_t *f, cond_fn cond, void *arg)
{
    return LOOP_UNTIL(f->base, TEST_DEADLINE, cond(f, arg));
}

static bool all_exited(fixture_t *f, void *arg)
{
    (void)arg;
    return hnp_odls_num_alive(f->odls) == 0;
}

static bool rank_exited(fixture_t *f, void *arg)
{
    return f->results[*(uint32_t *)arg].exits > 0;
}

static bool has_output(fixture_t *f, void *arg)
{
    return f->results[*(uint32_t *)arg].out_len > 0;
}

static bool pid_gone(fixture_t *f, void *arg)
{
    (void)f;
    return process_gone(*(pid_t *)arg);
}

static void append(char **buf, size_t *len, const void *data, size_t n)
{
    *buf = realloc(*buf, *len + n + 1);
    assert_non_null(*buf);
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static void on_output(void *ctx, uint32_t jobid, uint32_t rank, int stream,
                      const void *data, size_t len)
{
    fixture_t *f = ctx;
    result_t *r = &f->results[rank];

    assert_true(rank < MAX_RANKS);
    r->jobid = jobid;
    if (r->exits > 0)
        r->output_after_exit = true;
    if (len == 0)
        *(stream == HNP_STDOUT ? &r->out_eofs : &r->err_eofs) += 1;
    else if (stream == HNP_STDOUT)
        append(&r->out, &r->out_len, data, len);
    else
        append(&r->err, &r->err_len, data, len);
}

static void on_exited(void *ctx, uint32_t jobid, uint32_t rank, pid_t pid,
                      int status, int exec_errno)
{
    fixture_t *f = ctx;
    result_t *r = &f->results[rank];

    assert_int_equal(jobid, r->jobid);
    r->exits++;
    r->eof_before_exit = r->out_eofs == 1 && r->err_eofs == 1;
    r->pid = pid;
    r->status = status;
    r->exec_errno = exec_errno;
    r->exit_time = loop_now();
}

static void odls_new(fixture_t *f)
{
    hnp_odls_callbacks_t cb = { on_output, on_exited, f };
    assert_int_equal(hnp_odls_create(&f->odls, f->base, f->children, &cb), 0);
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    struct timeval tv = { 0, 10000 };

    assert_non_null(f);
    f->base = event_base_new();
    f->tick = event_new(f->base, -1, EV_PERSIST, loop_tick, NULL);
    assert_int_equal(event_add(f->tick, &tv), 0);
    assert_int_equal(hnp_children_create(&f->children, f->base), 0);
    odls_new(f);
    snprintf(f->dir, sizeof(f->dir), "/tmp/hnp-test-odls.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[128];

    hnp_odls_destroy(f->odls);
    hnp_children_destroy(f->children);
    event_free(f->tick);
    event_base_free(f->base);
    for (int i = 0; i < MAX_RANKS; i++) {
        free(f->results[i].out);
        free(f->results[i].err);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

static pid_t launch_in_job(fixture_t *f, uint32_t jobid, uint32_t rank,
                           char *const *argv, char *const *env,
                           const char *wdir)
{
    hnp_odls_proc_t proc = { jobid, rank, argv, env != NULL ? env : environ,
                             wdir, NULL, NULL, NULL, 0, false };
    char err[256] = "";
    pid_t pid = 0;
    int rc = hnp_odls_launch(f->odls, &proc, &pid, err, sizeof(err));

    if (rc <= 0)
        fail_msg("launch of %s failed: %s", argv[0], err);
    assert_int_equal(rc, pid);
    return pid;
}

static pid_t launch(fixture_t *f, uint32_t rank, char *const *argv,
                    char *const *env, const char *wdir)
{
    return launch_in_job(f, 0, rank, argv, env, wdir);
}

static void write_file(const char *dir, const char *name, const char *text,
                       mode_t mode, char *path, size_t pathlen)
{
    snprintf(path, pathlen, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    assert_int_equal(chmod(path, mode), 0);
}

/* The checks every normally finished rank must pass. */
static void assert_clean_exit(const result_t *r)
{
    assert_int_equal(r->exits, 1);
    assert_true(r->eof_before_exit);
    assert_false(r->output_after_exit);
    assert_int_equal(r->out_eofs, 1);
    assert_int_equal(r->err_eofs, 1);
}

#define SH(script) ((char *const[]){ "sh", "-c", (script), NULL })

/* ------------------------------------------------------------ output */

static void test_output_in_order(void **state)
{
    fixture_t *f = *state;
    enum { N = 3000 };
    char *out = NULL, *err = NULL, line[32];
    size_t out_len = 0, err_len = 0;

    launch(f, 0, SH("i=0; while [ $i -lt 3000 ]; do echo out$i; "
                    "echo err$i >&2; i=$((i+1)); done; exit 3"), NULL, NULL);
    assert_true(run_until(f, all_exited, NULL));
    for (int i = 0; i < N; i++) {
        int n = snprintf(line, sizeof(line), "out%d\n", i);
        append(&out, &out_len, line, (size_t)n);
        n = snprintf(line, sizeof(line), "err%d\n", i);
        append(&err, &err_len, line, (size_t)n);
    }
    result_t *r = &f->results[0];
    assert_clean_exit(r);
    assert_true(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 3);
    assert_int_equal(r->exec_errno, 0);
    assert_int_equal(r->out_len, out_len);
    assert_string_equal(r->out, out);
    assert_string_equal(r->err, err);
    free(out);
    free(err);
}

/* Megabytes on two ranks at once: nothing lost, nothing crossed. */
static void test_large_output(void **state)
{
    fixture_t *f = *state;
    char *expect = NULL;
    size_t len = 0;

    launch(f, 0, (char *const[]){ "seq", "1", "300000", NULL }, NULL, NULL);
    launch(f, 1, SH("seq 1 300000 >&2"), NULL, NULL);
    assert_int_equal(hnp_odls_num_alive(f->odls), 2);
    assert_true(run_until(f, all_exited, NULL));
    expect = malloc(300000 * 8);
    assert_non_null(expect);
    for (int i = 1; i <= 300000; i++)
        len += (size_t)sprintf(expect + len, "%d\n", i);
    assert_clean_exit(&f->results[0]);
    assert_clean_exit(&f->results[1]);
    assert_int_equal(f->results[0].out_len, len);
    assert_int_equal(f->results[0].err_len, 0);
    assert_int_equal(f->results[1].err_len, len);
    assert_int_equal(f->results[1].out_len, 0);
    assert_memory_equal(f->results[0].out, expect, len);
    assert_memory_equal(f->results[1].err, expect, len);
    free(expect);
}

static void test_exit_status_and_signal(void **state)
{
    fixture_t *f = *state;

    pid_t p0 = launch(f, 0, SH("exit 42"), NULL, NULL);
    launch(f, 1, SH("kill -USR1 $$"), NULL, NULL);
    launch(f, 2, (char *const[]){ "true", NULL }, NULL, NULL);
    assert_true(run_until(f, all_exited, NULL));
    for (int i = 0; i < 3; i++)
        assert_clean_exit(&f->results[i]);
    assert_int_equal(f->results[0].pid, p0);
    assert_int_equal(WEXITSTATUS(f->results[0].status), 42);
    assert_true(WIFSIGNALED(f->results[1].status));
    assert_int_equal(WTERMSIG(f->results[1].status), SIGUSR1);
    assert_true(WIFEXITED(f->results[2].status));
    assert_int_equal(WEXITSTATUS(f->results[2].status), 0);
}

/* ------------------------------------------------------------ exec */

static void test_exec_missing_program(void **state)
{
    fixture_t *f = *state;
    char *env[] = { "PATH=/usr/bin:/bin", NULL };

    launch(f, 0, (char *const[]){ "hnp-no-such-program", NULL }, env, NULL);
    launch(f, 1, (char *const[]){ "/nonexistent/program", NULL }, env, NULL);
    launch(f, 2, (char *const[]){ "", NULL }, env, NULL);
    assert_true(run_until(f, all_exited, NULL));
    for (int i = 0; i < 3; i++) {
        assert_clean_exit(&f->results[i]);
        assert_int_equal(f->results[i].exec_errno, ENOENT);
        assert_int_equal(f->results[i].out_len + f->results[i].err_len, 0);
    }
}

static void test_exec_not_executable(void **state)
{
    fixture_t *f = *state;
    char path[PATH_MAX], pathenv[PATH_MAX + 8];

    write_file(f->dir, "noexec", "#!/bin/sh\necho ran\n", 0644, path,
               sizeof(path));
    snprintf(pathenv, sizeof(pathenv), "PATH=%s", f->dir);
    char *env[] = { pathenv, NULL };
    launch(f, 0, (char *const[]){ path, NULL }, NULL, NULL);
    launch(f, 1, (char *const[]){ "noexec", NULL }, env, NULL);
    launch(f, 2, (char *const[]){ f->dir, NULL }, NULL, NULL);
    assert_true(run_until(f, all_exited, NULL));
    for (int i = 0; i < 3; i++) {
        assert_clean_exit(&f->results[i]);
        assert_int_equal(f->results[i].exec_errno, EACCES);
    }
}

/* The process's own PATH is searched, not the daemon's, and a script
 * without "#!" runs under the shell, as with execvp. */
static void test_path_from_process_env(void **state)
{
    fixture_t *f = *state;
    char prog[PATH_MAX], script[PATH_MAX], pathenv[PATH_MAX + 64];
    char expect[PATH_MAX + 16];

    write_file(f->dir, "hnp-test-prog", "#!/bin/sh\necho found $0\n", 0755,
               prog, sizeof(prog));
    write_file(f->dir, "noshebang", "echo no shebang $#\n", 0755, script,
               sizeof(script));
    snprintf(pathenv, sizeof(pathenv), "PATH=/nonexistent:%s:/usr/bin:/bin",
             f->dir);
    char *env[] = { pathenv, NULL };
    launch(f, 0, (char *const[]){ "hnp-test-prog", NULL }, env, NULL);
    launch(f, 1, (char *const[]){ "noshebang", "a", "b", NULL }, env, NULL);
    assert_true(run_until(f, all_exited, NULL));
    snprintf(expect, sizeof(expect), "found %s\n", prog);
    assert_string_equal(f->results[0].out, expect);
    assert_string_equal(f->results[1].out, "no shebang 2\n");
    assert_int_equal(f->results[0].exec_errno, 0);
    assert_int_equal(f->results[1].exec_errno, 0);
}

static void test_working_directory(void **state)
{
    fixture_t *f = *state;
    char real[PATH_MAX], expect[PATH_MAX + 2], missing[PATH_MAX];

    assert_non_null(realpath(f->dir, real));
    snprintf(expect, sizeof(expect), "%s\n", real);
    snprintf(missing, sizeof(missing), "%s/no-such-dir", f->dir);
    launch(f, 0, (char *const[]){ "pwd", NULL }, NULL, f->dir);
    launch(f, 1, (char *const[]){ "pwd", NULL }, NULL, missing);
    assert_true(run_until(f, all_exited, NULL));
    assert_clean_exit(&f->results[0]);
    assert_string_equal(f->results[0].out, expect);
    assert_clean_exit(&f->results[1]);
    assert_int_equal(f->results[1].exec_errno, ENOENT);
}

static void test_environment(void **state)
{
    fixture_t *f = *state;
    char *env[] = { "PATH=/usr/bin:/bin", "HNP_TEST_VAR=hello world", NULL };

    launch(f, 0, SH("printf '%s|%s' \"$HNP_TEST_VAR\" \"${HOME-unset}\""),
           env, NULL);
    assert_true(run_until(f, all_exited, NULL));
    assert_clean_exit(&f->results[0]);
    assert_string_equal(f->results[0].out, "hello world|unset");
}

/* Several descriptors the pmi components hand over reach the child under
 * their own numbers; others it does not inherit. */
static void test_inherited_fds(void **state)
{
    fixture_t *f = *state;
    int a[2], b[2], c[2];
    char script[256], got[32] = "";
    ssize_t n;

    assert_int_equal(pipe2(a, O_CLOEXEC), 0);
    assert_int_equal(pipe2(b, O_CLOEXEC), 0);
    assert_int_equal(pipe2(c, O_CLOEXEC), 0);
    int keep[] = { a[1], b[1] };
    snprintf(script, sizeof(script),
             "echo a >&%d && echo b >&%d && { echo c >&%d; } 2>/dev/null "
             "|| echo no-c", a[1], b[1], c[1]);
    /* bash: dash redirects single-digit descriptors only */
    char *const argv[] = { "bash", "-c", script, NULL };
    hnp_odls_proc_t proc = { 0, 0, argv, environ, NULL, NULL, NULL, keep, 2, false };
    char err[256] = "";

    assert_true(hnp_odls_launch(f->odls, &proc, NULL, err, sizeof(err)) > 0);
    assert_true(run_until(f, all_exited, NULL));
    assert_clean_exit(&f->results[0]);
    assert_non_null(f->results[0].out);
    assert_string_equal(f->results[0].out, "no-c\n");
    close(a[1]);
    close(b[1]);
    close(c[1]);
    n = read(a[0], got, sizeof(got) - 1);
    assert_int_equal(n, 2);
    n = read(b[0], got, sizeof(got) - 1);
    assert_int_equal(n, 2);
    assert_int_equal(read(c[0], got, sizeof(got) - 1), 0);
    close(a[0]);
    close(b[0]);
    close(c[0]);
}

/* ------------------------------------------------------------ child state */

static void test_stdin_is_devnull(void **state)
{
    fixture_t *f = *state;

    launch(f, 0, SH("cat; echo end"), NULL, NULL);
    assert_true(run_until(f, all_exited, NULL));
    assert_string_equal(f->results[0].out, "end\n");
}

/* With stdin_writer, the process reads what the caller writes, then EOF. */
static void test_stdin_pipe(void **state)
{
    fixture_t *f = *state;
    int writer = -1;
    hnp_odls_proc_t proc = { 0, 0, SH("cat; echo end"), environ, NULL, &writer, NULL, NULL, 0, false };
    char err[256] = "";

    assert_true(hnp_odls_launch(f->odls, &proc, NULL, err, sizeof(err)) > 0);
    assert_true(writer >= 0);
    assert_true(fcntl(writer, F_GETFL) & O_NONBLOCK);
    assert_int_equal(write(writer, "typed\n", 6), 6);
    close(writer);
    assert_true(run_until(f, all_exited, NULL));
    assert_string_equal(f->results[0].out, "typed\nend\n");
}

/* The signals of @p line ("SigIgn:\t<hex>") without those the C library
 * reserves for itself (32 to SIGRTMIN - 1): libc lets nobody change them,
 * so they keep whatever disposition hnp itself inherited. */
static unsigned long long user_signals(const char *line)
{
    unsigned long long bits = strtoull(strchr(line, '\t') + 1, NULL, 16);

    for (int sig = 32; sig < SIGRTMIN; sig++)
        bits &= ~(1ULL << (sig - 1));
    return bits;
}

/* Ignored and blocked signals of the daemon do not reach the program. */
static void test_clean_signal_state(void **state)
{
    fixture_t *f = *state;
    sigset_t usr2, saved;
    struct sigaction ign = { .sa_handler = SIG_IGN }, old;

    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigprocmask(SIG_BLOCK, &usr2, &saved);
    sigaction(SIGUSR1, &ign, &old);
    launch(f, 0, (char *const[]){ "grep", "-E", "^Sig(Blk|Ign)",
                                  "/proc/self/status", NULL }, NULL, NULL);
    sigaction(SIGUSR1, &old, NULL);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    assert_true(run_until(f, all_exited, NULL));
    const char *out = f->results[0].out;
    assert_non_null(out);
    assert_true(strncmp(out, "SigBlk:\t", 8) == 0);
    assert_int_equal(user_signals(out), 0);
    const char *ignored = strstr(out, "SigIgn:\t");
    assert_non_null(ignored);
    assert_int_equal(user_signals(ignored), 0);
}

static void test_own_process_group(void **state)
{
    fixture_t *f = *state;
    char expect[32];

    pid_t pid = launch(f, 0, SH("cut -d' ' -f5 /proc/$$/stat"), NULL, NULL);
    assert_true(run_until(f, all_exited, NULL));
    snprintf(expect, sizeof(expect), "%d\n", (int)pid);
    assert_string_equal(f->results[0].out, expect);
}

/* A daemon that closed its stdio: pipes landing on 0-2 must not be
 * clobbered when the child installs its own 0, 1 and 2. */
static void test_daemon_without_stdio(void **state)
{
    fixture_t *f = *state;
    int saved[3];

    for (int i = 0; i < 3; i++)
        saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 10);
    for (int i = 0; i < 3; i++)
        close(i);
    hnp_odls_proc_t proc = { 0, 0, SH("echo out; echo err >&2; cat"), environ,
                             NULL, NULL, NULL, NULL, 0, false };
    int rc = hnp_odls_launch(f->odls, &proc, NULL, NULL, 0);
    for (int i = 0; i < 3; i++) {
        dup2(saved[i], i);
        close(saved[i]);
    }
    assert_true(rc > 0);
    assert_true(run_until(f, all_exited, NULL));
    assert_clean_exit(&f->results[0]);
    assert_string_equal(f->results[0].out, "out\n");
    assert_string_equal(f->results[0].err, "err\n");
}

/* merge_stderr: one pipe as fd 1 and fd 2, so the two streams come as
 * stdout, in the order written; the stderr stream says nothing. */
static void test_merged_stderr(void **state)
{
    fixture_t *f = *state;
    hnp_odls_proc_t proc = { 0, 0, SH("echo o1; echo e1 >&2; echo o2; "
                                   "echo e2 >&2"),
                             environ, NULL, NULL, NULL, NULL, 0, true };

    assert_true(hnp_odls_launch(f->odls, &proc, NULL, NULL, 0) > 0);
    assert_true(run_until(f, all_exited, NULL));
    assert_clean_exit(&f->results[0]);
    assert_string_equal(f->results[0].out, "o1\ne1\no2\ne2\n");
    assert_int_equal(f->results[0].err_len, 0);
}

/* ------------------------------------------------------------ control */

static void test_kill_all_grace(void **state)
{
    fixture_t *f = *state;
    uint32_t stubborn = 0, polite = 1;

    launch(f, stubborn, SH("trap '' TERM; sleep 60 & echo $!; wait"), NULL,
           NULL);
    launch(f, polite, SH("echo ready; exec sleep 60"), NULL, NULL);
    assert_true(run_until(f, has_output, &stubborn));
    assert_true(run_until(f, has_output, &polite));
    pid_t grandchild = (pid_t)atoi(f->results[stubborn].out);
    assert_true(grandchild > 0);

    double start = loop_now();
    hnp_odls_kill_all(f->odls, 0.5);
    assert_true(run_until(f, all_exited, NULL));
    result_t *s = &f->results[stubborn], *p = &f->results[polite];
    assert_clean_exit(s);
    assert_clean_exit(p);
    /* SIGTERM came at once (it died of it, not of the SIGKILL after the
     * grace), whatever the clock says on a loaded machine. */
    assert_true(WIFSIGNALED(p->status) && WTERMSIG(p->status) == SIGTERM);
    assert_true(WIFSIGNALED(s->status) && WTERMSIG(s->status) == SIGKILL);
    assert_true(s->exit_time - start >= 0.45);
    /* The SIGKILL went to the group: the background sleep is gone too. */
    assert_true(run_until(f, pid_gone, &grandchild));
}

/* The SIGKILL after the grace is for the processes alive at kill_all:
 * once they are gone, a process started after (the next job of a daemon
 * that outlives its jobs) lives on past the grace. */
static void test_kill_all_spares_later(void **state)
{
    fixture_t *f = *state;
    uint32_t first = 0, later = 1;

    launch(f, first, SH("echo ready; exec sleep 60"), NULL, NULL);
    assert_true(run_until(f, has_output, &first));
    hnp_odls_kill_all(f->odls, 0.3);
    assert_true(run_until(f, all_exited, NULL));
    launch(f, later, SH("sleep 0.8; echo lived"), NULL, NULL);
    assert_true(run_until(f, all_exited, NULL));
    assert_true(WIFEXITED(f->results[later].status));
    assert_int_equal(WEXITSTATUS(f->results[later].status), 0);
    assert_string_equal(f->results[later].out, "lived\n");
}

/* Two jobs on one node (a DVM): the kill of one, with its grace, and a
 * signal to one reach that job's processes alone. */
static void test_kill_job_spares_other_job(void **state)
{
    fixture_t *f = *state;
    uint32_t stubborn = 0, other = 1;

    launch_in_job(f, 7, stubborn, SH("trap '' TERM; echo ready; "
                                     "while :; do sleep 0.05; done"),
                  NULL, NULL);
    launch_in_job(f, 70000, other, SH("trap 'echo term' TERM; echo ready; "
                                      "while :; do sleep 0.05; done"),
                  NULL, NULL);
    assert_true(run_until(f, has_output, &stubborn));
    assert_true(run_until(f, has_output, &other));
    assert_int_equal(hnp_odls_num_alive_job(f->odls, 7), 1);
    assert_int_equal(hnp_odls_num_alive_job(f->odls, 70000), 1);
    hnp_odls_kill_job(f->odls, 7, 0.2);
    /* job 7's SIGKILL, after its grace, ended it; job 70000 heard of
     * neither the SIGTERM nor the SIGKILL */
    assert_true(run_until(f, rank_exited, &stubborn));
    assert_true(WIFSIGNALED(f->results[stubborn].status));
    assert_int_equal(WTERMSIG(f->results[stubborn].status), SIGKILL);
    assert_int_equal(f->results[stubborn].jobid, 7);
    assert_int_equal(hnp_odls_num_alive_job(f->odls, 70000), 1);
    assert_int_equal(f->results[other].exits, 0);
    assert_string_equal(f->results[other].out, "ready\n");
    hnp_odls_signal_job(f->odls, 7, SIGTERM);   /* none left: nothing */
    hnp_odls_signal_job(f->odls, 70000, SIGKILL);
    assert_true(run_until(f, all_exited, NULL));
    assert_int_equal(f->results[other].jobid, 70000);
    assert_int_equal(WTERMSIG(f->results[other].status), SIGKILL);
}

static void test_signal_all(void **state)
{
    fixture_t *f = *state;
    uint32_t rank = 0;

    launch(f, rank, SH("trap 'echo got; exit 5' USR1; echo ready; "
                       "while :; do sleep 0.05; done"), NULL, NULL);
    assert_true(run_until(f, has_output, &rank));
    hnp_odls_signal_all(f->odls, SIGUSR1);
    assert_true(run_until(f, all_exited, NULL));
    assert_string_equal(f->results[0].out, "ready\ngot\n");
    assert_int_equal(WEXITSTATUS(f->results[0].status), 5);
}

static void test_destroy_kills_survivors(void **state)
{
    fixture_t *f = *state;
    uint32_t rank = 1;

    pid_t sleeper = launch(f, 0, (char *const[]){ "sleep", "60", NULL }, NULL,
                           NULL);
    launch(f, rank, SH("sleep 60 & echo $!; wait"), NULL, NULL);
    assert_true(run_until(f, has_output, &rank));
    pid_t grandchild = (pid_t)atoi(f->results[rank].out);

    hnp_odls_destroy(f->odls);
    f->odls = NULL;
    assert_int_equal(hnp_children_count(f->children), 0);
    assert_true(run_until(f, pid_gone, &sleeper));
    assert_true(run_until(f, pid_gone, &grandchild));
    assert_int_equal(f->results[0].exits + f->results[1].exits, 0);
    odls_new(f);
}

/* A descendant keeps the pipes open after the rank exits: the exit is
 * still reported, after a bounded wait, with the output before it. */
static void test_descendant_holds_output(void **state)
{
    fixture_t *f = *state;

    launch(f, 0, SH("echo before; sleep 60 & echo $!"), NULL, NULL);
    double start = loop_now();
    assert_true(run_until(f, all_exited, NULL));
    result_t *r = &f->results[0];
    pid_t grandchild = (pid_t)atoi(strchr(r->out, '\n') + 1);
    /* Reported while the descendant still holds the pipes: not waited
     * for (it sleeps 60 s). */
    bool holder_alive = kill(grandchild, 0) == 0;
    kill(grandchild, SIGKILL);
    assert_clean_exit(r);
    assert_int_equal(WEXITSTATUS(r->status), 0);
    assert_true(strncmp(r->out, "before\n", 7) == 0);
    assert_true(r->exit_time - start >= 1.0);
    assert_true(holder_alive);
    assert_true(run_until(f, pid_gone, &grandchild));
}

static bool two_lines(fixture_t *f, void *arg)
{
    const char *out = f->results[*(uint32_t *)arg].out;
    return out != NULL && strchr(out, '\n') != strrchr(out, '\n');
}

/* Stricter than pid_gone: a zombie still answers kill(pid, 0). */
static bool pid_reaped(fixture_t *f, void *arg)
{
    (void)f;
    return kill(*(pid_t *)arg, 0) != 0 && errno == ESRCH;
}

/* kill_all also reaches the group of a rank that is reaped but whose
 * descendants still hold its output. */
static void test_kill_all_reaches_lingering(void **state)
{
    fixture_t *f = *state;
    uint32_t rank = 0;

    pid_t pid = launch(f, rank, SH("echo before; sleep 60 & echo $!"), NULL,
                       NULL);
    assert_true(run_until(f, two_lines, &rank));
    assert_true(run_until(f, pid_reaped, &pid));
    pid_t grandchild = (pid_t)atoi(strchr(f->results[0].out, '\n') + 1);
    assert_int_equal(hnp_odls_num_alive(f->odls), 1);
    /* A grace longer than the test's deadline: only the SIGTERM sent at
     * once can end the descendant in time. */
    hnp_odls_kill_all(f->odls, 3 * TEST_DEADLINE);
    assert_true(run_until(f, all_exited, NULL));
    assert_clean_exit(&f->results[0]);
    assert_true(run_until(f, pid_gone, &grandchild));
}

static void test_bad_arguments(void **state)
{
    fixture_t *f = *state;
    char err[128] = "";
    hnp_odls_proc_t proc = { 0, 0, (char *const[]){ NULL }, environ, NULL, NULL, NULL, NULL, 0, false };

    assert_int_equal(hnp_odls_launch(f->odls, &proc, NULL, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_true(err[0] != '\0');
    assert_int_equal(hnp_odls_num_alive(f->odls), 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_output_in_order),
        T(test_large_output),
        T(test_exit_status_and_signal),
        T(test_exec_missing_program),
        T(test_exec_not_executable),
        T(test_path_from_process_env),
        T(test_working_directory),
        T(test_environment),
        T(test_inherited_fds),
        T(test_stdin_is_devnull),
        T(test_stdin_pipe),
        T(test_clean_signal_state),
        T(test_own_process_group),
        T(test_daemon_without_stdio),
        T(test_merged_stderr),
        T(test_kill_all_grace),
        T(test_kill_all_spares_later),
        T(test_kill_job_spares_other_job),
        T(test_signal_all),
        T(test_destroy_kills_survivors),
        T(test_descendant_holds_output),
        T(test_kill_all_reaches_lingering),
        T(test_bad_arguments),
    };
#undef T

    alarm(TEST_ALARM);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
