/* SPDX-License-Identifier: BSD-3-Clause */
/* The daemon (hnpd): one a node. */
#ifndef HNP_DAEMON_H
#define HNP_DAEMON_H

#include <stdbool.h>
#include <sched.h>
#include <stdint.h>

#include "core/daemon_stats.h"
#include "wire/stats.h"
#include "procs/odls.h"
#include "wire/launch.h"
#include "core/rte.h"

/* Output of one rank's stream, held until a line is complete so that no
 * line of one process is cut into another's at the HNP. */
typedef struct hnpd_linebuf {
    char *data;
    size_t len;
    size_t cap;
} hnpd_linebuf_t;

struct evbuffer;
struct event;
typedef struct hnpd_relay hnpd_relay_t;
typedef struct hnpd_state_query hnpd_state_query_t;
typedef struct hnpd_job hnpd_job_t;

/* hnp's stdin on its way into one process. */
typedef struct hnpd_stdin {
    int fd;                  /* -1: /dev/null, or closed */
    struct evbuffer *pending;
    struct event *writable;
    bool eof;                /* close once pending is written */
} hnpd_stdin_t;

typedef struct hnpd_proc {
    uint32_t rank;
    pid_t pid;             /* 0 until forked */
    uint8_t state;         /* hnp_rank_state_t (wire/state.h) */
    int wait_status;       /* once HNP_RANK_EXITED */
    bool reported;         /* its end went to the HNP */
    hnpd_linebuf_t out[2]; /* stdout, stderr */
    hnpd_stdin_t in;
    hnpd_job_t *job;
} hnpd_proc_t;

/* One job this daemon holds, from its launch until its processes here are
 * gone and its end came (or the daemon leaves). Every message about a
 * job names it (runtime/wire), and is applied to that job's record alone:
 * a daemon of a persistent runtime (hnp --dvm) holds one record a job. */
struct hnpd_job {
    hnpd_job_t *next;       /* the daemon's jobs */
    struct hnpd *daemon;
    uint32_t jobid;
    hnpd_proc_t *procs;     /* this node's ranks of the job */
    uint32_t nlocal;
    uint32_t app_nprocs;
    uint32_t node_rank_base; /* other jobs' ranks on this node at its
                                launch: its first node_rank */
    bool ending;            /* HNP_TAG_JOB_END came for it */
    int32_t stdin_target;   /* a rank, HNP_STDIN_ALL (-2) or none (-1) */
    uint32_t stdin_seq;     /* the last chunk received */
    struct hnp_bind_result *placed; /* [nlocal]: each rank's binding */
    struct hnpd_pmi *pmi;   /* the job, to the pmi components */
    hnpd_state_query_t *state_query; /* --timeout's question, being
                                        answered (stacks being taken) */
};

typedef struct hnpd {
    hnp_rte_t *rte;
    hnp_setup_t *setup;
    char *node;
    hnp_vpid_t parent;
    int detach_fd;          /* tells the waiting first process to exit; -1 after */
    bool attached;          /* stays with its agent for the job: no fork */
    bool welcomed;
    bool ending;
    bool join_failed;       /* told the HNP why it cannot join; waits for
                               the shutdown before leaving */
    bool said_leaving;      /* told its neighbours (HNP_TAG_LEAVING) */
    bool clean_end;         /* left with every process reaped, every child
                               daemon gone and nothing left to send */
    int exit_status;
    bool persistent;        /* its runtime outlives the jobs (hnp --dvm) */
    hnp_odls_t *odls;       /* every job's processes, each tagged with its
                               job (odls.h) */
    hnp_sentinel_t *sentinel; /* forked at start, until the odls takes it */
    hnpd_job_t *jobs;       /* the jobs it holds */
    hnp_rte_timer_t *exit_timer;
    hnp_rte_timer_t *drain_timer;
    unsigned leave_polls;           /* drain checks while leaving */
    hnp_rte_timer_t *output_timer; /* output paused: check the queue */
    uint64_t iof_unacked;          /* output sent, not yet taken on by the
                                      HNP (HNP_TAG_IOF_ACK): the daemon's
                                      connection, whichever job's */
    hnp_wire_stats_t stats;
    uint64_t prefork_cpu_us;        /* this process's CPU at the detaching
                                       fork (0 without one) */
    uint64_t before_exec_us;        /* the agent's CPU before it exec'd
                                       hnpd, counted in this process's */
    void *topology;                  /* loaded for placement only */
    const struct hnp_bind_ops *bind; /* hwloc's binding, then */
    void *bind_module;               /* its module, when loaded */
    bool pmi_loaded;                 /* the pmi components are selected */
    size_t pmi_inited;               /* of them, how many had init() */
    char *pmi_wanted;       /* the HNP's active pmi components ("a,b") */
    /* Those the first job's programs use, started before its launch
     * arrives (pmi_base_start_early), "" for none; the start, due once
     * the daemon has started its own daemons; and its failure, which
     * fails that job when it starts here, as it would have then. */
    char *pmi_early;
    hnp_rte_timer_t *pmi_early_timer;
    int pmi_early_rc;
    char *pmi_early_err;
    hnpd_relay_t *relay;    /* its log, to the HNP once it left its agent */
} hnpd_t;

/* daemon.c: joining, phases, the end */
int hnpd_start(hnpd_t *d, const char *parent_uri, char *err, size_t errlen);
void hnpd_maybe_exit(hnpd_t *d);
/** Lost the way to the HNP: kill the processes at once and leave. */
void hnpd_lost_route(hnpd_t *d, const char *why);

/* fds.c: the descriptors this node's ranks need */
/** HNP_ERR_BAD_PARAM, with the figures in @p err, when the ranks of
 *  this node (j->procs, the pmi components of the job started) would not
 *  fit in the descriptor limit (raised to the hard one first). */
int hnpd_fds_check(hnpd_job_t *j, bool merged, char *err, size_t errlen);

/* relay.c: the log once the daemon has joined: to the HNP, or to its own
 * log file */
/** The welcome is applied: from now on the log is also kept for the HNP
 *  (not with a log file). */
void hnpd_relay_begin(hnpd_t *d);
/** Let go of the agent's stdio; from now on the log and stderr go to the
 *  HNP (rate-limited), or to the log file log_output named. */
void hnpd_relay_leave_agent(hnpd_t *d);
/** Back to the plain log sink; before the runtime goes. */
void hnpd_relay_stop(hnpd_t *d);

/* stdin.c: hnp's stdin into the processes that get it */
bool hnpd_stdin_wanted(const hnpd_job_t *j, uint32_t rank);
void hnpd_stdin_register(hnpd_t *d);
void hnpd_stdin_release(hnpd_proc_t *p);

/* bind.c: placement and binding on the node's topology */
/** Load hwloc and the topology, and place every local rank. */
int hnpd_bind_prepare(hnpd_job_t *j, const hnp_wire_launch_t *m, char *err,
                      size_t errlen);
/** The CPUs to bind local rank @p local_rank to; NULL: none. */
const cpu_set_t *hnpd_bind_cpuset(const hnpd_job_t *j, uint32_t local_rank);
/** "bound to socket 0[core 0[hwt 0]]: [B/.]" or "is not bound (...)". */
const char *hnpd_bind_describe(const hnpd_job_t *j, uint32_t local_rank);
/** The job's placement. */
void hnpd_bind_release(hnpd_job_t *j);
/** The topology and hwloc's module; when the daemon leaves. */
void hnpd_bind_unload(hnpd_t *d);

/* pmi.c: the active pmi components, driven through the job */
/** The job begins here: every active component's job_start. */
/** Load the pmi components the HNP chose, ahead of any job
 *  (pmi_base_preload); nothing when it chose none. */
int hnpd_pmi_preload(hnpd_t *d, char *err, size_t errlen);
/** Once this daemon's own daemons have joined: start the pmi
 *  components the HNP named for the first job (pmi_base_start_early)
 *  before its launch arrives, as soon as the event loop has sent what is
 *  queued; nothing when it named none, when they are preloaded, or on a
 *  daemon with routing children (it relays for them). */
void hnpd_pmi_start_early(hnpd_t *d);
int hnpd_pmi_job_start(hnpd_job_t *j, const hnp_wire_launch_t *m, char *err,
                       size_t errlen);
/** Before @p child's fork: every component's variables and descriptors. */
int hnpd_pmi_child_setup(hnpd_job_t *j, const hnp_pmi_child_t *child,
                         hnp_pmi_fork_t *fork, char *err, size_t errlen);
void hnpd_pmi_child_started(hnpd_job_t *j, uint32_t rank, pid_t pid);
/** A rank was reaped; one that initialized and did not finalize ends the
 *  job with an error naming it, how it ended and its status. */
void hnpd_pmi_child_exited(hnpd_job_t *j, uint32_t rank, pid_t pid,
                           int wait_status, int exec_errno);
/** The job is over here: job_end of each, then its scratch directory. */
void hnpd_pmi_job_end(hnpd_job_t *j);
/** The daemon leaves: every job's end if not yet, and the private
 *  directory. */
void hnpd_pmi_release(hnpd_t *d);

/* secret.c: the job secret, from @p file (removed once open) or, when
 * that is NULL, from stdin */
int hnpd_read_secret(const char *file, uint8_t secret[HNP_SECRET_LEN],
                     char *err, size_t errlen);

/* state.c: the ranks' state (and stacks) when --timeout expires */
void hnpd_state_register(hnpd_t *d);
/** Drop the job's question not yet answered, killing its gdbs. */
void hnpd_state_release(hnpd_job_t *j);

/* procs.c: the application processes of this node */
void hnpd_register_proc_handlers(hnpd_t *d);
/** The odls, with the sentinel forked at start. */
int hnpd_odls_ready(hnpd_t *d);
/** Fork the job's ranks of this node. */
void hnpd_procs_start(hnpd_job_t *j, const hnp_wire_launch_t *m);
/** Report the ranks that never started as ended (the job ends first). */
void hnpd_procs_report_unstarted(hnpd_job_t *j);
/** The daemon leaves: every job, the odls, the topology. */
void hnpd_procs_release(hnpd_t *d);

/* jobs.c: the jobs this daemon holds, by id */
void hnpd_jobs_register(hnpd_t *d);
/** The job @p jobid the daemon holds; NULL: none. */
hnpd_job_t *hnpd_job_find(const hnpd_t *d, uint32_t jobid);
/** What the daemon holds for the job (ranks, their output buffers and
 *  stdin, binding, the pmi components' job): gone, with its record. */
void hnpd_job_release(hnpd_job_t *j);

#endif /* HNP_DAEMON_H */
