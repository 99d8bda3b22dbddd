/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the processes' output goes in the HNP: hnp's stdout and stderr
 * (with --tag-output, every line prefixed by its rank), and with
 * --output-filename one file a rank and stream as well.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "outdir.h"
#include "procs/odls.h"

typedef struct hnp_rank_output {
    bool mid_line[2]; /* the last bytes shown did not end a line */
    int fd[2];        /* --output-filename files; -1 until opened */
} hnp_rank_output_t;

/* Write all of @p len bytes: a slow reader of hnp's output slows the job
 * down rather than losing output. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) { /* a non-blocking stdout: wait */
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            poll(&pfd, 1, -1);
            continue;
        }
        if (n <= 0)
            return HNP_ERR_IO;
        data += n;
        len -= (size_t)n;
    }
    return HNP_SUCCESS;
}

int hnp_job_output_init(hnp_job_t *job, char *err, size_t errlen)
{
    job->outputs = calloc(job->map.nprocs, sizeof(*job->outputs));
    if (job->outputs == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    for (uint32_t r = 0; r < job->map.nprocs; r++)
        job->outputs[r].fd[0] = job->outputs[r].fd[1] = -1;
    if (job->args->output_dir == NULL)
        return HNP_SUCCESS;
    return hnp_outdir_create(&job->outdir, job->args->output_dir,
                             job->map.nprocs, err, errlen);
}

void hnp_job_output_release(hnp_job_t *job)
{
    for (uint32_t r = 0; job->outputs != NULL && r < job->map.nprocs; r++)
        for (int s = 0; s < 2; s++)
            if (job->outputs[r].fd[s] >= 0)
                close(job->outputs[r].fd[s]);
    free(job->outputs);
    job->outputs = NULL;
    hnp_outdir_destroy(job->outdir);
    job->outdir = NULL;
}

/* DIR/rank.N/stdout or stderr, opened on the first output (made, with
 * every other rank's, before launch). */
static int output_file(hnp_job_t *job, uint32_t rank, int stream)
{
    hnp_rank_output_t *o = &job->outputs[rank];
    char err[4200];

    if (o->fd[stream - 1] >= 0)
        return o->fd[stream - 1];
    o->fd[stream - 1] = hnp_outdir_open(job->outdir, rank,
                                        stream == HNP_STDERR ? "stderr"
                                                             : "stdout",
                                        err, sizeof(err));
    if (o->fd[stream - 1] < 0) {
        o->fd[stream - 1] = -1;
        hnp_job_abort(job, 1, err);
    }
    return o->fd[stream - 1];
}

/* The bytes with "[jobid,rank]<stream>:" before every line that starts in
 * them; one write, so lines of other ranks cannot come between. */
static int write_tagged(hnp_job_t *job, int fd, uint32_t rank, int stream,
                        const char *data, size_t len)
{
    bool *mid = &job->outputs[rank].mid_line[stream - 1];
    char tag[64];
    int taglen = snprintf(tag, sizeof(tag), "[1,%u]<%s>:", rank,
                          stream == HNP_STDERR ? "stderr" : "stdout");
    size_t lines = 1, used = 0;
    char *out;
    int rc;

    for (size_t i = 0; i < len; i++)
        lines += data[i] == '\n';
    if ((out = malloc(len + lines * (size_t)taglen)) == NULL)
        return HNP_ERR_NOMEM;
    for (size_t i = 0; i < len; i++) {
        if (!*mid) {
            memcpy(out + used, tag, (size_t)taglen);
            used += (size_t)taglen;
        }
        out[used++] = data[i];
        *mid = data[i] != '\n';
    }
    rc = write_all(fd, out, used);
    free(out);
    return rc;
}

void hnp_job_output(hnp_job_t *job, uint32_t rank, int stream,
                    const char *data, size_t len)
{
    int fd = stream == HNP_STDERR ? STDERR_FILENO : STDOUT_FILENO;

    if (rank >= job->map.nprocs || len == 0)
        return;
    if (job->args->output_dir != NULL) {
        int file = output_file(job, rank, stream);
        if (file >= 0 && write_all(file, data, len) != HNP_SUCCESS)
            HNP_WARN(job->rte->log, "--output-filename: writing the output "
                     "of rank %u: %s", rank, strerror(errno));
    }
    if (job->args->tag_output)
        write_tagged(job, fd, rank, stream, data, len);
    else
        write_all(fd, data, len);
}
