/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon launcher (see launcher.h): a FIFO of requests, at most
 * max_concurrent agents alive, a retry with exponential backoff for an
 * agent that exits 255.
 *
 * A request is QUEUED, RUNNING (its agent is alive), in BACKOFF (waiting
 * for a retry; it holds no slot meanwhile, and goes back to the head of the
 * queue), JOINED (its daemon has called back while the agent lives on) or
 * FINISHED. Finished requests keep their node and command until the
 * launcher is destroyed, so that a daemon that never calls back can still
 * be reported with the exact command that started it.
 *
 * An agent is finished when it is reaped. A daemon either detaches from it
 * once it has joined, and the agent exits 0, or stays attached to it for
 * the whole job (a tree launch): then the join frees the slot, and the
 * agent's exit at the end is only bookkeeping, since a daemon lost after
 * joining is the runtime's to report. A joined daemon is not signalled
 * from here: it leaves with the job, unless the job gives up on it
 * (hnp_launcher_kill_daemon: SIGKILL to its agent, if alive, and a kill
 * through a new agent by the pid it joined with), or its agent is still
 * alive when the launcher is destroyed. The daemon closes its stdio once it
 * has joined, but a descendant could hold the output pipe open for ever,
 * so at the reap whatever is readable is taken and the pipe closed.
 * Agents are started from a deferred event, never inside submit: callbacks
 * do not run re-entrantly from the caller's own calls (and must not
 * destroy the launcher).
 *
 * Only agents are retried: a local daemon that exits 255 failed on its
 * own. An agent that cannot even be forked is reported failed with status
 * 127, as a shell reports a command it cannot run, the reason in output.
 * cancel_all sends SIGTERM to the running agents' groups and forgets the
 * rest; the running ones stay pending, without callbacks, until reaped.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "procs/forkexec.h"
#include "hnp_log.h"
#include "agent.h"
#include "launcher_internal.h"
#include "secret.h"

#define LAUNCH_CHUNK (64 * 1024)
#define LAUNCH_DRAIN_READS 16
#define AGENT_EXIT_CONNECTION 255
/* The status reported for an agent that could not even be forked: what a
 * shell reports for a command it cannot run. */
#define STATUS_NOT_STARTED (127 << 8)

/* ------------------------------------------------------------ requests */

/* What the agent said last outlives its run: a daemon that never calls
 * back is reported with it (hnp_launcher_output_tail). */
static void keep_last_words(launch_req_t *r)
{
    char *text, tail[LAUNCH_TAIL_BYTES];

    if (r->capture == NULL ||
        (text = launch_capture_render(r->capture)) == NULL)
        return;
    launch_last_lines(text, LAUNCH_TAIL_LINES, tail, sizeof(tail));
    free(text);
    free(r->last_words);
    r->last_words = strdup(tail);
}

static void req_release_run(launch_req_t *r)
{
    keep_last_words(r);
    if (r->out_ev != NULL)
        event_free(r->out_ev);
    r->out_ev = NULL;
    if (r->out_fd >= 0)
        close(r->out_fd);
    r->out_fd = -1;
    if (r->errno_fd >= 0)
        close(r->errno_fd);
    r->errno_fd = -1;
    free(r->capture);
    r->capture = NULL;
}

/* The daemon has read its secret file and removed it, or never will: a
 * file still there is removed. */
void launch_req_drop_secret(launch_req_t *r)
{
    if (r->secret_file == NULL)
        return;
    if (unlink(r->secret_file) == 0)
        HNP_VERBOSE(r->l->log, 5, "vpid %u: removed its unread secret file",
                    r->vpid);
    free(r->secret_file);
    r->secret_file = NULL;
}

/* Keeps what hnp_launcher_command needs, drops the rest. */
static void req_finish(launch_req_t *r)
{
    req_release_run(r);
    if (r->retry_ev != NULL)
        event_free(r->retry_ev);
    r->retry_ev = NULL;
    launch_strv_free(r->words.argv);
    r->words.argv = NULL;
    r->state = REQ_FINISHED;
}

static void req_free(launch_req_t *r)
{
    req_finish(r);
    launch_req_drop_secret(r);
    free(r->words.command);
    free(r->node);
    free(r->last_words);
    free(r);
}

static void queue_push(hnp_launcher_t *l, launch_req_t *r, bool at_head)
{
    r->state = REQ_QUEUED;
    r->next_queued = NULL;
    if (l->queue_head == NULL) {
        l->queue_head = l->queue_tail = r;
    } else if (at_head) {
        r->next_queued = l->queue_head;
        l->queue_head = r;
    } else {
        l->queue_tail->next_queued = r;
        l->queue_tail = r;
    }
    l->queued++;
}

static launch_req_t *queue_pop(hnp_launcher_t *l)
{
    launch_req_t *r = l->queue_head;

    if (r == NULL)
        return NULL;
    l->queue_head = r->next_queued;
    if (l->queue_head == NULL)
        l->queue_tail = NULL;
    r->next_queued = NULL;
    l->queued--;
    return r;
}

void launch_schedule_pump(hnp_launcher_t *l)
{
    event_active(l->pump, EV_TIMEOUT, 1);
}

/* ------------------------------------------------------------ outcomes */

static void report_failure(launch_req_t *r, int wait_status)
{
    hnp_launcher_t *l = r->l;
    char *output = r->capture != NULL ? launch_capture_render(r->capture)
                                      : NULL;

    req_finish(r);
    launch_req_drop_secret(r);
    if (l->cb.failed != NULL)
        l->cb.failed(l->cb.ctx, r->vpid, r->node, r->words.command,
                     wait_status, output != NULL ? output : "");
    free(output);
}

static void start_backoff(launch_req_t *r, int wait_status)
{
    hnp_launcher_t *l = r->l;
    double delay = l->retry_delay;
    struct timeval tv;

    for (unsigned i = 0; i < r->attempt; i++)
        delay *= 2;

    tv.tv_sec = (time_t)delay;
    tv.tv_usec = (suseconds_t)((delay - (double)tv.tv_sec) * 1e6);
    r->attempt++;
    HNP_VERBOSE(l->log, 1, "agent for vpid %u on %s exited with status %d "
                "(connection failure); retry %u of %u in %g s",
                r->vpid, r->node, WEXITSTATUS(wait_status), r->attempt,
                l->retries, delay);
    req_release_run(r);
    r->state = REQ_BACKOFF;
    l->backing_off++;
    evtimer_add(r->retry_ev, &tv);
}

static void retry_due(evutil_socket_t fd, short what, void *arg)
{
    launch_req_t *r = arg;

    (void)fd;
    (void)what;
    r->l->backing_off--;
    queue_push(r->l, r, true);
    launch_schedule_pump(r->l);
}

static void conclude(launch_req_t *r, int wait_status)
{
    hnp_launcher_t *l = r->l;

    if (r->quiet) {
        HNP_VERBOSE(l->log, WIFEXITED(wait_status) &&
                    WEXITSTATUS(wait_status) == 0 ? 5 : 1, "%s on %s ended "
                    "with wait status %#x", r->words.command, r->node,
                    (unsigned)wait_status);
        req_finish(r);
    } else if (r->cancelled) {
        req_finish(r);
    } else if (r->state == REQ_JOINED && !(WIFEXITED(wait_status) &&
                                           WEXITSTATUS(wait_status) == 0)) {
        HNP_VERBOSE(l->log, 1, "the agent of vpid %u on %s ended with wait "
                    "status %#x after its daemon had joined", r->vpid,
                    r->node, (unsigned)wait_status);
        req_finish(r);
    } else if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
        HNP_VERBOSE(l->log, 5, "agent for vpid %u on %s done", r->vpid,
                    r->node);
        req_finish(r);
        if (l->cb.done != NULL)
            l->cb.done(l->cb.ctx, r->vpid);
    } else if (!r->local && WIFEXITED(wait_status) &&
               WEXITSTATUS(wait_status) == AGENT_EXIT_CONNECTION &&
               r->attempt < l->retries) {
        start_backoff(r, wait_status);
    } else {
        report_failure(r, wait_status);
    }
}

/* ------------------------------------------------------------ running */

/* The capture is made when the agent first says something: it is 32 kB,
 * and most agents say nothing. Without memory, the words are lost. */
static void capture_add(launch_req_t *r, const void *data, size_t len)
{
    if (r->capture == NULL)
        r->capture = calloc(1, sizeof(*r->capture));
    if (r->capture != NULL)
        launch_capture_append(r->capture, data, len);
}

static void capture_text(launch_req_t *r, const char *text)
{
    capture_add(r, text, strlen(text));
}

/* Returns false once the pipe is closed (end of file or error). */
static bool read_output_once(launch_req_t *r, bool *got_data)
{
    ssize_t n = read(r->out_fd, r->l->chunk, LAUNCH_CHUNK);

    *got_data = n > 0;
    if (n > 0) {
        capture_add(r, r->l->chunk, (size_t)n);
        if (r->daemon && !r->joined && !r->cancelled &&
            r->l->cb.printed != NULL)
            r->l->cb.printed(r->l->cb.ctx, r->vpid);
        return true;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return true;
    event_free(r->out_ev);
    r->out_ev = NULL;
    close(r->out_fd);
    r->out_fd = -1;
    return false;
}

static void output_readable(evutil_socket_t fd, short what, void *arg)
{
    bool got_data;

    (void)fd;
    (void)what;
    read_output_once(arg, &got_data);
}

static void agent_reaped(void *ctx, pid_t pid, int wait_status)
{
    launch_req_t *r = ctx;
    bool got_data = true;

    (void)pid;
    for (int i = 0; i < LAUNCH_DRAIN_READS && r->out_fd >= 0 && got_data; i++)
        read_output_once(r, &got_data);
    int exec_errno = hnp_forkexec_exec_errno(r->errno_fd);
    r->errno_fd = -1;
    if (exec_errno != 0) {
        capture_text(r, "cannot execute ");
        capture_text(r, r->words.argv[0]);
        capture_text(r, ": ");
        capture_text(r, strerror(exec_errno));
    }
    if (r->state == REQ_RUNNING) {
        r->l->running--;
        launch_schedule_pump(r->l);
    }
    conclude(r, wait_status);
}

/* The agent's stdin: the secret is in the pipe before the fork, and our
 * end is closed at once, so no write can block or meet a dead reader. */
static int secret_pipe(hnp_launcher_t *l, int *read_end, char *err,
                       size_t errlen)
{
    int ends[2];
    size_t len = strlen(l->secret_line);
    int rc = hnp_pipe(ends, err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    ssize_t n = write(ends[1], l->secret_line, len);
    close(ends[1]);
    if (n != (ssize_t)len) {
        hnp_err_set(err, errlen, "cannot write the secret into a pipe: %s",
                    n < 0 ? strerror(errno) : "short write");
        close(ends[0]);
        return HNP_ERR_IO;
    }
    *read_end = ends[0];
    return HNP_SUCCESS;
}

static int open_output(launch_req_t *r, int *write_end, char *err,
                       size_t errlen)
{
    int ends[2];
    int rc = hnp_pipe(ends, err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    r->out_fd = ends[0];
    *write_end = ends[1];
    r->out_ev = event_new(r->l->base, r->out_fd, EV_READ | EV_PERSIST,
                          output_readable, r);
    if (r->out_ev == NULL || hnp_fd_set_nonblock(r->out_fd) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "cannot set up the agent's output pipe");
        return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

static int watch_agent(launch_req_t *r, char *err, size_t errlen)
{
    int rc = HNP_ERROR;

    if (event_add(r->out_ev, NULL) == 0)
        rc = hnp_children_watch(r->l->children, r->pid, agent_reaped, r);
    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "cannot watch agent pid %d", (int)r->pid);
        /* Unwatched, it is then reaped silently. */
        hnp_signal_child_group(r->pid, SIGKILL);
    }
    return rc;
}

/* The command's stdin: the secret, or /dev/null when the secret goes
 * into a file (a leftover of an earlier attempt is replaced) or for a
 * kill. */
static int secret_stdin(launch_req_t *r, int *in_fd, char *err, size_t errlen)
{
    int rc;

    if (r->quiet) { /* a kill has no use for the secret */
        *in_fd = hnp_open_devnull(err, errlen);
        return *in_fd >= 0 ? HNP_SUCCESS : *in_fd;
    }
    if (r->secret_file == NULL)
        return secret_pipe(r->l, in_fd, err, errlen);
    unlink(r->secret_file);
    rc = launch_secret_write(r->secret_file, r->l->secret_line, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    *in_fd = hnp_open_devnull(err, errlen);
    return *in_fd >= 0 ? HNP_SUCCESS : *in_fd;
}

/* Own process group (a ^C at the terminal is hnp's to handle, and cancel
 * can reach the whole group); SIGTERM if hnp dies first. */
static int req_start(launch_req_t *r, char *err, size_t errlen)
{
    int in_fd = -1, out_fd = -1;
    int rc = secret_stdin(r, &in_fd, err, errlen);

    if (rc == HNP_SUCCESS)
        rc = open_output(r, &out_fd, err, errlen);
    if (rc == HNP_SUCCESS) {
        hnp_forkexec_spec_t spec = {
            r->words.argv, NULL, NULL, in_fd, out_fd, out_fd, SIGTERM, NULL, NULL, 0,
            false,
        };
        rc = hnp_forkexec(&spec, &r->pid, &r->errno_fd, err, errlen);
    }
    if (in_fd >= 0)
        close(in_fd);
    if (out_fd >= 0)
        close(out_fd);
    if (rc == HNP_SUCCESS)
        rc = watch_agent(r, err, errlen);
    if (rc != HNP_SUCCESS) {
        req_release_run(r);
        return rc;
    }
    clock_gettime(CLOCK_MONOTONIC, &r->started);
    r->state = REQ_RUNNING;
    r->l->running++;
    HNP_VERBOSE(r->l->log, 5, "vpid %u: started pid %d: %s", r->vpid,
                (int)r->pid, r->words.command);
    return HNP_SUCCESS;
}

static void pump_queue(evutil_socket_t fd, short what, void *arg)
{
    hnp_launcher_t *l = arg;
    char err[256];

    (void)fd;
    (void)what;
    while (l->queue_head != NULL &&
           (l->max_concurrent == 0 || l->running < l->max_concurrent)) {
        launch_req_t *r = queue_pop(l);
        if (req_start(r, err, sizeof(err)) == HNP_SUCCESS)
            continue;
        HNP_VERBOSE(l->log, 1, "vpid %u: %s", r->vpid, err);
        capture_text(r, err);
        report_failure(r, STATUS_NOT_STARTED);
    }
}

/* ------------------------------------------------------------ the index */

/* A daemon's request is looked up by vpid at its join, and for the
 * report; the HNP of a flat launch holds one request a node, so a search
 * of the list would make N joins cost N^2. */
static int index_req(hnp_launcher_t *l, launch_req_t *r)
{
    if (r->vpid >= l->nby_vpid) {
        size_t n = l->nby_vpid > 0 ? l->nby_vpid : 64;
        launch_req_t **grown;

        while (n <= r->vpid)
            n *= 2;
        grown = realloc(l->by_vpid, n * sizeof(*grown));
        if (grown == NULL)
            return HNP_ERR_NOMEM;
        memset(grown + l->nby_vpid, 0, (n - l->nby_vpid) * sizeof(*grown));
        l->by_vpid = grown;
        l->nby_vpid = n;
    }
    l->by_vpid[r->vpid] = r;
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ public */

/* See launcher_internal.h. */
launch_req_t *launch_submit_req(hnp_launcher_t *l, hnp_vpid_t vpid,
                                const char *node, const char *program,
                                char *const *args, bool local, bool daemon,
                                bool indexed, const char *secret_file)
{
    launch_req_t *r;
    int rc;

    if (node == NULL || (!local && l->agent_argv == NULL))
        return NULL;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return NULL;
    r->l = l;
    r->vpid = vpid;
    r->local = local;
    r->daemon = daemon;
    r->out_fd = r->errno_fd = -1;
    r->node = strdup(node);
    r->retry_ev = evtimer_new(l->base, retry_due, r);
    if (secret_file != NULL && (r->secret_file = strdup(secret_file)) == NULL)
        rc = HNP_ERR_NOMEM;
    else if (local)
        rc = launch_words_local(program, args, &r->words);
    else
        rc = launch_words_agent(l->agent_argv, node, program, args, &r->words);
    if (rc != HNP_SUCCESS || r->node == NULL || r->retry_ev == NULL ||
        (indexed && index_req(l, r) != HNP_SUCCESS)) {
        req_free(r);
        return NULL;
    }
    r->next_all = l->all;
    l->all = r;
    queue_push(l, r, false);
    launch_schedule_pump(l);
    return r;
}

static int submit(hnp_launcher_t *l, hnp_vpid_t vpid, const char *node,
                  const char *program, char *const *args, bool local,
                  bool daemon, const char *secret_file)
{
    if (node == NULL || (!local && l->agent_argv == NULL))
        return HNP_ERR_BAD_PARAM;
    return launch_submit_req(l, vpid, node, program, args, local, daemon, true,
                      secret_file) != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

int hnp_launcher_submit(hnp_launcher_t *l, hnp_vpid_t vpid, const char *node,
                        char *const *args, bool local)
{
    return submit(l, vpid, node, l->daemon_path, args, local, true, NULL);
}

int hnp_launcher_submit_via(hnp_launcher_t *l, hnp_vpid_t vpid,
                            const char *node, char *const *command,
                            char *const *args, const char *secret_file)
{
    char **words;
    int rc;

    if (command == NULL || command[0] == NULL)
        return HNP_ERR_BAD_PARAM;
    words = launch_strv_join(command + 1, l->daemon_path, args);
    if (words == NULL)
        return HNP_ERR_NOMEM;
    rc = submit(l, vpid, node, command[0], words, true, true, secret_file);
    launch_strv_free(words);
    return rc;
}

int hnp_launcher_secret_file(hnp_launcher_t *l, hnp_vpid_t vpid, char *path,
                             size_t len, char *err, size_t errlen)
{
    int rc = HNP_SUCCESS;

    if (l->secret_dir == NULL)
        rc = launch_secret_dir_create(l->secret_base, &l->secret_dir, err,
                                      errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if ((size_t)snprintf(path, len, "%s/%u", l->secret_dir, vpid) >= len) {
        hnp_err_set(err, errlen, "the secret file's path is too long");
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_launcher_submit_command(hnp_launcher_t *l, hnp_vpid_t vpid,
                                const char *label, char *const *argv)
{
    if (argv == NULL || argv[0] == NULL)
        return HNP_ERR_BAD_PARAM;
    return submit(l, vpid, label, argv[0], argv + 1, true, false, NULL);
}

size_t hnp_launcher_pending(const hnp_launcher_t *l)
{
    return l->queued + l->running + l->backing_off;
}

void hnp_launcher_cancel_all(hnp_launcher_t *l)
{
    HNP_VERBOSE(l->log, 5, "cancel: %zu agent(s) running, %zu queued, %zu "
                "waiting to retry", l->running, l->queued, l->backing_off);
    for (launch_req_t *r = l->all; r != NULL; r = r->next_all) {
        if (r->quiet) /* a kill goes on: it is how the job ends */
            continue;
        launch_req_drop_secret(r);
        if (r->state == REQ_JOINED) {
            r->cancelled = true;
        } else if (r->state == REQ_RUNNING) {
            /* Reaped later, without a callback. */
            r->cancelled = true;
            hnp_signal_child_group(r->pid, SIGTERM);
        } else if (r->state != REQ_FINISHED) {
            req_finish(r);
        }
    }
    launch_req_t *q = l->queue_head;
    l->queue_head = l->queue_tail = NULL;
    l->queued = 0;
    l->backing_off = 0;
    for (launch_req_t *next; q != NULL; q = next) {
        next = q->next_queued;
        if (q->quiet)
            queue_push(l, q, false);
    }
}

/* ------------------------------------------------------------ lifetime */

static int check_config(const hnp_launch_config_t *config, char *err,
                        size_t errlen)
{
    const char *secret = config->secret_hex;

    if (config->daemon_path == NULL || config->daemon_path[0] != '/') {
        hnp_err_set(err, errlen, "the daemon's path must be absolute (%s)",
                    config->daemon_path != NULL ? config->daemon_path
                                                : "none given");
        return HNP_ERR_BAD_PARAM;
    }
    /* Hex only: a newline would end the line the daemon reads, and a short
     * secret fits the pipe without blocking. */
    if (secret == NULL || secret[0] == '\0' ||
        strspn(secret, "0123456789abcdefABCDEF") != strlen(secret) ||
        strlen(secret) >= PIPE_BUF) {
        hnp_err_set(err, errlen, "the job secret must be 1 to %d hex digits",
                    PIPE_BUF - 1);
        return HNP_ERR_BAD_PARAM;
    }
    if (config->agent_argv != NULL &&
        (config->agent_argv[0] == NULL || config->agent_argv[0][0] == '\0')) {
        hnp_err_set(err, errlen, "the remote-shell agent is empty");
        return HNP_ERR_BAD_PARAM;
    }
    if (!(config->retry_delay >= 0)) {
        hnp_err_set(err, errlen, "the retry delay must not be negative");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static int copy_config(hnp_launcher_t *l, const hnp_launch_config_t *config)
{
    size_t len = strlen(config->secret_hex);

    if (config->agent_argv != NULL &&
        (l->agent_argv = launch_strv_copy(config->agent_argv)) == NULL)
        return HNP_ERR_NOMEM;
    l->daemon_path = strdup(config->daemon_path);
    l->secret_line = malloc(len + 2);
    if (l->daemon_path == NULL || l->secret_line == NULL)
        return HNP_ERR_NOMEM;
    if (config->secret_dir != NULL && config->secret_dir[0] != '\0' &&
        (l->secret_base = strdup(config->secret_dir)) == NULL)
        return HNP_ERR_NOMEM;
    memcpy(l->secret_line, config->secret_hex, len);
    memcpy(l->secret_line + len, "\n", 2);
    l->max_concurrent = config->max_concurrent;
    l->retries = config->retries;
    l->retry_delay = config->retry_delay;
    return HNP_SUCCESS;
}

int hnp_launcher_create(hnp_launcher_t **out, struct event_base *base,
                        hnp_children_t *children,
                        const hnp_launch_config_t *config,
                        const hnp_launch_callbacks_t *cb, char *err,
                        size_t errlen)
{
    hnp_launcher_t *l;
    int rc;

    if (base == NULL || children == NULL || config == NULL || cb == NULL) {
        hnp_err_set(err, errlen, "launcher: missing argument");
        return HNP_ERR_BAD_PARAM;
    }
    rc = check_config(config, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    l = calloc(1, sizeof(*l));
    if (l == NULL)
        goto nomem;
    l->base = base;
    l->children = children;
    l->cb = *cb;
    l->log = hnp_log_stream("plm");
    l->chunk = malloc(LAUNCH_CHUNK);
    l->pump = event_new(base, -1, 0, pump_queue, l);
    if (l->chunk == NULL || l->pump == NULL ||
        copy_config(l, config) != HNP_SUCCESS)
        goto nomem;
    *out = l;
    return HNP_SUCCESS;

nomem:
    hnp_launcher_destroy(l);
    hnp_err_set(err, errlen, "launcher: out of memory");
    return HNP_ERR_NOMEM;
}

void hnp_launcher_destroy(hnp_launcher_t *l)
{
    if (l == NULL)
        return;
    while (l->all != NULL) {
        launch_req_t *r = l->all;
        l->all = r->next_all;
        /* Forgotten first: the watcher must not call into freed memory
         * when it reaps the agent. */
        if (r->state == REQ_RUNNING || r->state == REQ_JOINED)
            hnp_children_forget(l->children, r->pid);
        /* A daemon's agent still alive when the launcher goes (its daemon
         * attached, and never ended) is killed; a launcher's own command
         * (srun) gets SIGTERM, on which it ends what it started. */
        if (agent_alive(r))
            hnp_signal_child_group(r->pid, r->daemon ? SIGKILL : SIGTERM);
        req_free(r);
    }
    if (l->secret_dir != NULL && rmdir(l->secret_dir) != 0)
        HNP_WARN(l->log, "cannot remove %s: %s", l->secret_dir,
                 strerror(errno));
    free(l->secret_dir);
    free(l->secret_base);
    free(l->by_vpid);
    if (l->pump != NULL)
        event_free(l->pump);
    free(l->chunk);
    launch_strv_free(l->agent_argv);
    free(l->daemon_path);
    free(l->secret_line);
    free(l);
}
