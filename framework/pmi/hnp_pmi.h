/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_pmi.h
 * @brief The `pmi` framework: a daemon and the application processes it
 * starts.
 *
 * An MPI library finds its peers through its process manager: MPICH
 * through the PMI-1/PMI-2 wire protocol, Open MPI through PMIx. A `pmi`
 * component serves one such interface in every daemon. Unlike the other
 * frameworks, every component that does not decline is active at once
 * (highest priority first), so that MPICH and Open MPI programs both run
 * with no option; `--mca pmi NAME[,NAME]` restricts, `^NAME` excludes.
 *
 * The HNP judges from each program which interfaces it can use (an Open
 * MPI program PMIx alone, an MPICH one PMI-1/2, a script or python any, a
 * program that links only the C runtime PMI-1/2 alone, which it could
 * speak by itself, never PMIx); a daemon loads, when the job is launched
 * (or, told by the HNP, once it has started its own daemons, while the
 * launch is on its way: start_early() then), only the components that
 * serve one of those, and those that see every job
 * (HNP_PMI_NEEDS_EVERY_JOB: an observer that serves no interface, such as
 * accounting, tracing or a site's prolog and epilog), init() then, in
 * every daemon of the job; in every daemon that runs ranks of the job
 * (a daemon without ranks of its own calls no job hook), each one is
 * called in each application job, with a state of that job's own. A
 * daemon of a runtime that outlives its jobs (hnp --dvm) holds several
 * jobs at once, on the same node: a component keeps everything of a job
 * (keys, namespaces, fences, requests, directories) in that job's state,
 * and names the job in every runtime service it calls:
 *
 *  1. job_start() with what the daemon knows of the job
 *     (hnp_pmi_job_t): every rank's node, every node's name, this node's
 *     ranks, the apps, a private scratch directory. Called before the
 *     node's first process is forked.
 *  2. child_setup() once per local rank, before its fork: the component
 *     adds the variables the rank needs and the descriptors it inherits
 *     (hnp_pmi_fork_setenv(), hnp_pmi_fork_keep_fd()). Every active
 *     component sets up every rank: the rank's library picks its protocol.
 *  3. child_exited() when a rank has been reaped.
 *  4. job_end() when the job is over here: release everything, leave
 *     nothing behind (files, segments, sockets).
 *
 * What needs the rest of the job goes through the runtime services
 * (hnp_rte.h): an all-gather among the job's daemons over the selected
 * `exchange` (hnp_rte_allgather(), the fence), a request to the daemon that
 * hosts a given rank (hnp_rte_request(), direct modex), the names of
 * MPI_Publish_name held by the HNP (hnp_rte_name_publish() and its
 * kin), ending the job with
 * a rank's exit code (hnp_rte_abort_job(), MPI_Abort), and telling the
 * runtime that a rank began and finished its wire-up
 * (hnp_rte_proc_state(), so that a rank that exits between the two is
 * reported, as mpirun does).
 *
 * Every hook runs on the daemon's event loop thread. A component whose
 * library calls it from another thread (libpmix) hands the call over to
 * the loop (hnp_rte_fd_watch_create() on an eventfd or a pipe) before it
 * touches runtime state.
 *
 * In the HNP the framework is opened and selected only to know, and
 * forward, which components the daemons must load; no hook but query is
 * called there.
 */
#ifndef HNP_PMI_H
#define HNP_PMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hnp_export.h"
#include "hnp_mca.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2.0: nodes are numbered from 1, as everywhere in hnp (hnp_pmi_job_t);
 *      HNP_PMI_NEEDS_EVERY_JOB.
 * 3.0: a daemon may hold several jobs at once (hnp --dvm runs MPI jobs
 *      side by side, on the same nodes): job_start() may be called again
 *      before the previous job's job_end(), each job with a state of its
 *      own, and the runtime services a component calls for a job name it
 *      (hnp_pmi_job_t::jobid): hnp_rte_allgather(rte, jobid, series,
 *      seq, ...), hnp_rte_request(rte, service, jobid, rank, ...), the
 *      serve callback gets the jobid of the request, hnp_rte_abort_job(rte,
 *      jobid, rank, ...), hnp_rte_proc_state(rte, jobid, rank, state); a
 *      failure of one job is hnp_rte_fail_job(rte, jobid, ...). A 2.x
 *      component is refused.
 * 4.0: dynamic jobs (MPI_Comm_spawn): a component asks for a new job with
 *      hnp_rte_spawn(rte, parent_jobid, &hnp_spawn_request_t, cb, cbdata)
 *      and learns another job of the family with hnp_rte_job_info();
 *      hnp_pmi_job_t tells a spawned job's daemons its parent
 *      (parent_jobid, parent_name) and the requester's opaque bytes
 *      (spawn_component, spawn_data); the name service
 *      (MPI_Publish_name): hnp_rte_name_publish(), hnp_rte_name_lookup(),
 *      hnp_rte_name_unpublish(). A 3.x component is refused. */
#define HNP_PMI_INTERFACE_VERSION HNP_MCA_VERSION(4, 0, 0)

struct hnp_rte;

/** Interfaces a component serves (hnp_pmi_module_t::serves): what the
 *  HNP checks a program against before launch, so that a program that
 *  needs one no active component serves is refused with its name, never
 *  run as singletons. */
enum {
    HNP_PMI_SERVES_PMI1 = 1u << 0, /**< PMI-1 wire protocol (MPICH) */
    HNP_PMI_SERVES_PMI2 = 1u << 1, /**< PMI-2 wire protocol (MPICH) */
    HNP_PMI_SERVES_PMIX = 1u << 2, /**< PMIx (Open MPI 4 and 5) */
};

/** One app context of the job (the programs of an MPMD command line). */
typedef struct hnp_pmi_app {
    uint32_t first_rank; /**< its ranks are first_rank .. +nprocs-1 */
    uint32_t nprocs;
    char *const *argv;   /**< NULL-terminated */
} hnp_pmi_app_t;

/**
 * What a daemon knows of an application job, valid from job_start() until
 * job_end() returns. Nodes are numbered as everywhere in hnp: from 1 to
 * nnodes, node n run by daemon n (vpid n, hnp_rte_my_vpid() there); there
 * is no node 0 (vpid 0 is the HNP, which runs no ranks).
 */
typedef struct hnp_pmi_job {
    uint32_t jobid;              /**< 1, 2, ... within this hnp */
    const char *name;            /**< unique to this hnp run and job, fit
                                      for a namespace or kvs name */
    uint32_t nprocs;             /**< ranks in the job */
    uint32_t universe_size;      /**< slots of the allocation (>= nprocs) */
    uint32_t nnodes;
    const uint32_t *node_of;     /**< [nprocs] each rank's node, 1..nnodes */
    const char *const *node_names; /**< [nnodes + 1]: node n's name, as hnp
                                        names it, at [n]; [0] is NULL */
    uint32_t my_node;            /**< this daemon's node (= its vpid) */
    const uint32_t *local_ranks; /**< [nlocal] this node's ranks, ascending */
    uint32_t nlocal;
    uint32_t slots;              /**< this node's slots; nlocal > slots:
                                      the node is oversubscribed */
    uint32_t napps;
    const hnp_pmi_app_t *apps;   /**< [napps] */
    /** A directory of this daemon's, mode 0700, for this job and this
     *  component alone, made for a component that asks for one
     *  (HNP_PMI_NEEDS_TMPDIR), NULL otherwise; the daemon removes it, and
     *  all under it, after job_end(). */
    const char *tmpdir;
    /** The series of this component's all-gathers in this job
     *  (hnp_rte_allgather()): the same on every daemon, and no other live
     *  job's. */
    uint32_t series;
    /** The largest contribution hnp_rte_allgather() carries per daemon. */
    size_t max_allgather_bytes;
    /** A job started by hnp_rte_spawn() (MPI_Comm_spawn): its parent's
     *  id and name; 0 and NULL for a job of the command line or of a DVM
     *  client. */
    uint32_t parent_jobid;
    const char *parent_name;
    /** The spawning component's name and hnp_spawn_request_t::data
     *  (NULL and 0 when none): a component uses only bytes its own name
     *  put there. */
    const char *spawn_component;
    const void *spawn_data;
    size_t spawn_data_len;
} hnp_pmi_job_t;

/** One local rank about to be forked. */
typedef struct hnp_pmi_child {
    uint32_t rank;        /**< in the job */
    uint32_t local_rank;  /**< among this node's ranks of the job, from 0 */
    uint32_t node_rank;   /**< among every job's ranks on this node: the
                               other jobs' ranks alive here when this job
                               was launched, plus local_rank (= local_rank
                               when the job is alone on the node) */
    uint32_t appnum;      /**< its app context */
    uint32_t app_rank;    /**< rank within its app context */
} hnp_pmi_child_t;

/** The environment and descriptors one child gets: opaque, filled with
 *  the two functions below. */
typedef struct hnp_pmi_fork hnp_pmi_fork_t;

/** Set @p name to @p value (both copied) in the child's environment; a
 *  later value for the same name replaces an earlier one, and any value
 *  replaces the daemon's own. HNP_ERR_BAD_PARAM: an empty name or one
 *  with '='. */
HNP_EXPORT int hnp_pmi_fork_setenv(hnp_pmi_fork_t *fork, const char *name,
                                   const char *value);
/** The child inherits @p fd (> 2) under the same number; the daemon
 *  closes its own copy once the child is forked (or failed to be), so the
 *  component hands the descriptor over with this call. */
HNP_EXPORT int hnp_pmi_fork_keep_fd(hnp_pmi_fork_t *fork, int fd);

/** What a component needs of the daemon (hnp_pmi_module_t::needs). */
enum {
    /** hnp_pmi_job_t::tmpdir: a directory is made for each job (a mkdir
     *  and a removal a node, not free on a busy file system). */
    HNP_PMI_NEEDS_TMPDIR = 1u << 0,
    /** The component sees every job, whatever its programs can use: it is
     *  loaded with every job, and its job hooks called in every daemon
     *  that runs ranks, as those of a component that serves the job's
     *  interface are. For an observer that serves none (@c serves 0):
     *  accounting, tracing, a site's prolog and epilog, a container hook.
     *  A component that serves no interface without this flag is refused
     *  (it would never run). */
    HNP_PMI_NEEDS_EVERY_JOB = 1u << 1,
    /** In a DVM, the jobs that start this component run one at a time
     *  (beside any others): for a component whose library serves one
     *  job of a node at a time. */
    HNP_PMI_NEEDS_JOBS_APART = 1u << 2,
};

typedef struct hnp_pmi_module {
    /** HNP_PMI_SERVES_* flags; 0 for an observer (HNP_PMI_NEEDS_EVERY_JOB). */
    uint32_t serves;
    /** HNP_PMI_NEEDS_* flags. */
    uint32_t needs;
    /** Prepare this daemon, once, before its first job (may be NULL). */
    int (*init)(struct hnp_rte *rte, char *err, size_t errlen);
    /** A job begins on this node: keep what it needs in *@p state. An
     *  error ends the job with the message, naming the node. */
    int (*job_start)(struct hnp_rte *rte, const hnp_pmi_job_t *job,
                     void **state, char *err, size_t errlen);
    /** Before @p child's fork: its variables and descriptors. An error
     *  ends the job, naming the rank. */
    int (*child_setup)(void *state, const hnp_pmi_child_t *child,
                       hnp_pmi_fork_t *fork, char *err, size_t errlen);
    /** @p rank was forked as @p pid (may be NULL). */
    void (*child_started)(void *state, uint32_t rank, pid_t pid);
    /** @p rank was reaped with @p wait_status, or never started
     *  (@p exec_errno non-zero) (may be NULL). */
    void (*child_exited)(void *state, uint32_t rank, int wait_status,
                         int exec_errno);
    /** The job is over here: release @p state and all it holds. */
    void (*job_end)(void *state);
    /** The daemon leaves, after the last job_end (may be NULL): release
 *      what init() or the jobs left for later. */
    void (*finalize)(struct hnp_rte *rte);
    /** The HNP says this daemon's first job will start this component
     *  (may be NULL): after init(), before that job's launch arrives,
     *  bring up what job_start() would otherwise bring up at the first
     *  job (a server), on node @p node, so that the launch finds it up.
     *  Called once a daemon, only on daemons of a job that is no
     *  persistent runtime's. An error is kept, and that job fails with it
     *  when it starts here, as it would have failed in job_start(). */
    int (*start_early)(struct hnp_rte *rte, const char *node, char *err,
                       size_t errlen);
    void *reserved[3]; /**< room to grow; NULL */
} hnp_pmi_module_t;

#ifdef __cplusplus
}
#endif

#endif /* HNP_PMI_H */
