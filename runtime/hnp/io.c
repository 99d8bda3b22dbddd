/* SPDX-License-Identifier: BSD-3-Clause */
/* The HNP's view of the processes: their output, their ends, the clock. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hnp_buffer.h"
#include "job.h"
#include "procs/odls.h"

double hnp_job_now(const hnp_job_t *job)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - job->start.tv_sec) +
           (double)(now.tv_nsec - job->start.tv_nsec) / 1e9;
}

void hnp_job_mark(hnp_job_t *job, enum hnp_phase_mark mark)
{
    if (job->marks[mark] == 0)
        job->marks[mark] = hnp_job_now(job);
}

static void on_iof(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                   const void *data, size_t len, void *cbdata)
{
    hnp_reader_t rd;
    size_t n = 0;

    (void)tag;
    hnp_reader_init(&rd, data, len);
    uint32_t rank = hnp_unpack_u32(&rd);
    uint8_t stream = hnp_unpack_u8(&rd);
    const void *bytes = hnp_unpack_blob(&rd, &n);
    if (hnp_reader_status(&rd) != HNP_SUCCESS ||
        (stream != HNP_STDOUT && stream != HNP_STDERR)) {
        HNP_WARN(rte->log, "malformed output message from vpid %u", src);
        return;
    }
    hnp_job_output(cbdata, rank, stream, bytes, n);
}

static const char *rank_node(const hnp_job_t *job, uint32_t rank)
{
    return job->map.node_names[job->map.node_of[rank]];
}

/* Say how @p rank ended when that ends the job; returns hnp's status. */
static int report_abnormal(hnp_job_t *job, uint32_t rank, int32_t pid,
                           int32_t wstatus, int32_t exec_errno, const char *why)
{
    char msg[1024];
    int status;

    if (why != NULL && why[0] != '\0') {
        snprintf(msg, sizeof(msg), "rank %u on node %s could not start: %s",
                 rank, rank_node(job, rank), why);
        status = exec_errno == ENOENT ? 127 : 126;
    } else if (exec_errno != 0) {
        snprintf(msg, sizeof(msg), "rank %u on node %s could not start %s: %s",
                 rank, rank_node(job, rank), hnp_args_app_of(job->args, rank)->argv[0],
                 strerror(exec_errno));
        status = exec_errno == ENOENT ? 127 : 126;
    } else if (WIFSIGNALED(wstatus)) {
        snprintf(msg, sizeof(msg), "rank %u (pid %d) on node %s was killed "
                 "by signal %d (%s)", rank, pid, rank_node(job, rank),
                 WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
        status = 128 + WTERMSIG(wstatus);
    } else {
        snprintf(msg, sizeof(msg), "rank %u (pid %d) on node %s exited with "
                 "status %d", rank, pid, rank_node(job, rank),
                 WEXITSTATUS(wstatus));
        status = WEXITSTATUS(wstatus);
    }
    hnp_job_abort(job, status, msg);
    return status;
}

static void on_proc_exit(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                         const void *data, size_t len, void *cbdata)
{
    hnp_job_t *job = cbdata;
    hnp_reader_t rd;

    (void)tag;
    hnp_reader_init(&rd, data, len);
    uint32_t rank = hnp_unpack_u32(&rd);
    int32_t pid = hnp_unpack_i32(&rd);
    int32_t wstatus = hnp_unpack_i32(&rd);
    int32_t exec_errno = hnp_unpack_i32(&rd);
    char *why = hnp_unpack_string(&rd);
    if (why == NULL || rank >= job->map.nprocs) {
        HNP_WARN(rte->log, "malformed exit report from vpid %u", src);
        free(why);
        return;
    }
    bool clean = exec_errno == 0 && WIFEXITED(wstatus) &&
                 WEXITSTATUS(wstatus) == 0;
    if (!clean && !job->ending) {
        if (exec_errno != 0 || WIFSIGNALED(wstatus) || rte->core->abort_on_nonzero)
            report_abnormal(job, rank, pid, wstatus, exec_errno, why);
        else if (job->exit_status == 0)
            job->exit_status = WEXITSTATUS(wstatus);
    }
    free(why);
    if (++job->procs_exited == job->map.nprocs)
        hnp_job_finish(job);
}

static void on_report(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata)
{
    hnp_reader_t rd;
    char *line;

    (void)tag;
    (void)cbdata;
    hnp_reader_init(&rd, data, len);
    line = hnp_unpack_string(&rd);
    if (line == NULL) {
        HNP_WARN(rte->log, "malformed report from vpid %u", src);
        return;
    }
    HNP_INFO(rte->log, "%s", line);
    free(line);
}

/* A process called PMI abort (MPI_Abort): the job ends with its code. */
static void on_pmi_abort(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                         const void *data, size_t len, void *cbdata)
{
    hnp_job_t *job = cbdata;
    hnp_reader_t rd;
    char msg[1024];

    (void)tag;
    hnp_reader_init(&rd, data, len);
    uint32_t rank = hnp_unpack_u32(&rd);
    int32_t code = hnp_unpack_i32(&rd);
    char *words = hnp_unpack_string(&rd);
    if (words == NULL || rank >= job->map.nprocs) {
        HNP_WARN(rte->log, "malformed abort request from vpid %u", src);
        free(words);
        return;
    }
    snprintf(msg, sizeof(msg), "rank %u on node %s called abort with exit "
             "code %d%s%s", rank, rank_node(job, rank), code,
             words[0] != '\0' ? ": " : "", words);
    free(words);
    hnp_job_abort(job, code != 0 ? code : 1, msg);
}

void hnp_job_register_io(hnp_job_t *job)
{
    hnp_rte_recv(job->rte, HNP_TAG_PMI_ABORT, on_pmi_abort, job);
    hnp_rte_recv(job->rte, HNP_TAG_REPORT, on_report, job);
    hnp_rte_recv(job->rte, HNP_TAG_IOF, on_iof, job);
    hnp_rte_recv(job->rte, HNP_TAG_PROC_EXIT, on_proc_exit, job);
}
