/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the DVM's server (dvm.h): its state and its connections, shared
 * by dvm.c (the socket, the clients, the server's life), dvm_sched.c
 * (the jobs: free slots, the queue, running jobs and their messages) and
 * dvm_loss.c (failures and lost daemons).
 */
#ifndef HNP_DVM_SERVER_H
#define HNP_DVM_SERVER_H

#include <event2/event.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "dvm.h"
#include "dvm_proto.h"
#include "wire/gather.h"

typedef enum { CONN_HELLO, CONN_PROOF, CONN_READY } conn_state_t;

typedef struct dvm_conn {
    struct dvm_conn *next;      /* dvm->conns */
    struct dvm_conn *next_wait; /* dvm->queue */
    hnp_dvm_t *dvm;
    int fd;                     /* -1: the client went away */
    struct event *ev;
    conn_state_t state;
    hnp_auth_transcript_t t;
    dvm_inbuf_t in;
    int fds[HNP_DVM_MAX_FDS];   /* came with the submission */
    int nfds;
    hnp_rte_timer_t *deadline;  /* the handshake's */
    hnp_dvm_job_t *job;         /* submitted: waiting or running */
    bool end_sent, end_sent_now;
    hnp_rte_timer_t *end_timer; /* its processes did not all report */
    hnp_rte_timer_t *conclude_timer;
    bool running;
    uint32_t *taken;            /* [nnodes]: the slots it holds */
    /* A job a rank's MPI_Comm_spawn asked for (dvm_spawn.c): no client
     * (fd -1), its parent job, the daemon waiting for the answer (reqid
     * 0 once answered), what its requester gave the new job's daemons. */
    uint32_t parent_jobid;
    hnp_vpid_t spawn_from;
    uint32_t spawn_reqid;
    char *spawn_component;
    void *spawn_data;
    size_t spawn_data_len;
    bool waits_for_children;    /* its ranks are gone, its children run */
    struct {                    /* a spawned job's --timing */
        bool wanted, said;
        struct timespec asked;  /* the request received */
        double asked_in_parent; /* the same, on the parent job's clock */
        uint32_t parent_rank;
        double started, connected; /* seconds since asked; 0: not yet */
    } timing;
} dvm_conn_t;

struct hnp_dvm {
    hnp_job_t *runtime;
    hnp_rte_t *rte;
    const hnp_args_t *args;
    char *dir;                  /* private: the socket lives in it */
    char *socket_path;
    char *report_path;          /* written, removed at the end */
    int listen_fd;
    struct event *listen_ev;
    struct event *sigev[3];
    bool ready, stopping;
    uint32_t last_jobid;
    bool *lost;                 /* [nnodes] */
    uint32_t alive;
    dvm_conn_t *conns;
    dvm_conn_t *queue;
    uint32_t nrunning;
    uint32_t *free_slots;       /* [nnodes] */
    uint32_t *avail;            /* [nnodes]: scratch, what a job may take */
    /* A standalone hnp's family (hnp_dvm_create_family): no socket, no
     * client; the runtime job runs ranks of its own and the jobs are
     * those its ranks spawn. */
    bool family_only;
    bool routing;               /* hnp_dvm_route_messages() done */
    bool runtime_waits;         /* the runtime job's ranks are gone, its
                                   children run (family_only) */
    struct hnp_dvm_gathers *gathers; /* collectives across jobs */
    struct dvm_growing *growing; /* spawns waiting for daemons (dvm_grow.c) */
};

/* dvm.c */
/** Send @p c's client a reply (nothing if it went away). */
void dvm_reply(dvm_conn_t *c, uint8_t kind, uint32_t jobid, int status,
               const char *text);
/** Forget @p c: its socket, descriptors, timers and job (its slots back). */
void dvm_conn_close(dvm_conn_t *c);

/* dvm_spawn.c */
/** Serve the daemons' spawn requests (HNP_TAG_SPAWN). */
int dvm_spawn_listen(hnp_dvm_t *dvm);
/** The job of the family that is @p jobid (a running job, or the
 *  runtime's own in a standalone hnp), or NULL. */
hnp_job_t *dvm_family_job(hnp_dvm_t *dvm, uint32_t jobid);
/** Answer @p c's spawn request (once): its children are started
 *  (HNP_SUCCESS) or not, saying why. */
void dvm_spawn_answer(dvm_conn_t *c, int status, const char *why);
/** @p c's job (a spawned one) concluded with @p status: the family
 *  learns it (a failure ends the family; a parent waiting for its
 *  children ends with the last). */
void dvm_spawn_concluded(hnp_dvm_t *dvm, uint32_t parent_jobid,
                         int status);
/** Whether job @p jobid has spawned jobs still running. */
bool dvm_has_children(hnp_dvm_t *dvm, uint32_t jobid);
/** Job @p job ends abnormally: its spawned jobs end too. */
void dvm_end_children(hnp_dvm_t *dvm, const hnp_job_t *job);

/* dvm_grow.c: daemons started for a spawn */
struct hnp_nodelist;
struct hnp_wire_spawn_request;
/** The request again, once the daemons it needed are up (@p why NULL),
 *  or could not be started (@p why says which and why); @p asked is when
 *  it first came (--timing counts the daemons' start in the spawn). */
typedef void (*dvm_spawn_replay_fn)(hnp_dvm_t *dvm, hnp_vpid_t src,
                                    const void *data, size_t len,
                                    const char *why,
                                    const struct timespec *asked);
/** The allocation a standalone hnp's spawns stay in: the job's --host and
 *  --hostfile, else the batch system's (the plm's allocated_nodes). */
int dvm_allocation(const hnp_dvm_t *dvm, struct hnp_nodelist *alloc,
                   char *err, size_t errlen);
/** Into @p out, the nodes the request's host keys name that run no
 *  daemon, with their slots: nodes of a standalone hnp's allocation
 *  (PMIX_HOST, PMIX_HOSTFILE, or no host and too few free slots), and
 *  nodes PMIX_ADD_HOST and PMIX_ADD_HOSTFILE add, in the allocation (the
 *  DVM) or not. A node outside it that a key cannot add, or a hostfile
 *  that cannot be read, fails, @p err naming the node or file and the
 *  key. */
int dvm_grow_needed(hnp_dvm_t *dvm, const struct hnp_wire_spawn_request *req,
                    struct hnp_nodelist *out, char *err, size_t errlen);
/** Start daemons on @p nodes (taken over), then @p replay the request
 *  (@p req as @p data came, copied, first received at @p asked). While
 *  other daemons are being started, or requests wait for theirs, it
 *  waits in line and is replayed in its turn (asking again what it
 *  needs). */
int dvm_grow_then_replay(hnp_dvm_t *dvm, hnp_vpid_t src,
                         const struct hnp_wire_spawn_request *req,
                         const void *data, size_t len,
                         const struct timespec *asked,
                         struct hnp_nodelist *nodes,
                         dvm_spawn_replay_fn replay, char *err,
                         size_t errlen);
/** The requests of job @p jobid waiting for daemons are dropped (it
 *  ended): no answer, no replay. */
void dvm_grow_drop_job(hnp_dvm_t *dvm, uint32_t jobid);
/** The requests waiting for daemons whose daemon is lost are dropped. */
void dvm_grow_drop_lost(hnp_dvm_t *dvm);
/** Free every request waiting for daemons (hnp_dvm_destroy). */
void dvm_grow_release(hnp_dvm_t *dvm);
/* dvm.c: the tables by node take @p nnodes nodes (the new ones zero) */
int dvm_grow_node_tables(hnp_dvm_t *dvm, uint32_t nnodes);

/* dvm_addhost.c */
struct hnp_wire_spawn_request;
/** The nodes @p req's apps add (PMIX_ADD_HOST, PMIX_ADD_HOSTFILE): each
 *  must hold a daemon by now (else @p err names it); an app that names no
 *  host or hostfile of its own gets them as its hosts. A relative
 *  PMIX_HOSTFILE becomes the path dvm_spawn_host_path() gives. */
int dvm_spawn_add_hosts(hnp_dvm_t *dvm, struct hnp_wire_spawn_request *req,
                        char *err, size_t errlen);
struct hnp_wire_spawn_app;
/** Into @p out, hostfile @p path of @p req's @p app as the spawning rank
 *  meant it: from the app's directory, else the parent's. */
void dvm_spawn_host_path(hnp_dvm_t *dvm,
                         const struct hnp_wire_spawn_request *req,
                         const struct hnp_wire_spawn_app *app,
                         const char *path, char *out, size_t len);

/* dvm_spawn_timing.c: --timing of the spawns */
/** @p c's job was asked for at @p asked by rank @p parent_rank of its
 *  parent job; nothing more is done unless the parent runs with
 *  --timing. */
void dvm_spawn_timing_asked(dvm_conn_t *c, const struct timespec *asked,
                            uint32_t parent_rank);
/** Every process of @p c's job started. */
void dvm_spawn_timing_started(dvm_conn_t *c);
/** A collective across jobs over @p members completed: a spawned job
 *  whose every rank took part with another job's is connected. */
void dvm_spawn_timing_gathered(hnp_dvm_t *dvm,
                               const hnp_wire_member_t *members,
                               uint32_t nmembers);
/** @p c's job ends: its line, if not written yet. */
void dvm_spawn_timing_ended(dvm_conn_t *c);

/* dvm_gather.c */
/** Serve the daemons' collectives across jobs (HNP_TAG_GATHER). */
int dvm_gather_listen(hnp_dvm_t *dvm);
/** Job @p jobid ends: the collectives naming it fail. */
void dvm_gather_job_ended(hnp_dvm_t *dvm, uint32_t jobid);
void dvm_gather_release(hnp_dvm_t *dvm);

/* dvm_sched.c */
/** Map @p c's job onto the free slots and take them: whether it runs
 *  now. A spawned job (@p family) never waits for another job. */
bool dvm_place(hnp_dvm_t *dvm, dvm_conn_t *c, bool family);
/** Launch @p c's placed job. */
void dvm_launch(hnp_dvm_t *dvm, dvm_conn_t *c);
/** The running job @p jobid's connection, or NULL. */
dvm_conn_t *dvm_running_job(hnp_dvm_t *dvm, uint32_t jobid);
/** Take @p req (taken over) of @p c: run it now, queue it or refuse it. */
void dvm_submit(hnp_dvm_t *dvm, dvm_conn_t *c, hnp_wire_dvm_request_t *req);
/** Whether the HNP tells every daemon of each all-gather it hears of
 *  (a running job that may gather leaves daemons without ranks). */
void dvm_announce_collectives(hnp_dvm_t *dvm);
/** A standalone hnp's job leaves live daemons without ranks
 *  (plm_base_daemons_on_all_nodes): they hear of its all-gathers from
 *  the HNP. Never for a DVM, whose runtime job has no processes. */
bool dvm_runtime_leaves_daemons_out(const hnp_dvm_t *dvm);
/** Answer --dvm-jobs. */
void dvm_list_jobs(hnp_dvm_t *dvm, dvm_conn_t *c);
/** The client of @p c got signal @p sig: its job's, or it ends it. */
void dvm_client_signal(hnp_dvm_t *dvm, dvm_conn_t *c, int sig);
/** The jobs waiting start while the first fits; a stopping DVM whose
 *  jobs have all ended ends. */
void dvm_start_next(hnp_dvm_t *dvm);
void dvm_dequeue(hnp_dvm_t *dvm, dvm_conn_t *c);
/** A running job's slots back to the DVM. */
void dvm_give_back_slots(hnp_dvm_t *dvm, dvm_conn_t *c);
/** A running job is over: its client told, its slots to those waiting.
 *  A timer's callback (@p cbdata: the connection). */
void dvm_conclude(hnp_rte_t *rte, void *cbdata);

#endif /* HNP_DVM_SERVER_H */
