/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the processes' output goes in the HNP: hnp's stdout and stderr
 * (with --tag-output, every line prefixed by its rank), and with
 * --output-filename one file a rank and stream as well.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hnp_buffer.h"
#include "job.h"
#include "outdir.h"
#include "sink.h"
#include "procs/odls.h"
#include "wire/iof.h"

typedef struct hnp_rank_output {
    bool mid_line[2]; /* the last bytes shown did not end a line */
    int fd[2];        /* --output-filename files; -1 until opened, -2
                         after a write to it failed */
} hnp_rank_output_t;

/*
 * hnp's stdout and stderr, and the flow control of the output towards
 * them. Each daemon may have rte_iof_window bytes of output on their way
 * that the HNP has not acknowledged (wire/iof.h); the HNP acknowledges
 * what it queued for its reader as it goes, in batches of a quarter of a
 * window, unless a queue holds more than rte_iof_buffer bytes. Then the
 * acknowledgements wait until both queues are below a quarter of that, and
 * the daemons stop reading their processes' output, whose writes block in
 * turn: a reader that does not read holds the processes back, and nothing
 * is lost or dropped.
 */
typedef struct output_sink {
    hnp_job_t *job;
    int stream;          /* HNP_STDOUT or HNP_STDERR */
    hnp_sink_t *sink;
    bool line_open;      /* the last bytes queued did not end a line */
    bool line_cut;       /* and it goes on in that rank's next output */
    uint32_t line_rank;  /* whose, then */
} output_sink_t;

struct hnp_job_output {
    output_sink_t to[2]; /* stdout, stderr */
    uint64_t *owed;      /* [nowed] by vpid: bytes taken on, not
                            acknowledged; made with the first output */
    uint32_t nowed;
    bool holding;        /* a queue is over rte_iof_buffer */
};

/* Write all of @p len bytes to a --output-filename file. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return HNP_ERR_IO;
        data += n;
        len -= (size_t)n;
    }
    return HNP_SUCCESS;
}

static void send_ack(hnp_job_t *job, hnp_vpid_t vpid, uint64_t bytes)
{
    hnp_wire_iof_ack_t ack = { .bytes = bytes };
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    if (hnp_wire_iof_ack_pack(&buf, &ack) == HNP_SUCCESS)
        hnp_rte_send(job->rte, vpid, HNP_TAG_IOF_ACK, buf.data, buf.len);
    hnp_buffer_release(&buf);
}

static size_t queued(const output_sink_t *to)
{
    return to->sink != NULL ? hnp_sink_queued(to->sink) : 0;
}

/* The queues are short again: every acknowledgement held goes. */
static void release_acks(hnp_job_t *job)
{
    struct hnp_job_output *out = job->output;
    size_t low = job->rte->core->iof_buffer / 4;

    if (!out->holding || queued(&out->to[0]) > low ||
        queued(&out->to[1]) > low)
        return;
    out->holding = false;
    for (hnp_vpid_t v = 1; v < out->nowed; v++)
        if (out->owed[v] > 0) {
            send_ack(job, v, out->owed[v]);
            out->owed[v] = 0;
        }
}

/* @p len bytes of @p vpid's output are queued: acknowledge them, unless
 * the reader is behind. */
static void taken_on(hnp_job_t *job, hnp_vpid_t vpid, size_t len)
{
    struct hnp_job_output *out = job->output;
    size_t limit = job->rte->core->iof_buffer;

    if (out->owed == NULL && job->rte->nprocs > 0 &&
        (out->owed = calloc(job->rte->nprocs, sizeof(uint64_t))) != NULL)
        out->nowed = job->rte->nprocs;
    if (vpid == 0 || vpid >= job->rte->nprocs)
        return;
    if (vpid >= out->nowed) { /* no memory to keep count: no holding */
        send_ack(job, vpid, len);
        return;
    }
    out->owed[vpid] += len;
    if (queued(&out->to[0]) > limit || queued(&out->to[1]) > limit)
        out->holding = true;
    if (!out->holding &&
        out->owed[vpid] >= job->rte->core->iof_window / 4) {
        send_ack(job, vpid, out->owed[vpid]);
        out->owed[vpid] = 0;
    }
}

static void sink_progress(hnp_sink_t *sink, void *ctx)
{
    output_sink_t *to = ctx;

    (void)sink;
    release_acks(to->job);
}

/* A reader that goes away ends the job as it would end a program writing
 * into a pipe: the processes are ended and hnp exits with 141 (128 +
 * SIGPIPE). Any other error leaves the job running without that output. */
static void sink_broken(hnp_sink_t *sink, int err, void *ctx)
{
    output_sink_t *to = ctx;
    hnp_job_t *job = to->job;
    const char *name = to->stream == HNP_STDERR ? "stderr" : "stdout";

    (void)sink;
    release_acks(job); /* its queue is empty now */
    if (err != EPIPE) {
        HNP_WARN(job->rte->log, "writing hnp's %s: %s; the processes' %s "
                 "is dropped from now on", name, strerror(err), name);
        return;
    }
    HNP_VERBOSE(job->rte->log, 1, "the reader of hnp's %s went away: "
                "ending the job (exit status 141)", name);
    if (job->exit_status == 0)
        job->exit_status = 128 + SIGPIPE;
    hnp_job_abort(job, 128 + SIGPIPE, NULL);
}

static int open_sinks(hnp_job_t *job, char *err, size_t errlen)
{
    struct hnp_job_output *out = calloc(1, sizeof(*out));

    job->output = out;
    if (out == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    for (int s = 0; s < 2; s++) {
        output_sink_t *to = &out->to[s];
        hnp_sink_callbacks_t cb = { .progress = sink_progress,
                                    .broken = sink_broken, .ctx = to };
        to->job = job;
        to->stream = s == 0 ? HNP_STDOUT : HNP_STDERR;
        to->sink = hnp_sink_create(job->rte->base,
                                   hnp_job_stdio(job, s + 1),
                                   &cb);
        if (to->sink == NULL) {
            hnp_err_set(err, errlen, "out of memory");
            return HNP_ERR_NOMEM;
        }
    }
    return HNP_SUCCESS;
}

int hnp_job_output_init(hnp_job_t *job, char *err, size_t errlen)
{
    int rc;

    job->outputs = calloc(job->map.nprocs, sizeof(*job->outputs));
    if (job->outputs == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    for (uint32_t r = 0; r < job->map.nprocs; r++)
        job->outputs[r].fd[0] = job->outputs[r].fd[1] = -1;
    if ((rc = open_sinks(job, err, errlen)) != HNP_SUCCESS)
        return rc;
    if (job->args->output_dir == NULL)
        return HNP_SUCCESS;
    return hnp_outdir_create(&job->outdir, job->args->output_dir, job->jobid,
                             job->map.nprocs, err, errlen);
}

void hnp_job_output_flush(hnp_job_t *job)
{
    for (int s = 0; job->output != NULL && s < 2; s++)
        if (job->output->to[s].sink != NULL)
            hnp_sink_flush_all(job->output->to[s].sink);
}

void hnp_job_output_release(hnp_job_t *job)
{
    hnp_job_output_flush(job);
    for (uint32_t r = 0; job->outputs != NULL && r < job->map.nprocs; r++)
        for (int s = 0; s < 2; s++)
            if (job->outputs[r].fd[s] >= 0)
                close(job->outputs[r].fd[s]);
    free(job->outputs);
    job->outputs = NULL;
    if (job->output != NULL) {
        for (int s = 0; s < 2; s++)
            hnp_sink_destroy(job->output->to[s].sink);
        free(job->output->owed);
        free(job->output);
        job->output = NULL;
    }
    hnp_outdir_destroy(job->outdir);
    job->outdir = NULL;
}

/* DIR/1/rank.N/stdout or stderr, opened on the first output (made, with
 * every other rank's, before launch). */
static int output_file(hnp_job_t *job, uint32_t rank, int stream)
{
    hnp_rank_output_t *o = &job->outputs[rank];
    char err[4200];

    if (o->fd[stream - 1] != -1)
        return o->fd[stream - 1];
    o->fd[stream - 1] = hnp_outdir_open(job->outdir, rank,
                                        stream == HNP_STDERR ? "stderr"
                                                             : "stdout",
                                        err, sizeof(err));
    if (o->fd[stream - 1] < 0) {
        o->fd[stream - 1] = -2;
        hnp_job_abort(job, 1, err);
    }
    return o->fd[stream - 1];
}

/* A file that cannot be written is said once and given up. */
static void save_output(hnp_job_t *job, uint32_t rank, int stream,
                        const char *data, size_t len)
{
    int file = output_file(job, rank, stream);

    if (file < 0 || write_all(file, data, len) == HNP_SUCCESS)
        return;
    HNP_WARN(job->rte->log, "--output-filename: writing the %s of rank %u: "
             "%s; the rest of it is not saved",
             stream == HNP_STDERR ? "stderr" : "stdout", rank,
             strerror(errno));
    close(file);
    job->outputs[rank].fd[stream - 1] = -2;
}

/* How an open line of one rank is ended before another rank's output: a
 * line cut for its length goes on later, and says so. */
#define CUT_MARK "\\\n"

/* --timestamp-output: when the daemon read the line, by its node's clock,
 * in UTC to the microsecond: 2026-11-27T15:53:04.123456Z. */
static int format_read_time(uint64_t read_us, char *out, size_t size)
{
    struct timespec now;
    struct tm tm;
    time_t secs;
    size_t n;

    if (read_us == 0) { /* not stamped: when it arrived here */
        clock_gettime(CLOCK_REALTIME, &now);
        read_us = (uint64_t)now.tv_sec * 1000000u +
                  (uint64_t)now.tv_nsec / 1000u;
    }
    secs = (time_t)(read_us / 1000000u);
    if (gmtime_r(&secs, &tm) == NULL ||
        (n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm)) == 0)
        return 0;
    return (int)n + snprintf(out + n, size - n, ".%06uZ",
                             (unsigned)(read_us % 1000000u));
}

/* What goes before each line of @p m: with --timestamp-output the time,
 * with --tag-output "[jobid,rank]<stream>:", and with the time alone
 * "<stream>:" after it, as Open MPI's mpirun writes them; with Hydra's -l
 * "[rank] ". */
static int line_prefix(const hnp_job_t *job, const output_sink_t *to,
                       const hnp_wire_iof_t *m, char *out, size_t size)
{
    const char *stream = to->stream == HNP_STDERR ? "stderr" : "stdout";
    int n = 0;

    if (job->args->timestamp_output)
        n = format_read_time(m->read_us, out, size);
    if (job->args->tag_output)
        n += snprintf(out + n, size - (size_t)n, "[%u,%u]<%s>:", job->jobid,
                      m->rank, stream);
    else if (job->args->prepend_rank) /* as Hydra's -l writes it */
        n += snprintf(out + n, size - (size_t)n, "%s[%u] ",
                      n > 0 ? " " : "", m->rank);
    else if (n > 0)
        n += snprintf(out + n, size - (size_t)n, "<%s>:", stream);
    return n;
}

/* The bytes, with line_prefix() before every line that starts in them,
 * queued at once. The daemons send whole
 * lines, but for the last of a stream, which may lack its newline, and
 * the pieces of a line too long to send whole: a line left open is ended
 * here before another rank's output, so that no line carries two ranks'
 * text (and one rank's bytes go out unchanged when nothing comes between
 * them). */
static void show_output(hnp_job_t *job, output_sink_t *to,
                        const hnp_wire_iof_t *m)
{
    bool *mid = &job->outputs[m->rank].mid_line[to->stream - 1];
    const char *data = m->data;
    char tag[128];
    int taglen = line_prefix(job, to, m, tag, sizeof(tag));
    bool tags = taglen > 0;
    size_t lines = 1, used = 0;
    char *text;

    for (size_t i = 0; tags && i < m->len; i++)
        lines += data[i] == '\n';
    text = malloc(sizeof(CUT_MARK) + m->len +
                  (tags ? lines * (size_t)taglen : 0));
    if (text == NULL) {
        hnp_sink_add(to->sink, data, m->len);
        return;
    }
    if (to->line_open && to->line_rank != m->rank) {
        const char *end = to->line_cut ? CUT_MARK : "\n";
        memcpy(text, end, strlen(end));
        used = strlen(end);
        job->outputs[to->line_rank].mid_line[to->stream - 1] = false;
    }
    for (size_t i = 0; i < m->len; i++) {
        if (tags && !*mid) {
            memcpy(text + used, tag, (size_t)taglen);
            used += (size_t)taglen;
        }
        text[used++] = data[i];
        *mid = data[i] != '\n';
    }
    hnp_sink_add(to->sink, text, used);
    free(text);
    to->line_open = *mid;
    to->line_cut = (m->flags & HNP_IOF_CUT) != 0;
    to->line_rank = m->rank;
}

void hnp_job_output(hnp_job_t *job, hnp_vpid_t from,
                    const hnp_wire_iof_t *m)
{
    if (m->rank >= job->map.nprocs || m->len == 0 || job->output == NULL)
        return;
    if (job->args->output_dir != NULL)
        save_output(job, m->rank, m->stream, m->data, m->len);
    if (!hnp_outdir_nocopy(job->outdir))
        show_output(job, &job->output->to[m->stream == HNP_STDERR ? 1 : 0],
                    m);
    taken_on(job, from, m->len);
}
