/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One of hnp's own output streams (stdout, stderr) written from the event
 * loop without ever blocking it: what the reader does not take yet waits
 * in a queue, and the loop goes on (heartbeats, messages, signals).
 *
 * How the descriptor is written depends on what it is. A regular file or
 * a device such as /dev/null does not stall: it is written at once. A
 * pipe or a terminal is reopened as a private description with O_NONBLOCK
 * (so that the flags of a description hnp shares with its shell and its
 * siblings never change) and written when the loop says it is writable.
 * Where it cannot be reopened (a socket), it is written when writable, at
 * most PIPE_BUF bytes at a time.
 */
#ifndef HNP_SINK_H
#define HNP_SINK_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
typedef struct hnp_sink hnp_sink_t;

typedef struct hnp_sink_callbacks {
    /** Bytes left the queue; hnp_sink_queued() says how many remain. */
    void (*progress)(hnp_sink_t *sink, void *ctx);
    /** A write failed with @p err (EPIPE: the reader is gone); what is
     *  queued, and whatever comes after, is dropped. Called once. */
    void (*broken)(hnp_sink_t *sink, int err, void *ctx);
    void *ctx;
} hnp_sink_callbacks_t;

/** A sink for @p fd (left open at destroy), or NULL without memory. */
hnp_sink_t *hnp_sink_create(struct event_base *base, int fd,
                            const hnp_sink_callbacks_t *cb);
/** Queue @p len bytes (copied) and write what can be written now. */
void hnp_sink_add(hnp_sink_t *sink, const void *data, size_t len);
size_t hnp_sink_queued(const hnp_sink_t *sink);
bool hnp_sink_broken(const hnp_sink_t *sink);
/** Write everything still queued, waiting for the reader as long as it
 *  takes (the job is over: nothing else is waiting on the loop). */
void hnp_sink_flush_all(hnp_sink_t *sink);
void hnp_sink_destroy(hnp_sink_t *sink);

#endif /* HNP_SINK_H */
