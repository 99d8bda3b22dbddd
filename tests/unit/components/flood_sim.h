/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A simulated job for the unit tests of the `flood` exchange: every process
 * of a spawn tree with its own flood state, the runtime services the
 * component calls faked on top of one pool of messages in flight, and
 * schedulers that interleave contributions, deliveries and event-loop
 * turns. The fake send checks each message as it leaves (only between
 * spawn-tree neighbours, only from a flush) and counts each entry over
 * each edge, so that a run can be checked against Algorithm 2's bounds.
 */
#ifndef TEST_FLOOD_SIM_H
#define TEST_FLOOD_SIM_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "exchange/flood/exchange_flood.h"
#include "exchange/flood/exchange_flood_internal.h"

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond))                                                       \
            fail_msg(__VA_ARGS__);                                         \
    } while (0)

#define MAX_IDS 2
/* BLOB_LARGE: most entries 300 kB, every fourth one more than a message
 * may hold (FLOOD_MAX_MESSAGE), which must then travel alone. */
#define LARGE_BLOB 300000u
#define HUGE_BLOB 1100000u

enum blob_kind { BLOB_VARIED, BLOB_URI, BLOB_LARGE };

typedef struct sim sim_t;

/* What the caller of one all-gather on one process saw. */
typedef struct tally {
    struct hnp_rte *proc;
    uint32_t id;
    uint8_t *learned; /* [n]: learned() calls per vpid */
    int completions;
    int status;
} tally_t;

/* One simulated process: what the module sees as its runtime. */
struct hnp_rte {
    sim_t *sim;
    hnp_vpid_t self;
    hnp_rte_recv_fn handler;
    void *handler_data;
    flood_state_t *st;
    tally_t tally[MAX_IDS];
    bool joined[MAX_IDS];
    bool in_allgather;
    bool flushing;
    bool fail_sends;
    bool lagging; /* has not heard of the last growth: sees prev_n, prev_tree */
    uint32_t flush_msgs; /* sent by the flush running now */
    uint64_t msgs_sent, bytes_sent;
    uint32_t up_msgs[MAX_IDS]; /* to the spawn parent */
};

struct hnp_rte_timer {
    hnp_rte_t *rte;
    hnp_rte_timer_fn fn;
    void *cbdata;
};

typedef struct sim_msg {
    hnp_vpid_t src, dst;
    size_t len;
    uint8_t *data;
} sim_msg_t;

struct sim {
    uint32_t n;
    uint32_t cap;   /* procs allocated: the runtime may grow to it */
    uint32_t nids;
    uint32_t members[MAX_IDS]; /* what a member count sent must say */
    enum blob_kind blobs;
    hnp_tree_t tree;
    hnp_tree_t prev_tree; /* before the last sim_grow */
    uint32_t prev_n;
    hnp_rte_t *procs;
    sim_msg_t *flight;
    uint32_t nflight, capflight;
    hnp_rte_timer_t **timers;
    uint32_t ntimers, captimers;
    double last_delay;
    uint32_t flush_every; /* sim_run_rounds: a batch delay, in rounds */
    uint8_t *crossings; /* [MAX_IDS][n][n]: entry v over the edge above c */
    uint64_t rng;
    uint8_t scratch[HUGE_BLOB];
    char what[96]; /* names the run in failure messages */
};

/* The contribution of @p v to all-gather @p id (in sim->scratch). */
const uint8_t *blob_of(sim_t *sim, hnp_vpid_t v, uint32_t id, size_t *len);
/* kind 0..3: flat, 2-ary, 3-ary, 8-ary; 4: binomial. */
hnp_tree_t tree_of(int kind, uint32_t n);
/* Phase 1's order: a process contributes once its children joined. */
void phase1_rounds(const hnp_tree_t *t, uint32_t *join_round);

sim_t *sim_create(hnp_tree_t tree, uint32_t nids, enum blob_kind blobs,
                  uint64_t seed);
/* Room for @p cap processes, for a runtime that grows (sim_grow). */
sim_t *sim_create_cap(hnp_tree_t tree, uint32_t cap, uint32_t nids,
                      enum blob_kind blobs, uint64_t seed);
/* Daemons added: the runtime counts @p n processes, the new ones the
 * root's spawn children (hnp_tree_extend); the last @p nfailed of them
 * never start (no state). No grow hook is called. */
void sim_grow(sim_t *sim, uint32_t n, uint32_t nfailed);
/* Deliver messages and end loop turns, at random, until nothing moves;
 * with @p spare_root, messages to vpid 0 stay in flight. No one joins. */
void sim_settle(sim_t *sim, bool spare_root);
void sim_destroy(sim_t *sim);
void sim_join(sim_t *sim, hnp_vpid_t v, uint32_t id);
void sim_deliver(sim_t *sim, uint32_t i);
void sim_fire(sim_t *sim, uint32_t i);
void sim_run_random(sim_t *sim);
void sim_run_rounds(sim_t *sim, const uint32_t *join_round);
void sim_check(sim_t *sim);
void on_learned(void *cbdata, hnp_vpid_t vpid, const void *data, size_t len);
void on_complete(void *cbdata, int status);

#endif /* TEST_FLOOD_SIM_H */
