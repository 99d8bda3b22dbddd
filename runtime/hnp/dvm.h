/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A persistent runtime: `hnp --dvm` starts the daemons once and serves
 * jobs that clients (`hnp --dvm-uri FILE ...`) submit into it, each mapped
 * onto the nodes it holds and launched down the routing tree, ended alone
 * (its failure never ends the daemons or another job) and released at its
 * end. The client's stdin, stdout and stderr reach the HNP with the
 * submission (runtime/wire/dvm.h): the job's output is written to them as
 * a standalone hnp writes its own, and the client exits with the job's
 * status. Jobs run side by side on the slots the others leave free (one
 * job a node; one that may use MPI alone); a job that does not fit
 * waits, first come first (--dvm-wait), or is refused (--dvm-nowait).
 *
 * dvm.c: the server (report file, socket, clients);
 * dvm_sched.c: the jobs (free slots, the queue, the running jobs);
 * dvm_job.c: one submitted job, from its command line to its release;
 * dvm_proto.c: the socket's frames and handshake, both ends;
 * dvm_params.c: a client's --mca and --tune values;
 * dvm_detach.c: --daemonize;
 * dvm_client.c: the client.
 */
#ifndef HNP_DVM_H
#define HNP_DVM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "job.h"

typedef struct hnp_dvm hnp_dvm_t;

/* ------------------------------------------------------------ server */

/** The DVM around @p runtime, the job that brings its daemons up. Before
 *  hnp_job_start(). */
int hnp_dvm_create(hnp_dvm_t **out, hnp_job_t *runtime,
                   const hnp_args_t *args, char *err, size_t errlen);
/** A standalone hnp whose job may spawn (MPI_Comm_spawn): the jobs its
 *  ranks ask for run on the free slots of @p runtime's nodes, beside it,
 *  as a DVM's jobs do, with no socket and no client. @p runtime stays a
 *  standalone job (runtime->family says it has a family). */
int hnp_dvm_create_family(hnp_dvm_t **out, hnp_job_t *runtime, char *err,
                          size_t errlen);
/** Whether @p dvm is a standalone hnp's family. */
bool hnp_dvm_is_family(const hnp_dvm_t *dvm);
/** What the messages call the nodes it holds: "the DVM", or a standalone
 *  hnp's "the allocation". */
const char *hnp_dvm_noun(const hnp_dvm_t *dvm);
/** A standalone job's ranks are gone: whether it waits for the jobs its
 *  ranks spawned (then hnp_job_finish() is called again after the last). */
bool hnp_dvm_family_holds(hnp_dvm_t *dvm);
/** After the event loop: every client told how its job ended, the report
 *  file and the socket gone. */
void hnp_dvm_destroy(hnp_dvm_t *dvm);
/** Every daemon has joined and knows every other: write the report file,
 *  serve. */
void hnp_dvm_ready(hnp_dvm_t *dvm);
/** End every job, then the daemons and the HNP (SIGTERM, --dvm-stop). */
void hnp_dvm_stop(hnp_dvm_t *dvm, const char *why);
/** Daemon @p src reported a fatal error of job @p jobid (0: its own,
 *  which ends the jobs with ranks on its node): that job ends; one
 *  already ended is not another's. */
void hnp_dvm_failure(hnp_dvm_t *dvm, hnp_vpid_t src, uint32_t jobid,
                     int status, const char *message);
/** Daemon @p vpid is gone: the jobs with ranks on its node end, new jobs
 *  use the other nodes (dvm_on_daemon_loss continue), or the DVM ends. */
void hnp_dvm_daemon_lost(hnp_dvm_t *dvm, hnp_vpid_t vpid, const char *why);
/** @p job ends (finished, failed, interrupted): its end goes to the
 *  daemons; once its processes are gone its client is told. Called again
 *  with kill_now set, what is left is killed at once. */
void hnp_dvm_job_ending(hnp_dvm_t *dvm, hnp_job_t *job);

/** A signal hnp forwards to @p job's processes reaches the jobs it
 *  spawned too, and theirs (@p control: SIGSTOP, SIGCONT of job control). */
void hnp_dvm_signal_children(hnp_dvm_t *dvm, const hnp_job_t *job, int sig,
                             bool control);

/** --daemonize: the caller goes on in a child process; the parent waits
 *  until hnp_dvm_detached() is called (returns 0) or the child ends
 *  (returns its status). Returns -1 in the child. */
int hnp_dvm_daemonize(void);
/** Tell the waiting parent the DVM serves; stdio to /dev/null. Whether
 *  there was a parent to tell. */
bool hnp_dvm_detached(void);

/* dvm_job.c */
typedef struct hnp_dvm_job hnp_dvm_job_t;
struct hnp_wire_dvm_request;
/** A job from @p req (taken over) for the DVM's nodes: parsed as hnp would
 *  parse it in the client's directory and environment, and mapped. NULL
 *  with a message in @p err. */
hnp_dvm_job_t *hnp_dvm_job_create(hnp_dvm_t *dvm, uint32_t jobid,
                                  struct hnp_wire_dvm_request *req,
                                  const int fds[3], char *err, size_t errlen);
hnp_job_t *hnp_dvm_job_of(hnp_dvm_job_t *j);
/** The slots the job needs, for the figures of a refusal. */
uint32_t hnp_dvm_job_ranks(const hnp_dvm_job_t *j);
/** One line for --dvm-jobs. */
void hnp_dvm_job_describe(const hnp_dvm_job_t *j, const char *state,
                          double now, char *buf, size_t len);
/** Launch it (placed): its output to its client's stdout and stderr, its
 *  stdin from the client's, the launch down the tree. */
int hnp_dvm_job_launch(hnp_dvm_job_t *j, char *err, size_t errlen);
/** Its processes are gone: output flushed, --timing. Returns the status
 *  for the client. */
int hnp_dvm_job_conclude(hnp_dvm_job_t *j);
void hnp_dvm_job_destroy(hnp_dvm_job_t *j);
/** Map it onto the slots @p avail ([DVM nodes]) says are free, as its
 *  options ask: HNP_SUCCESS, or it does not fit now (the map unchanged). */
int hnp_dvm_job_place(hnp_dvm_job_t *j, const uint32_t *avail);
/** Of the nodes the job may use, the slots @p avail has free, and all. */
void hnp_dvm_job_free_slots(const hnp_dvm_job_t *j, const uint32_t *avail,
                            uint32_t *nfree, uint32_t *total);
/** The environment and directory its command line was read in. */
char *const *hnp_dvm_job_env(const hnp_dvm_job_t *j);
const char *hnp_dvm_job_cwd(const hnp_dvm_job_t *j);
/** Whether its processes use the pmi components. */
bool hnp_dvm_job_needs_pmi(const hnp_dvm_job_t *j);
/** Whether @p j may place more ranks on a node than its slots
 *  (--oversubscribe). */
bool hnp_dvm_job_oversubscribes(const hnp_dvm_job_t *j);
/** It starts a pmi component whose jobs run one at a time
 *  (HNP_PMI_NEEDS_JOBS_APART). */
bool hnp_dvm_job_runs_apart(const hnp_dvm_job_t *j);
/** The name of that component, for messages. */
const char *hnp_dvm_job_apart_by(const hnp_dvm_job_t *j);
/** It has the pmi components (its ranks may take part in all-gathers,
 *  which every daemon joins) and leaves a live daemon without ranks:
 *  such daemons hear of its all-gathers from the HNP. */
bool hnp_dvm_job_leaves_daemons_out(const hnp_dvm_job_t *j);
/** The client's stderr, where hnp's messages about the job go. */
FILE *hnp_dvm_job_err_file(const hnp_dvm_job_t *j);
/** hnp's messages go to @p j's client's stderr until called with NULL. */
void hnp_dvm_job_log_to(const hnp_dvm_job_t *j);
/** Whether the job has ranks on node @p node (0-based). */
bool hnp_dvm_job_uses_node(const hnp_dvm_job_t *j, uint32_t node);

/* dvm_params.c */
/** The client's --mca and --tune values in @p req for the job of @p args
 *  (parsed in the client's environment, which is environ now): Open MPI's
 *  become its ranks' OMPI_MCA_*, with the client's OMPI_MCA_* and the
 *  DVM's own Open MPI values from @p params; one of hnp's (read when the
 *  DVM starts) with another value than the DVM's, or an unknown name, is
 *  an error naming it. */
int hnp_dvm_job_params(const hnp_params_t *params,
                       const struct hnp_wire_dvm_request *req,
                       hnp_args_t *args, char *err, size_t errlen);

/* What dvm_job.c needs of the server. */
hnp_rte_t *hnp_dvm_rte(const hnp_dvm_t *dvm);
/** The nodes still served, with their slots, in daemon order. */
const hnp_job_map_t *hnp_dvm_nodes(const hnp_dvm_t *dvm);
bool hnp_dvm_node_lost(const hnp_dvm_t *dvm, uint32_t node);
/** Whether node @p name holds a daemon of the runtime, not lost. */
bool hnp_dvm_runs_daemon(const hnp_dvm_t *dvm, const char *name);
uint32_t hnp_dvm_daemons_alive(const hnp_dvm_t *dvm);
/** The tags of the jobs' messages go to the DVM, which hands each to the
 *  running job it names (or drops it: a late one of a job ended). */
void hnp_dvm_route_messages(hnp_dvm_t *dvm);

/* ------------------------------------------------------------ client */

/** hnp --dvm-uri FILE (or HNP_DVM_URI): submit argv (the command line as
 *  given, after --mca and --tune were taken out) with the values those
 *  set in @p params, which the DVM applies to the job or refuses
 *  (dvm_params.c), --dvm-jobs or --dvm-stop. Returns the exit status. */
int hnp_dvm_client(const hnp_args_t *args, const hnp_params_t *params,
                   int argc, char **argv);

#endif /* HNP_DVM_H */
