/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sentinel: a small child of the local launcher that outlives it for
 * just long enough to end the process groups of its processes.
 *
 * A process's parent-death signal reaches that process alone: a rank
 * `sh -c 'sleep 120; true'` dies with its daemon, its sleep goes on under
 * init. Each rank leads its own process group, and the daemon signals
 * groups, not pids; the sentinel does the same when the daemon cannot.
 * It holds the read end of a pipe whose write end only the launcher holds
 * (close-on-exec: no process it starts inherits it). The launcher writes
 * each group it is responsible for when it starts one, and again when it
 * is done with it; when the pipe reaches end of file, its writer is gone,
 * and the sentinel sends SIGKILL to every group still written, then exits.
 *
 * There is no "goodbye": a launcher that ends normally has released every
 * group by then (each process reported exited, or killed by the launcher's
 * own destroy), so the sentinel finds none and exits quietly; one that
 * dies abruptly (SIGKILL, a crash, an exit that skips its clean-up) leaves
 * its groups to it.
 *
 * It is named hnp-sentinel (its command line is its parent's) and runs
 * in its own process group, so that a signal to its parent's group
 * does not end both at once, ignores SIGTERM, SIGINT and SIGHUP (it ends
 * when its parent does), and holds no descriptor of its parent's but the
 * pipe. It is a child like the others: the child watcher reaps it, and it
 * is never reported as a process of the job.
 *
 * It also removes the directories it was given (hnp_sentinel_remove_dir:
 * the daemon's scratch directories), once the groups it killed are gone
 * (at most 5 s): what the processes of a daemon killed abruptly left in
 * them goes with them. It removes them at any end of file: a launcher
 * that ends normally has removed them already.
 *
 * The limit: a descendant that leaves the group (setsid, setpgid: a
 * daemonizing program) is out of reach, as it is of the launcher's own
 * signals; only a cgroup would hold it.
 */
#ifndef HNP_SENTINEL_H
#define HNP_SENTINEL_H

#include <sys/types.h>

#include "children.h"

typedef struct hnp_sentinel hnp_sentinel_t;

/** Start the sentinel (a child sharing this process's memory, on a stack
 *  of its own: sentinel.c); @p children reaps it (and must outlive the
 *  sentinel object). */
int hnp_sentinel_create(hnp_sentinel_t **out, hnp_children_t *children,
                        char *err, size_t errlen);
/** The same in two steps: start it now, and give it its reaper once there
 *  is one. */
int hnp_sentinel_spawn(hnp_sentinel_t **out, char *err, size_t errlen);
int hnp_sentinel_adopt(hnp_sentinel_t *s, hnp_children_t *children,
                       char *err, size_t errlen);
/** From now on, @p pgid is killed if this process dies abruptly. */
void hnp_sentinel_guard(hnp_sentinel_t *s, pid_t pgid);
/** ...and no longer: its processes are gone, or have been killed. */
void hnp_sentinel_release(hnp_sentinel_t *s, pid_t pgid);
/** At this process's end, remove @p path (absolute, shorter than 1024
 *  bytes) and all under it, after the groups still guarded are gone. It
 *  takes @p slot (0..3), replacing the directory given there before.
 *  HNP_ERR_NOT_FOUND: the sentinel has gone. */
int hnp_sentinel_remove_dir(hnp_sentinel_t *s, unsigned slot,
                            const char *path);
/** The sentinel's pid (0 once it has exited). */
pid_t hnp_sentinel_pid(const hnp_sentinel_t *s);
/** Close the pipe: the sentinel kills what is still guarded and exits. */
void hnp_sentinel_destroy(hnp_sentinel_t *s);

#endif /* HNP_SENTINEL_H */
