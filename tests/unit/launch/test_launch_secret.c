/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of a launcher's own command with the secret in a file
 * (hnp_launcher_submit_via, hnp_launcher_secret_file; runtime/launch/
 * secret.c): the command plays a batch system that gives the daemon no
 * stdin. The file is private while it lives, never on a command line, and
 * gone once the daemon joined, once the start failed, and at cancel and
 * destroy; the directory goes with the launcher.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "launch/secret.h"
#include "launch_fixture.h"

/* "Run this on node N": records what it was given, then runs the rest
 * with no stdin; fails for a node called fail*, stays for hang*. */
static const char batch_script[] =
    "#!/bin/sh\n"
    "d=$(dirname \"$0\"); node=$1; shift\n"
    "printf '%s\\0' \"$@\" > \"$d/batch-argv.$node\"\n"
    "cat > \"$d/batch-stdin.$node\"\n"
    "case $node in\n"
    "fail*) echo \"no such node $node\" >&2; exit 1 ;;\n"
    "hang*) echo $$ > \"$d/batch-pid.$node\"; sleep 60 & wait; exit 0 ;;\n"
    "esac\n"
    "exec \"$@\" < /dev/null\n";

typedef struct via {
    char batch[PATH_MAX];
    char secret[PATH_MAX];  /* where the launcher puts the secret */
    char dir[PATH_MAX];     /* its directory */
} via_t;

/* Submit daemon @p vpid on @p node through the batch script, the secret
 * in a file; the daemon records under "daemon.NODE". */
static void submit(fixture_t *f, via_t *v, hnp_vpid_t vpid, const char *node)
{
    char record[PATH_MAX], err[256] = "";

    write_script(f, "batch.sh", batch_script, v->batch);
    assert_int_equal(hnp_launcher_secret_file(f->launcher, vpid, v->secret,
                                              sizeof(v->secret), err,
                                              sizeof(err)), 0);
    snprintf(v->dir, sizeof(v->dir), "%s", v->secret);
    *strrchr(v->dir, '/') = '\0';
    snprintf(record, sizeof(record), "%s/daemon.%s", f->dir, node);
    char *command[] = { v->batch, (char *)node, NULL };
    char *args[] = { record, "--secret-file", v->secret, NULL };
    assert_int_equal(hnp_launcher_submit_via(f->launcher, vpid, node, command,
                                             args, v->secret), 0);
}

static mode_t mode_of(const char *path)
{
    struct stat st;

    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode;
}

/* The daemon starts with the path, not the secret, and no stdin; the file
 * is the daemon's to read until it joins, then it is gone. */
static void test_secret_in_file(void **state)
{
    fixture_t *f = *state;
    via_t v;
    char record[PATH_MAX];

    launcher_new(f, NULL, 0, 0, 0.1);
    submit(f, &v, 1, "n1");
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[1].done, 1);
    /* In a private directory of its own under the configured one. */
    assert_int_equal(strncmp(v.dir, f->dir, strlen(f->dir)), 0);
    assert_int_equal(mode_of(v.dir) & 07777, 0700);
    assert_true(S_ISDIR(mode_of(v.dir)));
    assert_true(S_ISREG(mode_of(v.secret)));
    assert_int_equal(mode_of(v.secret) & 07777, 0600);
    char *text = slurp(v.secret, NULL);
    assert_string_equal(text, SECRET "\n");
    free(text);

    snprintf(record, sizeof(record), "%s/daemon.n1", f->dir);
    assert_words(path_in(f, "batch-argv", "n1"),
                 (char *const[]){ f->daemon, record, "--secret-file",
                                  v.secret, NULL });
    text = slurp(path_in(f, "batch-stdin", "n1"), NULL);
    assert_string_equal(text, "");
    free(text);
    text = slurp(path_in(f, "daemon", "n1.stdin"), NULL);
    assert_string_equal(text, "");
    free(text);
    assert_null(strstr(hnp_launcher_command(f->launcher, 1), SECRET));

    hnp_launcher_joined(f->launcher, 1);
    assert_int_equal(access(v.secret, F_OK), -1);
    hnp_launcher_destroy(f->launcher);
    f->launcher = NULL;
    assert_int_equal(access(v.dir, F_OK), -1);
}

/* A start that fails takes its unread secret with it, and says why with
 * the node's name and the command. */
static void test_secret_removed_on_failure(void **state)
{
    fixture_t *f = *state;
    via_t v;

    launcher_new(f, NULL, 0, 3, 0.01);
    submit(f, &v, 2, "fail2");
    assert_true(run_until(f, nothing_pending, NULL));
    outcome_t *o = &f->outcomes[2];
    assert_int_equal(o->failed, 1);
    assert_true(WIFEXITED(o->status) && WEXITSTATUS(o->status) == 1);
    assert_string_equal(o->node, "fail2");
    assert_non_null(strstr(o->command, "batch.sh' 'fail2' '"));
    assert_string_equal(o->output, "no such node fail2\n");
    /* A launcher's own command is not retried. */
    assert_int_equal(access(v.secret, F_OK), -1);
}

/* A daemon that never joins: cancel_all removes its secret, and destroy
 * the directory. */
static void test_secret_removed_on_cancel(void **state)
{
    fixture_t *f = *state;
    via_t v;

    launcher_new(f, NULL, 0, 0, 0.1);
    submit(f, &v, 3, "hang3");
    assert_true(run_until(f, file_exists, path_in(f, "batch-pid", "hang3")));
    pid_t batch = read_pid(f, "batch-pid", "hang3");
    assert_int_equal(access(v.secret, F_OK), 0);
    hnp_launcher_cancel_all(f->launcher);
    assert_int_equal(access(v.secret, F_OK), -1);
    assert_true(run_until(f, pid_gone, &batch));
    assert_true(run_until(f, nothing_pending, NULL));
    assert_int_equal(f->outcomes[3].done + f->outcomes[3].failed, 0);
    hnp_launcher_destroy(f->launcher);
    f->launcher = NULL;
    assert_int_equal(access(v.dir, F_OK), -1);
}

/* Nothing is ever written through a name that exists: not a link another
 * user could have planted, not a file. */
static void test_secret_write_refuses_existing(void **state)
{
    fixture_t *f = *state;
    char target[PATH_MAX], link[PATH_MAX], err[256] = "";

    snprintf(target, sizeof(target), "%s/target", f->dir);
    snprintf(link, sizeof(link), "%s/link", f->dir);
    FILE *fp = fopen(target, "w");
    assert_non_null(fp);
    fclose(fp);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(launch_secret_write(link, SECRET "\n", err, sizeof(err)),
                     HNP_ERR_IO);
    assert_non_null(strstr(err, link));
    assert_int_equal(launch_secret_write(target, SECRET "\n", err,
                                         sizeof(err)), HNP_ERR_IO);
    char *text = slurp(target, NULL);
    assert_string_equal(text, "");
    free(text);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, launch_setup, launch_teardown)
    const struct CMUnitTest tests[] = {
        T(test_secret_in_file),
        T(test_secret_removed_on_failure),
        T(test_secret_removed_on_cancel),
        T(test_secret_write_refuses_existing),
    };
#undef T

    alarm(TEST_ALARM);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
