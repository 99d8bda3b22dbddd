/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixture of the daemon launcher's unit tests (launch_fixture.h). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "launch_fixture.h"

/* The agent (see launch_fixture.h). */
static const char agent_script[] =
    "#!/bin/sh\n"
    "d=$(dirname \"$0\")\n"
    "mode=$1 node=$2 cmd=$3\n"
    "if [ $# -ne 3 ]; then echo \"agent: $# arguments\" >&2; exit 2; fi\n"
    "printf '%s\\0' \"$@\" > \"$d/agent-argv.$node\"\n"
    "cat > \"$d/agent-stdin.$node\"\n"
    "echo $$ > \"$d/agent-pid.$node\"\n"
    "case $mode in\n"
    "flaky:*)\n"
    "  n=$(cat \"$d/count.$node\" 2>/dev/null || echo 0); n=$((n + 1))\n"
    "  echo $n > \"$d/count.$node\"\n"
    "  if [ $n -le ${mode#flaky:} ]; then\n"
    "    echo \"ssh: connect to host $node port 22: Connection refused\" >&2\n"
    "    exit 255\n"
    "  fi ;;\n"
    "fail) echo 'Permission denied (publickey).' >&2; exit 1 ;;\n"
    "noisy)\n"
    "  awk 'BEGIN { for (i = 0; i < 20000; i++) printf \"line %05d\\n\", i }' >&2\n"
    "  exit 1 ;;\n"
    "slow)\n"
    "  echo \"start $node\" >> \"$d/timeline\"; sleep 0.3\n"
    "  echo \"end $node\" >> \"$d/timeline\" ;;\n"
    "together:*)\n"
    "  echo \"start $node\" >> \"$d/timeline\"\n"
    "  while [ \"$(grep -c '^start' \"$d/timeline\")\" -lt ${mode#together:} ]; do\n"
    "    sleep 0.02\n"
    "  done\n"
    "  echo \"end $node\" >> \"$d/timeline\" ;;\n"
    "hang) sleep 60 & echo $! > \"$d/grandchild.$node\"; wait; exit 0 ;;\n"
    "leave-sleeper) sleep 60 & echo $! > \"$d/grandchild.$node\"; exit 0 ;;\n"
    "attached)\n"
    "  while [ ! -s \"$d/release.$node\" ]; do sleep 0.02; done\n"
    "  exit $(cat \"$d/release.$node\") ;;\n"
    "esac\n"
    "exec sh -c \"$cmd\" < \"$d/agent-stdin.$node\"\n";

/* The daemon: its first argument names where to record (without one, beside
 * the script: never in the current directory). */
static const char daemon_script[] =
    "#!/bin/sh\n"
    "rec=\"${1:-$0.noargs}\"\n"
    "printf '%s\\0' \"$@\" > \"$rec.argv\"\n"
    "cat > \"$rec.stdin\"\n"
    "echo daemon says hello\n";

bool run_until(fixture_t *f, cond_fn cond, void *arg)
{
    return LOOP_UNTIL(f->base, TEST_DEADLINE, cond(f, arg));
}

bool nothing_pending(fixture_t *f, void *arg)
{
    (void)arg;
    return hnp_launcher_pending(f->launcher) == 0;
}

bool file_exists(fixture_t *f, void *arg)
{
    (void)f;
    return access(arg, F_OK) == 0;
}

bool pid_gone(fixture_t *f, void *arg)
{
    (void)f;
    return process_gone(*(pid_t *)arg);
}

char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "r");
    char *buf = NULL;
    size_t n = 0;

    if (fp == NULL)
        return NULL;
    buf = malloc(1 << 16);
    assert_non_null(buf);
    n = fread(buf, 1, (1 << 16) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    if (len != NULL)
        *len = n;
    return buf;
}

char *path_in(fixture_t *f, const char *name, const char *node)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s.%s", f->dir, name, node);
    return path;
}

pid_t read_pid(fixture_t *f, const char *name, const char *node)
{
    char *text = slurp(path_in(f, name, node), NULL);
    assert_non_null(text);
    pid_t pid = (pid_t)atoi(text);
    free(text);
    return pid;
}

void assert_words(const char *path, char *const *words)
{
    size_t len = 0, off = 0, i = 0;
    char *text = slurp(path, &len);

    assert_non_null(text);
    for (; words[i] != NULL; i++) {
        assert_true(off < len);
        assert_string_equal(text + off, words[i]);
        off += strlen(text + off) + 1;
    }
    assert_int_equal(off, len);
    free(text);
}

static outcome_t *outcome_of(void *ctx, hnp_vpid_t vpid)
{
    return &((fixture_t *)ctx)->outcomes[vpid < MAX_VPIDS ? vpid : MAX_VPIDS];
}

void on_failed(void *ctx, hnp_vpid_t vpid, const char *node,
               const char *command, int wait_status, const char *output)
{
    outcome_t *o = outcome_of(ctx, vpid);

    o->failed++;
    o->status = wait_status;
    free(o->node);
    free(o->command);
    free(o->output);
    o->node = strdup(node);
    o->command = strdup(command);
    o->output = strdup(output);
}

void on_done(void *ctx, hnp_vpid_t vpid)
{
    outcome_of(ctx, vpid)->done++;
}

int launcher_new(fixture_t *f, char *const *agent, unsigned max,
                 unsigned retries, double delay)
{
    hnp_launch_config_t config = { agent, f->daemon, SECRET, max, retries,
                                   delay, f->dir };
    hnp_launch_callbacks_t cb = { on_failed, on_done, f, NULL };
    char err[256] = "";
    int rc = hnp_launcher_create(&f->launcher, f->base, f->children, &config,
                                 &cb, err, sizeof(err));
    if (rc != 0)
        fail_msg("hnp_launcher_create: %s", err);
    return rc;
}

void write_script(fixture_t *f, const char *name, const char *text,
                  char *path)
{
    snprintf(path, PATH_MAX, "%s/%s", f->dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    assert_int_equal(chmod(path, 0755), 0);
}

int launch_setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    struct timeval tv = { 0, 10000 };

    assert_non_null(f);
    f->base = event_base_new();
    f->tick = event_new(f->base, -1, EV_PERSIST, loop_tick, NULL);
    assert_int_equal(event_add(f->tick, &tv), 0);
    assert_int_equal(hnp_children_create(&f->children, f->base), 0);
    snprintf(f->dir, sizeof(f->dir), "/tmp/hnp test launch.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    write_script(f, "agent.sh", agent_script, f->agent);
    write_script(f, "daemon.sh", daemon_script, f->daemon);
    *state = f;
    return 0;
}

int launch_teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[128];

    hnp_launcher_destroy(f->launcher);
    hnp_children_destroy(f->children);
    event_free(f->tick);
    event_base_free(f->base);
    for (int i = 0; i <= MAX_VPIDS; i++) {
        free(f->outcomes[i].node);
        free(f->outcomes[i].command);
        free(f->outcomes[i].output);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

