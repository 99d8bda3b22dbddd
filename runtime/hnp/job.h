/* SPDX-License-Identifier: BSD-3-Clause */
/* The HNP's side of a job: phases, messages from the daemons, the end. */
#ifndef HNP_JOB_H
#define HNP_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "wire/stats.h"
#include "args.h"
#include "hosts/jobmap.h"
#include "core/rte.h"

enum hnp_phase_mark {
    HNP_MARK_DAEMONS_UP,      /* every daemon known to the HNP */
    HNP_MARK_TABLE_EVERYWHERE,/* every daemon reported its table complete */
    HNP_MARK_LAUNCH_SENT,     /* the launch message left the HNP */
    HNP_MARK_PROCS_STARTED,   /* every daemon forked its processes */
    HNP_MARK_PROCS_EXITED,    /* every process ended */
    HNP_MARK_DAEMONS_GONE,    /* the last daemon connection closed */
    HNP_MARK_COUNT,
};

struct hnp_rank_output;
struct hnp_job_output;
struct hnp_outdir;
struct hnp_job_stdin;
struct hnp_state_report;
struct hnp_spawn_note;
struct hnp_dvm;

#define HNP_JOB_MAX_RECV 16

typedef struct hnp_job {
    hnp_rte_t *rte;
    const hnp_args_t *args;
    uint32_t jobid;            /* 1 for a standalone hnp */
    /* A persistent runtime (hnp --dvm, dvm.h): the job that holds its
     * daemons (holds_runtime: it launches nothing), or one submitted into
     * it, which ends alone (HNP_TAG_JOB_END) and leaves the daemons up. */
    struct hnp_dvm *dvm;
    bool holds_runtime;
    /* A job a rank's MPI_Comm_spawn started (spawn.c): its parent job, the
     * requesting pmi component and its bytes for the daemons (borrowed
     * from the request); 0 and NULL otherwise. */
    uint32_t parent_jobid;
    /* A standalone job whose ranks may spawn: the jobs they start
     * (hnp_dvm_create_family), NULL otherwise. */
    struct hnp_dvm *family;
    /* Called once every daemon started its processes (a spawned job's
     * answer to its requester). */
    void (*on_started)(struct hnp_job *job, void *ctx);
    void *started_ctx;
    char *end_message;          /* the first abort's message, or NULL */
    const char *spawn_component;
    const void *spawn_data;
    size_t spawn_data_len;
    hnp_job_map_t map;
    uint32_t ndaemons;
    uint32_t known;            /* daemons up (up_at[v] > 0) */
    uint32_t reports[HNP_MARK_COUNT]; /* daemons' reports of reaching a mark */
    uint32_t procs_exited;
    bool launched;
    bool ending;               /* shutdown sent; waiting for the daemons */
    int exit_status;           /* what hnp returns */
    double abort_at;           /* when an MPI_Abort ended the job
                                  (hnp_job_now); 0: none did */
    hnp_rte_timer_t *launch_timer;
    hnp_rte_timer_t *end_timer;
    struct timespec start;
    double marks[HNP_MARK_COUNT];
    uint32_t stats_reports;
    hnp_wire_stats_t worst;     /* per field, the largest a daemon reported */
    hnp_vpid_t most_connected;    /* the daemon that held the most */
    uint64_t daemons_cpu_us;      /* all daemons' CPU, summed */
    uint64_t daemons_handshake_cpu_us; /* of it, in handshakes */
    uint64_t daemons_handshakes;
    /* [2 * ndaemons]: the daemons' start-up CPU as reports came, exec to
     * joined, then from ndaemons on exec to connected; for the medians */
    uint64_t *startup_cpu_us;
    /* [ndaemons]: the pmi set-up CPU of each daemon that had one, at the
     * launch and before it (pmi_base_start_early) */
    uint64_t *pmi_cpu_us;
    uint32_t pmi_reports;
    uint64_t *pmi_early_cpu_us;
    uint32_t pmi_early_reports;
    /* the pmi components the job's programs use, which its daemons
     * start before its launch (rte->pmi_early) */
    char pmi_early[HNP_PMI_MAX_ACTIVE * HNP_MCA_NAME_LEN];
    char *wdir;
    struct hnp_rank_output *outputs; /* [nprocs] */
    struct hnp_job_output *output;   /* hnp's stdout and stderr */
    struct hnp_outdir *outdir;       /* --output-filename, or NULL */
    hnp_rte_timer_t *timeout_timer;  /* --timeout */
    int interrupts;                  /* SIGINTs received */
    bool kill_now;                   /* no grace: SIGKILL at once */
    struct hnp_job_stdin *in;        /* hnp's stdin on its way */
    double *up_at;                   /* [rte->nfirst]: when each daemon of
                                        the first launch joined */
    hnp_rte_timer_t *progress_timer; /* the progress line on a terminal */
    hnp_rte_timer_t *warn_timer;     /* plm_base_launch_warn */
    bool progress_shown;
    bool stopped;                    /* job control: stopped by SIGTSTP */
    hnp_rte_timer_t *stop_timer;     /* waits for the SIGSTOP to leave */
    unsigned stop_polls;
    struct hnp_state_report *state_report; /* --timeout's, being gathered */
    struct hnp_spawn_note *notes;    /* [rte->nfirst], or NULL: what daemons said
                                        of the children they are starting */
    const int *stdio;                /* a DVM job's client's stdin, stdout,
                                        stderr; NULL: hnp's own */
    FILE *log_file;                  /* a DVM job's: where hnp's messages
                                        about it go; NULL: hnp's own */
    struct hnp_job_recv {            /* a DVM job's message handlers */
        uint32_t tag;
        hnp_rte_recv_fn fn;
    } recv[HNP_JOB_MAX_RECV];
} hnp_job_t;

/** Start the job: spawn, exchange, launch. Runs from the event loop. */
int hnp_job_start(hnp_job_t *job, char *err, size_t errlen);
/** Abort: say why (NULL: nothing to say), kill everything, end with
 *  @p status. */
void hnp_job_abort(hnp_job_t *job, int status, const char *message);
/** hnp's messages go where the job's go (a DVM job's: its client's
 *  stderr) until hnp_log_set_file() of what this returns. */
FILE *hnp_job_log_begin(const hnp_job_t *job);
/** Plan the HNP's descriptors before launch (fdjob.c): run fewer agents
 *  or admit fewer handshakes at once, or refuse with the figures. */
int hnp_job_plan_fds(hnp_job_t *job, char *err, size_t errlen);
/** Print the --timing report. */
void hnp_job_print_timing(const hnp_job_t *job);
void hnp_job_release(hnp_job_t *job);

/** The HNP's message handlers and role callbacks. */
void hnp_job_register_handlers(hnp_job_t *job);
/** Watch the HNP's routing children with heartbeats. */
void hnp_job_start_heartbeats(hnp_job_t *job);
/** End the job after --timeout seconds. */
void hnp_job_arm_timeout(hnp_job_t *job);
/* missing.c: daemons that do not call back */
/** Abort unless every daemon called back within plm_base_launch_timeout,
 *  saying of each missing one how it was started and what its agent
 *  printed last. */
void hnp_job_arm_launch_timer(hnp_job_t *job);
void hnp_job_notes_release(hnp_job_t *job);

/* io.c: output and exits of the processes */
void hnp_job_register_io(hnp_job_t *job);
/** The job's stdin, stdout or stderr (@p i: 0, 1, 2): its client's in a
 *  DVM, hnp's own otherwise. */
int hnp_job_stdio(const hnp_job_t *job, int i);
/** Messages with @p tag about this job go to @p fn (cbdata: the job). A
 *  standalone job's are the tag's; in a DVM, where several jobs run and
 *  every such message names its job first, the DVM hands each to the
 *  job it names (hnp_dvm_deliver). */
void hnp_job_recv(hnp_job_t *job, uint32_t tag, hnp_rte_recv_fn fn);
/** The handler @p job posted for @p tag, or NULL. */
hnp_rte_recv_fn hnp_job_handler(const hnp_job_t *job, uint32_t tag);
double hnp_job_now(const hnp_job_t *job);
/** Whether a message about job @p jobid from @p src is @p job's; one of
 *  another job (a late one of a job already ended) is dropped, logged as
 *  @p what at verbose level. */
bool hnp_job_owns(const hnp_job_t *job, hnp_rte_t *rte, hnp_vpid_t src,
                  uint32_t jobid, const char *what);
void hnp_job_mark(hnp_job_t *job, enum hnp_phase_mark mark);
/* output.c: the processes' output, shown and saved */
/** Before launch: the output state of every rank, and with
 *  --output-filename every rank's files (outdir.h), or a message. */
int hnp_job_output_init(hnp_job_t *job, char *err, size_t errlen);
struct hnp_wire_iof;
/** Output of a rank from daemon @p from, shown (and saved); the daemon's
 *  output is acknowledged as hnp's reader keeps up (wire/iof.h). */
void hnp_job_output(hnp_job_t *job, hnp_vpid_t from,
                    const struct hnp_wire_iof *out);
/** The job is over: write what is still queued for hnp's reader. */
void hnp_job_output_flush(hnp_job_t *job);
void hnp_job_output_release(hnp_job_t *job);

/* progress.c: phase 1 as the HNP sees it */
int hnp_job_progress_start(hnp_job_t *job);
void hnp_job_progress_stop(hnp_job_t *job);
void hnp_job_progress_release(hnp_job_t *job);
void hnp_job_print_slowest(const hnp_job_t *job);

/* model.c: the calibrated launch model, when the plm asks for it; apply
 * before the spawn tree is built (@p planning: for --plan, which ranks
 * every tree, whenever the user asked for the estimate), record once every
 * daemon is up. Neither is ever fatal. */
int hnp_job_model_apply(hnp_job_t *job, bool planning);
void hnp_job_model_record(hnp_job_t *job);

/* state.c: --report-state-on-timeout and --get-stack-traces */
/** --timeout expired: ask the daemons for their ranks' state (and
 *  stacks), print it when in, then kill the job (status 124). An error
 *  when nothing was asked (no ranks launched yet): kill the job then. */
int hnp_job_report_state(hnp_job_t *job);
void hnp_job_state_release(hnp_job_t *job);

/* stdin.c: hnp's stdin to the processes that get it */
int hnp_job_stdin_start(hnp_job_t *job);
void hnp_job_stdin_release(hnp_job_t *job);

/** Forward @p sig to every process; a second SIGINT kills at once. */
void hnp_job_signal(hnp_job_t *job, int sig);

/** SIGTSTP: stop the processes, then hnp itself (job control). */
void hnp_job_stop(hnp_job_t *job);
/** SIGCONT: continue the processes stopped by hnp_job_stop(). */
void hnp_job_continue(hnp_job_t *job);

/** Every process ended: shut the daemons down (a job of a DVM: end it
 *  on the daemons, which stay). */
void hnp_job_finish(hnp_job_t *job);

/** Phase 3: the launch message down the routing tree (once). */
void hnp_job_send_launch(hnp_job_t *job);
/** The launch message of @p job, launched and running, to daemon @p vpid
 *  alone: one added to the runtime since (it holds the job without
 *  ranks). */
void hnp_job_send_launch_to(hnp_job_t *job, hnp_vpid_t vpid);
/** A DVM's job: the daemons' reports of its start come to it. */
void hnp_job_register_launch_reports(hnp_job_t *job);
/** Job control for a DVM's job: SIGSTOP or SIGCONT to its processes. */
void hnp_job_control(hnp_job_t *job, int sig);

#endif /* HNP_JOB_H */
