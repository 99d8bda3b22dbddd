/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_rte.h
 * @brief Runtime services: what components may call.
 *
 * The runtime context is opaque. Through these functions a component sends
 * and receives messages by process name and tag, learns this process's place
 * among the runtime's processes (vpid 0 is the HNP, 1..N the daemons, daemon
 * r on node r), starts daemons through the remote-shell agent or a command
 * of its own with the shared launch code, and sets timers and watches
 * descriptors (a batch system's socket) on the process's event loop.
 * Components never open sockets for runtime messages themselves.
 *
 * Everything here runs on the event loop's thread; callbacks are invoked
 * from the loop, never from inside the call that registered them.
 */
#ifndef HNP_RTE_H
#define HNP_RTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_allgather.h"
#include "hnp_export.h"
#include "hnp_mca.h"
#include "hnp_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hnp_rte hnp_rte_t;

/* Message tags, 1..HNP_TAG_USER_LAST (hnp_rte_recv() refuses others): the
 * ranges and the rule for picking one are in hnp_mca.h, where a component
 * declares the tags it uses (hnp_mca_component_t::tags). */

/* ------------------------------------------------------------ identity */

/** This process's vpid (0 in the HNP). */
HNP_EXPORT hnp_vpid_t hnp_rte_my_vpid(const hnp_rte_t *rte);
/** The runtime's processes: the HNP and its daemons (N + 1). */
HNP_EXPORT uint32_t hnp_rte_num_procs(const hnp_rte_t *rte);
HNP_EXPORT bool hnp_rte_is_hnp(const hnp_rte_t *rte);
/** The node name of vpid (the HNP's is its host name), or NULL. */
HNP_EXPORT const char *hnp_rte_node_name(const hnp_rte_t *rte, hnp_vpid_t vpid);
/** This process's contact URI (what the exchange spreads). */
HNP_EXPORT const char *hnp_rte_my_uri(const hnp_rte_t *rte);

/* ------------------------------------------------------------ topology */

/** The routing topology's answers (from the selected routed module). */
HNP_EXPORT hnp_vpid_t hnp_rte_route_parent(const hnp_rte_t *rte);
HNP_EXPORT
uint32_t hnp_rte_route_children(const hnp_rte_t *rte, hnp_vpid_t *out,
                                uint32_t max);
/** The spawn tree the selected plm built. */
HNP_EXPORT const hnp_tree_t *hnp_rte_spawn_tree(const hnp_rte_t *rte);
/** The vpids this daemon must spawn itself (its spawn-tree children). */
HNP_EXPORT
uint32_t hnp_rte_spawn_children(const hnp_rte_t *rte, hnp_vpid_t *out,
                                uint32_t max);

/* ------------------------------------------------------------ messaging */

typedef void (*hnp_rte_recv_fn)(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                                const void *data, size_t len, void *cbdata);

/**
 * Send @p len bytes (copied) to @p dest along the routing topology. A message
 * for a process whose contact URI is not known yet waits until the exchange
 * delivers it. Returns once the message is queued.
 */
HNP_EXPORT int hnp_rte_send(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t tag,
                            const void *data, size_t len);

/**
 * Send to a direct neighbour (a spawn-tree parent or child, or any process
 * whose URI is known), bypassing the routing topology: what the phase-1 and
 * phase-2 algorithms use. Waits like hnp_rte_send() when the URI is unknown.
 */
HNP_EXPORT
int hnp_rte_send_direct(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t tag,
                        const void *data, size_t len);

/**
 * Deliver messages with @p tag to @p fn (one handler a tag; NULL removes).
 * Messages that arrived for @p tag while it had no handler are held; once a
 * handler is posted they are delivered from the event loop after this call
 * returns, in arrival order, to the handler the tag has then (held on if it
 * has none by then). Messages arriving meanwhile wait behind them.
 */
HNP_EXPORT int hnp_rte_recv(hnp_rte_t *rte, uint32_t tag, hnp_rte_recv_fn fn,
                            void *cbdata);

/**
 * An exchange component saw a message of all-gather @p id, which this
 * process has not joined. A process with nothing of its own to give (the
 * HNP, in the applications' fences) then joins with an empty contribution;
 * elsewhere this does nothing. Called from the event loop.
 */
HNP_EXPORT void hnp_rte_collective_seen(hnp_rte_t *rte, uint32_t id);

/** Record @p vpid's contact URI (the exchange calls this as it learns). */
HNP_EXPORT
int hnp_rte_set_uri(hnp_rte_t *rte, hnp_vpid_t vpid, const char *uri);

/* ------------------------------------------------------------ launching */

/**
 * Start daemon @p vpid on its node through the remote-shell agent
 * (`plm_rsh_agent`), telling it to connect to this process; a node that is
 * this machine (`localhost` or its host name) is started without the agent.
 * Command line, environment, secret (on the agent's stdin, never on a
 * command line), capture of the agent's output and retries of
 * connection-level failures (exit status 255, `plm_rsh_retries`) are the
 * runtime's; failures are reported to the HNP with the node's name.
 */
HNP_EXPORT int hnp_rte_spawn_daemon(hnp_rte_t *rte, hnp_vpid_t vpid);

/** Start the daemons of every vpid in @p vpids, at most
 *  `plm_rsh_num_concurrent` agents at a time; an agent stops counting
 *  once its daemon has called back. */
HNP_EXPORT int hnp_rte_spawn_daemons(hnp_rte_t *rte, const hnp_vpid_t *vpids,
                                     uint32_t count);

/**
 * Whether the daemons this process starts from now on stay attached to
 * their agent (the remote shell) for the whole job. Attached, a daemon
 * saves the fork that leaves it, and the starting node keeps one agent per
 * daemon it started: right for a tree launch, where that is a few. At most
 * `plm_rsh_num_concurrent` daemons of a process are attached (all of them
 * when it is 0); the others
 * detach, as all do by default, since a flat launch would keep one agent
 * per node on one node: a detached daemon leaves its agent once it has
 * joined, and the agent ends.
 */
HNP_EXPORT void hnp_rte_set_spawn_attached(hnp_rte_t *rte, bool attached);

/**
 * The daemon's command (absolute path and the arguments that say whom to
 * call and which plm started it), followed by @p extra (NULL-terminated,
 * may be NULL). malloc'd; free with hnp_rte_free_argv(). For launchers
 * that start every daemon with one command of their own (srun); each
 * daemon then asks the plm's daemon_identity for its vpid and node.
 */
HNP_EXPORT char **hnp_rte_daemon_command(hnp_rte_t *rte, char *const *extra);
HNP_EXPORT void hnp_rte_free_argv(char **argv);

/**
 * Run @p argv on this machine to start daemons elsewhere (one `srun` for
 * all of them): the job secret on its stdin, its output captured, and its
 * failure reported as the failure of @p label with the exact command.
 */
HNP_EXPORT int hnp_rte_spawn_command(hnp_rte_t *rte, char *const *argv,
                                     const char *label);

/**
 * The command of the daemons added to the running job from vpid @p first
 * on (hnp_plm_module_t::launch_added): hnp_rte_daemon_command()'s, and the
 * daemons add @p first - 1 to the vpid the plm's daemon_identity gives
 * them. NULL when @p first is not an added daemon's vpid, or out of
 * memory. malloc'd; free with hnp_rte_free_argv().
 */
HNP_EXPORT char **hnp_rte_added_daemon_command(hnp_rte_t *rte,
                                               hnp_vpid_t first);

/**
 * Run @p argv on this machine to start the daemons added from vpid
 * @p first on (one more `srun`), as hnp_rte_spawn_command() does, but its
 * failure fails the spawn that needed them, not the job: the runtime
 * reports it with @p label (the nodes, comma-separated) and the exact
 * command, stops it when its daemons do not call back within
 * plm_base_launch_timeout, and ends it with the job.
 */
HNP_EXPORT int hnp_rte_spawn_added_command(hnp_rte_t *rte, hnp_vpid_t first,
                                           char *const *argv,
                                           const char *label);

/**
 * Start daemon @p vpid through @p command, a command of the launcher's own
 * that runs what follows it on the daemon's node (a batch system's "run
 * this on node N", as a tm-style spawn does), found as execvp finds it:
 * the runtime appends the daemon's command (as hnp_rte_daemon_command()
 * gives it) and runs the whole on this machine. The command must give the
 * daemon the environment the plm's daemon_identity reads. The secret
 * travels as the module's @c secret says; the command's output is captured
 * and its failure reported with the node's name and the exact command; at
 * most `plm_rsh_num_concurrent` run at once until their daemons join.
 */
HNP_EXPORT int hnp_rte_spawn_daemon_with(hnp_rte_t *rte, hnp_vpid_t vpid,
                                         char *const *command);

/** Expand a host list such as "node[001-128,140]" (no name is resolved). */
HNP_EXPORT
int hnp_rte_expand_hostlist(const char *text, char ***names, size_t *count,
                            char *err, size_t errlen);
HNP_EXPORT void hnp_rte_free_hostlist(char **names, size_t count);

/** Report a fatal failure: in a daemon it goes straight to the HNP, which
 *  ends the job with @p status and the message (or, when it cannot be
 *  sent, it is logged here). A daemon holding several jobs reports it as
 *  its own failure: a component's failure of one job is
 *  hnp_rte_fail_job(). */
HNP_EXPORT void hnp_rte_fail(hnp_rte_t *rte, int status, const char *fmt, ...)
               __attribute__((format(printf, 3, 4)));

/** A line for the user that does not end the job: a daemon sends it to the
 *  HNP, which prints it on its stderr as it is (not held back, unlike the
 *  daemon's own log, which reaches the HNP rate-limited); when it cannot
 *  be sent, it is logged here. */
HNP_EXPORT void hnp_rte_report(hnp_rte_t *rte, const char *fmt, ...)
               __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------ application jobs */

/*
 * Services of a daemon to the components that serve the application
 * processes of its node (the pmi framework), for a job between its
 * job_start() and its job_end() of hnp_pmi.h. A daemon may hold several
 * jobs at once (a runtime that outlives its jobs, hnp --dvm): every
 * service names its job (hnp_pmi_job_t::jobid), and one job's
 * all-gathers, requests, abort and wire-up states never touch another's.
 * For a job this daemon does not hold they fail with HNP_ERR_BAD_PARAM
 * (or do nothing).
 */

/**
 * All-gather number @p seq of @p series (hnp_pmi_job_t::series, one of
 * job @p jobid's) among the runtime's daemons, over the selected exchange
 * component: @p data (copied, at most hnp_pmi_job_t::max_allgather_bytes)
 * is this daemon's contribution, and @p cb learns every daemon's, then
 * completion, as hnp_allgather.h says. Every daemon of the job calls it
 * once per seq, in increasing seq from 0; a daemon without ranks of the
 * job, and the HNP, join with an empty contribution (zero bytes) when
 * they see the others'. The callbacks run from the event loop, never
 * inside this call, and only while the job is held here: after its
 * job_end() none comes.
 */
HNP_EXPORT int hnp_rte_allgather(hnp_rte_t *rte, uint32_t jobid,
                                 uint32_t series, uint32_t seq,
                                 const void *data, size_t len,
                                 const hnp_exchange_callbacks_t *cb);

typedef struct hnp_rte_request hnp_rte_request_t;
/** A request for @p rank of job @p jobid arrived from daemon @p src:
 *  answer it with hnp_rte_reply(), now or later from the event loop. */
typedef void (*hnp_rte_serve_fn)(hnp_rte_t *rte, hnp_rte_request_t *req,
                                 hnp_vpid_t src, uint32_t jobid,
                                 uint32_t rank, const void *data, size_t len,
                                 void *cbdata);
/** The answer to hnp_rte_request(): @p status HNP_SUCCESS with the
 *  server's @p data, or the error of the server, of the way there or of
 *  the job's end. Called once, from the event loop. */
typedef void (*hnp_rte_reply_fn)(hnp_rte_t *rte, int status,
                                 const void *data, size_t len, void *cbdata);

/** Serve requests of @p service (a tag of the caller's framework range)
 *  in this daemon, for every job it holds; NULL stops. Requests that
 *  arrive before are held, as are those for a job whose launch has not
 *  reached this daemon yet. */
HNP_EXPORT int hnp_rte_serve(hnp_rte_t *rte, uint32_t service,
                             hnp_rte_serve_fn fn, void *cbdata);
/**
 * Ask the daemon that hosts @p rank of job @p jobid, through its
 * hnp_rte_serve() handler for @p service, with @p data (copied). @p fn
 * gets the answer, or an error if the daemon or the job ends first (a
 * request reaching a daemon where the job has ended is answered
 * HNP_ERR_NOT_FOUND); never inside this call. The daemon hosting the
 * rank may be this one.
 */
HNP_EXPORT int hnp_rte_request(hnp_rte_t *rte, uint32_t service,
                               uint32_t jobid, uint32_t rank,
                               const void *data, size_t len,
                               hnp_rte_reply_fn fn, void *cbdata);
/** Answer @p req (exactly once) and free it. @p data is copied. An
 *  answer after the job's end here is dropped (the requester learnt of
 *  the end). */
HNP_EXPORT void hnp_rte_reply(hnp_rte_request_t *req, int status,
                              const void *data, size_t len);

/** End job @p jobid as its @p rank asked (MPI_Abort): the job's client
 *  (hnp) exits with @p code and prints @p msg (may be NULL) with the rank
 *  and its node. Other jobs run on. */
HNP_EXPORT void hnp_rte_abort_job(hnp_rte_t *rte, uint32_t jobid,
                                  uint32_t rank, int code, const char *msg);

/** hnp_rte_fail() of job @p jobid alone (0: the daemon's own failure):
 *  the HNP ends that job, and only that one, with @p status. */
HNP_EXPORT void hnp_rte_fail_job(hnp_rte_t *rte, uint32_t jobid, int status,
                                 const char *fmt, ...)
               __attribute__((format(printf, 4, 5)));

/** Where a rank is in its wire-up, as its component sees it. */
typedef enum hnp_rte_proc_state {
    HNP_RTE_PROC_CONNECTED = 1, /**< its library initialized (MPI_Init) */
    HNP_RTE_PROC_FINALIZED = 2, /**< it finalized (MPI_Finalize) */
} hnp_rte_proc_state_t;

/** Tell the runtime that @p rank of job @p jobid reached @p state. A
 *  rank that exits CONNECTED but not FINALIZED ends its job with an error
 *  that names it, whatever its exit status, as mpirun does. */
HNP_EXPORT void hnp_rte_proc_state(hnp_rte_t *rte, uint32_t jobid,
                                   uint32_t rank,
                                   hnp_rte_proc_state_t state);

/* ------------------------------------------------------------ dynamic jobs */

/*
 * MPI_Comm_spawn and friends: a rank asks its daemon's pmi component for a
 * new job; the component describes it with the request below, neutral of
 * any interface (PMIx info keys, PMI-1/2 info words), and hands it to
 * hnp_rte_spawn(). The request goes to the HNP, which maps the new job
 * onto the free slots of the nodes it holds with the usual mapper, starts
 * it down the routing tree as any job, and answers once every child was
 * started (or at the first failure). The new job belongs to the family of
 * its parent: its output goes where the parent's goes, its exit codes
 * count toward hnp's status, an abort in any job of the family ends the
 * family, and none of its processes outlives the parent job.
 */

/** One program of a spawn (an MPI_Comm_spawn_multiple command). Strings
 *  and arrays are the caller's, read during hnp_rte_spawn() only. */
typedef struct hnp_spawn_app {
    /** The program as the rank named it; a name without '/' is searched
     *  along @c path, else the PATH of the children's environment. */
    const char *cmd;
    /** Its arguments after the program (NULL-terminated, may be NULL). */
    char *const *argv;
    /** "NAME=VALUE" set in every child of this app on top of the
     *  environment a rank of the parent's job gets (NULL-terminated, may
     *  be NULL): OMPI_PARENT_PORT, OMPI_MCA_*, PMIx_Spawn's env. */
    char *const *env;
    uint32_t maxprocs;        /**< children of this app, >= 1 */
    /** Nodes the children may go to, "a,b,c" (a name may repeat; "a:2"
     *  is not a slot count here), each of the allocation (PMIX_HOST,
     *  MPICH's host/hosts); NULL: any node of the allocation. */
    const char *hosts;
    /** A hostfile naming the nodes as @c hosts does (PMIX_HOSTFILE,
     *  MPICH's hostfile), read at the HNP; NULL: none. */
    const char *hostfile;
    /** Nodes to add to the allocation for this spawn (PMIX_ADD_HOST,
     *  PMIX_ADD_HOSTFILE); not supported yet: a request carrying one is
     *  refused naming them. NULL: none. */
    const char *add_hosts;
    const char *add_hostfile;
    /** The children's working directory; NULL: the parent rank's
     *  (@c parent_wdir of the request). */
    const char *wdir;
    /** A search path for @c cmd (MPICH's "path" info), NULL: none. */
    const char *path;
    /** An installation prefix (PMIX_PREFIX): PREFIX/bin is searched
     *  first, PREFIX/lib prepended to LD_LIBRARY_PATH. NULL: none. */
    const char *prefix;
} hnp_spawn_app_t;

/** A spawn request: the programs and the job-level directives. */
typedef struct hnp_spawn_request {
    uint32_t napps;                /**< >= 1 */
    const hnp_spawn_app_t *apps;   /**< [napps], children ranked in order */
    uint32_t parent_rank;          /**< the rank that asked, of the parent */
    /** The asking rank's working directory, for relative paths and apps
     *  without @c wdir; NULL: the parent job's. */
    const char *parent_wdir;
    /** As hnp's options of the same names say; NULL: the parent job's. */
    const char *map_by;            /**< --map-by (PMIX_MAPBY) */
    const char *rank_by;           /**< --rank-by (PMIX_RANKBY) */
    const char *bind_to;           /**< --bind-to (PMIX_BINDTO) */
    const char *ppr;               /**< "N:resource" (PMIX_PPR) */
    bool display_map;              /**< --display-map (PMIX_DISPLAY_MAP) */
    /** Opaque bytes of the requesting component for the new job (PMI-1/2
     *  preput keys, ...): every daemon of the new job finds them in
     *  hnp_pmi_job_t::spawn_data, with the requester's name in
     *  hnp_pmi_job_t::spawn_component. At most HNP_SPAWN_DATA_MAX. */
    const void *data;
    size_t data_len;
    /** The requesting component's name (hnp_pmi_job_t::spawn_component
     *  on the new job's daemons); NULL with no @c data. */
    const char *component;
    void *reserved[4];             /**< room to grow; NULL */
} hnp_spawn_request_t;

#define HNP_SPAWN_DATA_MAX (64u * 1024u)

/**
 * The end of a spawn: @p status HNP_SUCCESS with the new job's id and
 * name (hnp_pmi_job_t::name on its daemons: its PMIx namespace, its
 * KVS name), every child started; or a negative HNP_ERR_* code with
 * @p err, a line for the rank naming the cause (HNP_ERR_NOT_FOUND "no
 * such program: X on node N"; HNP_ERR_BAD_PARAM "host X is not in the
 * allocation"; HNP_ERR_NOT_AVAILABLE "no free slot: N children asked
 * for, F of S slots free"; ...), which hnp prints too. Called once,
 * from the event loop, never inside hnp_rte_spawn(); also when the
 * parent job ends first (HNP_ERR_UNREACHABLE).
 */
typedef void (*hnp_rte_spawn_fn)(hnp_rte_t *rte, int status, uint32_t jobid,
                                 const char *name, const char *err,
                                 void *cbdata);

/**
 * Ask for a new job, child of job @p parent_jobid (a job this daemon
 * holds), as @p req says (copied: the caller may free it on return).
 * HNP_ERR_BAD_PARAM, with nothing sent and @p cb never called: a
 * request malformed at the source (no app, maxprocs 0, a NULL cmd,
 * data too long) or a job this daemon does not hold.
 */
HNP_EXPORT int hnp_rte_spawn(hnp_rte_t *rte, uint32_t parent_jobid,
                             const hnp_spawn_request_t *req,
                             hnp_rte_spawn_fn cb, void *cbdata);

/** What a daemon knows of another job (a PMIx server registers a
 *  namespace it must know for a connect, with no local rank of it): every
 *  daemon holds every live job that uses the pmi components, ranks here
 *  or not. Valid during the callback only. @c apps may be NULL (napps 0)
 *  and @c parent_jobid 0 where the daemon was not told. */
typedef struct hnp_rte_job_info {
    uint32_t jobid;
    const char *name;              /**< as hnp_pmi_job_t::name */
    uint32_t nprocs;
    uint32_t nnodes;
    const uint32_t *node_of;       /**< [nprocs] each rank's node, 1.. */
    const char *const *node_names; /**< [nnodes + 1], [0] NULL */
    uint32_t napps;
    const struct hnp_pmi_app *apps; /**< [napps] (hnp_pmi.h) */
    uint32_t parent_jobid;         /**< 0: none */
} hnp_rte_job_info_t;

typedef void (*hnp_rte_job_info_fn)(hnp_rte_t *rte, int status,
                                    const hnp_rte_job_info_t *info,
                                    void *cbdata);

/** Learn job @p jobid (by its id, or by @p name when @p jobid is 0):
 *  @p cb gets it, or HNP_ERR_NOT_FOUND (no such live job here), once,
 *  from the event loop. */
HNP_EXPORT int hnp_rte_job_info(hnp_rte_t *rte, uint32_t jobid,
                                const char *name, hnp_rte_job_info_fn cb,
                                void *cbdata);

/** A participant of a collective across jobs: @c rank of job @c jobid, or
 *  every rank of it (HNP_RTE_ALL_RANKS). */
typedef struct hnp_rte_member {
    uint32_t jobid;
    uint32_t rank;
} hnp_rte_member_t;

#define HNP_RTE_ALL_RANKS UINT32_MAX

/** The end of hnp_rte_gather_across(): HNP_SUCCESS with every daemon's
 *  data, concatenated in no particular order, or an error. */
typedef void (*hnp_rte_gather_fn)(hnp_rte_t *rte, int status,
                                  const void *data, size_t len,
                                  void *cbdata);

/**
 * A collective among ranks of several jobs of a family (a PMIx connect,
 * disconnect, or fence over several namespaces): every daemon hosting
 * some of @p members calls it once, with the same members (in any order),
 * the number of them it hosts (@p nlocal, > 0) and its @p data (copied;
 * may be empty). Once the daemons' counts add up to the members' (a
 * job's every rank counts its size), @p cb gets the concatenation of
 * every daemon's data, once, from the event loop; an error if a job ends
 * first or the counts do not add up. Collectives with the same members
 * complete in the order they were started.
 */
HNP_EXPORT int hnp_rte_gather_across(hnp_rte_t *rte,
                                     const hnp_rte_member_t *members,
                                     uint32_t nmembers, uint32_t nlocal,
                                     const void *data, size_t len,
                                     hnp_rte_gather_fn cb, void *cbdata);
/* ------------------------------------------------------------ names */

/*
 * The name service of MPI_Publish_name, MPI_Lookup_name and
 * MPI_Unpublish_name (PMIx publish/lookup/unpublish, PMI-1 publish_name,
 * PMI-2 name-publish, ...): the HNP holds the names, a component asks on
 * behalf of rank @p rank of job @p jobid, a job this daemon holds. A name
 * is seen by the publisher's job family (the job and the jobs it spawned,
 * and theirs), or by every job of the runtime when published with
 * HNP_RTE_NAME_SESSION or when `pmi_base_name_scope` is `session`. A
 * name goes when its publisher's job ends, unless published with
 * HNP_RTE_NAME_PERSIST (then it stays until unpublished or the runtime
 * ends).
 */
enum {
    HNP_RTE_NAME_SESSION = 1u << 0, /**< publish/look up/unpublish in the
                                         session's scope, not the family's */
    HNP_RTE_NAME_PERSIST = 1u << 1, /**< publish: outlive the job */
    HNP_RTE_NAME_WAIT = 1u << 2,    /**< lookup: wait until every key is
                                         published (or the timeout) */
};

/** A name and its value; in an answer, who published it. */
typedef struct hnp_rte_name {
    const char *key;      /**< 1..511 bytes */
    const void *value;
    size_t len;
    uint32_t jobid;       /**< the publisher (answers) */
    uint32_t rank;
    const char *job_name; /**< its job's name (hnp_pmi_job_t::name) */
} hnp_rte_name_t;

/** The answer: @p status HNP_SUCCESS (a lookup: with what was found, at
 *  least one, @p names valid during the call), HNP_ERR_EXISTS (a publish
 *  of a name there already), HNP_ERR_NOT_FOUND (a lookup found none, or
 *  its wait timed out; an unpublish of a name not there), or the error of
 *  the way there or of the job's end. Called once, from the event loop. */
typedef void (*hnp_rte_names_fn)(hnp_rte_t *rte, int status,
                                 const hnp_rte_name_t *names, size_t count,
                                 void *cbdata);

/** Publish @p count (>= 1) names, all or none, with HNP_RTE_NAME_SESSION
 *  and HNP_RTE_NAME_PERSIST as @p flags says. */
HNP_EXPORT int hnp_rte_name_publish(hnp_rte_t *rte, uint32_t jobid,
                                    uint32_t rank, const hnp_rte_name_t *names,
                                    size_t count, unsigned flags,
                                    hnp_rte_names_fn fn, void *cbdata);
/** Look up @p count (>= 1) keys. Without HNP_RTE_NAME_WAIT the answer
 *  comes at once with the keys found; with it, once every key is found,
 *  or after @p timeout seconds (0: no bound but the job's end) with
 *  HNP_ERR_NOT_FOUND. */
HNP_EXPORT int hnp_rte_name_lookup(hnp_rte_t *rte, uint32_t jobid,
                                   uint32_t rank, const char *const *keys,
                                   size_t count, unsigned flags,
                                   double timeout, hnp_rte_names_fn fn,
                                   void *cbdata);
/** Unpublish @p keys (@p count 0: every name the rank published). */
HNP_EXPORT int hnp_rte_name_unpublish(hnp_rte_t *rte, uint32_t jobid,
                                      uint32_t rank, const char *const *keys,
                                      size_t count, unsigned flags,
                                      hnp_rte_names_fn fn, void *cbdata);

/* ------------------------------------------------------ scratch directories */

/** hnp_rte_scratch_make() flags. */
enum {
    /** In memory (/dev/shm, where it is writable; else as without): for
     *  files mapped by several processes, such as an MPI library's
     *  shared-memory segments. */
    HNP_RTE_SCRATCH_MEMORY = 1u << 0,
};

/**
 * A fresh directory of this process's, mode 0700, for files of its jobs
 * (a PMIx server's contact files, the ranks' session directories, shared
 * memory segments): @p name (one path component, no '/') under one of
 * the process's two roots, each made at its first use, mode 0700:
 * $TMPDIR (else /tmp)/hnp-UID-PID-XXXXXX, or with HNP_RTE_SCRATCH_MEMORY
 * /dev/shm/hnp-UID-PID-XXXXXX.
 *
 * Called in a daemon (or the HNP), on the loop thread, typically from a
 * pmi component's job_start(). @p *path is the caller's (free() it); the
 * directory and all under it stay the process's: removed by
 * hnp_rte_scratch_remove(), else when the process ends, whichever way it
 * ends: a daemon that is killed (SIGKILL, or stopped and then killed) has
 * its sentinel process remove the roots once the ranks it killed are
 * gone. HNP_ERR_BAD_PARAM: a bad @p name; HNP_ERR_IO: it exists already or
 * cannot be made (@p err says why).
 */
HNP_EXPORT int hnp_rte_scratch_make(hnp_rte_t *rte, const char *name,
                                    unsigned flags, char **path, char *err,
                                    size_t errlen);
/** Remove @p path, made by hnp_rte_scratch_make(), and everything under
 *  it, now (a job's directory at its end); its root too if that leaves
 *  it empty. A path outside the roots is ignored. */
HNP_EXPORT void hnp_rte_scratch_remove(hnp_rte_t *rte, const char *path);

/* ------------------------------------------------------------ timers */

typedef struct hnp_rte_timer hnp_rte_timer_t;
typedef void (*hnp_rte_timer_fn)(hnp_rte_t *rte, void *cbdata);

/** Call @p fn once after @p seconds. The timer is owned by the caller. */
HNP_EXPORT
hnp_rte_timer_t *hnp_rte_timer_create(hnp_rte_t *rte, double seconds,
                                      hnp_rte_timer_fn fn, void *cbdata);
HNP_EXPORT void hnp_rte_timer_destroy(hnp_rte_timer_t *timer);

/* ------------------------------------------------------------ descriptors */

/** What a watch waits for, and what it found: a mask of these. */
enum {
    HNP_RTE_FD_READ = 1u << 0,  /**< readable, or at end of file, or in error */
    HNP_RTE_FD_WRITE = 1u << 1, /**< writable, or in error */
};

typedef struct hnp_rte_fd_watch hnp_rte_fd_watch_t;
/** @p ready: the HNP_RTE_FD_* the descriptor is ready for now. */
typedef void (*hnp_rte_fd_fn)(hnp_rte_t *rte, int fd, unsigned ready,
                              void *cbdata);

/**
 * Call @p fn from the event loop whenever @p fd is ready for what
 * @p events asks (HNP_RTE_FD_READ, HNP_RTE_FD_WRITE or both), until the
 * watch is destroyed: for a descriptor of the component's own, such as a
 * batch system's socket. Never inside this call, even when @p fd is ready
 * already. The descriptor stays the caller's: it is not made non-blocking
 * and not closed, and must stay open while the watch exists. NULL on a bad
 * argument or without memory. The watch is owned by the caller.
 */
HNP_EXPORT
hnp_rte_fd_watch_t *hnp_rte_fd_watch_create(hnp_rte_t *rte, int fd,
                                            unsigned events, hnp_rte_fd_fn fn,
                                            void *cbdata);
/** Stop watching (also from inside @p fn) and free the watch; NULL is
 *  ignored. @p fn is not called again. */
HNP_EXPORT void hnp_rte_fd_watch_destroy(hnp_rte_fd_watch_t *watch);

#ifdef __cplusplus
}
#endif

#endif /* HNP_RTE_H */
