/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application processes of this node: start them from the launch
 * message (phase 3), forward their output to the HNP a line at a time, and
 * report how each one ended.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hnp_buffer.h"
#include "daemon.h"
#include "procs/forkenv.h"
#include "wire/control.h"
#include "wire/iof.h"
#include "wire/launch.h"
#include "wire/proc_exit.h"
#include "wire/report.h"
#include "wire/state.h"

extern char **environ;

static hnpd_proc_t *find_proc(hnpd_job_t *j, uint32_t rank)
{
    for (uint32_t i = 0; i < j->nlocal; i++)
        if (j->procs[i].rank == rank)
            return &j->procs[i];
    return NULL;
}

/* Output waiting to leave this daemon, above which the processes' output
 * is no longer read (and below which it is read again). */
#define OUTPUT_QUEUE_HIGH (8u << 20)
#define OUTPUT_QUEUE_LOW (2u << 20)

/* The processes' output is read unless the OOB holds too much to send (a
 * slow network: output_timer watches the queue) or the HNP has not taken
 * on the last rte_iof_window bytes (a slow reader of hnp's output: the
 * HNP's acknowledgements release it). */
static void update_output_pause(hnpd_t *d)
{
    size_t window = d->rte->core->iof_window;

    if (d->odls != NULL)
        hnp_odls_pause_output(d->odls, d->output_timer != NULL ||
                                           (window > 0 &&
                                            d->iof_unacked >= window));
}

static void output_recheck(hnp_rte_t *rte, void *cbdata)
{
    hnpd_t *d = cbdata;

    hnp_rte_timer_destroy(d->output_timer);
    d->output_timer = NULL;
    if (hnp_oob_queued_bytes(rte->oob) > OUTPUT_QUEUE_LOW)
        d->output_timer = hnp_rte_timer_create(rte, 0.01, output_recheck, d);
    update_output_pause(d);
}

/* A slow network: stop reading until the queue drains. */
static void throttle_output(hnpd_t *d)
{
    if (d->output_timer == NULL &&
        hnp_oob_queued_bytes(d->rte->oob) >= OUTPUT_QUEUE_HIGH)
        d->output_timer = hnp_rte_timer_create(d->rte, 0.01, output_recheck,
                                               d);
    update_output_pause(d);
}

/* Now, by this node's clock, in microseconds since the epoch: when the
 * output being sent was read (--timestamp-output). */
static uint64_t read_time_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void send_flagged(hnpd_job_t *j, uint32_t rank, int stream,
                         const char *data, size_t len, uint8_t flags,
                         uint64_t read_us)
{
    hnpd_t *d = j->daemon;
    hnp_wire_iof_t out = { .jobid = j->jobid, .rank = rank,
                           .stream = (uint8_t)stream,
                           .flags = flags, .read_us = read_us, .data = data,
                           .len = len };
    hnp_buffer_t buf;

    if (len == 0)
        return;
    hnp_buffer_init(&buf);
    if (hnp_wire_iof_pack(&buf, &out) == HNP_SUCCESS &&
        hnp_rte_send(d->rte, 0, HNP_TAG_IOF, buf.data, buf.len) ==
            HNP_SUCCESS)
        d->iof_unacked += len;
    hnp_buffer_release(&buf);
    throttle_output(d);
}

static void send_output(hnpd_job_t *j, uint32_t rank, int stream,
                        const char *data, size_t len, uint64_t read_us)
{
    send_flagged(j, rank, stream, data, len, 0, read_us);
}

/* The HNP has taken on @p bytes more of this daemon's output. */
static void on_iof_ack(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                       const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    hnp_wire_iof_ack_t ack;

    (void)tag;
    if (!HNP_RTE_UNPACK(rte, src, "output acknowledgement",
                        hnp_wire_iof_ack_unpack, data, len, &ack))
        return;
    d->iof_unacked -= ack.bytes < d->iof_unacked ? ack.bytes
                                                  : d->iof_unacked;
    update_output_pause(d);
}

static int linebuf_append(hnpd_linebuf_t *lb, const void *data, size_t len)
{
    if (lb->len + len > lb->cap) {
        size_t cap = lb->cap ? lb->cap : 4096;
        while (cap < lb->len + len)
            cap *= 2;
        char *grown = realloc(lb->data, cap);
        if (grown == NULL)
            return HNP_ERR_NOMEM;
        lb->data = grown;
        lb->cap = cap;
    }
    memcpy(lb->data + lb->len, data, len);
    lb->len += len;
    return HNP_SUCCESS;
}

/* Send every complete line, and every line longer than HNP_IOF_LINE_MAX
 * in flagged pieces of that size as soon as it is that long; keep the
 * rest. At end of file (@p len 0) everything left goes, a last line
 * without its newline too. What goes is stamped with the time of this
 * read, which completed it. */
static void output_arrived(void *ctx, uint32_t jobid, uint32_t rank,
                           int stream, const void *data, size_t len)
{
    hnpd_job_t *j = hnpd_job_find(ctx, jobid);
    hnpd_proc_t *p = j != NULL ? find_proc(j, rank) : NULL;
    hnpd_linebuf_t *lb;
    size_t whole = 0, pos = 0;
    uint64_t now = read_time_us();

    if (p == NULL || (stream != HNP_STDOUT && stream != HNP_STDERR))
        return;
    lb = &p->out[stream - 1];
    if (len > 0 && linebuf_append(lb, data, len) != HNP_SUCCESS) {
        send_output(j, rank, stream, lb->data, lb->len, now);
        lb->len = 0;
        send_output(j, rank, stream, data, len, now);
        return;
    }
    if (len == 0) {
        send_output(j, rank, stream, lb->data, lb->len, now);
        lb->len = 0;
        return;
    }
    /* Lines from @p whole to @p pos are complete and go in one message. */
    while (pos < lb->len) {
        size_t span = lb->len - pos;
        const char *nl = memchr(lb->data + pos, '\n',
                                span > HNP_IOF_LINE_MAX ? HNP_IOF_LINE_MAX + 1
                                                        : span);
        if (nl != NULL) {
            pos = (size_t)(nl - lb->data) + 1;
            continue;
        }
        if (span <= HNP_IOF_LINE_MAX)
            break;
        send_output(j, rank, stream, lb->data + whole, pos - whole, now);
        send_flagged(j, rank, stream, lb->data + pos, HNP_IOF_LINE_MAX,
                     HNP_IOF_CUT, now);
        whole = pos += HNP_IOF_LINE_MAX;
    }
    send_output(j, rank, stream, lb->data + whole, pos - whole, now);
    /* Nothing to move when all went, or none (the buffer may be unset). */
    if (pos > 0 && pos < lb->len)
        memmove(lb->data, lb->data + pos, lb->len - pos);
    lb->len -= pos;
}

/* Tell the HNP how @p rank ended; @p why explains a start that failed
 * before exec (NULL: exec's own errno says it). */
static void report_exit(hnpd_job_t *j, uint32_t rank, pid_t pid,
                        int wait_status, int exec_errno, const char *why)
{
    hnp_wire_proc_exit_t report = { .jobid = j->jobid, .rank = rank,
                                    .pid = (int32_t)pid,
                                    .wait_status = wait_status,
                                    .exec_errno = exec_errno,
                                    .why = (char *)why };
    hnpd_proc_t *p = find_proc(j, rank);
    hnp_buffer_t buf;

    if (p != NULL)
        p->reported = true;
    hnp_buffer_init(&buf);
    if (hnp_wire_proc_exit_pack(&buf, &report) == HNP_SUCCESS)
        hnp_rte_send(j->daemon->rte, 0, HNP_TAG_PROC_EXIT, buf.data,
                     buf.len);
    hnp_buffer_release(&buf);
}

/* A job that ends before some of its ranks here started (a failure on
 * this node or another): the HNP counts them as ended, as it counts the
 * others, when it hears of them. */
void hnpd_procs_report_unstarted(hnpd_job_t *j)
{
    for (uint32_t i = 0; j->procs != NULL && i < j->nlocal; i++)
        if (j->procs[i].pid == 0 && !j->procs[i].reported)
            report_exit(j, j->procs[i].rank, 0, 0, ECANCELED,
                        "the job ended before it started");
}

static void proc_exited(void *ctx, uint32_t jobid, uint32_t rank, pid_t pid,
                        int wait_status, int exec_errno)
{
    hnpd_t *d = ctx;
    hnpd_job_t *j = hnpd_job_find(d, jobid);
    hnpd_proc_t *p = j != NULL ? find_proc(j, rank) : NULL;

    if (j == NULL) {
        HNP_WARN(d->rte->log, "node %s: rank %u of job %u, which this "
                 "daemon no longer holds, ended", d->node, rank, jobid);
        return;
    }
    if (p != NULL) {
        p->state = exec_errno != 0 ? HNP_RANK_FAILED : HNP_RANK_EXITED;
        p->wait_status = wait_status;
    }
    /* A rank that did not finalize fails the job before its exit reaches
     * the HNP, which could otherwise take the job for done. */
    hnpd_pmi_child_exited(j, rank, pid, wait_status, exec_errno);
    report_exit(j, rank, pid, wait_status, exec_errno, NULL);
    if (hnp_odls_num_alive_job(d->odls, jobid) == 0) {
        hnpd_pmi_job_end(j);
        if (j->ending)
            hnpd_job_release(j);
    }
    hnpd_maybe_exit(d);
}

static const hnp_wire_launch_app_t *app_of(const hnp_wire_launch_t *m,
                                           uint32_t rank)
{
    for (uint32_t a = m->napps; a-- > 0;)
        if (rank >= m->apps[a].first_rank)
            return &m->apps[a];
    return &m->apps[0];
}

/* Whether -x gives the variable of @p entry ("NAME=value") a value. */
static bool overridden(const hnp_wire_launch_app_t *app, const char *entry)
{
    size_t len = strcspn(entry, "=");

    for (uint32_t i = 0; i < app->nenv; i++)
        if (strncmp(app->env[i], entry, len) == 0 && app->env[i][len] == '=')
            return true;
    return false;
}

/* Variables of the daemon's own task when srun started it, which say
 * nothing true of a rank: they are not passed on (rank_variables sets the
 * rank's own SLURM_PROCID and the like). */
static bool daemon_task_only(const char *entry)
{
    static const char *const names[] = { "SLURM_TASK_PID", "SLURM_GTIDS",
                                         NULL };
    size_t len = strcspn(entry, "=");

    for (size_t i = 0; names[i] != NULL; i++)
        if (strlen(names[i]) == len && strncmp(entry, names[i], len) == 0)
            return true;
    return false;
}

static void free_environment(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

/* The daemon's environment with the app context's variables (-x): what
 * each of its ranks starts from. The strings are the caller's to free. */
static char **app_environment(const hnp_wire_launch_app_t *app)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n] != NULL)
        n++;
    env = calloc(n + app->nenv + 1, sizeof(*env));
    if (env == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "HNP_", 4) != 0 &&
            !overridden(app, environ[i]) && !daemon_task_only(environ[i]))
            env[k++] = strdup(environ[i]);
    for (uint32_t i = 0; i < app->nenv; i++)
        env[k++] = strdup(app->env[i]);
    for (size_t i = 0; i < k; i++)
        if (env[i] == NULL) {
            free_environment(env);
            return NULL;
        }
    return env;
}

static int set_number(hnp_pmi_fork_t *fork, const char *name, uint32_t value)
{
    char text[16];

    snprintf(text, sizeof(text), "%u", value);
    return hnp_pmi_fork_setenv(fork, name, text);
}

/* What a rank is told of itself, whatever its MPI: hnp's own names, and
 * those scripts read under Open MPI's mpirun and MPICH's Hydra. */
static int rank_variables(const hnpd_job_t *j, const hnp_wire_launch_t *m,
                          const hnp_pmi_child_t *child, hnp_pmi_fork_t *fork)
{
    const struct { const char *name; uint32_t value; } numbers[] = {
        { "HNP_RANK", child->rank },
        { "HNP_SIZE", m->nprocs },
        { "HNP_LOCAL_RANK", child->local_rank },
        { "HNP_LOCAL_SIZE", j->nlocal },
        { "HNP_JOBID", m->jobid },
        { "OMPI_COMM_WORLD_RANK", child->rank },
        { "OMPI_COMM_WORLD_SIZE", m->nprocs },
        { "OMPI_COMM_WORLD_LOCAL_RANK", child->local_rank },
        { "OMPI_COMM_WORLD_LOCAL_SIZE", j->nlocal },
        { "OMPI_COMM_WORLD_NODE_RANK", child->node_rank },
        { "MPI_LOCALRANKID", child->local_rank },
        { "MPI_LOCALNRANKS", j->nlocal },
    };
    /* A daemon srun started carries its own task's numbers, which every
     * rank would inherit (all of a node's ranks SLURM_PROCID=0): the ranks
     * get their own, as srun gives them to the tasks it starts. */
    const struct { const char *name; uint32_t value; } slurm[] = {
        { "SLURM_PROCID", child->rank },
        { "SLURM_LOCALID", child->local_rank },
        { "SLURM_NTASKS", m->nprocs },
        { "SLURM_NPROCS", m->nprocs },
    };
    bool under_srun = getenv("SLURM_PROCID") != NULL;
    const hnp_wire_launch_app_t *app = app_of(m, child->rank);
    int rc = hnp_pmi_fork_setenv(fork, "HNP_NODE", j->daemon->node);

    /* Where it runs: PWD for its shell, and for Open MPI's MPI_INFO_ENV
     * ("wdir"), the variable mpirun sets. */
    if (rc == HNP_SUCCESS && app->wdir != NULL && app->wdir[0] != '\0')
        rc = hnp_pmi_fork_setenv(fork, "PWD", app->wdir);
    if (rc == HNP_SUCCESS && app->wdir != NULL && app->wdir[0] != '\0')
        rc = hnp_pmi_fork_setenv(fork, "OMPI_MCA_initial_wdir", app->wdir);

    for (size_t i = 0; rc == HNP_SUCCESS &&
                       i < sizeof(numbers) / sizeof(numbers[0]); i++)
        rc = set_number(fork, numbers[i].name, numbers[i].value);
    for (size_t i = 0; rc == HNP_SUCCESS && under_srun &&
                       i < sizeof(slurm) / sizeof(slurm[0]); i++)
        rc = set_number(fork, slurm[i].name, slurm[i].value);
    return rc;
}

/* A working directory that is missing here is the user's mistake: say so,
 * rather than let exec's ENOENT blame the program. */
static bool check_wdir(hnpd_job_t *j, const hnp_wire_launch_app_t *app,
                       uint32_t rank)
{
    struct stat st;
    char why[PATH_MAX + 128];
    int e;

    if (app->wdir == NULL || app->wdir[0] == '\0')
        return true;
    if (stat(app->wdir, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else
        return true;
    snprintf(why, sizeof(why), "working directory %s: %s", app->wdir,
             strerror(e));
    report_exit(j, rank, 0, 0, e, why);
    return false;
}

/* --report-bindings: one line a rank, bound or not, printed by the HNP,
 * in Open MPI's words ([node:daemon's pid] MCW rank N bound to ...). */
static void report_binding(hnpd_job_t *j, uint32_t rank,
                           uint32_t local_rank)
{
    hnpd_t *d = j->daemon;
    char line[1024];
    hnp_wire_report_t report = { .severity = HNP_WIRE_REPORT_PLAIN,
                                 .line = line };
    hnp_buffer_t buf;

    snprintf(line, sizeof(line), "[%s:%05ld] MCW rank %u %s", d->node,
             (long)getpid(), rank, hnpd_bind_describe(j, local_rank));
    hnp_buffer_init(&buf);
    if (hnp_wire_report_pack(&buf, &report) == HNP_SUCCESS)
        hnp_rte_send(d->rte, 0, HNP_TAG_REPORT, buf.data, buf.len);
    hnp_buffer_release(&buf);
}

/* The rank's variables, then every pmi component's: a fork spec. */
static int prepare_rank(hnpd_job_t *j, const hnp_wire_launch_t *m,
                        char *const *base, const hnp_pmi_child_t *child,
                        hnp_pmi_fork_t *fork, char ***env, char *err,
                        size_t errlen)
{
    int rc = rank_variables(j, m, child, fork);

    if (rc == HNP_SUCCESS)
        rc = hnpd_pmi_child_setup(j, child, fork, err, errlen);
    else
        hnp_err_set(err, errlen, "out of memory");
    if (rc == HNP_SUCCESS && (*env = hnp_fork_environ(fork, base)) == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        rc = HNP_ERR_NOMEM;
    }
    return rc;
}

static void start_rank(hnpd_job_t *j, const hnp_wire_launch_t *m,
                       char *const *base, uint32_t rank, uint32_t local_rank)
{
    hnpd_t *d = j->daemon;
    const hnp_wire_launch_app_t *app = app_of(m, rank);
    hnp_pmi_child_t child = {
        .rank = rank, .local_rank = local_rank,
        .node_rank = j->node_rank_base + local_rank,
        .appnum = (uint32_t)(app - m->apps), .app_rank = rank - app->first_rank,
    };
    hnp_pmi_fork_t *fork = hnp_fork_create();
    hnpd_proc_t *p = find_proc(j, rank);
    char **env = NULL;
    char err[256] = "";
    size_t nfds = 0;
    pid_t pid;

    p->state = HNP_RANK_FAILED; /* until it is forked */
    if (!check_wdir(j, app, rank))
        goto out;
    if (fork == NULL || prepare_rank(j, m, base, &child, fork, &env, err,
                                     sizeof(err)) != HNP_SUCCESS) {
        hnp_rte_fail_job(d->rte, j->jobid, 1,
                         "node %s: cannot start rank %u: %s", d->node,
                     rank, err[0] != '\0' ? err : "out of memory");
        goto out;
    }
    const int *fds = hnp_fork_fds(fork, &nfds);
    hnp_odls_proc_t spec = { j->jobid, rank, app->argv, env,
                             app->wdir != NULL && app->wdir[0] != '\0'
                                 ? app->wdir : NULL,
                             hnpd_stdin_wanted(j, rank) ? &p->in.fd : NULL,
                             hnpd_bind_cpuset(j, local_rank), fds, nfds,
                             (m->output & HNP_LAUNCH_MERGE_STDERR) != 0 };

    if (m->place.flags & HNP_PLACE_REPORT)
        report_binding(j, rank, local_rank);
    if (hnp_odls_launch(d->odls, &spec, &pid, err, sizeof(err)) < 0) {
        hnp_rte_fail_job(d->rte, j->jobid, 1,
                         "node %s: cannot start rank %u: %s", d->node,
                     rank, err);
    } else {
        p->pid = pid;
        p->state = HNP_RANK_RUNNING;
        hnpd_pmi_child_started(j, rank, pid);
    }
out:
    free(env);            /* its strings are base's and the fork's */
    hnp_fork_destroy(fork); /* and with it the daemon's copies of the fds */
}

int hnpd_odls_ready(hnpd_t *d)
{
    hnp_odls_callbacks_t cb = { output_arrived, proc_exited, d };

    char err[256] = "";
    hnp_sentinel_t *s = d->sentinel;

    if (d->odls != NULL)
        return HNP_SUCCESS;
    int rc = hnp_odls_create(&d->odls, d->rte->base, d->rte->children, &cb);
    if (rc != HNP_SUCCESS || s == NULL)
        return rc;
    d->sentinel = NULL;
    /* Not fatal: the odls forks another with the first process. */
    if (hnp_odls_adopt_sentinel(d->odls, s, err, sizeof(err)) != HNP_SUCCESS)
        HNP_WARN(hnp_log_stream("odls"), "%s", err);
    return HNP_SUCCESS;
}

/* Local ranks come in increasing order and an app context's ranks are
 * consecutive: its environment is made once, when its first rank comes. */
void hnpd_procs_start(hnpd_job_t *j, const hnp_wire_launch_t *m)
{
    hnpd_t *d = j->daemon;
    const hnp_wire_launch_app_t *base_app = NULL;
    char **base = NULL;

    for (uint32_t i = 0; j->procs != NULL && i < j->nlocal; i++) {
        const hnp_wire_launch_app_t *app = app_of(m, j->procs[i].rank);
        if (app != base_app) {
            free_environment(base);
            base_app = app;
            base = app_environment(app);
        }
        if (base == NULL) {
            hnp_rte_fail_job(d->rte, j->jobid, 1, "node %s: out of memory "
                             "starting the "
                         "ranks", d->node);
            return;
        }
        start_rank(j, m, base, j->procs[i].rank, i);
    }
    free_environment(base);
}

/* A scratch root of the daemon's was made: should the daemon be killed,
 * its sentinel removes it once the ranks are gone. */
static void guard_scratch(void *ctx, unsigned kind, const char *path)
{
    hnpd_t *d = ctx;
    char err[256] = "";

    if (hnpd_odls_ready(d) != HNP_SUCCESS ||
        hnp_odls_guard_dir(d->odls, kind, path, err, sizeof(err)) != HNP_SUCCESS)
        HNP_WARN(d->rte->log, "%s would outlive a killed daemon: %s", path,
                 err[0] != '\0' ? err : "cannot start the local launcher");
}

void hnpd_register_proc_handlers(hnpd_t *d)
{
    d->rte->scratch_guard = guard_scratch;
    d->rte->scratch_guard_ctx = d;
    hnpd_jobs_register(d);
    hnp_rte_collectives_listen(d->rte);
    hnp_rte_recv(d->rte, HNP_TAG_IOF_ACK, on_iof_ack, d);
    hnpd_state_register(d);
    hnpd_stdin_register(d);
}

void hnpd_procs_release(hnpd_t *d)
{
    for (hnpd_job_t *j = d->jobs; j != NULL; j = j->next)
        hnpd_state_release(j);
    hnpd_pmi_release(d);
    hnp_rte_timer_destroy(d->output_timer);
    d->output_timer = NULL;
    if (d->odls != NULL)
        hnp_odls_destroy(d->odls);
    d->odls = NULL;
    while (d->jobs != NULL)
        hnpd_job_release(d->jobs);
    hnpd_bind_unload(d);
}
