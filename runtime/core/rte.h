/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime context behind hnp_rte.h, shared by the HNP and the daemon
 * (not installed). Everything a process of the runtime holds lives here and
 * is passed around; there are no other globals.
 */
#ifndef HNP_RTE_INTERNAL_H
#define HNP_RTE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "procs/children.h"
#include "params.h"
#include "wire/frame.h"
#include "hnp_buffer.h"
#include "hnp_exchange.h"
#include "hnp_log.h"
#include "hnp_plm.h"
#include "pmi_base.h"
#include "hnp_routed.h"
#include "hnp_rte.h"
#include "startup.h"
#include "launch/launcher.h"
#include "oob/oob.h"

/* Tags the core uses (below HNP_TAG_PLM_FIRST). */
enum {
    HNP_TAG_JOIN = 1,      /* child -> spawn parent: I am up, here is my URI */
    HNP_TAG_WELCOME,       /* spawn parent -> child: job size, params, subtree */
    HNP_TAG_XCAST,         /* broadcast down the routing tree; wraps a tag */
    HNP_TAG_LAUNCH,        /* (in an xcast) the application to start */
    HNP_TAG_SHUTDOWN,      /* (in an xcast, or from the spawn parent) kill
                              the processes and exit */
    HNP_TAG_SIGNAL,        /* (in an xcast) signal the processes */
    HNP_TAG_IOF,           /* daemon -> HNP: output of a rank */
    HNP_TAG_PROC_EXIT,     /* daemon -> HNP: a rank ended */
    HNP_TAG_PROCS_STARTED, /* daemon -> HNP: every local rank was forked */
    HNP_TAG_FAILURE,       /* anyone -> HNP: a fatal error, in words */
    HNP_TAG_PHASE2_DONE,   /* daemon -> HNP: my contact table is complete */
    HNP_TAG_STATS,         /* daemon -> HNP: what it cost, when it leaves */
    HNP_TAG_STDIN,         /* HNP -> daemon: a chunk of hnp's stdin */
    HNP_TAG_STDIN_ACK,     /* daemon -> HNP: every chunk so far is written */
    HNP_TAG_REPORT,        /* daemon -> HNP: a line for the user (bindings,
                              hnp_rte_report()) */
    HNP_TAG_HEARTBEAT,     /* routing neighbours: still alive */
    HNP_TAG_PEER_LOST,     /* daemon -> HNP: a neighbour died or went silent */
    HNP_TAG_DAEMON_UP,     /* up the spawn tree to the HNP: vpid joined */
    HNP_TAG_PMI_ABORT,     /* daemon -> HNP: a process called PMI abort */
    HNP_TAG_REQUEST,       /* daemon -> daemon: hnp_rte_request() */
    HNP_TAG_REPLY,         /* daemon -> daemon: its answer */
    HNP_TAG_IOF_ACK,       /* HNP -> daemon: output taken on (flow control) */
    HNP_TAG_STATE_REQUEST, /* (in an xcast) --timeout: each rank's state,
                              and its stack with --get-stack-traces */
    HNP_TAG_STATE_REPLY,   /* daemon -> HNP: its ranks' state (and stacks) */
    HNP_TAG_SPAWN_NOTE,    /* up the spawn tree to the HNP: a child a
                              daemon is still starting: the command, the
                              agent's last words */
    HNP_TAG_KILL_DAEMON,   /* HNP -> spawn parent: kill that child, the job
                              gave up on it */
    HNP_TAG_LEAVING,       /* daemon -> its connected daemons: leaving at
                              the job's end, its close is no death */
    HNP_TAG_JOB_END,       /* (in an xcast) a runtime that outlives its
                              jobs: end one job here, keep serving */
    HNP_TAG_COLLECTIVE,    /* (in an xcast) an all-gather the HNP heard
                              of, for daemons without ranks to join */
    HNP_TAG_SPAWN,         /* daemon -> HNP: a rank asks for a new job
                              (hnp_rte_spawn) */
    HNP_TAG_SPAWN_REPLY,   /* HNP -> daemon: its children started, or why
                              not */
    HNP_TAG_GATHER,        /* daemon -> HNP: its part of a collective
                              across jobs (hnp_rte_gather_across) */
    HNP_TAG_GATHER_REPLY,  /* HNP -> daemon: every part of it */
    HNP_TAG_NAME,          /* daemon -> HNP: publish, look up, unpublish
                              a name (names.c) */
    HNP_TAG_NAME_REPLY,    /* HNP -> daemon: its answer */
    HNP_TAG_GROW,          /* (in an xcast) daemons are added: the
                              runtime's new size, their nodes (grow.c) */
    HNP_TAG_GROWN,         /* daemon -> HNP: grown, and the routing
                              parent of an added daemon */
    HNP_TAG_CONTACTS,      /* HNP -> an added daemon, or in an xcast:
                              contacts of daemons (grow.c) */
    HNP_TAG_CORE_MAX = 99,
};

#define HNP_RTE_MAX_TAG 1000

typedef struct hnp_rte_spawn_notes hnp_rte_spawn_notes_t;
typedef struct hnp_rte_growth hnp_rte_growth_t;
typedef struct hnp_rte_growth_waiter hnp_rte_growth_waiter_t;
/** The HNP: no growth is under way and the requests before this one
 *  have had their turns: it asks again what it needs (the growth before
 *  may have started its daemons) and may start a growth of its own. */
typedef void (*hnp_rte_growth_turn_fn)(hnp_rte_t *rte, void *ctx);
/** The HNP: the daemons hnp_rte_add_daemons() started have all joined
 *  (@p status HNP_SUCCESS), or one could not be started (@p why says
 *  which and why). */
typedef void (*hnp_rte_added_fn)(hnp_rte_t *rte, int status, const char *why,
                                 void *ctx);

typedef struct hnp_rte_handler {
    hnp_rte_recv_fn fn;
    void *cbdata;
} hnp_rte_handler_t;

/* Called by the core for events the role (HNP or daemon) must act on. */
typedef struct hnp_rte_role {
    void (*peer_up)(hnp_rte_t *rte, hnp_vpid_t peer);
    void (*peer_down)(hnp_rte_t *rte, hnp_vpid_t peer, size_t unsent);
    void (*failure)(hnp_rte_t *rte, int status, const char *message);
    /* phase 2 has started here (every spawn child joined): the HNP sends
     * the launch now, so that phase 3 overlaps phase 2; a daemon starts
     * the pmi components of the job to come (pmi_base_start_early) */
    void (*exchange_started)(hnp_rte_t *rte);
    /* this process holds every daemon's contact */
    void (*contacts_complete)(hnp_rte_t *rte);
    /* routing neighbour @p vpid is gone; @p why completes "the daemon on
     * node N (vpid V) ..." (hnp_rte_describe_lost) */
    void (*neighbour_lost)(hnp_rte_t *rte, hnp_vpid_t vpid, const char *why);
    /* HNP: daemon @p vpid has joined the job (reported up the spawn tree) */
    void (*daemon_up)(hnp_rte_t *rte, hnp_vpid_t vpid);
    /* the OOB holds nothing more to send: written, or dropped with its peer */
    void (*drained)(hnp_rte_t *rte);
    /* whether direct peer @p peer is above this process (a daemon's spawn
     * or routing parent, or the HNP): only such a peer may send what comes
     * down the trees (launch, signal, shutdown, ...). NULL: nobody is. */
    bool (*above)(hnp_rte_t *rte, hnp_vpid_t peer);
    void *ctx;
} hnp_rte_role_t;

struct hnp_rte {
    struct event_base *base;
    hnp_log_stream_t *log;
    hnp_setup_t *setup;         /* frameworks and parameters (not owned) */
    bool is_hnp;
    hnp_vpid_t self;
    uint32_t nprocs;            /* HNP + daemons */
    uint32_t nfirst;            /* of them, those of the first launch; the
                                   others were added to the running
                                   runtime (grow.c) */
    char **node_names;          /* [nprocs]; entries may be NULL if unknown */
    char **uris;                /* [nprocs]: contacts not handed to the OOB yet */
    bool *uri_wanted;           /* [nprocs]: a send waits for that contact */
    uint8_t secret[HNP_SECRET_LEN];
    char secret_hex[2 * HNP_SECRET_LEN + 1];

    hnp_oob_t *oob;
    hnp_children_t *children;
    hnp_launcher_t *launcher;   /* created on the first spawn */
    char *daemon_path;          /* absolute path of hnpd */
    char agent_error[512];      /* why no agent could be used, or "" */
    char handshake_arg[32];     /* oob_tcp_handshake_timeout for daemons'
                                   command lines, or "" if the default */

    const hnp_routed_module_t *routed;
    const hnp_plm_module_t *plm;
    const hnp_exchange_module_t *exchange;
    /* the components chosen, as "plm", "routed", "exchange" name them: the
     * HNP tells its daemons, which then load those alone */
    char selected[3][HNP_MCA_NAME_LEN];
    /* The HNP: the job the exchange was chosen for, and the priorities
     * the components offered for it (hnp_rte_select_exchange_for) */
    hnp_exchange_job_t exchange_job;
    char exchange_offers[128];
    /* the active pmi components; a daemon forwards the HNP's list to the
     * daemons it starts (NULL in the HNP, "" for none) and selects the
     * job's at launch */
    hnp_pmi_active_t pmi;
    const char *pmi_wanted;
    /* those the first job's programs use, which the daemons of that
     * job's launch start before its launch arrives (pmi_base_start_early;
     * the welcome carries it): the HNP's choice, a daemon's copy, passed
     * on; NULL or "" for none */
    const char *pmi_early;
    bool pmi_selected;
    hnp_tree_t spawn_tree;
    hnp_tree_t routing_tree;
    uint32_t spawn_joined;      /* spawn children that called back */
    bool spawn_attached;        /* daemons started keep their agent... */
    uint32_t attached_started;  /* ...up to plm_rsh_num_concurrent of them */
    hnp_rte_growth_t *growth;   /* HNP: daemons being added (grow.c) */
    char *growth_broken;        /* HNP: why no more can be (one that
                                   could not start stays a vpid) */
    hnp_rte_growth_waiter_t *growth_waiting; /* HNP: requests in line for
                                   a growth (growth_queue.c) */
    hnp_rte_timer_t *growth_turns; /* HNP: the first in line's turn is due */
    bool growth_turn_taken;     /* HNP: the first in line takes its turn */
    hnp_rte_spawn_notes_t *spawn_notes; /* a daemon's word on its children
                                   slow to start (spawn_notes.c) */
    /* What the HNP's descriptor plan lowered (0: the parameters' values):
     * agents running at once, and connections awaiting their handshake */
    unsigned agents_in_flight;
    unsigned max_handshakes;
    bool ready;                 /* a daemon before its welcome holds messages */
    bool closing;               /* the job is ending: no new connections */
    uint8_t *left;              /* bit per vpid: said HNP_TAG_LEAVING
                                   (leaving.c); NULL until one does */
    bool announce_collectives;  /* HNP: the job leaves daemons without
                                   ranks; tell them of each all-gather */
    bool finalized;             /* the modules' finalize hooks have run */
    struct hnp_rte_heartbeat *heartbeat;
    struct hnp_rte_job *jobs;   /* the application jobs held here (job.c) */
    uint32_t job_serial;        /* jobs begun (a daemon) or ended (the
                                   HNP) here so far */
    /* All-gathers of series no live job here owns (yet, or any more),
     * that this process heard of (collective.c) */
    struct hnp_rte_series *series;
    size_t nseries;
    struct hnp_rte_gather *gathers; /* all-gathers to start from the loop */
    struct hnp_rte_requests *requests; /* hnp_rte_request() (request.c) */
    struct hnp_rte_spawns *spawns; /* hnp_rte_spawn() (dynjob.c), NULL
                                      until the first */
    struct hnp_rte_across *across; /* hnp_rte_gather_across() (across.c),
                                      NULL until the first */
    struct hnp_rte_names *names; /* the name service (names.c) */
    char *hnp_uri;              /* the HNP's contact (own copy) */
    /* The parameters every welcome carries, packed once: the HNP's own
     * (hnp_params_pack), or in a daemon those its parent forwarded, passed
     * on as they came: a node's own settings never reach its subtree. */
    void *welcome_params;
    size_t welcome_params_len;

    hnp_rte_handler_t handlers[HNP_RTE_MAX_TAG];
    struct hnp_held_message *held; /* arrived before their handler */
    struct event *deliver_held; /* delivers them from the loop */
    bool held_due;              /* some are deliverable: arrivals wait */
    hnp_rte_role_t role;

    const hnp_core_params_t *core; /* the core's parameters (in setup) */

    /* The scratch roots (scratch.c), made at their first use, NULL until
     * then: [0] under TMPDIR, [1] in memory (/dev/shm). */
    char *scratch_root[2];
    /* An open descriptor of each root, locked (flock) while the root is
     * ours: a process that finds the root of a dead maker removes it only
     * if nobody holds that lock. Valid while scratch_root[k] is set. */
    int scratch_lock[2];
    bool scratch_swept[2];       /* dead makers' roots looked for */
    /* Told of each root as it is made (a later one of the same kind
     * replaces it), so that it goes even if this process is killed (the
     * daemon's sentinel); NULL: nobody. */
    void (*scratch_guard)(void *ctx, unsigned kind, const char *path);
    void *scratch_guard_ctx;
};

/* rte.c */
int hnp_rte_create(hnp_rte_t **out, hnp_setup_t *setup, bool is_hnp,
                   hnp_vpid_t self, char *err, size_t errlen);
/** Stop the heartbeats and call the exchange's and the plm's finalize
 *  (once; destroy calls it too). Nothing is freed. */
void hnp_rte_finalize(hnp_rte_t *rte);
void hnp_rte_destroy(hnp_rte_t *rte);
/* scratch.c: remove the scratch roots and all under them (idempotent). */
void hnp_rte_scratch_release(hnp_rte_t *rte);
/** Remove the scratch roots now, and keep their names for a later
 *  hnp_rte_scratch_release() (what was made in between goes then). */
void hnp_rte_scratch_empty(hnp_rte_t *rte);
/** The neighbour a message for @p dest goes to next. */
hnp_vpid_t hnp_rte_next_hop(const hnp_rte_t *rte, hnp_vpid_t dest);
/** Open the listeners; @p nprocs may be 0 while unknown. */
int hnp_rte_start_oob(hnp_rte_t *rte, uint32_t nprocs, char *err,
                      size_t errlen);
/** A copy of @p strings[0..n) in one block, freed by one free(): entry n
 *  is NULL, a NULL entry stays NULL, or points to a copy of @p for_null
 *  when that is given. NULL when out of memory. */
char **hnp_rte_strings_copy(uint32_t n, char *const *strings,
                            const char *for_null);
/** Set the job size and node names (copied in one block; NULL entries
 *  allowed); all of the first launch (rte->nfirst). */
int hnp_rte_set_procs(hnp_rte_t *rte, uint32_t nprocs,
                      char *const *node_names);
/** Open and select the frameworks' components (the plm only when
 *  hnp_rte_set_plm() has not given it), checking the plm's module; in the
 *  HNP, of pmi, every active one (rte->pmi). */
int hnp_rte_select_components(hnp_rte_t *rte, char *err, size_t errlen);
/** Select the active pmi components into rte->pmi, once: every one that
 *  accepts (the HNP, @p wanted NULL), or exactly those of the comma list
 *  @p wanted (a daemon, at launch: the job's). */
int hnp_rte_select_pmi(hnp_rte_t *rte, const char *wanted, char *err,
                       size_t errlen);
/** The HNP, once the job's size is known: choose the exchange again by
 *  the priority each component offers for @p ndaemons daemons (its
 *  job_priority hook), with the trees the selected plm and routed build. */
int hnp_rte_select_exchange_for(hnp_rte_t *rte, uint32_t ndaemons, char *err,
                                size_t errlen);
/** A daemon: use @p module of plm component @p name, selected before the
 *  runtime existed to learn who the daemon is (hnp_setup_select_plm). */
void hnp_rte_set_plm(hnp_rte_t *rte, const char *name,
                     const hnp_plm_module_t *module);
/** HNP: the launch model of the selected plm, or, when it gives none (a
 *  flat launcher), of the first plm component that does.
 *  HNP_ERR_NOT_FOUND when none does. */
int hnp_rte_launch_model(hnp_rte_t *rte, hnp_plm_launch_model_t *model);
/** Leave the event loop (also when called before it runs). */
void hnp_rte_stop_loop(hnp_rte_t *rte);
/** The process knows its job: what was held back is delivered from the
 *  loop. */
void hnp_rte_set_ready(hnp_rte_t *rte);
/** The event that delivers held messages (rte->base must exist). */
int hnp_rte_held_create(hnp_rte_t *rte);
/** Free the messages still waiting for a handler, and that event. */
void hnp_rte_held_destroy(hnp_rte_t *rte);
/** Send @p data to every routing child (wrapped for forwarding) — the
 *  launch broadcast; the caller handles its own copy. */
int hnp_rte_xcast(hnp_rte_t *rte, uint32_t tag, const void *data, size_t len);
/** Send @p data to every spawn child this process is connected to. While
 *  phase 2 is incomplete a joined daemon may be reachable only from its
 *  spawn parent, not along the routing tree: what ends a job uses this
 *  too. */
int hnp_rte_send_spawn_children(hnp_rte_t *rte, uint32_t tag,
                                const void *data, size_t len);

/* job.c: the application jobs of a daemon (the pmi framework's services) */
/** At launch, before the pmi components' job_start: @p node_of (copied)
 *  gives each of the @p nprocs ranks' node (node n is daemon vpid n + 1);
 *  @p nlocal ranks run on this node; the job owns @p nseries series of
 *  all-gathers (hnp_rte_job_series(jobid, nseries, i), i < nseries). A
 *  daemon without ranks calls it too (nlocal 0): it then joins the job's
 *  all-gathers with nothing. Several jobs may be held at once.
 *  HNP_ERR_EXISTS: a live job here owns one of its series. */
int hnp_rte_job_begin(hnp_rte_t *rte, uint32_t jobid, uint32_t nprocs,
                      const uint32_t *node_of, uint32_t nlocal,
                      uint32_t nseries);
/** The launch's node names of job @p jobid (copied; node n is daemon vpid
 *  n + 1), for hnp_rte_job_info() of another job of the family. */
int hnp_rte_job_set_nodes(hnp_rte_t *rte, uint32_t jobid, uint32_t nnodes,
                          char *const *names);
/** After every component's job_end: the job's requests waiting for an
 *  answer fail (their fn is called now, with HNP_ERR_UNREACHABLE), its
 *  requests held for a service are refused, its ranks' states are
 *  forgotten, its all-gathers others wait for are joined with nothing,
 *  and answers to its requests a service still holds are dropped.
 *  Nothing when the job is not held. */
void hnp_rte_job_end(hnp_rte_t *rte, uint32_t jobid);
/** Series @p i of the @p nseries of job @p jobid: 1..65535, the same on
 *  every daemon; the series of jobs less than 65535 / nseries ids apart
 *  differ. */
uint32_t hnp_rte_job_series(uint32_t jobid, uint32_t nseries, uint32_t i);
/** The one job held here, or 0 (none, or several). */
uint32_t hnp_rte_job_only(const hnp_rte_t *rte);
/** @p rank of job @p jobid reached HNP_RTE_PROC_CONNECTED and not
 *  HNP_RTE_PROC_FINALIZED here: its exit is an error. */
bool hnp_rte_proc_unfinalized(const hnp_rte_t *rte, uint32_t jobid,
                              uint32_t rank);
/** The largest contribution hnp_rte_allgather() takes: what the driver
 *  gives as hnp_pmi_job_t::max_allgather_bytes. */
size_t hnp_rte_allgather_max(const hnp_rte_t *rte);
/** The daemon hosting @p rank of job @p jobid, or HNP_VPID_INVALID. */
hnp_vpid_t hnp_rte_job_host(const hnp_rte_t *rte, uint32_t jobid,
                            uint32_t rank);
/** Free what job.c holds (hnp_rte_destroy). */
void hnp_rte_job_destroy(hnp_rte_t *rte);
/** The HNP of a runtime that outlives its jobs, at job @p jobid's end
 *  (it owned @p nseries series): how far it joined them is kept a while
 *  as an ended job's, then forgotten, so that the HNP holds nothing per
 *  job. */
void hnp_rte_collectives_forget(hnp_rte_t *rte, uint32_t jobid,
                                uint32_t nseries);
/** A daemon: join with nothing the all-gathers the HNP announces
 *  (HNP_TAG_COLLECTIVE) of the jobs it holds without ranks here. */
int hnp_rte_collectives_listen(hnp_rte_t *rte);

/* request.c: requests to the daemon that hosts a rank */
int hnp_rte_requests_create(hnp_rte_t *rte);
void hnp_rte_requests_destroy(hnp_rte_t *rte);
/** Job @p jobid begins: listen for requests and answers (once), and
 *  serve those that waited for its launch. */
int hnp_rte_requests_job_begin(hnp_rte_t *rte, uint32_t jobid);
/** Direct neighbour @p vpid is gone: the requests to it, or routed
 *  through it, fail (from the loop). */
void hnp_rte_requests_lost(hnp_rte_t *rte, hnp_vpid_t vpid);

/* dynjob.c: a daemon's spawn requests (hnp_rte_spawn) */
/** Job @p jobid ends here (hnp_rte_job_end): its spawns still waiting
 *  for their answer fail now (HNP_ERR_UNREACHABLE). */
void hnp_rte_spawns_job_end(hnp_rte_t *rte, uint32_t jobid);
void hnp_rte_spawns_destroy(hnp_rte_t *rte);
/* across.c */
void hnp_rte_across_destroy(hnp_rte_t *rte);
/* names.c: the name service (MPI_Publish_name) */
/** The HNP holds the names and serves them; a daemon asks. */
int hnp_rte_names_create(hnp_rte_t *rte);
void hnp_rte_names_destroy(hnp_rte_t *rte);
/** Job @p jobid ended: at the HNP its waiting lookups are answered "not
 *  found" and its names go (those published to persist stay); at a
 *  daemon its requests waiting for an answer fail (HNP_ERR_UNREACHABLE). */
void hnp_rte_names_job_end(hnp_rte_t *rte, uint32_t jobid);
/** The HNP: job @p jobid was spawned by job @p parent, whose family's
 *  names it sees. */
int hnp_rte_names_job_family(hnp_rte_t *rte, uint32_t jobid,
                             uint32_t parent);

/* contacts.c: phase 2, the same in the HNP and in a daemon */
/** Every spawn child of this process has joined (or it has none): offer
 *  this process's contact to the exchange, then role.exchange_started. */
void hnp_rte_spawn_complete(hnp_rte_t *rte);
/** The heartbeat found routing neighbour @p vpid silent for @p seconds:
 *  role.neighbour_lost with the one description of it. */
void hnp_rte_neighbour_silent(hnp_rte_t *rte, hnp_vpid_t vpid, double seconds);
/** "the daemon on node N (vpid V) WHY" into @p out; snprintf's result. */
int hnp_rte_describe_lost(const hnp_rte_t *rte, hnp_vpid_t vpid,
                          const char *why, char *out, size_t outlen);

/* heartbeat.c: routing neighbours that fall silent */
int hnp_rte_heartbeat_start(hnp_rte_t *rte, double interval, unsigned misses);
void hnp_rte_heartbeat_stop(hnp_rte_t *rte);
/** A message came from direct peer @p from: it is alive. */
void hnp_rte_heartbeat_heard(hnp_rte_t *rte, hnp_vpid_t from);
/** While held, no neighbour is declared gone (the job is stopped, and the
 *  HNP with it); on release every neighbour starts a fresh count. */
void hnp_rte_heartbeat_hold(hnp_rte_t *rte, bool hold);
/** Before the runtime grows to @p nprocs (grow.c): the routing children
 *  it gains are watched too, not heard from yet. */
int hnp_rte_heartbeat_grow(hnp_rte_t *rte, uint32_t nprocs);
/** Whether the heartbeat watches routing neighbour @p vpid. */
bool hnp_rte_heartbeat_watches(const hnp_rte_t *rte, hnp_vpid_t vpid);

/* grow.c: daemons added to a running runtime */
/** The runtime grows from rte->nprocs to @p nprocs processes: daemons
 *  rte->nprocs..nprocs-1 run on the nodes @p new_names names (copied).
 *  Every table this process holds by vpid grows (node names, contacts,
 *  leaving bits, heartbeats, spawn notes, the OOB's vpid range); the
 *  routing tree is the routed component's over @p nprocs, whose routes
 *  among the first processes are the same; the spawn tree keeps every
 *  spawn parent and has the new daemons below the HNP. The all-gathers
 *  are not told (hnp_rte_grow_collectives). On failure nothing changes.
 *  HNP_ERR_BAD_PARAM when @p nprocs is not larger, HNP_ERR_NOT_AVAILABLE
 *  when the exchange cannot take added daemons. */
int hnp_rte_grow(hnp_rte_t *rte, uint32_t nprocs, char *const *new_names);
/** Whether the selected components let the runtime grow (the exchange's
 *  grow hook): hnp_rte_grow() is HNP_ERR_NOT_AVAILABLE otherwise. */
bool hnp_rte_can_grow(const hnp_rte_t *rte);
/** The all-gathers that begin from now on count every process of the
 *  grown runtime (the exchange's grow hook): in the HNP once the added
 *  daemons have joined, in a daemon when it hears of them. */
int hnp_rte_grow_collectives(hnp_rte_t *rte);
/** The HNP: start daemons on the @p count nodes @p nodes names, as the
 *  vpids after the others: the running daemons are told first (and the
 *  routing parent of each waits for no more), then the daemons are
 *  started as the first ones were, welcomed, sent every contact, and
 *  their contacts go to every daemon. @p done is called once, from the
 *  loop. One growth at a time: while one is under way or requests wait
 *  in line (hnp_rte_growth_busy), HNP_ERR_EXISTS (wait with
 *  hnp_rte_growth_wait); after a daemon could not be started, no more
 *  (HNP_ERR_NOT_AVAILABLE, @p err names the first that could not).
 *  @p err says why not. */
int hnp_rte_add_daemons(hnp_rte_t *rte, char *const *nodes, uint32_t count,
                        hnp_rte_added_fn done, void *ctx, char *err,
                        size_t errlen);
/** A daemon: take the HNP's word of daemons added. */
int hnp_rte_accept_growth(hnp_rte_t *rte);
/** The HNP: added daemon @p vpid has joined. */
void hnp_rte_growth_joined(hnp_rte_t *rte, hnp_vpid_t vpid);
/** The HNP: added daemon @p vpid could not be started (@p why): the
 *  growth fails, the runtime goes on. False when @p vpid is no added
 *  daemon being started (then the failure is the runtime's). */
bool hnp_rte_growth_failed(hnp_rte_t *rte, hnp_vpid_t vpid, const char *why);
/** The growth going on started its daemons with the plm's launch_added. */
bool hnp_rte_growth_by_command(const hnp_rte_t *rte);
/** The HNP: the growth under way for @p ctx goes on, @p ctx is no
 *  longer told of its end (its requester went away). */
void hnp_rte_growth_abandon(hnp_rte_t *rte, void *ctx);
/** Free the HNP's growth state (hnp_rte_destroy): the growth under way
 *  and the requests in line (whose owners free their contexts). */
void hnp_rte_growth_destroy(hnp_rte_t *rte);

/* growth_queue.c: the requests waiting for a growth, in line */
/** The HNP: whether a request that needs daemons must wait its turn (a
 *  growth is under way, or requests wait before it). False for the first
 *  in line while it takes its turn. */
bool hnp_rte_growth_busy(const hnp_rte_t *rte);
/** The HNP: @p turn(@p ctx) is called once from the loop, when no growth
 *  is under way and the requests queued before have had theirs, whether
 *  the growth before succeeded or not. @p *out is its place in line,
 *  valid until its turn is called or hnp_rte_growth_unwait(). */
int hnp_rte_growth_wait(hnp_rte_t *rte, hnp_rte_growth_turn_fn turn,
                        void *ctx, hnp_rte_growth_waiter_t **out);
/** The HNP: @p waiter leaves the line; its turn is never called. */
void hnp_rte_growth_unwait(hnp_rte_t *rte, hnp_rte_growth_waiter_t *waiter);
/** The HNP: how many requests wait in line. */
uint32_t hnp_rte_growth_waiting(const hnp_rte_t *rte);
/** The HNP: a growth ended: the first in line takes its turn from the
 *  loop (adding.c). */
void hnp_rte_growth_next_turn(hnp_rte_t *rte);
/** Free the line (hnp_rte_growth_destroy). */
void hnp_rte_growth_queue_destroy(hnp_rte_t *rte);

/* join.c: answer JOIN from spawn children (Algorithm 1) */
int hnp_rte_accept_joins(hnp_rte_t *rte);

/* rte.c: a message handler's opening, written once. HNP_RTE_UNPACK reads
 * @p data into @p out with @p unpack (a wire file's hnp_wire_*_unpack);
 * when the message does not parse, it warns "malformed WHAT from vpid SRC
 * dropped" and is false: the handler returns. */
#define HNP_RTE_UNPACK(rte, src, what, unpack, data, len, out)             \
    hnp_rte_unpacked((rte), (src), (what),                                 \
                     (unpack)(hnp_rte_reader(&(hnp_reader_t){ .pos = 0 },   \
                                             (data), (len)),               \
                              (out)))
/** @p rd, made to read @p len bytes at @p data. */
hnp_reader_t *hnp_rte_reader(hnp_reader_t *rd, const void *data, size_t len);
/** @p rc == HNP_SUCCESS; else the warning above, and false. */
bool hnp_rte_unpacked(hnp_rte_t *rte, hnp_vpid_t src, const char *what,
                      int rc);

/* rte.c: the trees of this job, from the selected routed and plm */
/** The plm's spawn tree over @p nprocs (the flat one if it gives none);
 *  the caller owns it (hnp_tree_release). */
int hnp_rte_plm_spawn_tree(hnp_rte_t *rte, uint32_t nprocs,
                           const hnp_tree_t *routing, hnp_tree_t *out);
/** Release a spawn tree and a routing tree, both the caller's (hnp_tree.h),
 *  and empty them. */
void hnp_rte_release_trees(hnp_tree_t *spawn, hnp_tree_t *routing);
/** rte->routing_tree and rte->spawn_tree, for rte->nprocs: the spawn
 *  tree of the first launch's rte->nfirst processes, with the daemons
 *  added later below the HNP (hnp_tree_extend), as hnp_rte_grow() makes
 *  it. */
int hnp_rte_build_trees(hnp_rte_t *rte);
/** A daemon: the parameters its parent forwarded, to forward in turn. */
int hnp_rte_set_welcome_params(hnp_rte_t *rte, const void *params, size_t len);
/** Daemon: tell the HNP, up the spawn tree, that it has joined. */
int hnp_rte_report_up(hnp_rte_t *rte);

/* spawn.c */
int hnp_rte_launcher_start(hnp_rte_t *rte, char *err, size_t errlen);

/* reap.c: a daemon the job gave up on is killed by its spawn parent */
/** Kill daemon @p vpid: this process's own child through the launcher;
 *  in the HNP, any other by asking its spawn parent. */
void hnp_rte_kill_daemon(hnp_rte_t *rte, hnp_vpid_t vpid);
/** Take the HNP's requests to kill a child (a daemon, at its welcome). */
int hnp_rte_accept_kill_requests(hnp_rte_t *rte);

/* leaving.c: a daemon that leaves at the job's end says so first */
/** Take the word of neighbours that leave. */
int hnp_rte_accept_leaving(hnp_rte_t *rte);
/** Say it to every daemon this one holds a connection with. */
void hnp_rte_say_leaving(hnp_rte_t *rte);
/** Whether @p vpid said it leaves: its close is the job's end. */
bool hnp_rte_peer_left(const hnp_rte_t *rte, hnp_vpid_t vpid);

/* spawn_notes.c: a daemon tells the HNP how the children it is slow to
 * start were started, and what their agents printed (HNP_TAG_SPAWN_NOTE) */
/** A daemon begins to start its children: the first look is armed
 *  (nothing in the HNP, or without plm_base_launch_timeout). */
void hnp_rte_spawn_notes_arm(hnp_rte_t *rte);
/** A daemon passes its spawn children's notes on to its spawn parent. */
int hnp_rte_spawn_notes_relay(hnp_rte_t *rte);
/** The agent of child @p vpid printed something. */
void hnp_rte_spawn_notes_printed(hnp_rte_t *rte, hnp_vpid_t vpid);
/** No more notes: the timers and the state go. */
void hnp_rte_spawn_notes_stop(hnp_rte_t *rte);
/** Before the runtime grows to @p nprocs (grow.c). */
int hnp_rte_spawn_notes_grow(hnp_rte_t *rte, uint32_t nprocs);
/** Agents this process runs at once: plm_rsh_num_concurrent, or fewer
 *  where the HNP's descriptor plan lowered it (0: no limit). */
unsigned hnp_rte_agents_in_flight(const hnp_rte_t *rte);
/** The agent command line the launcher uses (the first plm_rsh_agent
 *  alternative found, with plm_rsh_args), words joined by one blank:
 *  the launch model's key. HNP_ERR_NOT_FOUND when there is none. */
int hnp_rte_agent_name(const hnp_rte_t *rte, char *buf, size_t len);

#endif /* HNP_RTE_INTERNAL_H */
