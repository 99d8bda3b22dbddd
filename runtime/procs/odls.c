/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local launch (see odls.h): fork/exec the node's processes, forward their
 * output as it comes, report each exit once its output is complete.
 *
 * A process is reported exited when it has been reaped and both of its
 * pipes have reached end of file, so everything it wrote is delivered
 * before its exit. Only a descendant that outlives it can keep a pipe open
 * after the reap (`sh -c 'server &'`); rather than hold the rank's exit
 * hostage to it, the pipes get ODLS_LINGER_SECONDS more, then whatever is
 * readable is delivered and they are closed.
 *
 * Each process leads its own process group: a ^C typed at the terminal
 * reaches hnp, not the processes, and the daemon's signals reach the
 * process and whatever it started. Its parent-death signal is SIGKILL;
 * Linux ties it to the thread that forked, which is the loop's. That
 * signal reaches the process alone: the sentinel (sentinel.h), started
 * before the first process, ends the groups of those still listed when
 * the daemon dies without doing it itself. A group is guarded from the
 * moment its process is listed until it leaves the list.
 *
 * A daemon that holds several jobs at once (hnp --dvm) has one odls (the
 * SIGCHLD watcher is one a process): each process carries its job's id,
 * which the callbacks name, and a job is signalled or killed alone, with a
 * grace timer of its own.
 *
 * Callbacks may launch, signal and kill, but must not destroy the odls.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "forkexec.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "odls.h"
#include "sentinel.h"

#define ODLS_CHUNK (64 * 1024)
#define ODLS_LINGER_SECONDS 2
/* Reads of a lingering pipe before it is closed regardless: a descendant
 * writing without pause must not keep the loop here. */
#define ODLS_DRAIN_READS 16

typedef struct odls_proc odls_proc_t;

typedef struct odls_stream {
    odls_proc_t *proc;
    int id;              /* HNP_STDOUT or HNP_STDERR */
    int fd;              /* -1 once at end of file */
    struct event *ev;
} odls_stream_t;

struct odls_proc {
    hnp_odls_t *odls;
    odls_proc_t *prev, *next;
    uint32_t jobid;
    uint32_t rank;
    pid_t pid;
    int errno_fd;
    odls_stream_t streams[2];
    struct event *linger;
    bool reaped;
    int wait_status;
    bool merged;         /* stderr is the stdout pipe */
};

/* The SIGKILL after one job's grace (hnp_odls_kill_job()). */
typedef struct odls_job_kill {
    struct odls_job_kill *next;
    hnp_odls_t *odls;
    uint32_t jobid;
    struct event *timer;
} odls_job_kill_t;

struct hnp_odls {
    struct event_base *base;
    hnp_children_t *children;
    hnp_odls_callbacks_t cb;
    hnp_log_stream_t *log;
    odls_proc_t *procs;          /* launched, not yet reported exited */
    hnp_sentinel_t *sentinel;    /* adopted, or started with the first
                                  * process */
    size_t alive;
    struct event *kill_timer;    /* the SIGKILL after kill_all's grace */
    odls_job_kill_t *job_kills;  /* those after kill_job's */
    unsigned char *chunk;        /* read buffer shared by every pipe */
    bool paused;                 /* output is not read for now */
};

typedef enum { READ_DATA, READ_AGAIN, READ_EOF } read_result_t;

/* ------------------------------------------------------------ processes */

static void proc_free(odls_proc_t *p)
{
    for (int i = 0; i < 2; i++) {
        if (p->streams[i].ev != NULL)
            event_free(p->streams[i].ev);
        if (p->streams[i].fd >= 0)
            close(p->streams[i].fd);
    }
    if (p->linger != NULL)
        event_free(p->linger);
    if (p->errno_fd >= 0)
        close(p->errno_fd);
    free(p);
}

static void job_kill_drop(hnp_odls_t *odls, uint32_t jobid)
{
    for (odls_job_kill_t **link = &odls->job_kills; *link != NULL;
         link = &(*link)->next) {
        odls_job_kill_t *k = *link;
        if (k->jobid != jobid)
            continue;
        *link = k->next;
        event_free(k->timer);
        free(k);
        return;
    }
}

static void proc_unlink(odls_proc_t *p)
{
    hnp_odls_t *odls = p->odls;

    if (p->prev != NULL)
        p->prev->next = p->next;
    else
        odls->procs = p->next;
    if (p->next != NULL)
        p->next->prev = p->prev;
    odls->alive--;
    /* The SIGKILL after kill_all's grace is for the processes alive then:
     * once none is, it must not reach those started after (a daemon that
     * outlives its jobs starts the next job's). */
    if (odls->alive == 0 && odls->kill_timer != NULL)
        evtimer_del(odls->kill_timer);
    if (hnp_odls_num_alive_job(odls, p->jobid) == 0)
        job_kill_drop(odls, p->jobid);
    hnp_sentinel_release(odls->sentinel, p->pid);
}

static bool proc_output_open(const odls_proc_t *p)
{
    return p->streams[0].fd >= 0 || p->streams[1].fd >= 0;
}

static void proc_finish_if_done(odls_proc_t *p)
{
    hnp_odls_t *odls = p->odls;

    if (!p->reaped || proc_output_open(p))
        return;
    int exec_errno = hnp_forkexec_exec_errno(p->errno_fd);
    p->errno_fd = -1;
    uint32_t jobid = p->jobid;
    uint32_t rank = p->rank;
    pid_t pid = p->pid;
    int status = p->wait_status;

    if (exec_errno != 0)
        HNP_VERBOSE(odls->log, 5, "rank %u (pid %d) could not start: %s",
                    rank, (int)pid, strerror(exec_errno));
    else
        HNP_VERBOSE(odls->log, 5, "rank %u (pid %d) exited, status 0x%x",
                    rank, (int)pid, (unsigned)status);
    /* Out of the list and freed before the callback, which may launch or
     * signal the others. */
    proc_unlink(p);
    proc_free(p);
    if (odls->cb.exited != NULL)
        odls->cb.exited(odls->cb.ctx, jobid, rank, pid, status, exec_errno);
}

/* ------------------------------------------------------------ output */

static void stream_close(odls_stream_t *s)
{
    hnp_odls_t *odls = s->proc->odls;

    event_free(s->ev);
    s->ev = NULL;
    close(s->fd);
    s->fd = -1;
    if (odls->cb.output != NULL)
        odls->cb.output(odls->cb.ctx, s->proc->jobid, s->proc->rank, s->id,
                        odls->chunk, 0);
    /* Merged, stderr ends with the pipe it shares. */
    if (odls->cb.output != NULL && s->proc->merged && s->id == HNP_STDOUT)
        odls->cb.output(odls->cb.ctx, s->proc->jobid, s->proc->rank,
                        HNP_STDERR, odls->chunk, 0);
}

/* One read of at most ODLS_CHUNK: one pipe cannot starve the others. */
static read_result_t stream_read_once(odls_stream_t *s)
{
    hnp_odls_t *odls = s->proc->odls;
    ssize_t n = read(s->fd, odls->chunk, ODLS_CHUNK);

    if (n > 0) {
        if (odls->cb.output != NULL)
            odls->cb.output(odls->cb.ctx, s->proc->jobid, s->proc->rank,
                            s->id, odls->chunk, (size_t)n);
        return READ_DATA;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return READ_AGAIN;
    if (n < 0)
        HNP_ERROR_LOG(odls->log, "reading the %s of rank %u failed: %s; "
                      "treating it as ended",
                      s->id == HNP_STDOUT ? "stdout" : "stderr",
                      s->proc->rank, strerror(errno));
    stream_close(s);
    return READ_EOF;
}

static void stream_readable(evutil_socket_t fd, short what, void *arg)
{
    odls_stream_t *s = arg;

    (void)fd;
    (void)what;
    if (stream_read_once(s) == READ_EOF)
        proc_finish_if_done(s->proc);
}

static void linger_expired(evutil_socket_t fd, short what, void *arg)
{
    odls_proc_t *p = arg;

    (void)fd;
    (void)what;
    HNP_VERBOSE(p->odls->log, 5, "rank %u exited %d s ago and its output is "
                "still held open (by a process it started?); closing it",
                p->rank, ODLS_LINGER_SECONDS);
    for (int i = 0; i < 2; i++) {
        odls_stream_t *s = &p->streams[i];
        read_result_t r = READ_DATA;
        for (int reads = 0; s->fd >= 0 && r == READ_DATA &&
                            reads < ODLS_DRAIN_READS; reads++)
            r = stream_read_once(s);
        if (s->fd >= 0)
            stream_close(s);
    }
    proc_finish_if_done(p);
}

static void proc_reaped(void *ctx, pid_t pid, int wait_status)
{
    odls_proc_t *p = ctx;
    struct timeval linger = { ODLS_LINGER_SECONDS, 0 };

    (void)pid;
    p->reaped = true;
    p->wait_status = wait_status;
    if (proc_output_open(p))
        evtimer_add(p->linger, &linger);
    proc_finish_if_done(p);
}

/* ------------------------------------------------------------ launch */

static int proc_new(hnp_odls_t *odls, uint32_t rank, odls_proc_t **out)
{
    odls_proc_t *p = calloc(1, sizeof(*p));

    if (p == NULL)
        return HNP_ERR_NOMEM;
    p->odls = odls;
    p->rank = rank;
    p->errno_fd = -1;
    for (int i = 0; i < 2; i++) {
        p->streams[i].proc = p;
        p->streams[i].id = i == 0 ? HNP_STDOUT : HNP_STDERR;
        p->streams[i].fd = -1;
    }
    p->linger = evtimer_new(odls->base, linger_expired, p);
    if (p->linger == NULL) {
        free(p);
        return HNP_ERR_NOMEM;
    }
    *out = p;
    return HNP_SUCCESS;
}

/* The child's 0, 1, 2 into @p child_fds (the caller closes them), our
 * ends of the pipes into @p p (closed by proc_free). */
/* The child's stdin: /dev/null, or a pipe whose write end goes to
 * @p writer (non-blocking, so a process that never reads cannot block the
 * daemon). */
static int open_stdin(int *writer, int *child_fd, char *err, size_t errlen)
{
    int ends[2];
    int rc;

    if (writer == NULL) {
        *child_fd = hnp_open_devnull(err, errlen);
        return *child_fd < 0 ? *child_fd : HNP_SUCCESS;
    }
    rc = hnp_pipe(ends, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if (hnp_fd_set_nonblock(ends[1]) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "cannot make a pipe non-blocking: %s",
                    strerror(errno));
        close(ends[0]);
        close(ends[1]);
        return HNP_ERR_IO;
    }
    *child_fd = ends[0];
    *writer = ends[1];
    return HNP_SUCCESS;
}

static int open_stdio(odls_proc_t *p, int *stdin_writer, bool merge,
                      int child_fds[3], char *err, size_t errlen)
{
    int rc = open_stdin(stdin_writer, &child_fds[0], err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    for (int i = 0; i < (merge ? 1 : 2); i++) {
        odls_stream_t *s = &p->streams[i];
        int ends[2];
        rc = hnp_pipe(ends, err, errlen);
        if (rc != HNP_SUCCESS)
            return rc;
        s->fd = ends[0];
        child_fds[i + 1] = ends[1];
        if (hnp_fd_set_nonblock(s->fd) != HNP_SUCCESS) {
            hnp_err_set(err, errlen, "cannot make a pipe non-blocking: %s",
                        strerror(errno));
            return HNP_ERR_IO;
        }
        s->ev = event_new(p->odls->base, s->fd, EV_READ | EV_PERSIST,
                          stream_readable, s);
        if (s->ev == NULL) {
            hnp_err_set(err, errlen, "out of memory");
            return HNP_ERR_NOMEM;
        }
    }
    /* Merged: the stderr stream stays at end of file from the start. */
    if (merge &&
        (child_fds[2] = fcntl(child_fds[1], F_DUPFD_CLOEXEC, 3)) < 0) {
        hnp_err_set(err, errlen, "cannot duplicate a pipe: %s",
                    strerror(errno));
        return HNP_ERR_IO;
    }
    return HNP_SUCCESS;
}

static int proc_watch(odls_proc_t *p, char *err, size_t errlen)
{
    if (!p->odls->paused &&
        (event_add(p->streams[0].ev, NULL) != 0 ||
         (p->streams[1].ev != NULL &&
          event_add(p->streams[1].ev, NULL) != 0))) {
        hnp_err_set(err, errlen, "cannot watch the output pipes of rank %u",
                    p->rank);
        return HNP_ERROR;
    }
    int rc = hnp_children_watch(p->odls->children, p->pid, proc_reaped, p);
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "cannot watch pid %d of rank %u: %s",
                    (int)p->pid, p->rank, hnp_strerror(rc));
    return rc;
}

static void proc_link(odls_proc_t *p)
{
    hnp_odls_t *odls = p->odls;

    p->next = odls->procs;
    if (odls->procs != NULL)
        odls->procs->prev = p;
    odls->procs = p;
    odls->alive++;
    hnp_sentinel_guard(odls->sentinel, p->pid);
}

static int sentinel_start(hnp_odls_t *odls, char *err, size_t errlen)
{
    if (odls->sentinel != NULL)
        return HNP_SUCCESS;
    return hnp_sentinel_create(&odls->sentinel, odls->children, err, errlen);
}

int hnp_odls_adopt_sentinel(hnp_odls_t *odls, hnp_sentinel_t *s, char *err,
                            size_t errlen)
{
    int rc;

    if (odls->sentinel != NULL) {
        hnp_sentinel_destroy(s);
        return HNP_SUCCESS;
    }
    rc = hnp_sentinel_adopt(s, odls->children, err, errlen);
    if (rc != HNP_SUCCESS) {
        hnp_sentinel_destroy(s); /* closed, it exits; reaped silently */
        return rc;
    }
    odls->sentinel = s;
    return HNP_SUCCESS;
}

int hnp_odls_guard_dir(hnp_odls_t *odls, unsigned slot, const char *path,
                       char *err, size_t errlen)
{
    int rc = sentinel_start(odls, err, errlen);

    if (rc == HNP_SUCCESS &&
        (rc = hnp_sentinel_remove_dir(odls->sentinel, slot, path)) !=
            HNP_SUCCESS)
        hnp_err_set(err, errlen, "cannot hand %s to the sentinel: %s", path,
                    hnp_strerror(rc));
    return rc;
}

int hnp_odls_launch(hnp_odls_t *odls, const hnp_odls_proc_t *proc,
                    pid_t *pid, char *err, size_t errlen)
{
    int child_fds[3] = { -1, -1, -1 };
    int writer = -1;
    odls_proc_t *p = NULL;
    int rc;

    if (proc == NULL || proc->argv == NULL || proc->argv[0] == NULL) {
        hnp_err_set(err, errlen, "no program to launch");
        return HNP_ERR_BAD_PARAM;
    }
    /* Started here rather than with the odls: a daemon that runs no
     * process on its node never pays for the fork. */
    rc = sentinel_start(odls, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    rc = proc_new(odls, proc->rank, &p);
    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "out of memory");
        return rc;
    }
    p->jobid = proc->jobid;
    p->merged = proc->merge_stderr;
    rc = open_stdio(p, proc->stdin_writer != NULL ? &writer : NULL,
                    proc->merge_stderr, child_fds, err, errlen);
    if (rc == HNP_SUCCESS) {
        hnp_forkexec_spec_t spec = {
            proc->argv, proc->env, proc->wdir,
            child_fds[0], child_fds[1], child_fds[2], SIGKILL, proc->cpuset,
            proc->keep_fds, proc->nkeep_fds, true,
        };
        rc = hnp_forkexec(&spec, &p->pid, &p->errno_fd, err, errlen);
    }
    for (int i = 0; i < 3; i++)
        if (child_fds[i] >= 0)
            close(child_fds[i]);
    if (rc != HNP_SUCCESS)
        goto fail;
    rc = proc_watch(p, err, errlen);
    if (rc != HNP_SUCCESS) {
        /* Unwatched, the child is then reaped silently. */
        hnp_signal_child_group(p->pid, SIGKILL);
        goto fail;
    }
    proc_link(p);
    HNP_VERBOSE(odls->log, 5, "rank %u: launched %s as pid %d", p->rank,
                proc->argv[0], (int)p->pid);
    if (pid != NULL)
        *pid = p->pid;
    if (proc->stdin_writer != NULL)
        *proc->stdin_writer = writer;
    return (int)p->pid;

fail:
    if (writer >= 0)
        close(writer);
    proc_free(p);
    return rc;
}

/* ------------------------------------------------------------ control */

/* A reaped process still listed is lingering: descendants in its group
 * hold its output. The group id cannot be reused while the group has
 * members, so the group (never the bare pid) may still be signalled. */
static void proc_signal(const odls_proc_t *p, int sig)
{
    if (!p->reaped)
        hnp_signal_child_group(p->pid, sig);
    else
        (void)kill(-p->pid, sig);
}

void hnp_odls_signal_all(hnp_odls_t *odls, int sig)
{
    for (odls_proc_t *p = odls->procs; p != NULL; p = p->next)
        proc_signal(p, sig);
}

static void grace_expired(evutil_socket_t fd, short what, void *arg)
{
    hnp_odls_t *odls = arg;

    (void)fd;
    (void)what;
    if (odls->alive > 0)
        HNP_VERBOSE(odls->log, 5, "grace period over: SIGKILL to %zu "
                    "process(es)", odls->alive);
    hnp_odls_signal_all(odls, SIGKILL);
}

void hnp_odls_kill_all(hnp_odls_t *odls, double grace)
{
    struct timeval tv = { 0, 0 };

    if (grace > 0) {
        tv.tv_sec = (time_t)grace;
        tv.tv_usec = (suseconds_t)((grace - (double)tv.tv_sec) * 1e6);
    }
    HNP_VERBOSE(odls->log, 5, "SIGTERM to %zu process(es), SIGKILL in %g s",
                odls->alive, grace > 0 ? grace : 0.0);
    hnp_odls_signal_all(odls, SIGTERM);
    evtimer_add(odls->kill_timer, &tv);
}

size_t hnp_odls_num_alive(const hnp_odls_t *odls)
{
    return odls->alive;
}

size_t hnp_odls_num_alive_job(const hnp_odls_t *odls, uint32_t jobid)
{
    size_t n = 0;

    for (const odls_proc_t *p = odls->procs; p != NULL; p = p->next)
        n += p->jobid == jobid;
    return n;
}

void hnp_odls_signal_job(hnp_odls_t *odls, uint32_t jobid, int sig)
{
    for (odls_proc_t *p = odls->procs; p != NULL; p = p->next)
        if (p->jobid == jobid)
            proc_signal(p, sig);
}

static void job_grace_expired(evutil_socket_t fd, short what, void *arg)
{
    odls_job_kill_t *k = arg;
    hnp_odls_t *odls = k->odls;
    uint32_t jobid = k->jobid;

    (void)fd;
    (void)what;
    HNP_VERBOSE(odls->log, 5, "grace period of job %u over: SIGKILL to %zu "
                "process(es)", jobid, hnp_odls_num_alive_job(odls, jobid));
    job_kill_drop(odls, jobid);
    hnp_odls_signal_job(odls, jobid, SIGKILL);
}

/* The job's grace timer, made on its first kill. */
static odls_job_kill_t *job_kill_get(hnp_odls_t *odls, uint32_t jobid)
{
    odls_job_kill_t *k;

    for (k = odls->job_kills; k != NULL; k = k->next)
        if (k->jobid == jobid)
            return k;
    if ((k = calloc(1, sizeof(*k))) == NULL)
        return NULL;
    k->odls = odls;
    k->jobid = jobid;
    if ((k->timer = evtimer_new(odls->base, job_grace_expired, k)) == NULL) {
        free(k);
        return NULL;
    }
    k->next = odls->job_kills;
    odls->job_kills = k;
    return k;
}

void hnp_odls_kill_job(hnp_odls_t *odls, uint32_t jobid, double grace)
{
    struct timeval tv = { 0, 0 };
    odls_job_kill_t *k;

    if (hnp_odls_num_alive_job(odls, jobid) == 0)
        return;
    if (grace > 0) {
        tv.tv_sec = (time_t)grace;
        tv.tv_usec = (suseconds_t)((grace - (double)tv.tv_sec) * 1e6);
    }
    HNP_VERBOSE(odls->log, 5, "job %u: SIGTERM to %zu process(es), SIGKILL "
                "in %g s", jobid, hnp_odls_num_alive_job(odls, jobid),
                grace > 0 ? grace : 0.0);
    hnp_odls_signal_job(odls, jobid, SIGTERM);
    k = job_kill_get(odls, jobid);
    if (k != NULL)
        evtimer_add(k->timer, &tv);
    else /* no memory for a timer: no grace */
        hnp_odls_signal_job(odls, jobid, SIGKILL);
}

/* ------------------------------------------------------------ lifetime */

int hnp_odls_create(hnp_odls_t **out, struct event_base *base,
                    hnp_children_t *children, const hnp_odls_callbacks_t *cb)
{
    hnp_odls_t *odls;

    if (base == NULL || children == NULL || cb == NULL)
        return HNP_ERR_BAD_PARAM;
    odls = calloc(1, sizeof(*odls));
    if (odls == NULL)
        return HNP_ERR_NOMEM;
    odls->base = base;
    odls->children = children;
    odls->cb = *cb;
    odls->log = hnp_log_stream("odls");
    odls->chunk = malloc(ODLS_CHUNK);
    odls->kill_timer = evtimer_new(base, grace_expired, odls);
    if (odls->chunk == NULL || odls->kill_timer == NULL) {
        hnp_odls_destroy(odls);
        return HNP_ERR_NOMEM;
    }
    *out = odls;
    return HNP_SUCCESS;
}

void hnp_odls_destroy(hnp_odls_t *odls)
{
    if (odls == NULL)
        return;
    while (odls->procs != NULL) {
        odls_proc_t *p = odls->procs;
        /* Forgotten first: the watcher must not call into freed memory
         * when it reaps the process killed here. */
        hnp_children_forget(odls->children, p->pid);
        proc_signal(p, SIGKILL);
        proc_unlink(p);
        proc_free(p);
    }
    hnp_sentinel_destroy(odls->sentinel);
    while (odls->job_kills != NULL)
        job_kill_drop(odls, odls->job_kills->jobid);
    if (odls->kill_timer != NULL)
        event_free(odls->kill_timer);
    free(odls->chunk);
    free(odls);
}

void hnp_odls_pause_output(hnp_odls_t *odls, bool pause)
{
    if (odls->paused == pause)
        return;
    odls->paused = pause;
    for (odls_proc_t *p = odls->procs; p != NULL; p = p->next)
        for (int i = 0; i < 2; i++) {
            if (p->streams[i].fd < 0 || p->streams[i].ev == NULL)
                continue;
            if (pause)
                event_del(p->streams[i].ev);
            else
                event_add(p->streams[i].ev, NULL);
        }
}
