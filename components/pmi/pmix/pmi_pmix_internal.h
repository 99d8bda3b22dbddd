/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pmix component's private declarations: the daemon's server, the
 * queue that hands libpmix's calls to the event loop, and a job.
 */
#ifndef PMI_PMIX_INTERNAL_H
#define PMI_PMIX_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>

#include "hnp_log.h"
#include "hnp_rte.h"
#include "pmi_pmix.h"
#include "pmi_pmix_cards.h"

/* Direct modex requests between daemons (hnp_rte_serve()). */
#define PMI_PMIX_SERVICE_DMODEX (HNP_TAG_PMI_FIRST + 50)

/* A call handed from libpmix's thread to the event loop: @c run gets the
 * item and frees it. */
typedef struct pmi_pmix_call pmi_pmix_call_t;
typedef void (*pmi_pmix_call_fn)(pmi_pmix_call_t *call);
struct pmi_pmix_call {
    pmi_pmix_call_t *next;
    pmi_pmix_call_fn run;
};

/* A link of a list that an item leaves in O(1), wherever it is (a daemon
 * may have thousands of requests out at once). Whoever owns a list says
 * what guards it. PMI_PMIX_ITEM gives the item a link is the @p member
 * of. */
typedef struct pmi_pmix_link {
    struct pmi_pmix_link *next, **pprev;
} pmi_pmix_link_t;

#define PMI_PMIX_ITEM(link, type, member)                                  \
    ((type *)(void *)((char *)(link) - offsetof(type, member)))

static inline void pmi_pmix_link_add(pmi_pmix_link_t **head,
                                     pmi_pmix_link_t *link)
{
    link->next = *head;
    link->pprev = head;
    if (*head != NULL)
        (*head)->pprev = &link->next;
    *head = link;
}

static inline void pmi_pmix_link_remove(pmi_pmix_link_t *link)
{
    *link->pprev = link->next;
    if (link->next != NULL)
        link->next->pprev = link->pprev;
}

/* A call the loop hands to libpmix's progress thread (pmi_pmix_hop()):
 * @c fn gets the item and frees it; @p run is false when libpmix is gone
 * (the item is only freed then). */
typedef struct pmi_pmix_hop pmi_pmix_hop_t;
typedef void (*pmi_pmix_hop_fn)(pmi_pmix_hop_t *hop, bool run);
struct pmi_pmix_hop {
    pmi_pmix_link_t link;  /* on the server's hops, under its lock */
    struct pmi_pmix_server *srv;
    pmi_pmix_hop_fn fn;
};

typedef struct pmi_pmix_job pmi_pmix_job_t;

/* Connections to the server that were checked, by the server end's
 * inode (the last ones). */
#define PMI_PMIX_GUARD_CHECKED 256
#define PMI_PMIX_GUARD_PENDING 64

/* The watch over connections to the PMIx server (pmi_pmix_guard.c). */
typedef struct pmi_pmix_guard {
    hnp_rte_t *rte;
    int listen_fd;               /* libpmix's, -1 if unknown */
    uint16_t port;
    hnp_rte_fd_watch_t *watch;   /* on listen_fd, resting while a sweep waits */
    hnp_rte_timer_t *soon, *later; /* the sweeps after a readiness */
    uint64_t checked[PMI_PMIX_GUARD_CHECKED];
    size_t nchecked;
    /* connections whose other end was not seen yet (the kernel's listing
     * is not a snapshot): looked for again, refused after a few misses */
    uint64_t pending[PMI_PMIX_GUARD_PENDING];
    unsigned misses[PMI_PMIX_GUARD_PENDING];
    size_t npending;
    unsigned refused;            /* connections shut down so far */
    /* Tool connections libpmix handed to tool_connected, which never
     * answers (libpmix 4.2 crashes on a refusal): their descriptors are
     * left to the guard, which closes them once shut down and unused. */
    unsigned parked_tools;       /* atomic: libpmix's thread adds */
    uint64_t shut[PMI_PMIX_GUARD_PENDING]; /* shut down, maybe parked */
    double shut_at[PMI_PMIX_GUARD_PENDING];
    size_t nshut;
} pmi_pmix_guard_t;

/*
 * The daemon's PMIx server. libpmix's server module carries no context
 * pointer, so its callbacks reach this one object (pmi_pmix_server); it is
 * owned by the component and touched from libpmix's thread only through
 * the queue's lock.
 */
typedef struct pmi_pmix_server {
    hnp_rte_t *rte;
    bool running;            /* PMIx_server_init succeeded */
    bool serving;            /* the dmodex service is posted */
    bool stuck;              /* a call to libpmix missed its deadline */
    pmi_pmix_guard_t guard;  /* who stays connected */
    char *scratch;           /* the server's directory, NULL if none */
    char *store;             /* the shared job-data store's directory
                              * (gds ds21/ds12, in memory), NULL if none */
    hwloc_topology_t topology; /* handed to libpmix, NULL if none */
    pmi_pmix_job_t *jobs;    /* the jobs between start and end */
    pmi_pmix_cards_t cards;  /* other nodes' processes' endpoint data,
                              * from connects (pmi_pmix_connect.c) */
    /* the hand-over queue */
    pthread_mutex_t lock;
    pmi_pmix_call_t *head, *tail;
    int wake_fd;             /* eventfd, -1 when closed */
    hnp_rte_fd_watch_t *watch;
    pmi_pmix_link_t *hops;   /* handed to libpmix's thread, not run yet */
} pmi_pmix_server_t;

extern pmi_pmix_server_t pmi_pmix_server;

struct pmi_pmix_job {
    pmi_pmix_job_t *next;
    const hnp_pmi_job_t *job;  /* the framework's, valid until job_end */
    pmix_nspace_t nspace;
    uint32_t fence_seq;        /* next all-gather of job->series */
    bool *registered;          /* [nprocs] a client was registered */
    char *shm_dir;             /* the ranks' shared-memory files (owned) */
    pid_t *pids;               /* [nprocs] each local rank's, 0 if none */
};

hnp_log_stream_t *pmi_pmix_log(void);
/* The server runs: libpmix's callbacks may be called. */
bool pmi_pmix_live(void);

/* pmi_pmix_queue.c */
int pmi_pmix_queue_open(pmi_pmix_server_t *srv, char *err, size_t errlen);
void pmi_pmix_queue_close(pmi_pmix_server_t *srv);
/* From any thread: run @p call on the loop. */
void pmi_pmix_queue_post(pmi_pmix_server_t *srv, pmi_pmix_call_t *call,
                         pmi_pmix_call_fn run);
/* Run what is queued now (the loop's wake-up, and the close). */
void pmi_pmix_queue_drain(pmi_pmix_server_t *srv);
/* The loop's: run @p hop's @p fn on libpmix's thread, for a callback of
 * libpmix that touches its connection to a client without moving to that
 * thread first (pmi_pmix_queue.c says which). */
void pmi_pmix_hop(pmi_pmix_server_t *srv, pmi_pmix_hop_t *hop,
                  pmi_pmix_hop_fn fn);
/* After PMIx_server_finalize: the hops libpmix never ran are freed. */
void pmi_pmix_hops_drop(pmi_pmix_server_t *srv);

/* pmi_pmix_server.c: the server module handed to PMIx_server_init. */
extern pmix_server_module_t pmi_pmix_server_module;
pmi_pmix_job_t *pmi_pmix_job_find(const char *nspace);
/* Direct-modex requests that came before their job was registered here:
 * served now (@p registered) or refused; @p nspace NULL: all of them. */
void pmi_pmix_dmodex_release_held(const char *nspace, bool registered);
/* Before @p nspace is deregistered (which releases libpmix's records of
 * requests about it): the requests asked of other daemons are answered
 * now, their late answers dropped (the loop's). */
void pmi_pmix_dmodex_forget(const char *nspace);
/* From the deregistration's callback (libpmix's thread): the requests
 * about @p nspace still queued are dropped when they run. */
void pmi_pmix_dmodex_purge_queued(pmi_pmix_server_t *srv, const char *nspace);
/* The serving side: before @p nspace is deregistered, the daemons that
 * asked for its ranks' data are answered (not found); after, what libpmix
 * dropped unanswered is freed (the loop's). */
void pmi_pmix_dmodex_served_end(const char *nspace);
void pmi_pmix_dmodex_served_dropped(const char *nspace);
/* pmi_pmix_module.c: deregister @p nspace, the above around it; waits at
 * most pmi_pmix_call_timeout (PMIX_ERR_TIMEOUT, the server then stuck). */
pmix_status_t pmi_pmix_deregister(const char *nspace);
void pmi_pmix_dmodex_serve(hnp_rte_t *rte, hnp_rte_request_t *req,
                           hnp_vpid_t src, uint32_t jobid, uint32_t rank,
                           const void *data, size_t len, void *cbdata);

/* pmi_pmix_dyn.c: MPI_Comm_spawn */
pmix_status_t pmi_pmix_spawn(const pmix_proc_t *proc,
                             const pmix_info_t job_info[], size_t ninfo,
                             const pmix_app_t apps[], size_t napps,
                             pmix_spawn_cbfunc_t cbfunc, void *cbdata);
/* pmi_pmix_name_value.c: a published value as the name service keeps
 * it (the encodings: pmi_pmix_names.c) */
#define PMI_PMIX_NAME_PACKED { 0xff, 0x00 } /* then a sum, the packing */
#define PMI_PMIX_NAME_MARK_LEN 2
pmix_status_t pmi_pmix_name_value_encode(const pmix_value_t *value,
                                         char **bytes, size_t *len);
/* Into @p value (constructed here; PMIX_VALUE_DESTRUCT it); a value
 * that claims to be packed and is not: PMIX_ERR_UNPACK_FAILURE. */
pmix_status_t pmi_pmix_name_value_decode(const void *bytes, size_t len,
                                         pmix_value_t *value);
/* pmi_pmix_names.c: publish, lookup, unpublish (the server module's) */
pmix_status_t pmi_pmix_publish(const pmix_proc_t *proc,
                               const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t pmi_pmix_lookup(const pmix_proc_t *proc, char **keys,
                              const pmix_info_t info[], size_t ninfo,
                              pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t pmi_pmix_unpublish(const pmix_proc_t *proc, char **keys,
                                 const pmix_info_t info[], size_t ninfo,
                                 pmix_op_cbfunc_t cbfunc, void *cbdata);

/* pmi_pmix_connect.c: ranks of several jobs together */
pmix_status_t pmi_pmix_connect(const pmix_proc_t procs[], size_t nprocs,
                               const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t pmi_pmix_disconnect(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata);
/* A fence whose procs are of several namespaces. */
pmix_status_t pmi_pmix_fence_across(const pmix_proc_t procs[], size_t nprocs,
                                    const char *data, size_t len,
                                    pmix_modex_cbfunc_t cbfunc, void *cbdata);
/* The job of a namespace registered here with no local rank (for a
 * connect): whether @p nspace is one. */
bool pmi_pmix_foreign_jobid(const char *nspace, uint32_t *jobid);
/* Local job @p owner has ended: those no other local job connected with
 * are deregistered (0: all). */
void pmi_pmix_foreign_release(uint32_t owner);
/* The size of a namespace registered here for a connect: whether
 * @p nspace is one. */
bool pmi_pmix_foreign_size(const char *nspace, uint32_t *nprocs);

/* A copy, for the loop, of the data libpmix hands a direct-modex
 * callback on its thread (*@p out NULL, *@p len 0 when there is none);
 * returns @p status, or PMIX_ERR_NOMEM when the copy cannot be made. */
pmix_status_t pmi_pmix_modex_copy(pmix_status_t status, const char *data,
                                  size_t sz, char **out, size_t *len);

/* pmi_pmix_connect_cards.c: the endpoint data a connect carries. */
/* Called once, from the loop: this node's part of the connect, @p data
 * (malloc'd, the callee's; NULL when there is none). */
typedef void (*pmi_pmix_connect_cards_fn)(void *cbdata, uint8_t *data,
                                          size_t len);
/* Ask libpmix for the data of each of @p procs that runs here; @p ready
 * gets the cards that came within pmi_pmix_connect_cards_wait seconds, at
 * most @p max_bytes of them (else none). */
void pmi_pmix_connect_cards_collect(const pmix_proc_t procs[], size_t nprocs,
                                    size_t max_bytes,
                                    pmi_pmix_connect_cards_fn ready,
                                    void *cbdata);
/* Once libpmix is finalized: the asks it never answered are freed. */
void pmi_pmix_connect_cards_stop(void);
/* The whole connect's cards (every node's part): those of processes of
 * other nodes are kept until their job ends here. */
void pmi_pmix_connect_cards_take(const void *data, size_t len,
                                 size_t nprocs);
/* The data of rank @p rank of @p nspace that a connect brought here:
 * whether there is some, then a copy in *@p data (malloc'd). */
bool pmi_pmix_connect_card(const char *nspace, uint32_t rank, char **data,
                           size_t *len);

/* pmi_pmix_fence.c */
void pmi_pmix_fence_start(pmi_pmix_job_t *pj, const char *data, size_t len,
                          pmix_modex_cbfunc_t cbfunc, void *cbdata);

/* pmi_pmix_nspace.c: the namespace's information for libpmix. */
int pmi_pmix_nspace_register(const pmi_pmix_job_t *pj, char *err,
                             size_t errlen);

/* pmi_pmix_peer.c: what the kernel knows of a connection's other end. */
struct sockaddr_storage;
/* Called with each socket of this process: @p fd its number, @p copy a
 * descriptor of the same socket valid during the call, @p inode its
 * inode. */
typedef void (*pmi_pmix_socket_fn)(int fd, int copy, uint64_t inode,
                                   void *cbdata);
int pmi_pmix_own_sockets(pmi_pmix_socket_fn fn, void *cbdata);
uint16_t pmi_pmix_port_of(const struct sockaddr_storage *addr);
/* The owner and inode of the socket at @p peer connected to @p self:
 * HNP_ERR_NOT_FOUND if there is none (any more) on this node. */
int pmi_pmix_peer_lookup(const struct sockaddr_storage *peer,
                         const struct sockaddr_storage *self, uid_t *uid,
                         uint64_t *inode);
/* The kernel's answer to that lookup, @p len bytes of @p buf. */
int pmi_pmix_diag_answer(const void *buf, size_t len, uid_t *uid,
                         uint64_t *inode);
/* The sockets of the ranks' processes, gathered at the first question:
 * the ranks' own first, then, for a socket none of them holds, those of
 * every process of their process groups (a scan of /proc). */
typedef struct pmi_pmix_job_sockets {
    bool ranks_gathered;
    bool gathered;
    uint64_t *inodes;
    size_t n, cap;
} pmi_pmix_job_sockets_t;
bool pmi_pmix_held_by_the_job(pmi_pmix_job_sockets_t *js, uint64_t inode);

/* pmi_pmix_guard.c */
/* This process's listening TCP sockets (up to @p max inodes): before
 * libpmix starts, to tell its own from the runtime's. */
size_t pmi_pmix_guard_listeners(uint64_t *inodes, size_t max);
/* Find libpmix's listening socket (one not in @p before) and watch it. */
int pmi_pmix_guard_start(pmi_pmix_guard_t *g, hnp_rte_t *rte,
                         const uint64_t *before, size_t nbefore, char *err,
                         size_t errlen);
/* Check every connection to the server not decided yet; shut down those
 * from another user or whose other end no process of the ranks holds. */
void pmi_pmix_guard_sweep(pmi_pmix_guard_t *g);
/* From libpmix's thread: a tool connection was parked (never answered). */
void pmi_pmix_guard_park_tool(pmi_pmix_guard_t *g);
void pmi_pmix_guard_stop(pmi_pmix_guard_t *g);

/* pmi_pmix_topology.c */
hwloc_topology_t pmi_pmix_topology_load(void);

/* pmi_pmix_sync.c: wait on the loop thread, with a deadline, for a
 * libpmix operation that answers through a callback. The object is shared
 * with the callback, which may come after the waiter gave up (or never):
 * whichever of the two lets go last frees it. */
typedef struct pmi_pmix_sync pmi_pmix_sync_t;
/* NULL without memory. */
pmi_pmix_sync_t *pmi_pmix_sync_create(void);
/* The callback to hand libpmix with the sync as its cbdata. */
void pmi_pmix_sync_cb(pmix_status_t status, void *cbdata);
/* @p rc: what the call returned; waits only when a callback will come, at
 * most pmi_pmix_call_timeout seconds (then PMIX_ERR_TIMEOUT, and
 * pmi_pmix_server.stuck is set). Releases the waiter's hold on @p sync. */
pmix_status_t pmi_pmix_sync_wait(pmi_pmix_sync_t *sync, pmix_status_t rc);
/* What a status of a waited call says (a missed deadline by its name). */
const char *pmi_pmix_status_string(pmix_status_t status);

#endif /* PMI_PMIX_INTERNAL_H */
