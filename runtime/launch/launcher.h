/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting daemons: the code every plm shares. A request names a vpid, a
 * node and the daemon's arguments; the launcher builds the agent's command
 * line (agent and its arguments, the node, then the daemon's absolute path
 * and arguments, each quoted for the remote shell), writes the job secret
 * on the agent's stdin or, for a launcher's own command that gives the
 * daemon no stdin, into a file of mode 0600 (never on a command line),
 * captures what the agent prints, runs at most max_concurrent agents at
 * once, and retries an agent that fails at the connection level (exit
 * status 255, as ssh reports it) with exponential backoff. A node that is
 * this machine is started by a plain fork/exec, without agent.
 */
#ifndef HNP_LAUNCH_H
#define HNP_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "procs/children.h"
#include "hnp_tree.h"

struct event_base;

typedef struct hnp_launcher hnp_launcher_t;

typedef struct hnp_launch_config {
    char *const *agent_argv;   /**< e.g. {"ssh", "-x", NULL}; copied */
    const char *daemon_path;   /**< absolute path of hnpd */
    const char *secret_hex;    /**< written on the agent's stdin */
    unsigned max_concurrent;   /**< agents alive at once; 0 = unlimited */
    unsigned retries;          /**< extra attempts after an exit of 255 */
    double retry_delay;        /**< seconds before the first retry; doubles */
    const char *secret_dir;    /**< where a private directory for secret
                                    files is made; NULL or "": $TMPDIR or
                                    /tmp */
} hnp_launch_config_t;

typedef struct hnp_launch_callbacks {
    /** The agent for @p vpid failed for good. @p command is the exact
     *  command line, @p output what the agent printed (stderr and stdout). */
    void (*failed)(void *ctx, hnp_vpid_t vpid, const char *node,
                   const char *command, int wait_status, const char *output);
    /** The agent for @p vpid exited 0: the daemon has detached from it, or
     *  has left the job while attached to it. */
    void (*done)(void *ctx, hnp_vpid_t vpid);
    void *ctx;
    /** Optional: the agent for daemon @p vpid, which has not joined yet,
     *  printed something (hnp_launcher_output_tail() says what). */
    void (*printed)(void *ctx, hnp_vpid_t vpid);
} hnp_launch_callbacks_t;

/* hnp_launcher_output_tail() gives this many lines of an agent's output at
 * most, in fewer than this many bytes. */
#define LAUNCH_TAIL_LINES 5
#define LAUNCH_TAIL_BYTES 1024

int hnp_launcher_create(hnp_launcher_t **out, struct event_base *base,
                        hnp_children_t *children,
                        const hnp_launch_config_t *config,
                        const hnp_launch_callbacks_t *cb, char *err,
                        size_t errlen);
/**
 * Queue the start of daemon @p vpid on @p node with @p args (NULL-terminated,
 * copied) after the daemon's path. @p local: start it without the agent.
 */
int hnp_launcher_submit(hnp_launcher_t *l, hnp_vpid_t vpid, const char *node,
                        char *const *args, bool local);
/**
 * Run @p argv (argv[0] by absolute path) on this machine as a launcher for
 * other nodes, e.g. one `srun` for every daemon: secret on its stdin,
 * output captured, callbacks as for a daemon (@p vpid names the request,
 * @p label stands in for the node in messages). Not retried.
 */
int hnp_launcher_submit_command(hnp_launcher_t *l, hnp_vpid_t vpid,
                                const char *label, char *const *argv);
/**
 * Queue the start of daemon @p vpid on @p node through @p command, a
 * launcher's own (a batch system's "run this on node N"; command[0] found
 * as execvp finds it), followed by the daemon's path and @p args, on this
 * machine. Never retried; output captured and failure reported as for an
 * agent, and the request is a daemon's (hnp_launcher_joined applies). With
 * @p secret_file (from hnp_launcher_secret_file()) the secret goes into
 * that file as the command starts, and the command's stdin is /dev/null;
 * else the secret is on its stdin.
 */
int hnp_launcher_submit_via(hnp_launcher_t *l, hnp_vpid_t vpid,
                            const char *node, char *const *command,
                            char *const *args, const char *secret_file);
/**
 * Where daemon @p vpid's secret goes when it travels in a file: a path in
 * this launcher's own directory (mode 0700, made on the first call under
 * config->secret_dir), written into @p path. The file is made when the
 * daemon's command starts, and removed, if the daemon has not removed it,
 * when the daemon joins, when its start fails, and at cancel_all and
 * destroy; the directory goes at destroy.
 */
int hnp_launcher_secret_file(hnp_launcher_t *l, hnp_vpid_t vpid, char *path,
                             size_t len, char *err, size_t errlen);
/** The command line used (or to be used) for @p vpid, or NULL. */
const char *hnp_launcher_command(const hnp_launcher_t *l, hnp_vpid_t vpid);
/**
 * When the agent for @p vpid was last forked, in seconds of CLOCK_MONOTONIC,
 * into @p at: what the launch model is calibrated from. HNP_ERR_NOT_FOUND
 * for a request never started or started without the agent (local).
 */
int hnp_launcher_started_at(const hnp_launcher_t *l, hnp_vpid_t vpid,
                            double *at);
/**
 * Daemon @p vpid has joined the job: its request no longer holds a slot, and
 * its agent, which may live on with the daemon attached to it, is neither
 * signalled (but by hnp_launcher_kill_daemon() and at destroy) nor reported
 * failed from now on. Requests from
 * hnp_launcher_submit_command are not daemons and are left alone.
 */
void hnp_launcher_joined(hnp_launcher_t *l, hnp_vpid_t vpid);
/** Whether daemon @p vpid was submitted here, has not joined, and its
 *  start was not cancelled: its agent is queued, running, waiting for a
 *  retry, or ended without the daemon calling back. */
bool hnp_launcher_awaiting(const hnp_launcher_t *l, hnp_vpid_t vpid);
/**
 * The last lines (LAUNCH_TAIL_LINES at most) that the agent of @p vpid
 * printed on its stderr or stdout, of the run going on or of the last one,
 * into @p buf: what tells why a daemon never called back (a host key
 * refused, a password prompt). "" when it printed nothing, or for a vpid
 * never submitted. Returns the length.
 */
size_t hnp_launcher_output_tail(const hnp_launcher_t *l, hnp_vpid_t vpid,
                                char *buf, size_t len);
/** Daemon @p vpid, now joined, runs as process @p pid on its node. */
void hnp_launcher_set_daemon_pid(hnp_launcher_t *l, hnp_vpid_t vpid,
                                 pid_t pid);
/**
 * The job gave up on daemon @p vpid (it stopped responding): make sure it
 * does not stay on its node. Its agent, if still alive (an attached
 * daemon's), gets SIGKILL with its process group; the daemon itself, by the
 * pid it joined with, gets SIGKILL on its node through a new agent
 * (`AGENT NODE kill -KILL PID`), or directly for a daemon on this machine.
 * A stopped process dies of it too, and the daemon's sentinel then ends
 * its processes. HNP_ERR_NOT_FOUND for a daemon not started here, or one
 * there is no way to reach.
 */
int hnp_launcher_kill_daemon(hnp_launcher_t *l, hnp_vpid_t vpid);
/**
 * The command submitted for @p vpid by hnp_launcher_submit_command(), if
 * it still runs, gets SIGTERM with its group (on which srun ends the
 * processes of its step); its end is reported as any end of it.
 * HNP_ERR_NOT_FOUND when there is no such command running.
 */
int hnp_launcher_stop_command(hnp_launcher_t *l, hnp_vpid_t vpid);
/** Agents running or queued. */
size_t hnp_launcher_pending(const hnp_launcher_t *l);
/** Kill every running agent whose daemon has not joined (SIGTERM) and
 *  drop the queue, but for the kills of hnp_launcher_kill_daemon(). */
void hnp_launcher_cancel_all(hnp_launcher_t *l);
/** Every agent still alive gets SIGKILL with its group (a launcher's own
 *  command, SIGTERM), and everything is freed. */
void hnp_launcher_destroy(hnp_launcher_t *l);

/** Quote @p arg for a POSIX shell (single quotes); malloc'd. */
char *hnp_shell_quote(const char *arg);

#endif /* HNP_LAUNCH_H */
