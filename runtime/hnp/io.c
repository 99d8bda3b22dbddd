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

#include "dvm.h"
#include "hnp_buffer.h"
#include "job.h"
#include "procs/odls.h"
#include "wire/iof.h"
#include "wire/pmi_abort.h"
#include "wire/proc_exit.h"
#include "wire/report.h"

double hnp_job_now(const hnp_job_t *job)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - job->start.tv_sec) +
           (double)(now.tv_nsec - job->start.tv_nsec) / 1e9;
}

void hnp_job_mark(hnp_job_t *job, enum hnp_phase_mark mark)
{
    bool first = job->marks[mark] == 0;

    if (first)
        job->marks[mark] = hnp_job_now(job);
    if (first && mark == HNP_MARK_PROCS_STARTED && job->on_started != NULL)
        job->on_started(job, job->started_ctx);
    /* a DVM serves once every daemon has the whole contact table */
    if (job->holds_runtime && mark == HNP_MARK_TABLE_EVERYWHERE)
        hnp_dvm_ready(job->dvm);
}

static void on_iof(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                   const void *data, size_t len, void *cbdata)
{
    hnp_wire_iof_t out;
    hnp_reader_t rd;

    (void)tag;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_iof_unpack(&rd, &out) != HNP_SUCCESS ||
        (out.stream != HNP_STDOUT && out.stream != HNP_STDERR)) {
        HNP_WARN(rte->log, "malformed output message from vpid %u", src);
        return;
    }
    if (!hnp_job_owns(cbdata, rte, src, out.jobid, "output"))
        return;
    hnp_job_output(cbdata, src, &out);
}

bool hnp_job_owns(const hnp_job_t *job, hnp_rte_t *rte, hnp_vpid_t src,
                  uint32_t jobid, const char *what)
{
    if (jobid == job->jobid)
        return true;
    HNP_VERBOSE(rte->log, 1, "%s of job %u from vpid %u dropped: it is not "
                "job %u's", what, jobid, src, job->jobid);
    return false;
}

static const char *rank_node(const hnp_job_t *job, uint32_t rank)
{
    return job->map.node_names[job->map.node_of[rank]];
}

/* "job 2 (spawned by job 1): " before what a spawned job's rank did. */
static const char *family_prefix(const hnp_job_t *job, char *buf, size_t len)
{
    if (job->parent_jobid == 0)
        return "";
    snprintf(buf, len, "job %u (spawned by job %u): ", job->jobid,
             job->parent_jobid);
    return buf;
}

/* Say how @p rank ended when that ends the job; returns hnp's status. */
static int report_abnormal(hnp_job_t *job, uint32_t rank, int32_t pid,
                           int32_t wstatus, int32_t exec_errno, const char *why)
{
    char msg[1024], family[64];
    size_t at = (size_t)snprintf(msg, sizeof(msg), "%s",
                                 family_prefix(job, family, sizeof(family)));
    char *tail = msg + at;
    size_t room = sizeof(msg) - at;
    int status;

    if (why != NULL && why[0] != '\0') {
        snprintf(tail, room, "rank %u on node %s could not start: %s", rank,
                 rank_node(job, rank), why);
        status = exec_errno == ENOENT ? 127 : 126;
    } else if (exec_errno != 0) {
        snprintf(tail, room, "rank %u on node %s could not start %s: %s",
                 rank, rank_node(job, rank),
                 hnp_args_app_of(job->args, rank)->argv[0],
                 strerror(exec_errno));
        status = exec_errno == ENOENT ? 127 : 126;
    } else if (WIFSIGNALED(wstatus)) {
        snprintf(tail, room, "rank %u (pid %d) on node %s was killed by "
                 "signal %d (%s)", rank, pid, rank_node(job, rank),
                 WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
        status = 128 + WTERMSIG(wstatus);
    } else {
        snprintf(tail, room, "rank %u (pid %d) on node %s exited with "
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
    hnp_wire_proc_exit_t e;
    hnp_reader_t rd;

    (void)tag;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_proc_exit_unpack(&rd, &e) != HNP_SUCCESS ||
        e.rank >= job->map.nprocs) {
        HNP_WARN(rte->log, "malformed exit report from vpid %u", src);
        hnp_wire_proc_exit_clear(&e);
        return;
    }
    if (!hnp_job_owns(job, rte, src, e.jobid, "exit report")) {
        hnp_wire_proc_exit_clear(&e);
        return;
    }
    bool clean = e.exec_errno == 0 && WIFEXITED(e.wait_status) &&
                 WEXITSTATUS(e.wait_status) == 0;
    if (!clean && !job->ending) {
        if (e.exec_errno != 0 || WIFSIGNALED(e.wait_status) ||
            rte->core->abort_on_nonzero)
            report_abnormal(job, e.rank, e.pid, e.wait_status, e.exec_errno,
                            e.why);
        else if (job->exit_status == 0)
            job->exit_status = WEXITSTATUS(e.wait_status);
    }
    hnp_wire_proc_exit_clear(&e);
    if (++job->procs_exited == job->map.nprocs)
        hnp_job_finish(job);
}

static void on_report(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata)
{
    hnp_wire_report_t report;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "report",
                        hnp_wire_report_unpack, data, len, &report))
        return;
    if (report.severity == HNP_WIRE_REPORT_USER) {
        HNP_INFO(rte->log, "%s", report.line);
    } else if (report.severity == HNP_WIRE_REPORT_PLAIN) {
        hnp_log_plain(report.line); /* as mpirun prints it */
    } else {
        /* A daemon's own log: printed as it would have printed it, with
         * the name of its node as this process knows it. */
        const char *node = hnp_rte_node_name(rte, src);
        char program[300];
        snprintf(program, sizeof(program), "hnpd[%s]",
                 node != NULL ? node : "?");
        hnp_log_emit_as(program, report.stream,
                        (hnp_log_severity_t)report.severity, report.line);
    }
    hnp_wire_report_clear(&report);
}

/* A process called PMI abort (MPI_Abort): the job ends with its code. */
static void on_pmi_abort(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                         const void *data, size_t len, void *cbdata)
{
    hnp_job_t *job = cbdata;
    hnp_wire_pmi_abort_t req;
    hnp_reader_t rd;
    char msg[1024];

    (void)tag;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_pmi_abort_unpack(&rd, &req) != HNP_SUCCESS ||
        req.rank >= job->map.nprocs) {
        HNP_WARN(rte->log, "malformed abort request from vpid %u", src);
        hnp_wire_pmi_abort_clear(&req);
        return;
    }
    if (!hnp_job_owns(job, rte, src, req.jobid, "abort request")) {
        hnp_wire_pmi_abort_clear(&req);
        return;
    }
    /* Open MPI's MPI_Abort says "N/A" for no message: nothing to add. */
    bool said = req.words[0] != '\0' && strcmp(req.words, "N/A") != 0;
    char family[64];
    snprintf(msg, sizeof(msg), "%srank %u on node %s called abort with exit "
             "code %d%s%s", family_prefix(job, family, sizeof(family)),
             req.rank, rank_node(job, req.rank), req.code,
             said ? ": " : "", said ? req.words : "");
    if (!job->ending)
        job->abort_at = hnp_job_now(job);
    hnp_job_abort(job, req.code != 0 ? req.code : 1, msg);
    hnp_wire_pmi_abort_clear(&req);
}

void hnp_job_register_io(hnp_job_t *job)
{
    hnp_job_recv(job, HNP_TAG_PMI_ABORT, on_pmi_abort);
    hnp_rte_recv(job->rte, HNP_TAG_REPORT, on_report, job);
    hnp_job_recv(job, HNP_TAG_IOF, on_iof);
    hnp_job_recv(job, HNP_TAG_PROC_EXIT, on_proc_exit);
}

int hnp_job_stdio(const hnp_job_t *job, int i)
{
    return job->stdio != NULL ? job->stdio[i] : i;
}

void hnp_job_recv(hnp_job_t *job, uint32_t tag, hnp_rte_recv_fn fn)
{
    size_t i = 0;

    /* a standalone job's handlers are the tags'; they are kept too, for
     * the messages of its family to be handed to it (dvm_sched.c) */
    if (job->dvm == NULL || job->holds_runtime)
        hnp_rte_recv(job->rte, tag, fn, job);
    while (i < HNP_JOB_MAX_RECV && job->recv[i].fn != NULL &&
           job->recv[i].tag != tag)
        i++;
    if (i == HNP_JOB_MAX_RECV) {
        HNP_WARN(job->rte->log, "job %u: too many kinds of message; tag %u "
                 "not taken", job->jobid, tag);
        return;
    }
    job->recv[i].tag = tag;
    job->recv[i].fn = fn;
}

hnp_rte_recv_fn hnp_job_handler(const hnp_job_t *job, uint32_t tag)
{
    for (size_t i = 0; i < HNP_JOB_MAX_RECV && job->recv[i].fn != NULL; i++)
        if (job->recv[i].tag == tag)
            return job->recv[i].fn;
    return NULL;
}
