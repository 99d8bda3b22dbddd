/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HNP's side of a job: phase 1 through the selected plm, phase 2
 * through the selected exchange, phase 3 as a broadcast down the routing
 * tree, then watching until every process has ended.
 */
#include "config.h"

#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dvm.h"
#include "hnp_buffer.h"
#include "job.h"
#include "prelaunch.h"
#include "wire/control.h"
#include "wire/failure.h"
#include "wire/launch.h"

/* Seconds hnp waits for the daemons it had to kill at the end. */
#define END_KILL_WAIT 5.0

static void end_job(hnp_job_t *job);

/* ------------------------------------------------------------ phase 3 */

/* The launch message: where every rank runs, what each app context runs,
 * and how (environment, directory, binding, stdin). It lends the job's
 * arrays and strings. */
static int pack_launch(const hnp_job_t *job, hnp_buffer_t *buf)
{
    const hnp_args_t *args = job->args;
    char pmi[HNP_PMI_MAX_ACTIVE * HNP_MCA_NAME_LEN];
    hnp_wire_launch_t m = {
        .jobid = job->jobid,
        .nprocs = job->map.nprocs,
        .nnodes = job->map.nnodes,
        .node_of = job->map.node_of,
        .node_names = job->map.node_names,
        .node_slots = job->map.node_slots,
        .universe_size = job->map.universe_size,
        .place = args->mapping.place,
        .stdin_target = (int32_t)args->stdin_target,
        .output = (uint8_t)((args->merge_stderr ? HNP_LAUNCH_MERGE_STDERR : 0) |
                            (job->dvm != NULL && !hnp_dvm_is_family(job->dvm)
                                 ? HNP_LAUNCH_PERSISTENT : 0)),
        .napps = (uint32_t)args->napps,
        .parent_jobid = job->parent_jobid,
        .spawn_component = (char *)job->spawn_component,
        .spawn_data = (void *)job->spawn_data,
        .spawn_data_len = job->spawn_data_len,
    };
    int rc;

    m.apps = calloc(args->napps > 0 ? args->napps : 1, sizeof(*m.apps));
    if (m.apps == NULL)
        return HNP_ERR_NOMEM;
    for (size_t a = 0; a < args->napps; a++) {
        m.apps[a].first_rank = args->apps[a].first_rank;
        m.apps[a].np = args->apps[a].np;
        m.apps[a].argc = (uint32_t)args->apps[a].argc;
        m.apps[a].argv = args->apps[a].argv;
        m.apps[a].wdir = args->apps[a].wdir != NULL ? args->apps[a].wdir
                                                    : job->wdir;
        m.apps[a].nenv = (uint32_t)args->apps[a].nenv;
        m.apps[a].env = args->apps[a].env;
    }
    hnp_prelaunch_pmi_names(args, &job->rte->pmi, pmi, sizeof(pmi));
    m.pmi = pmi;
    rc = hnp_wire_launch_pack(buf, &m);
    free(m.apps);
    return rc;
}

/* The launch message goes down the routing tree as soon as the HNP's own
 * part of phase 1 is done; sends to daemons whose URI is not known yet wait
 * in the OOB until the exchange delivers it. */
void hnp_job_send_launch(hnp_job_t *job)
{
    hnp_buffer_t buf;
    int rc;

    if (job->launched || job->ending || job->holds_runtime)
        return;
    job->launched = true;
    hnp_buffer_init(&buf);
    rc = pack_launch(job, &buf);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_xcast(job->rte, HNP_TAG_LAUNCH, buf.data, buf.len);
    hnp_buffer_release(&buf);
    if (rc != HNP_SUCCESS) {
        hnp_job_abort(job, 1, "cannot send the launch message");
        return;
    }
    hnp_job_mark(job, HNP_MARK_LAUNCH_SENT);
    if (hnp_job_stdin_start(job) != HNP_SUCCESS)
        hnp_job_abort(job, 1, "cannot forward stdin");
}

void hnp_job_send_launch_to(hnp_job_t *job, hnp_vpid_t vpid)
{
    hnp_buffer_t buf;

    if (!job->launched || job->ending || job->holds_runtime)
        return;
    hnp_buffer_init(&buf);
    if (pack_launch(job, &buf) != HNP_SUCCESS ||
        hnp_rte_send_direct(job->rte, vpid, HNP_TAG_LAUNCH, buf.data,
                            buf.len) != HNP_SUCCESS)
        HNP_WARN(job->rte->log, "cannot tell the daemon on node %s of job "
                 "%u", hnp_rte_node_name(job->rte, vpid), job->jobid);
    hnp_buffer_release(&buf);
}

/* Phase 2 has started here: the launch goes down the routing tree now,
 * while the exchange runs (a message waits for a contact still to come). */
static void exchange_started(hnp_rte_t *rte)
{
    hnp_job_send_launch(rte->role.ctx);
}

/* ------------------------------------------------------------ failures */

/* A rank killed by a signal makes its MPI peers fail and abort (MPICH's
 * do, with an error code of their own), and their abort may reach the HNP
 * first. A death by a signal reported while an MPI_Abort ends the job, and
 * before the teardown's own SIGKILL could have caused it (the ranks get
 * SIGTERM first, SIGKILL rte_kill_grace later), is what happened first:
 * it is the job's failure and status. */
static bool abort_followed(const hnp_job_t *job, int status)
{
    int sig = status - 128;

    return job->ending && job->abort_at > 0 && sig > 0 && sig < 65 &&
           sig != SIGTERM &&
           hnp_job_now(job) - job->abort_at < job->rte->core->kill_grace;
}

static void on_failure(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                       const void *data, size_t len, void *cbdata)
{
    hnp_wire_failure_t failure;
    hnp_reader_t rd;

    (void)rte;
    (void)tag;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_failure_unpack(&rd, &failure) != HNP_SUCCESS) {
        hnp_job_abort(cbdata, 1, "a daemon reported a failure it could not "
                      "describe");
        return;
    }
    HNP_VERBOSE(rte->log, 1, "failure of job %u reported by vpid %u",
                failure.jobid, src);
    if (((hnp_job_t *)cbdata)->dvm != NULL) {
        hnp_dvm_failure(((hnp_job_t *)cbdata)->dvm, src, failure.jobid,
                        failure.status != 0 ? failure.status : 1,
                        failure.message);
    } else if (((hnp_job_t *)cbdata)->family != NULL && failure.jobid != 0 &&
               failure.jobid != ((hnp_job_t *)cbdata)->jobid) {
        hnp_dvm_failure(((hnp_job_t *)cbdata)->family, src, failure.jobid,
                        failure.status != 0 ? failure.status : 1,
                        failure.message);
    } else if (failure.jobid != 0 &&
               !hnp_job_owns(cbdata, rte, src, failure.jobid, "a failure")) {
        HNP_VERBOSE(rte->log, 1, "%s", failure.message);
    } else if (abort_followed(cbdata, failure.status)) {
        hnp_job_t *job = cbdata;
        HNP_ERROR_LOG(rte->log, "%s (the abort above came after it)",
                      failure.message);
        job->exit_status = failure.status;
        job->abort_at = 0;
    } else {
        hnp_job_abort(cbdata, failure.status != 0 ? failure.status : 1,
                      failure.message);
    }
    hnp_wire_failure_clear(&failure);
}

static void on_peer_lost(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                         const void *data, size_t len, void *cbdata)
{
    hnp_wire_peer_lost_t lost;
    hnp_reader_t rd;
    char msg[512];

    (void)tag;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_peer_lost_unpack(&rd, &lost) != HNP_SUCCESS ||
        lost.vpid == 0 || lost.vpid >= rte->nprocs) {
        hnp_wire_peer_lost_clear(&lost);
        hnp_job_abort(cbdata, 1, "a daemon reported a lost neighbour it "
                      "could not name");
        return;
    }
    size_t n = (size_t)hnp_rte_describe_lost(rte, lost.vpid, lost.why, msg,
                                             sizeof(msg));
    if (n < sizeof(msg))
        snprintf(msg + n, sizeof(msg) - n, " (noticed by vpid %u)", src);
    /* Silent, it may be stopped with its processes, and would outlive the
     * job: its parent kills it (dead already, nothing happens). */
    hnp_rte_kill_daemon(rte, lost.vpid);
    if (((hnp_job_t *)cbdata)->dvm != NULL)
        hnp_dvm_daemon_lost(((hnp_job_t *)cbdata)->dvm, lost.vpid, msg);
    else
        hnp_job_abort(cbdata, 1, msg);
    hnp_wire_peer_lost_clear(&lost);
}

static void role_failure(hnp_rte_t *rte, int status, const char *message)
{
    hnp_job_abort(rte->role.ctx, status, message);
}

static void role_peer_down(hnp_rte_t *rte, hnp_vpid_t peer, size_t unsent)
{
    hnp_job_t *job = rte->role.ctx;
    char msg[512];

    if (job->ending) {
        if (hnp_oob_num_peer_connections(rte->oob) == 0) {
            hnp_job_mark(job, HNP_MARK_DAEMONS_GONE);
            hnp_rte_stop_loop(rte);
        }
        return;
    }
    snprintf(msg, sizeof(msg), "the daemon on node %s (vpid %u) died (its "
             "connection closed)%s", hnp_rte_node_name(rte, peer), peer,
             unsent > 0 ? " with messages undelivered" : "");
    if (job->dvm != NULL)
        hnp_dvm_daemon_lost(job->dvm, peer, msg);
    else
        hnp_job_abort(job, 1, msg);
}

/* ------------------------------------------------------------ reports */

/* A daemon has its contact table (HNP_TAG_PHASE2_DONE) or has started
 * its processes (HNP_TAG_PROCS_STARTED): the mark, once all have. */
static void on_daemon_reached(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                              const void *data, size_t len, void *cbdata)
{
    hnp_job_t *job = cbdata;
    enum hnp_phase_mark mark = tag == HNP_TAG_PHASE2_DONE
                                   ? HNP_MARK_TABLE_EVERYWHERE
                                   : HNP_MARK_PROCS_STARTED;
    hnp_wire_procs_started_t started;

    if (mark == HNP_MARK_PROCS_STARTED) {
        if (!HNP_RTE_UNPACK(rte, src, "start report",
                            hnp_wire_procs_started_unpack, data, len,
                            &started))
            return;
        if (started.jobid != job->jobid) {
            HNP_VERBOSE(rte->log, 1, "vpid %u's start report of job %u "
                        "dropped: it is not job %u's", src, started.jobid,
                        job->jobid);
            return;
        }
    }
    if (++job->reports[mark] == job->ndaemons)
        hnp_job_mark(job, mark);
}

/* A daemon's pmi set-up CPU @p us (0: it had none) into @p list, the
 * daemons' figures as they came, for the median. */
static void note_pmi_cpu(hnp_job_t *job, uint64_t us, uint64_t **list,
                         uint32_t *reports, uint64_t *worst)
{
    if (us == 0)
        return;
    if (*list == NULL)
        *list = calloc(job->ndaemons, sizeof(uint64_t));
    if (*list != NULL && *reports < job->ndaemons)
        (*list)[(*reports)++] = us;
    if (us > *worst)
        *worst = us;
}

static void on_stats(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                     const void *data, size_t len, void *cbdata)
{
    hnp_job_t *job = cbdata;
    hnp_wire_stats_t s;

    (void)tag;
    if (!HNP_RTE_UNPACK(rte, src, "statistics",
                        hnp_wire_stats_unpack, data, len, &s))
        return;
    if (job->startup_cpu_us == NULL)
        job->startup_cpu_us = calloc(2 * (size_t)job->ndaemons, sizeof(uint64_t));
    if (job->startup_cpu_us != NULL && job->stats_reports < job->ndaemons) {
        job->startup_cpu_us[job->stats_reports] = s.startup_cpu_us;
        job->startup_cpu_us[job->ndaemons + job->stats_reports] =
            s.connected_cpu_us;
    }
    note_pmi_cpu(job, s.pmi_cpu_us, &job->pmi_cpu_us, &job->pmi_reports,
                 &job->worst.pmi_cpu_us);
    note_pmi_cpu(job, s.pmi_early_cpu_us, &job->pmi_early_cpu_us,
                 &job->pmi_early_reports, &job->worst.pmi_early_cpu_us);
    job->stats_reports++;
    if (s.max_connections > job->worst.max_connections) {
        job->worst.max_connections = s.max_connections;
        job->most_connected = src;
    }
    if (s.startup_cpu_us > job->worst.startup_cpu_us)
        job->worst.startup_cpu_us = s.startup_cpu_us;
    if (s.connected_cpu_us > job->worst.connected_cpu_us)
        job->worst.connected_cpu_us = s.connected_cpu_us;
    if (s.startup_rss_kb > job->worst.startup_rss_kb)
        job->worst.startup_rss_kb = s.startup_rss_kb;
    if (s.total_cpu_us > job->worst.total_cpu_us)
        job->worst.total_cpu_us = s.total_cpu_us;
    if (s.peak_rss_kb > job->worst.peak_rss_kb)
        job->worst.peak_rss_kb = s.peak_rss_kb;
    if (s.handshake_cpu_us > job->worst.handshake_cpu_us)
        job->worst.handshake_cpu_us = s.handshake_cpu_us;
    job->daemons_cpu_us += s.total_cpu_us;
    job->daemons_handshake_cpu_us += s.handshake_cpu_us;
    job->daemons_handshakes += s.handshakes;
}

/* ------------------------------------------------------------ the end */

/* The last wait, for the daemons killed at end_timed_out to go. */
static void kills_timed_out(hnp_rte_t *rte, void *cbdata)
{
    hnp_job_t *job = cbdata;

    hnp_rte_timer_destroy(job->end_timer);
    job->end_timer = NULL;
    HNP_WARN(rte->log, "%u daemon connections still open after shutdown; "
             "leaving", hnp_oob_num_peer_connections(rte->oob));
    hnp_rte_stop_loop(rte);
}

/* Daemons still connected long after the shutdown do not act on it
 * (stopped, hung): their spawn parents kill them, so that no node keeps
 * any of the job, and hnp waits a little more for them to go. */
static void end_timed_out(hnp_rte_t *rte, void *cbdata)
{
    hnp_job_t *job = cbdata;
    uint32_t killed = 0;

    hnp_rte_timer_destroy(job->end_timer);
    job->end_timer = NULL;
    for (hnp_vpid_t v = 1; v < rte->nprocs; v++)
        if (hnp_oob_connected(rte->oob, v)) {
            HNP_WARN(rte->log, "the daemon on node %s (vpid %u) did not "
                     "leave after the shutdown; killing it",
                     hnp_rte_node_name(rte, v), v);
            hnp_rte_kill_daemon(rte, v);
            killed++;
        }
    if (killed == 0) {
        kills_timed_out(rte, job);
        return;
    }
    job->end_timer = hnp_rte_timer_create(rte, END_KILL_WAIT, kills_timed_out,
                                          job);
}

/* Tell every daemon to end its processes (at once with kill_now, else
 * after the grace period) and exit. */
static void send_shutdown(hnp_job_t *job)
{
    hnp_rte_t *rte = job->rte;
    hnp_wire_shutdown_t req = { .now = job->kill_now };
    hnp_buffer_t buf;

    if (rte->routed == NULL || rte->oob == NULL)
        return;
    hnp_buffer_init(&buf);
    if (hnp_wire_shutdown_pack(&buf, &req) == HNP_SUCCESS) {
        hnp_rte_xcast(rte, HNP_TAG_SHUTDOWN, buf.data, buf.len);
        /* A daemon joined but not yet routed to (phase 2 incomplete) is
         * reached through the spawn tree; each daemon passes it on. */
        hnp_rte_send_spawn_children(rte, HNP_TAG_SHUTDOWN, buf.data, buf.len);
    }
    hnp_buffer_release(&buf);
}

/* Tell every daemon to end its processes and exit, then wait until the
 * direct connections close: a daemon leaves only after its own children
 * have, so when the HNP's neighbours are gone, every daemon is. */
static void end_job(hnp_job_t *job)
{
    hnp_rte_t *rte = job->rte;

    if (job->ending)
        return;
    if (job->dvm != NULL && !job->holds_runtime) {
        job->ending = true;
        hnp_rte_timer_destroy(job->timeout_timer);
        job->timeout_timer = NULL;
        hnp_job_state_release(job);
        hnp_dvm_job_ending(job->dvm, job);
        return;
    }
    job->ending = true;
    rte->closing = true;
    hnp_job_progress_stop(job);
    hnp_rte_timer_destroy(job->launch_timer);
    job->launch_timer = NULL;
    if (rte->launcher != NULL)
        hnp_launcher_cancel_all(rte->launcher);
    hnp_rte_timer_destroy(job->timeout_timer);
    job->timeout_timer = NULL;
    hnp_job_state_release(job);
    send_shutdown(job);
    if (rte->oob == NULL || hnp_oob_num_peer_connections(rte->oob) == 0) {
        hnp_job_mark(job, HNP_MARK_DAEMONS_GONE);
        hnp_rte_stop_loop(rte);
        return;
    }
    job->end_timer = hnp_rte_timer_create(rte, rte->core->kill_grace + 10.0,
                                          end_timed_out, job);
}

FILE *hnp_job_log_begin(const hnp_job_t *job)
{
    FILE *own = hnp_log_get_file();

    if (job->log_file != NULL)
        hnp_log_set_file(job->log_file);
    return own;
}

static void job_timed_out(hnp_rte_t *rte, void *cbdata)
{
    hnp_job_t *job = cbdata;
    FILE *own = hnp_job_log_begin(job);
    char msg[128];

    (void)rte;
    hnp_rte_timer_destroy(job->timeout_timer);
    job->timeout_timer = NULL;
    /* Whatever the ranks do from now on, the time limit was reached. */
    job->exit_status = 124;
    if ((job->args->report_state_on_timeout ||
         job->args->get_stack_traces) &&
        hnp_job_report_state(job) == HNP_SUCCESS) {
        hnp_log_set_file(own);
        return;
    }
    snprintf(msg, sizeof(msg), "the job ran longer than --timeout %g s; "
             "killing it", job->args->timeout);
    hnp_job_abort(job, 124, msg);
    hnp_log_set_file(own);
}

void hnp_job_arm_timeout(hnp_job_t *job)
{
    if (job->args->timeout > 0)
        job->timeout_timer = hnp_rte_timer_create(job->rte, job->args->timeout,
                                                  job_timed_out, job);
}

/* Whether @p sig, had hnp not caught it, would have ended hnp. */
static bool ends_hnp(int sig)
{
    return sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
}

/* The jobs @p job's ranks spawned are held by its standalone family or
 * by the DVM it runs in. */
static struct hnp_dvm *family_of(const hnp_job_t *job)
{
    return job->family != NULL ? job->family : job->dvm;
}

/* SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 reach every process (of the
 * jobs it spawned too); what they
 * do is the processes' business (an exit by signal ends the job as any
 * abnormal exit does). A second SIGINT means "now": everything is killed.
 * A job that got one of those that would have ended hnp exits as if it had
 * (128 + the signal), however its processes end afterwards, unless it had
 * already failed: a script sees that the job was stopped. */
void hnp_job_signal(hnp_job_t *job, int sig)
{
    hnp_wire_signal_t req = { .jobid = job->jobid, .signo = sig };
    hnp_buffer_t buf;
    int rc;

    if (sig == SIGINT && ++job->interrupts > 1) {
        if (!job->args->quiet)
            HNP_INFO(job->rte->log, "second interrupt: killing every process "
                     "now");
        job->kill_now = true;
        if (job->ending && job->dvm != NULL && !job->holds_runtime)
            hnp_dvm_job_ending(job->dvm, job);
        else if (job->ending) /* what is left goes at once */
            send_shutdown(job);
        else
            hnp_job_abort(job, 128 + sig, "interrupted twice");
        return;
    }
    if (job->ending || !job->launched) {
        hnp_job_abort(job, 128 + sig, sig == SIGINT ? "interrupted"
                      : "terminated by a signal before the processes started");
        return;
    }
    if (ends_hnp(sig) && job->exit_status == 0)
        job->exit_status = 128 + sig;
    if (!job->args->quiet && job->parent_jobid == 0) /* -q; once a family */
        HNP_INFO(job->rte->log, "forwarding signal %d (%s) to the job's "
                 "processes%s", sig, strsignal(sig), sig == SIGINT ?
                 " (interrupt again to kill them at once)" : "");
    hnp_buffer_init(&buf);
    rc = hnp_wire_signal_pack(&buf, &req);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_xcast(job->rte, HNP_TAG_SIGNAL, buf.data, buf.len);
    hnp_buffer_release(&buf);
    if (rc != HNP_SUCCESS)
        hnp_job_abort(job, 128 + sig, "cannot forward the signal");
    else
        hnp_dvm_signal_children(family_of(job), job, sig, false);
}

/* Job control: the SIGSTOP that stops the processes is on its way (the
 * OOB holds nothing more, or a second has passed): hnp stops now. */
static void stop_when_sent(hnp_rte_t *rte, void *cbdata)
{
    hnp_job_t *job = cbdata;

    hnp_rte_timer_destroy(job->stop_timer);
    job->stop_timer = NULL;
    if (hnp_oob_queued_bytes(rte->oob) > 0 && ++job->stop_polls < 100) {
        job->stop_timer = hnp_rte_timer_create(rte, 0.01, stop_when_sent, job);
        return;
    }
    raise(SIGSTOP);
}

void hnp_job_control(hnp_job_t *job, int sig)
{
    hnp_wire_signal_t req = { .jobid = job->jobid, .signo = sig };
    hnp_buffer_t buf;

    if (!job->launched || job->ending || job->rte->oob == NULL)
        return;
    hnp_buffer_init(&buf);
    if (hnp_wire_signal_pack(&buf, &req) == HNP_SUCCESS)
        hnp_rte_xcast(job->rte, HNP_TAG_SIGNAL, buf.data, buf.len);
    hnp_buffer_release(&buf);
    hnp_dvm_signal_children(family_of(job), job, sig, true);
}

/* SIGTSTP (Ctrl-Z) with rte_forward_job_control: the processes stop
 * (SIGSTOP, which they cannot ignore, as Open MPI's mpirun sends), the
 * daemons hold their heartbeats (hnp will be silent), then hnp stops. */
void hnp_job_stop(hnp_job_t *job)
{
    if (job->stop_timer != NULL)
        return;
    HNP_VERBOSE(job->rte->log, 1, "stopping the job's processes, then hnp");
    job->stopped = true;
    hnp_job_control(job, SIGSTOP);
    hnp_rte_heartbeat_hold(job->rte, true);
    job->stop_polls = 0;
    job->stop_timer = hnp_rte_timer_create(job->rte, 0, stop_when_sent, job);
}

/* SIGCONT (fg, bg): hnp runs again; so do the processes. */
void hnp_job_continue(hnp_job_t *job)
{
    hnp_rte_heartbeat_hold(job->rte, false);
    if (!job->stopped)
        return;
    job->stopped = false;
    HNP_VERBOSE(job->rte->log, 1, "continuing the job's processes");
    hnp_job_control(job, SIGCONT);
}

void hnp_job_finish(hnp_job_t *job)
{
    /* every process ended, so each was started, whether or not every
     * daemon's word of it came first: a daemon without ranks of the job
     * may be slower than the job's processes (a spawn is then answered) */
    if (job->marks[HNP_MARK_PROCS_STARTED] == 0 && !job->ending)
        hnp_job_mark(job, HNP_MARK_PROCS_STARTED);
    hnp_job_mark(job, HNP_MARK_PROCS_EXITED);
    /* a standalone job ends with the last job its ranks spawned */
    if (job->family != NULL && hnp_dvm_family_holds(job->family))
        return;
    if (job->dvm != NULL && !job->holds_runtime) {
        job->ending = true;
        hnp_dvm_job_ending(job->dvm, job);
        return;
    }
    end_job(job);
}

void hnp_job_register_launch_reports(hnp_job_t *job)
{
    hnp_job_recv(job, HNP_TAG_PROCS_STARTED, on_daemon_reached);
}

/* A launcher whose system knows why the job failed (Slurm took a node
 * away, and with it the processes of every node) says so first: what hnp
 * heard of first may be only a consequence, on another node. */
static void explain_failure(hnp_job_t *job)
{
    const hnp_plm_module_t *plm = job->rte->plm;
    char why[1024];

    if (plm != NULL && plm->explain_failure != NULL &&
        plm->explain_failure(job->rte, why, sizeof(why)) == HNP_SUCCESS)
        HNP_ERROR_LOG(job->rte->log, "%s", why);
}

void hnp_job_abort(hnp_job_t *job, int status, const char *message)
{
    FILE *own;

    if (job->ending)
        return;
    own = hnp_job_log_begin(job);
    explain_failure(job);
    if (message != NULL)
        HNP_ERROR_LOG(job->rte->log, "%s", message);
    hnp_log_set_file(own);
    if (message != NULL && job->end_message == NULL)
        job->end_message = strdup(message);
    if (job->exit_status == 0)
        job->exit_status = status;
    end_job(job);
}

static void neighbour_lost(hnp_rte_t *rte, hnp_vpid_t vpid, const char *why)
{
    char msg[512];

    hnp_rte_describe_lost(rte, vpid, why, msg, sizeof(msg));
    /* Silent: perhaps stopped, with its processes (see on_peer_lost). */
    hnp_rte_kill_daemon(rte, vpid);
    if (((hnp_job_t *)rte->role.ctx)->dvm != NULL)
        hnp_dvm_daemon_lost(((hnp_job_t *)rte->role.ctx)->dvm, vpid, msg);
    else
        hnp_job_abort(rte->role.ctx, 1, msg);
}

void hnp_job_start_heartbeats(hnp_job_t *job)
{
    const hnp_core_params_t *core = job->rte->core;

    hnp_rte_heartbeat_start(job->rte, core->heartbeat_interval,
                            core->heartbeat_misses);
}

void hnp_job_register_handlers(hnp_job_t *job)
{
    hnp_rte_t *rte = job->rte;

    rte->role.ctx = job;
    rte->role.failure = role_failure;
    rte->role.peer_down = role_peer_down;
    rte->role.exchange_started = exchange_started;
    rte->role.neighbour_lost = neighbour_lost;
    hnp_rte_recv(rte, HNP_TAG_FAILURE, on_failure, job);
    hnp_rte_recv(rte, HNP_TAG_PHASE2_DONE, on_daemon_reached, job);
    hnp_job_recv(job, HNP_TAG_PROCS_STARTED, on_daemon_reached);
    hnp_rte_recv(rte, HNP_TAG_STATS, on_stats, job);
    hnp_rte_recv(rte, HNP_TAG_PEER_LOST, on_peer_lost, job);
}
