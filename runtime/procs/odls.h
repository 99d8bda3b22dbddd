/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local launch: a daemon forks and watches the application processes of its
 * node. Each process gets its environment, a working directory, stdin from
 * /dev/null or a pipe the caller writes, pipes for stdout and stderr (or
 * one pipe for both),
 * its own process group, and the parent-death signal SIGKILL so that it
 * cannot outlive the daemon; what it starts in its group cannot either:
 * a sentinel child, forked at the daemon's start (or with the first process), kills the groups of
 * those not yet reported exited when the daemon dies (sentinel.h; a
 * descendant that leaves the group is beyond its reach).
 * A process that cannot start is reported with the errno of its exec.
 */
#ifndef HNP_ODLS_H
#define HNP_ODLS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "children.h"
#include "sentinel.h"

/** Descriptors the daemon holds for each process until it is reaped and
 *  its output is complete: the stdout and stderr pipes (one when merged)
 *  and the pipe that reports a failed exec. Its stdin pipe, when it has
 *  one, and what the pmi components hold for it come on top. */
#define HNP_ODLS_FDS_PER_PROC 3

struct event_base;

typedef struct hnp_odls hnp_odls_t;

typedef struct hnp_odls_proc {
    uint32_t jobid;      /**< the job it belongs to: the callbacks name it,
                              and hnp_odls_kill_job() and
                              hnp_odls_signal_job() reach that job alone */
    uint32_t rank;
    char *const *argv;   /**< argv[0] is looked up in PATH like execvp */
    char *const *env;    /**< full environment, "NAME=value" */
    const char *wdir;    /**< NULL: the daemon's */
    /** NULL: stdin is /dev/null. Else the process reads a pipe whose write
     *  end (non-blocking, close-on-exec) is stored here for the caller,
     *  who owns it from then on. */
    int *stdin_writer;
    const cpu_set_t *cpuset; /**< bind to these CPUs; NULL: not bound */
    const int *keep_fds; /**< [nkeep_fds], each > 2: descriptors the
                              process inherits as they are (the pmi
                              components'); the caller still owns them */
    size_t nkeep_fds;
    /** stderr is the stdout pipe (fd 2 a copy of fd 1): the process's
     *  two streams come as one, HNP_STDOUT, in the order it wrote them;
     *  HNP_STDERR only reaches end of file, with it */
    bool merge_stderr;
} hnp_odls_proc_t;

enum { HNP_STDOUT = 1, HNP_STDERR = 2 };

typedef struct hnp_odls_callbacks {
    /** Output of @p rank on @p stream; len 0 marks end of file. */
    void (*output)(void *ctx, uint32_t jobid, uint32_t rank, int stream,
                   const void *data, size_t len);
    /** @p rank is done: its output has reached end of file and it has been
     *  reaped. @p exec_errno is non-zero when it never started (status is
     *  then meaningless). */
    void (*exited)(void *ctx, uint32_t jobid, uint32_t rank, pid_t pid,
                   int wait_status, int exec_errno);
    void *ctx;
} hnp_odls_callbacks_t;

int hnp_odls_create(hnp_odls_t **out, struct event_base *base,
                    hnp_children_t *children, const hnp_odls_callbacks_t *cb);
/** Fork and exec; the pid, or a negative HNP_ERR_* when fork failed. */
int hnp_odls_launch(hnp_odls_t *odls, const hnp_odls_proc_t *proc,
                    pid_t *pid, char *err, size_t errlen);
/** Take @p s (forked early, hnp_sentinel_spawn()) as the sentinel, instead
 *  of forking one with the first process. @p s is the launcher's from now
 *  on, whatever the result. */
int hnp_odls_adopt_sentinel(hnp_odls_t *odls, hnp_sentinel_t *s, char *err,
                            size_t errlen);
/** Should this process die abruptly, @p path (a scratch directory of its
 *  processes') is removed by the sentinel once they are gone (started now
 *  if it was not). @p slot (0..3): a later directory of the same slot
 *  replaces it. */
int hnp_odls_guard_dir(hnp_odls_t *odls, unsigned slot, const char *path,
                       char *err, size_t errlen);
/** Signal every live process. */
void hnp_odls_signal_all(hnp_odls_t *odls, int sig);
/** SIGTERM everyone now, SIGKILL whoever is left after @p grace seconds. */
void hnp_odls_kill_all(hnp_odls_t *odls, double grace);
/** Signal every live process of job @p jobid; the others are untouched. */
void hnp_odls_signal_job(hnp_odls_t *odls, uint32_t jobid, int sig);
/** SIGTERM every process of job @p jobid now, SIGKILL those of it left
 *  after @p grace seconds; the other jobs' processes are untouched. */
void hnp_odls_kill_job(hnp_odls_t *odls, uint32_t jobid, double grace);
/** Stop (or resume) reading the processes' output: a process that writes
 * more then blocks in its write, which is how a slow consumer of the
 * output slows the job down instead of filling memory. */
void hnp_odls_pause_output(hnp_odls_t *odls, bool pause);
/** Processes launched and not yet reported exited. */
size_t hnp_odls_num_alive(const hnp_odls_t *odls);
/** Of them, those of job @p jobid. */
size_t hnp_odls_num_alive_job(const hnp_odls_t *odls, uint32_t jobid);
/** Kills (SIGKILL) what is left and frees. */
void hnp_odls_destroy(hnp_odls_t *odls);

#endif /* HNP_ODLS_H */
