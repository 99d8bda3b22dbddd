/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A daemon's log once it has left its agent, whose stdio it no longer
 * holds. With log_output=file:PATH, its log went to PATH.NODE when the
 * welcome came, and its stderr (what its libraries print) goes there too.
 * Otherwise every message goes to the HNP (HNP_TAG_REPORT), which prints
 * it on its own log with this node's name in front; so does every line
 * its libraries write to its stderr, read from a pipe. Warnings, errors
 * and those lines go at most rte_daemon_log_rate a second, the number
 * held back following at the second's end; verbose messages, which the
 * user asked for, are not held back.
 *
 * From the welcome (which brings the verbosity the user asked for) to
 * leaving the agent, messages go to the agent's stderr, which the HNP
 * shows when the daemon fails to join, and are also kept: once joined,
 * they go to the HNP like the rest.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "ratelimit.h"
#include "wire/report.h"

#define RELAY_LINE_MAX 1024
#define RELAY_KEEP_MAX 512 /* messages kept until the agent is left */

typedef struct relay_kept {
    hnp_log_severity_t sev;
    char stream[32];
    char *line;
} relay_kept_t;

struct hnpd_relay {
    hnpd_t *daemon;
    hnpd_ratelimit_t limit;
    hnp_rte_timer_t *count_timer; /* reports what was held back */
    bool sending;                 /* a message logged while sending one is
                                     dropped, not sent inside the send */
    struct event *stderr_ev;
    int stderr_fd;                /* the pipe's end this daemon reads */
    char partial[RELAY_LINE_MAX]; /* a stderr line not yet ended */
    size_t partial_len;
    bool joined;                  /* the agent's stdio is left */
    relay_kept_t *kept;           /* until then, what was logged */
    size_t nkept;
    unsigned long kept_dropped;   /* past RELAY_KEEP_MAX */
};

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void send_to_hnp(hnpd_relay_t *r, hnp_log_severity_t sev,
                        const char *stream, const char *line)
{
    hnp_wire_report_t report = { .severity = (int32_t)sev,
                                 .stream = (char *)stream,
                                 .line = (char *)line };
    hnp_buffer_t buf;

    if (r->sending)
        return;
    r->sending = true;
    hnp_buffer_init(&buf);
    if (hnp_wire_report_pack(&buf, &report) == HNP_SUCCESS)
        (void)hnp_rte_send(r->daemon->rte, 0, HNP_TAG_REPORT, buf.data,
                           buf.len);
    hnp_buffer_release(&buf);
    r->sending = false;
}

static void report_held_back(hnp_rte_t *rte, void *cbdata)
{
    hnpd_relay_t *r = cbdata;
    unsigned long n = hnpd_ratelimit_take_suppressed(&r->limit);
    char line[256];

    (void)rte;
    hnp_rte_timer_destroy(r->count_timer);
    r->count_timer = NULL;
    if (n == 0)
        return;
    snprintf(line, sizeof(line), "%lu more message%s of this daemon held "
             "back (at most %u a second: rte_daemon_log_rate)", n,
             n == 1 ? "" : "s", r->limit.per_window);
    send_to_hnp(r, HNP_LOG_WARN, "hnpd", line);
}

static void relay_message(hnpd_relay_t *r, hnp_log_severity_t sev,
                          const char *stream, const char *message)
{
    double now = now_seconds();

    if (sev != HNP_LOG_VERBOSE && !hnpd_ratelimit_admit(&r->limit, now)) {
        if (r->count_timer == NULL) {
            double wait = hnpd_ratelimit_window_end(&r->limit) - now;
            r->count_timer = hnp_rte_timer_create(r->daemon->rte,
                                                  wait > 0.01 ? wait : 0.01,
                                                  report_held_back, r);
        }
        return;
    }
    send_to_hnp(r, sev, stream, message);
}

static void keep_message(hnpd_relay_t *r, hnp_log_severity_t sev,
                         const char *stream, const char *message)
{
    relay_kept_t *k;

    if (r->kept == NULL)
        r->kept = calloc(RELAY_KEEP_MAX, sizeof(*r->kept));
    if (r->kept == NULL || r->nkept == RELAY_KEEP_MAX) {
        r->kept_dropped++;
        return;
    }
    k = &r->kept[r->nkept];
    if ((k->line = strdup(message)) == NULL) {
        r->kept_dropped++;
        return;
    }
    k->sev = sev;
    snprintf(k->stream, sizeof(k->stream), "%s", stream);
    r->nkept++;
}

static void send_kept(hnpd_relay_t *r)
{
    char line[128];

    for (size_t i = 0; i < r->nkept; i++) {
        relay_message(r, r->kept[i].sev, r->kept[i].stream, r->kept[i].line);
        free(r->kept[i].line);
    }
    free(r->kept);
    r->kept = NULL;
    r->nkept = 0;
    if (r->kept_dropped > 0) {
        snprintf(line, sizeof(line), "%lu messages logged while joining "
                 "were not kept", r->kept_dropped);
        relay_message(r, HNP_LOG_WARN, "hnpd", line);
    }
}

static void on_log(void *ctx, hnp_log_severity_t sev, const char *stream,
                   const char *message)
{
    hnpd_relay_t *r = ctx;

    if (r->joined) {
        relay_message(r, sev, stream, message);
        return;
    }
    hnp_log_write(sev, stream, message);
    keep_message(r, sev, stream, message);
}

/* Each whole line of what was written to this daemon's stderr; one too
 * long for the buffer goes in pieces. */
static void relay_stderr_lines(hnpd_relay_t *r)
{
    char *start = r->partial, *nl;
    size_t left = r->partial_len;

    while ((nl = memchr(start, '\n', left)) != NULL) {
        *nl = '\0';
        relay_message(r, HNP_LOG_INFO, "stderr", start);
        left -= (size_t)(nl + 1 - start);
        start = nl + 1;
    }
    if (left == sizeof(r->partial) - 1) {
        start[left] = '\0';
        relay_message(r, HNP_LOG_INFO, "stderr", start);
        left = 0;
    }
    memmove(r->partial, start, left);
    r->partial_len = left;
}

static void on_stderr(evutil_socket_t fd, short what, void *arg)
{
    hnpd_relay_t *r = arg;
    ssize_t n;

    (void)what;
    n = read(fd, r->partial + r->partial_len,
             sizeof(r->partial) - 1 - r->partial_len);
    if (n > 0) {
        r->partial_len += (size_t)n;
        relay_stderr_lines(r);
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        event_del(r->stderr_ev);
    }
}

/* stdin and stdout from /dev/null; stderr to @p fd (closed), or also from
 * /dev/null when it is -1. */
static void replace_stdio(int fd)
{
    int null_fd = open("/dev/null", O_RDWR);

    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        dup2(null_fd, STDOUT_FILENO);
        dup2(fd >= 0 ? fd : null_fd, STDERR_FILENO);
        if (null_fd > STDERR_FILENO)
            close(null_fd);
    }
    if (fd > STDERR_FILENO)
        close(fd);
}

/* The pipe that stands for stderr: this daemon reads one end, the other
 * is its fd 2, which never blocks (what does not fit is lost, rather than
 * a library's write stopping the event loop that reads it). */
static int capture_stderr(hnpd_relay_t *r)
{
    int fds[2];

    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    r->stderr_ev = event_new(r->daemon->rte->base, fds[0],
                             EV_READ | EV_PERSIST, on_stderr, r);
    if (r->stderr_ev == NULL || event_add(r->stderr_ev, NULL) != 0) {
        if (r->stderr_ev != NULL)
            event_free(r->stderr_ev);
        r->stderr_ev = NULL;
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    r->stderr_fd = fds[0];
    return fds[1];
}

void hnpd_relay_begin(hnpd_t *d)
{
    hnpd_relay_t *r;

    /* To a file, or under a batch system's command, which forwards its
     * tasks' stderr itself: nothing to relay. */
    if (hnp_mca_log_file(d->setup->mca) != NULL ||
        (d->detach_fd < 0 && !d->attached) || d->relay != NULL)
        return;
    if ((r = calloc(1, sizeof(*r))) == NULL)
        return;
    r->daemon = d;
    r->stderr_fd = -1;
    hnpd_ratelimit_init(&r->limit, d->rte->core->daemon_log_rate, 1.0);
    d->relay = r;
    hnp_log_set_handler(on_log, r);
}

void hnpd_relay_leave_agent(hnpd_t *d)
{
    FILE *file = hnp_mca_log_file(d->setup->mca);
    hnpd_relay_t *r = d->relay;

    if (file != NULL) {
        fflush(file);
        replace_stdio(dup(fileno(file)));
        return;
    }
    if (r == NULL) {
        replace_stdio(-1);
        return;
    }
    replace_stdio(capture_stderr(r));
    r->joined = true;
    send_kept(r);
}

void hnpd_relay_stop(hnpd_t *d)
{
    hnpd_relay_t *r = d->relay;

    if (r == NULL)
        return;
    hnp_log_set_handler(NULL, NULL);
    for (size_t i = 0; i < r->nkept; i++)
        free(r->kept[i].line);
    free(r->kept);
    hnp_rte_timer_destroy(r->count_timer);
    if (r->stderr_ev != NULL)
        event_free(r->stderr_ev);
    if (r->stderr_fd >= 0)
        close(r->stderr_fd);
    free(r);
    d->relay = NULL;
}
