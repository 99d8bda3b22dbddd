/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the daemon launcher (runtime/launch/launcher.c, agent.c,
 * with children.c and forkexec.c), through the agent and daemon scripts
 * of launch_fixture.h. The temporary directory has a space in its name,
 * so the daemon's own path needs quoting too.
 *
 * Every wait runs the event loop with a deadline, and alarm() bounds the
 * whole program; every process started is ended before its test returns.
 */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "launch/agent.h"
#include "launch_fixture.h"

/* ------------------------------------------------------------ quoting */

static void test_shell_quote(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        { "", "''" },
        { "plain", "'plain'" },
        { "a b", "'a b'" },
        { "it's", "'it'\\''s'" },
        { "''", "''\\'''\\'''" },
        { "$x;`y`\n", "'$x;`y`\n'" },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *q = hnp_shell_quote(cases[i].in);
        assert_non_null(q);
        assert_string_equal(q, cases[i].out);
        free(q);
    }
}

/* What a daemon that never called back is reported with: the agent's last
 * lines, blank ones and carriage returns left out, control characters
 * shown, and the end of them when they are too long. */
static void test_last_lines(void **state)
{
    static const struct { const char *in; unsigned n; size_t room;
                          const char *out; } cases[] = {
        { "", 5, 64, "" },
        { "\n\n  \n", 5, 64, "" },
        { "one line", 5, 64, "one line" },
        { "a\nb\nc\nd\ne\nf\ng\n", 5, 64, "c\nd\ne\nf\ng" },
        { "a\n\n\nb\n\n", 2, 64, "a\nb" },
        { "Password: \r\nPermission denied\r\n", 5, 64,
          "Password: \nPermission denied" },
        { "bell\a and tab\there", 5, 64, "bell? and tab\there" },
        { "first\n0123456789", 5, 8, "3456789" },
    };
    char out[64];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = launch_last_lines(cases[i].in, cases[i].n, out,
                                     cases[i].room);
        assert_string_equal(out, cases[i].out);
        assert_int_equal(n, strlen(cases[i].out));
    }
}

/* Awkward arguments reach the daemon unchanged through agent and shell;
 * the secret only ever travels on stdin. */
static void test_agent_round_trip(void **state)
{
    fixture_t *f = *state;
    char record[PATH_MAX], expect_cmd[4 * PATH_MAX];

    snprintf(record, sizeof(record), "%s/daemon.node1", f->dir);
    char *args[] = { record, "a b", "it's", "\"dq\"", "$HOME", "x;y", "`id`",
                     "$(id)", "*", "back\\slash", "line1\nline2", "", "-x",
                     NULL };
    launcher_new(f, AGENT(f, "ok"), 0, 0, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "node1", args,
                                         false), 0);
    assert_int_equal(hnp_launcher_pending(f->launcher), 1);
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[1].done, 1);
    assert_int_equal(f->outcomes[1].failed, 0);

    assert_words(path_in(f, "daemon", "node1.argv"), args);

    char *remote = hnp_shell_quote(f->daemon);
    size_t len = strlen(remote);
    for (char **a = args; *a != NULL; a++) {
        char *q = hnp_shell_quote(*a);
        remote = realloc(remote, len + strlen(q) + 2);
        len += (size_t)sprintf(remote + len, " %s", q);
        free(q);
    }
    assert_words(path_in(f, "agent-argv", "node1"),
                 (char *const[]){ "ok", "node1", remote, NULL });
    snprintf(expect_cmd, sizeof(expect_cmd), "%s ok node1 %s", f->agent,
             remote);
    assert_string_equal(hnp_launcher_command(f->launcher, 1), expect_cmd);
    free(remote);

    char *in = slurp(path_in(f, "agent-stdin", "node1"), NULL);
    assert_string_equal(in, SECRET "\n");
    free(in);
    in = slurp(path_in(f, "daemon", "node1.stdin"), NULL);
    assert_string_equal(in, SECRET "\n");
    free(in);
    assert_null(strstr(expect_cmd, SECRET));
}

static void test_local_launch(void **state)
{
    fixture_t *f = *state;
    char record[PATH_MAX], expect_cmd[3 * PATH_MAX];

    snprintf(record, sizeof(record), "%s/daemon.here", f->dir);
    char *args[] = { record, "x y", "it's", NULL };
    launcher_new(f, NULL, 1, 3, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 2, "here", args, true),
                     0);
    assert_int_equal(hnp_launcher_submit(f->launcher, 3, "remote", args,
                                         false), HNP_ERR_BAD_PARAM);
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[2].done, 1);
    assert_words(path_in(f, "daemon", "here.argv"), args);
    char *in = slurp(path_in(f, "daemon", "here.stdin"), NULL);
    assert_string_equal(in, SECRET "\n");
    free(in);
    snprintf(expect_cmd, sizeof(expect_cmd), "'%s' '%s' 'x y' 'it'\\''s'",
             f->daemon, record);
    assert_string_equal(hnp_launcher_command(f->launcher, 2), expect_cmd);
    assert_null(hnp_launcher_command(f->launcher, 3));
}

/* ------------------------------------------------------------ failures */

static void test_retry_then_success(void **state)
{
    fixture_t *f = *state;
    char record[PATH_MAX];

    snprintf(record, sizeof(record), "%s/daemon.n4", f->dir);
    launcher_new(f, AGENT(f, "flaky:2"), 0, 3, 0.05);
    double start = loop_now();
    assert_int_equal(hnp_launcher_submit(f->launcher, 4, "n4",
                                         (char *const[]){ record, NULL },
                                         false), 0);
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[4].done, 1);
    assert_int_equal(f->outcomes[4].failed, 0);
    char *count = slurp(path_in(f, "count", "n4"), NULL);
    assert_string_equal(count, "3\n");
    free(count);
    /* Backoff 0.05 then 0.1 seconds. */
    assert_true(loop_now() - start >= 0.15);
}

static void test_retries_exhausted(void **state)
{
    fixture_t *f = *state;

    launcher_new(f, AGENT(f, "flaky:5"), 0, 2, 0.02);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "n1",
                                         (char *const[]){ NULL }, false), 0);
    assert_true(run_until(f, nothing_pending, NULL));
    outcome_t *o = &f->outcomes[1];
    assert_int_equal(o->failed, 1);
    assert_int_equal(o->done, 0);
    assert_true(WIFEXITED(o->status) && WEXITSTATUS(o->status) == 255);
    assert_non_null(strstr(o->output, "Connection refused"));
    char *count = slurp(path_in(f, "count", "n1"), NULL);
    assert_string_equal(count, "3\n");
    free(count);
}

static void test_failure_reported(void **state)
{
    fixture_t *f = *state;

    launcher_new(f, AGENT(f, "fail"), 0, 3, 0.02);
    assert_int_equal(hnp_launcher_submit(f->launcher, 5, "n5",
                                         (char *const[]){ "--x", NULL },
                                         false), 0);
    assert_true(run_until(f, nothing_pending, NULL));
    outcome_t *o = &f->outcomes[5];
    assert_int_equal(o->failed, 1);
    assert_true(WIFEXITED(o->status) && WEXITSTATUS(o->status) == 1);
    assert_string_equal(o->node, "n5");
    assert_string_equal(o->command, hnp_launcher_command(f->launcher, 5));
    assert_non_null(strstr(o->command, "fail n5 '"));
    assert_string_equal(o->output, "Permission denied (publickey).\n");
    /* Not a connection failure: no retry. */
    assert_int_equal(access(path_in(f, "count", "n5"), F_OK), -1);
}

static void test_output_capture_bounded(void **state)
{
    fixture_t *f = *state;

    launcher_new(f, AGENT(f, "noisy"), 0, 0, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "n1", NULL, false),
                     0);
    assert_true(run_until(f, nothing_pending, NULL));
    const char *out = f->outcomes[1].output;
    size_t len = strlen(out);
    assert_int_equal(f->outcomes[1].failed, 1);
    assert_true(len <= 32 * 1024 + 80);
    assert_true(strncmp(out, "line 00000\nline 00001\n", 22) == 0);
    assert_string_equal(out + len - 22, "line 19998\nline 19999\n");
    assert_non_null(strstr(out, "bytes omitted"));
}

static void test_agent_not_found(void **state)
{
    fixture_t *f = *state;

    launcher_new(f, (char *const[]){ "/nonexistent/agent", "-x", NULL }, 0, 3,
                 0.01);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "n1", NULL, false),
                     0);
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[1].failed, 1);
    assert_int_equal(WEXITSTATUS(f->outcomes[1].status), 127);
    assert_non_null(strstr(f->outcomes[1].output, "/nonexistent/agent"));
    assert_non_null(strstr(f->outcomes[1].output,
                           "No such file or directory"));
}

/* ------------------------------------------------------------ scheduling */

/* The most agents between "start" and "end" at once, from the timeline. */
static int max_concurrent_seen(fixture_t *f)
{
    char path[PATH_MAX];
    char *text, *save = NULL;
    int running = 0, most = 0;

    snprintf(path, sizeof(path), "%s/timeline", f->dir);
    text = slurp(path, NULL);
    assert_non_null(text);
    for (char *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        running += strncmp(line, "start", 5) == 0 ? 1 : -1;
        if (running > most)
            most = running;
    }
    free(text);
    return most;
}

static void test_concurrency_limit(void **state)
{
    fixture_t *f = *state;
    char node[8];

    launcher_new(f, AGENT(f, "slow"), 2, 0, 0.1);
    double start = loop_now();
    for (hnp_vpid_t v = 1; v <= 5; v++) {
        snprintf(node, sizeof(node), "n%u", v);
        assert_int_equal(hnp_launcher_submit(f->launcher, v, node, NULL,
                                             false), 0);
    }
    assert_int_equal(hnp_launcher_pending(f->launcher), 5);
    assert_true(run_until(f, nothing_pending, NULL));
    for (hnp_vpid_t v = 1; v <= 5; v++)
        assert_int_equal(f->outcomes[v].done, 1);
    assert_true(max_concurrent_seen(f) <= 2);
    /* Five agents of 0.3 s, two at a time: three rounds at least. */
    assert_true(loop_now() - start >= 0.85);
}

/* Without a limit every agent runs at once: each waits until all four
 * have started (one run after another would never end, and the loop's
 * deadline fails the test), however long a loaded machine takes. */
static void test_unlimited_concurrency(void **state)
{
    fixture_t *f = *state;
    char node[8];

    launcher_new(f, AGENT(f, "together:4"), 0, 0, 0.1);
    for (hnp_vpid_t v = 1; v <= 4; v++) {
        snprintf(node, sizeof(node), "n%u", v);
        assert_int_equal(hnp_launcher_submit(f->launcher, v, node, NULL,
                                             false), 0);
    }
    assert_true(run_until(f, nothing_pending, NULL));
    for (hnp_vpid_t v = 1; v <= 4; v++)
        assert_int_equal(f->outcomes[v].done, 1);
    assert_int_equal(max_concurrent_seen(f), 4);
}

/* The agent exits 0 but leaves a process holding its output pipe: done
 * must not wait for that process. */
static void test_descendant_holds_pipe(void **state)
{
    fixture_t *f = *state;

    launcher_new(f, AGENT(f, "leave-sleeper"), 0, 0, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "n1", NULL, false),
                     0);
    assert_true(run_until(f, nothing_pending, NULL));
    pid_t sleeper = read_pid(f, "grandchild", "n1");
    /* Done while the pipe's holder still runs: it was not waited for. */
    bool holder_alive = kill(sleeper, 0) == 0;
    kill(sleeper, SIGKILL);
    assert_int_equal(f->outcomes[1].done, 1);
    assert_true(holder_alive);
    assert_true(run_until(f, pid_gone, &sleeper));
}

static void test_cancel_all(void **state)
{
    fixture_t *f = *state;
    char node[8];

    launcher_new(f, AGENT(f, "hang"), 1, 0, 0.1);
    for (hnp_vpid_t v = 1; v <= 3; v++) {
        snprintf(node, sizeof(node), "n%u", v);
        assert_int_equal(hnp_launcher_submit(f->launcher, v, node, NULL,
                                             false), 0);
    }
    assert_true(run_until(f, file_exists, path_in(f, "grandchild", "n1")));
    pid_t agent = read_pid(f, "agent-pid", "n1");
    pid_t sleeper = read_pid(f, "grandchild", "n1");
    hnp_launcher_cancel_all(f->launcher);
    assert_true(run_until(f, nothing_pending, NULL));
    assert_true(run_until(f, pid_gone, &agent));
    assert_true(run_until(f, pid_gone, &sleeper));
    for (hnp_vpid_t v = 1; v <= 3; v++)
        assert_int_equal(f->outcomes[v].done + f->outcomes[v].failed, 0);
    assert_int_equal(access(path_in(f, "agent-argv", "n2"), F_OK), -1);
    /* Still usable afterwards. */
    assert_non_null(hnp_launcher_command(f->launcher, 2));
}

static void test_destroy_running(void **state)
{
    fixture_t *f = *state;

    launcher_new(f, AGENT(f, "hang"), 0, 0, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "n1", NULL, false),
                     0);
    assert_true(run_until(f, file_exists, path_in(f, "grandchild", "n1")));
    pid_t agent = read_pid(f, "agent-pid", "n1");
    pid_t sleeper = read_pid(f, "grandchild", "n1");
    hnp_launcher_destroy(f->launcher);
    f->launcher = NULL;
    assert_int_equal(hnp_children_count(f->children), 0);
    assert_true(run_until(f, pid_gone, &agent));
    assert_true(run_until(f, pid_gone, &sleeper));
    assert_int_equal(f->outcomes[1].done + f->outcomes[1].failed, 0);
}

static bool file_exists_for(fixture_t *f, const char *name, const char *node)
{
    return access(path_in(f, name, node), F_OK) == 0;
}

static void release(fixture_t *f, const char *node, const char *status)
{
    char tmp[PATH_MAX];

    snprintf(tmp, sizeof(tmp), "%s/release.tmp", f->dir);
    FILE *fp = fopen(tmp, "w");
    assert_non_null(fp);
    fprintf(fp, "%s\n", status);
    fclose(fp);
    assert_int_equal(rename(tmp, path_in(f, "release", node)), 0);
}

/* A daemon that stays attached to its agent: its join frees the slot for
 * the next agent, and cancel_all leaves it alone (it leaves with the job)
 * while the agent still starting is stopped. */
static void test_joined_frees_slot(void **state)
{
    fixture_t *f = *state;

    launcher_new(f, AGENT(f, "attached"), 1, 0, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "n1", NULL, false),
                     0);
    assert_int_equal(hnp_launcher_submit(f->launcher, 2, "n2", NULL, false),
                     0);
    assert_true(run_until(f, file_exists, path_in(f, "agent-pid", "n1")));
    pid_t first = read_pid(f, "agent-pid", "n1");
    /* One slot: the second waits however long the first lives. */
    assert_false(LOOP_UNTIL(f->base, 0.3, file_exists_for(f, "agent-pid",
                                                          "n2")));
    hnp_launcher_joined(f->launcher, 1);
    assert_true(run_until(f, file_exists, path_in(f, "agent-pid", "n2")));
    pid_t second = read_pid(f, "agent-pid", "n2");
    assert_int_equal(hnp_launcher_pending(f->launcher), 1);

    hnp_launcher_cancel_all(f->launcher);
    assert_true(run_until(f, pid_gone, &second));
    /* Alive, not merely unreaped: a killed agent is a zombie until the
     * loop reaps it, and kill(pid, 0) still finds that. */
    assert_false(LOOP_UNTIL(f->base, 0.3, process_gone(first)));
    release(f, "n1", "0");
    assert_true(run_until(f, pid_gone, &first));
    assert_true(run_until(f, nothing_pending, NULL));
    for (hnp_vpid_t v = 1; v <= 2; v++)
        assert_int_equal(f->outcomes[v].done + f->outcomes[v].failed, 0);
}

/* The job gives up on a daemon: its agent, still alive (attached), dies
 * with it, though the daemon joined; and the daemon itself, by the pid it
 * joined with, is killed on its node through a new agent, whose outcome
 * is no launch failure. */
static void test_kill_daemon(void **state)
{
    fixture_t *f = *state;
    pid_t victim;

    launcher_new(f, AGENT(f, "attached"), 0, 0, 0.1);
    assert_int_equal(hnp_launcher_kill_daemon(f->launcher, 1),
                     HNP_ERR_NOT_FOUND);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "n1", NULL, false),
                     0);
    assert_true(run_until(f, file_exists, path_in(f, "agent-pid", "n1")));
    pid_t agent = read_pid(f, "agent-pid", "n1");
    hnp_launcher_joined(f->launcher, 1);
    assert_int_equal(hnp_launcher_kill_daemon(f->launcher, 1), 0);
    assert_true(run_until(f, pid_gone, &agent));
    hnp_launcher_destroy(f->launcher);
    f->launcher = NULL;

    /* A daemon that left its agent: "sleep" stands in for it. */
    launcher_new(f, AGENT(f, "succeed"), 0, 0, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 2, "n2", NULL, false),
                     0);
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[2].done, 1);
    victim = fork();
    assert_true(victim >= 0);
    if (victim == 0) {
        execlp("sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    hnp_launcher_joined(f->launcher, 2);
    hnp_launcher_set_daemon_pid(f->launcher, 2, victim);
    assert_int_equal(hnp_launcher_kill_daemon(f->launcher, 2), 0);
    hnp_launcher_cancel_all(f->launcher); /* the kill goes on */
    assert_true(run_until(f, pid_gone, &victim));
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[2].done, 1);
    assert_int_equal(f->outcomes[2].failed, 0);
    /* mode, node, command: the kill, with no secret on its stdin */
    char expect[64];
    size_t len;
    char *words = slurp(path_in(f, "agent-argv", "n2"), &len);
    assert_non_null(words);
    const char *cmd = words + strlen(words) + 1;
    cmd += strlen(cmd) + 1;
    snprintf(expect, sizeof(expect), "'kill' '-KILL' '%d'", (int)victim);
    assert_string_equal(cmd, expect);
    free(words);
    words = slurp(path_in(f, "agent-stdin", "n2"), &len);
    assert_non_null(words);
    assert_int_equal(len, 0);
    free(words);
}

/* After the join, the agent's exit is bookkeeping: 0 is done, anything
 * else is no launch failure (a daemon lost later is the runtime's to
 * report). A command (srun) is no daemon: a join of its vpid changes
 * nothing, and its failure is reported. */
static void test_joined_exit_status(void **state)
{
    fixture_t *f = *state;
    char *const srun[] = { f->agent, "attached", "n3", "true", NULL };

    launcher_new(f, AGENT(f, "attached"), 0, 0, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 1, "n1", NULL, false),
                     0);
    assert_int_equal(hnp_launcher_submit(f->launcher, 2, "n2", NULL, false),
                     0);
    assert_int_equal(hnp_launcher_submit_command(f->launcher, 3, "srun",
                                                 srun), 0);
    assert_true(run_until(f, file_exists, path_in(f, "agent-pid", "n1")));
    assert_true(run_until(f, file_exists, path_in(f, "agent-pid", "n2")));
    assert_true(run_until(f, file_exists, path_in(f, "agent-pid", "n3")));
    for (hnp_vpid_t v = 1; v <= 3; v++)
        hnp_launcher_joined(f->launcher, v);
    assert_int_equal(hnp_launcher_pending(f->launcher), 1);
    release(f, "n1", "3");
    release(f, "n2", "0");
    release(f, "n3", "1");
    assert_true(run_until(f, nothing_pending, NULL));
    assert_true(LOOP_UNTIL(f->base, TEST_DEADLINE,
                           f->outcomes[1].done + f->outcomes[2].done +
                                   f->outcomes[3].failed == 2 &&
                               hnp_children_count(f->children) == 0));
    assert_int_equal(f->outcomes[1].done + f->outcomes[1].failed, 0);
    assert_int_equal(f->outcomes[2].done, 1);
    assert_int_equal(f->outcomes[2].failed, 0);
    assert_int_equal(f->outcomes[3].failed, 1);
    assert_true(WIFEXITED(f->outcomes[3].status) &&
                WEXITSTATUS(f->outcomes[3].status) == 1);
}

/* Requests are found by vpid, however sparse: each its own, an unknown
 * vpid none (a join of it changes nothing). */
static void test_lookup_by_vpid(void **state)
{
    fixture_t *f = *state;
    double at;

    launcher_new(f, AGENT(f, "attached"), 1, 0, 0.1);
    assert_int_equal(hnp_launcher_submit(f->launcher, 700, "n700", NULL,
                                         false), 0);
    assert_int_equal(hnp_launcher_submit(f->launcher, 3, "n3", NULL, false),
                     0);
    assert_true(run_until(f, file_exists, path_in(f, "agent-pid", "n700")));
    assert_non_null(strstr(hnp_launcher_command(f->launcher, 700), "n700"));
    assert_non_null(strstr(hnp_launcher_command(f->launcher, 3), "n3"));
    assert_null(hnp_launcher_command(f->launcher, 0));
    assert_null(hnp_launcher_command(f->launcher, 699));
    assert_null(hnp_launcher_command(f->launcher, 100000));
    assert_int_equal(hnp_launcher_started_at(f->launcher, 700, &at), 0);
    assert_true(at > 0);
    /* One slot, held by 700: 3 has not started. */
    assert_int_not_equal(hnp_launcher_started_at(f->launcher, 3, &at), 0);
    hnp_launcher_joined(f->launcher, 699);
    hnp_launcher_joined(f->launcher, 100000);
    assert_false(LOOP_UNTIL(f->base, 0.3, file_exists_for(f, "agent-pid",
                                                          "n3")));
    hnp_launcher_joined(f->launcher, 700);
    assert_true(run_until(f, file_exists, path_in(f, "agent-pid", "n3")));
    assert_int_equal(hnp_launcher_started_at(f->launcher, 3, &at), 0);
    release(f, "n700", "0");
    release(f, "n3", "0");
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[3].done, 1);
    assert_true(LOOP_UNTIL(f->base, TEST_DEADLINE,
                           f->outcomes[MAX_VPIDS].done == 1));
}

static void test_bad_config(void **state)
{
    fixture_t *f = *state;
    hnp_launch_callbacks_t cb = { on_failed, on_done, f, NULL };
    hnp_launch_config_t config = { AGENT(f, "ok"), "relative/hnpd", SECRET,
                                   0, 0, 0.1, NULL };
    hnp_launcher_t *l = NULL;
    char err[256] = "";

    assert_int_equal(hnp_launcher_create(&l, f->base, f->children, &config,
                                         &cb, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "relative/hnpd"));
    config.daemon_path = f->daemon;
    config.secret_hex = "abc\nrm -rf";
    assert_int_equal(hnp_launcher_create(&l, f->base, f->children, &config,
                                         &cb, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    config.secret_hex = SECRET;
    config.retry_delay = -1;
    assert_int_equal(hnp_launcher_create(&l, f->base, f->children, &config,
                                         &cb, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_null(l);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, launch_setup, launch_teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shell_quote),
        cmocka_unit_test(test_last_lines),
        T(test_agent_round_trip),
        T(test_local_launch),
        T(test_retry_then_success),
        T(test_retries_exhausted),
        T(test_failure_reported),
        T(test_output_capture_bounded),
        T(test_agent_not_found),
        T(test_concurrency_limit),
        T(test_unlimited_concurrency),
        T(test_descendant_holds_pipe),
        T(test_cancel_all),
        T(test_destroy_running),
        T(test_joined_frees_slot),
        T(test_joined_exit_status),
        T(test_kill_daemon),
        T(test_lookup_by_vpid),
        T(test_bad_config),
    };
#undef T

    alarm(TEST_ALARM);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
