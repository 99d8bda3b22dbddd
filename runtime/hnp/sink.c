/* SPDX-License-Identifier: BSD-3-Clause */
/* hnp's stdout or stderr, written without blocking the loop (see sink.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "sink.h"

typedef enum {
    SINK_DIRECT,   /* a file or a device: written at once */
    SINK_PRIVATE,  /* our own non-blocking description of it */
    SINK_POLLED,   /* the shared description, PIPE_BUF when writable */
} sink_mode_t;

struct hnp_sink {
    sink_mode_t mode;
    int fd;               /* what is written: ours in SINK_PRIVATE */
    struct evbuffer *queue;
    struct event *writable;
    hnp_sink_callbacks_t cb;
    bool broken;
};

/* A description of the same pipe or terminal that only hnp uses, with
 * O_NONBLOCK; -1 where the system cannot give one. */
static int reopen_private(int fd, const struct stat *st)
{
    char path[64];
    struct stat again;
    int copy;

    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    copy = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (copy < 0)
        return -1;
    if (fstat(copy, &again) != 0 || again.st_dev != st->st_dev ||
        again.st_ino != st->st_ino) {
        close(copy);
        return -1;
    }
    return copy;
}

static void sink_choose_mode(hnp_sink_t *sink, int fd)
{
    struct stat st;
    int copy;

    sink->fd = fd;
    sink->mode = SINK_DIRECT;
    if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) ||
        (S_ISCHR(st.st_mode) && !isatty(fd)))
        return;
    if ((copy = reopen_private(fd, &st)) >= 0) {
        sink->fd = copy;
        sink->mode = SINK_PRIVATE;
    } else {
        sink->mode = SINK_POLLED;
    }
}

static void sink_fail(hnp_sink_t *sink, int err)
{
    if (sink->broken)
        return;
    sink->broken = true;
    evbuffer_drain(sink->queue, evbuffer_get_length(sink->queue));
    if (sink->writable != NULL)
        event_del(sink->writable);
    if (sink->cb.broken != NULL)
        sink->cb.broken(sink, err, sink->cb.ctx);
}

/* One attempt at what the reader takes now; false once broken. */
static bool sink_write_some(hnp_sink_t *sink)
{
    int n;

    if (sink->mode == SINK_POLLED)
        n = evbuffer_write_atmost(sink->queue, sink->fd, PIPE_BUF);
    else
        n = evbuffer_write(sink->queue, sink->fd);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
        sink_fail(sink, errno);
        return false;
    }
    return true;
}

/* Everything queued, waiting for the reader whenever it is not ready. */
static void sink_write_all(hnp_sink_t *sink)
{
    while (!sink->broken && evbuffer_get_length(sink->queue) > 0) {
        struct pollfd pfd = { .fd = sink->fd, .events = POLLOUT };
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
            break;
        sink_write_some(sink);
    }
}

/* Write what can be written now; the loop says when to write the rest. */
static void sink_write(hnp_sink_t *sink)
{
    size_t before = evbuffer_get_length(sink->queue);

    if (sink->mode == SINK_DIRECT)
        sink_write_all(sink);
    else if (before > 0 && !sink_write_some(sink))
        return;
    if (sink->broken)
        return;
    if (sink->writable != NULL && evbuffer_get_length(sink->queue) > 0)
        event_add(sink->writable, NULL);
    else if (sink->writable != NULL)
        event_del(sink->writable);
    if (evbuffer_get_length(sink->queue) < before && sink->cb.progress != NULL)
        sink->cb.progress(sink, sink->cb.ctx);
}

static void sink_writable(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    sink_write(arg);
}

hnp_sink_t *hnp_sink_create(struct event_base *base, int fd,
                            const hnp_sink_callbacks_t *cb)
{
    hnp_sink_t *sink = calloc(1, sizeof(*sink));

    if (sink == NULL)
        return NULL;
    sink_choose_mode(sink, fd);
    sink->cb = *cb;
    sink->queue = evbuffer_new();
    if (sink->mode != SINK_DIRECT)
        sink->writable = event_new(base, sink->fd, EV_WRITE, sink_writable,
                                   sink);
    if (sink->queue == NULL ||
        (sink->mode != SINK_DIRECT && sink->writable == NULL)) {
        hnp_sink_destroy(sink);
        return NULL;
    }
    return sink;
}

void hnp_sink_add(hnp_sink_t *sink, const void *data, size_t len)
{
    if (sink->broken || len == 0)
        return;
    if (evbuffer_add(sink->queue, data, len) != 0) {
        sink_fail(sink, ENOMEM);
        return;
    }
    /* Behind a queue, the loop writes when the reader is ready. */
    if (sink->mode == SINK_DIRECT ||
        !event_pending(sink->writable, EV_WRITE, NULL))
        sink_write(sink);
}

size_t hnp_sink_queued(const hnp_sink_t *sink)
{
    return evbuffer_get_length(sink->queue);
}

bool hnp_sink_broken(const hnp_sink_t *sink)
{
    return sink->broken;
}

void hnp_sink_flush_all(hnp_sink_t *sink)
{
    sink_write_all(sink);
    if (sink->writable != NULL)
        event_del(sink->writable);
}

void hnp_sink_destroy(hnp_sink_t *sink)
{
    if (sink == NULL)
        return;
    if (sink->writable != NULL)
        event_free(sink->writable);
    if (sink->queue != NULL)
        evbuffer_free(sink->queue);
    if (sink->mode == SINK_PRIVATE)
        close(sink->fd);
    free(sink);
}
