/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp's stdin, forwarded into the processes that get it (rank 0 by
 * default). Chunks are written as each pipe allows; the HNP sends at most a
 * few chunks ahead of the last acknowledgement, so a process that never
 * reads its stdin holds up hnp's reading instead of the daemon's memory.
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <stdlib.h>
#include <unistd.h>

#include "hnp_buffer.h"
#include "daemon.h"
#include "wire/stdin.h"

bool hnpd_stdin_wanted(const hnpd_job_t *j, uint32_t rank)
{
    return j->stdin_target == HNP_STDIN_ALL ||
           (j->stdin_target >= 0 && (uint32_t)j->stdin_target == rank);
}

static void sink_close(hnpd_stdin_t *in)
{
    if (in->writable != NULL)
        event_free(in->writable);
    in->writable = NULL;
    if (in->fd >= 0)
        close(in->fd);
    in->fd = -1;
    if (in->pending != NULL)
        evbuffer_free(in->pending);
    in->pending = NULL;
}

void hnpd_stdin_release(hnpd_proc_t *p)
{
    sink_close(&p->in);
}

/* Everything received so far is in the pipes (or was for a process that
 * is gone): the HNP may send more. */
static void ack_if_drained(hnpd_job_t *j)
{
    hnp_wire_stdin_ack_t ack = { .jobid = j->jobid, .seq = j->stdin_seq };
    hnp_buffer_t buf;

    for (uint32_t i = 0; i < j->nlocal; i++) {
        hnpd_stdin_t *in = &j->procs[i].in;
        if (in->pending != NULL && evbuffer_get_length(in->pending) > 0)
            return;
    }
    hnp_buffer_init(&buf);
    if (hnp_wire_stdin_ack_pack(&buf, &ack) == HNP_SUCCESS)
        hnp_rte_send(j->daemon->rte, 0, HNP_TAG_STDIN_ACK, buf.data,
                     buf.len);
    hnp_buffer_release(&buf);
}

static void sink_writable(evutil_socket_t fd, short what, void *arg)
{
    hnpd_proc_t *p = arg;
    hnpd_stdin_t *in = &p->in;

    (void)what;
    if (evbuffer_write(in->pending, fd) < 0 && errno != EAGAIN &&
        errno != EINTR) {
        /* The process closed its stdin or ended: what is left has no
         * reader. */
        evbuffer_drain(in->pending, evbuffer_get_length(in->pending));
        in->eof = true;
    }
    if (evbuffer_get_length(in->pending) > 0)
        return;
    event_del(in->writable);
    if (in->eof)
        sink_close(in);
    ack_if_drained(p->job);
}

static void sink_append(hnpd_t *d, hnpd_proc_t *p, const void *data,
                        size_t len, bool eof)
{
    hnpd_stdin_t *in = &p->in;

    if (in->fd < 0)
        return;
    if (in->pending == NULL)
        in->pending = evbuffer_new();
    if (in->writable == NULL)
        in->writable = event_new(d->rte->base, in->fd, EV_WRITE | EV_PERSIST,
                                 sink_writable, p);
    if (in->pending == NULL || in->writable == NULL) {
        sink_close(in);
        return;
    }
    evbuffer_add(in->pending, data, len);
    in->eof = in->eof || eof;
    event_add(in->writable, NULL);
}

static void on_stdin(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                     const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    hnpd_job_t *j;
    hnp_wire_stdin_t chunk;

    (void)tag;
    if (!HNP_RTE_UNPACK(rte, src, "stdin chunk",
                        hnp_wire_stdin_unpack, data, len, &chunk))
        return;
    if ((j = hnpd_job_find(d, chunk.jobid)) == NULL || j->procs == NULL) {
        HNP_VERBOSE(rte->log, 1, "stdin for job %u, which has no processes "
                    "here, dropped", chunk.jobid);
        return;
    }
    j->stdin_seq = chunk.seq;
    for (uint32_t i = 0; i < j->nlocal; i++)
        if (hnpd_stdin_wanted(j, j->procs[i].rank))
            sink_append(d, &j->procs[i], chunk.data, chunk.len, chunk.eof);
    ack_if_drained(j);
}

void hnpd_stdin_register(hnpd_t *d)
{
    hnp_rte_recv(d->rte, HNP_TAG_STDIN, on_stdin, d);
}
