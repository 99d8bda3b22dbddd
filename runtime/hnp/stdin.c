/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp's stdin, read in chunks and sent to the daemons of the processes
 * that get it (--stdin: rank 0 by default, all, or none). At most
 * STDIN_WINDOW chunks travel ahead of the slowest daemon's acknowledgement:
 * input nobody reads waits in hnp's stdin, not in anybody's memory.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hnp_buffer.h"
#include "job.h"
#include "wire/stdin.h"

#define STDIN_CHUNK (64 * 1024)
#define STDIN_WINDOW 4

struct hnp_job_stdin {
    struct event *readable;  /* fd 0 when it can be polled */
    struct event *poll;      /* else (a regular file): read from a timer */
    uint32_t seq;            /* chunks sent */
    uint32_t *acked;         /* [nprocs]: last chunk each daemon wrote */
    bool done;
};

static void stdin_resume(hnp_job_t *job);

/* The daemons that take the chunks: one, or all of them. */
static bool is_target(const hnp_job_t *job, hnp_vpid_t v)
{
    int64_t t = job->args->stdin_target;

    return t == HNP_STDIN_ALL || (hnp_vpid_t)(job->map.node_of[t] + 1) == v;
}

static bool window_open(const hnp_job_t *job)
{
    for (hnp_vpid_t v = 1; v <= job->ndaemons; v++)
        if (is_target(job, v) && job->in->seq - job->in->acked[v] >= STDIN_WINDOW)
            return false;
    return true;
}

static int send_chunk(hnp_job_t *job, const void *data, size_t len, bool eof)
{
    int64_t t = job->args->stdin_target;
    hnp_wire_stdin_t chunk = { .jobid = job->jobid, .seq = ++job->in->seq,
                               .eof = eof,
                               .data = data, .len = len };
    hnp_buffer_t buf;
    int rc;

    hnp_buffer_init(&buf);
    rc = hnp_wire_stdin_pack(&buf, &chunk);
    if (rc == HNP_SUCCESS && t == HNP_STDIN_ALL)
        rc = hnp_rte_xcast(job->rte, HNP_TAG_STDIN, buf.data, buf.len);
    else if (rc == HNP_SUCCESS)
        rc = hnp_rte_send(job->rte, job->map.node_of[t] + 1, HNP_TAG_STDIN,
                          buf.data, buf.len);
    hnp_buffer_release(&buf);
    return rc;
}

static void stdin_stop(hnp_job_t *job)
{
    job->in->done = true;
    if (job->in->readable != NULL)
        event_del(job->in->readable);
}

static void stdin_read(evutil_socket_t fd, short what, void *arg)
{
    hnp_job_t *job = arg;
    char chunk[STDIN_CHUNK];
    ssize_t n;

    (void)fd; /* -1 when called from the timer */
    (void)what;
    if (job->in->done || job->ending)
        return;
    n = read(hnp_job_stdio(job, 0), chunk, sizeof(chunk));
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (send_chunk(job, chunk, n > 0 ? (size_t)n : 0, n <= 0) != HNP_SUCCESS ||
        n <= 0) {
        stdin_stop(job);
        return;
    }
    stdin_resume(job);
}

/* Read on while the window allows; pause otherwise (an ack resumes). */
static void stdin_resume(hnp_job_t *job)
{
    struct timeval now = { 0, 0 };

    if (job->in->done)
        return;
    if (!window_open(job)) {
        if (job->in->readable != NULL)
            event_del(job->in->readable);
        return;
    }
    if (job->in->readable != NULL)
        event_add(job->in->readable, NULL);
    else
        event_add(job->in->poll, &now);
}

static void on_stdin_ack(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                         const void *data, size_t len, void *cbdata)
{
    hnp_job_t *job = cbdata;
    hnp_wire_stdin_ack_t ack;
    hnp_reader_t rd;

    (void)tag;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_stdin_ack_unpack(&rd, &ack) != HNP_SUCCESS || src == 0 ||
        src >= rte->nprocs || src > job->ndaemons || !hnp_job_owns(job, rte, src, ack.jobid,
                                            "stdin acknowledgement"))
        return;
    if (ack.seq > job->in->acked[src])
        job->in->acked[src] = ack.seq;
    stdin_resume(job);
}

/* A terminal hnp does not own (hnp in the background) is left alone:
 * reading it would stop hnp with SIGTTIN. */
static bool stdin_usable(int fd)
{
    return !isatty(fd) || tcgetpgrp(fd) == getpgrp();
}

static bool stdin_pollable(int fd)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return false;
    return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
           (S_ISCHR(st.st_mode) && isatty(fd));
}

int hnp_job_stdin_start(hnp_job_t *job)
{
    struct hnp_job_stdin *in;

    if (job->args->stdin_target == HNP_STDIN_NONE || !stdin_usable(hnp_job_stdio(job, 0)))
        return HNP_SUCCESS;
    if (job->args->stdin_target >= (int64_t)job->map.nprocs)
        return HNP_SUCCESS; /* checked when the arguments were read */
    in = calloc(1, sizeof(*in));
    if (in == NULL || (in->acked = calloc(job->rte->nprocs, sizeof(uint32_t))) == NULL) {
        free(in);
        return HNP_ERR_NOMEM;
    }
    job->in = in;
    hnp_job_recv(job, HNP_TAG_STDIN_ACK, on_stdin_ack);
    /* epoll refuses regular files and /dev/null: read those from a timer. */
    if (stdin_pollable(hnp_job_stdio(job, 0)))
        in->readable = event_new(job->rte->base, hnp_job_stdio(job, 0),
                                 EV_READ | EV_PERSIST, stdin_read, job);
    if (in->readable != NULL && event_add(in->readable, NULL) != 0) {
        event_free(in->readable);
        in->readable = NULL;
    }
    if (in->readable == NULL) {
        in->poll = evtimer_new(job->rte->base, stdin_read, job);
        if (in->poll == NULL)
            return HNP_ERR_NOMEM;
        stdin_resume(job);
    }
    return HNP_SUCCESS;
}

void hnp_job_stdin_release(hnp_job_t *job)
{
    if (job->in == NULL)
        return;
    if (job->in->readable != NULL)
        event_free(job->in->readable);
    if (job->in->poll != NULL)
        event_free(job->in->poll);
    free(job->in->acked);
    free(job->in);
    job->in = NULL;
}
