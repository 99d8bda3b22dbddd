/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `flood` exchange's state and the functions its files share (not
 * installed). One flood_state_t a process; in it, one flood_coll_t per
 * all-gather id in progress.
 *
 * Bookkeeping per collective, and why it is enough. Every entry is stored
 * once, in `entries` by vpid, and its vpid is appended to `log` in the
 * order it was learnt here. Each tree neighbour has a cursor into that log:
 * everything before the cursor was either sent to it or came from it (the
 * entry's `origin`). Sending to a neighbour is then "the log from its
 * cursor on, minus what came from it", and no entry crosses an edge twice,
 * with one integer a neighbour instead of a bitmap of N bits each.
 */
#ifndef EXCHANGE_FLOOD_INTERNAL_H
#define EXCHANGE_FLOOD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "exchange_flood.h"
#include "hnp_log.h"

/*
 * The message (FLOOD_TAG_ENTRIES, exchange_flood.h): u32 id, u32 flags
 * (none defined yet: zero), u32 count, then count times (u32 vpid, blob).
 */

/* No flag is defined yet: a message with any set is not understood. */
#define FLOOD_FLAGS_KNOWN 0x0u

#define FLOOD_HEADER_BYTES 12u
#define FLOOD_ENTRY_OVERHEAD 8u

/* Outgoing batches are cut into messages of about this size, well below
 * the default oob_tcp_max_frame, so that a fence with large blobs never
 * builds a frame the transport refuses; a single entry may still exceed it. */
#define FLOOD_MAX_MESSAGE ((size_t)1 << 20)

/* Ids completed recently: a message for one of them is stale, and is
 * dropped rather than allowed to start a collective that never ends. */
#define FLOOD_RECENT_IDS 16

typedef struct flood_entry {
    void *data;        /* owned; a 1-byte allocation for an empty blob */
    uint32_t len;
    hnp_vpid_t origin; /* the neighbour it came from; self for our own */
    bool known;
} flood_entry_t;

typedef struct flood_link {
    hnp_vpid_t vpid;
    /* Whether anything may be sent yet: a child once it has reported its
     * whole subtree (an "older child" of Algorithm 2), the parent once this
     * process has contributed and has its own subtree. */
    bool open;
    uint32_t sent;     /* log[0 .. sent) is known on the other side */
    uint32_t received; /* entries that came from it */
} flood_link_t;

typedef struct flood_coll {
    struct flood_coll *next;
    uint32_t id;
    bool joined;    /* this process called allgather */
    bool completed; /* complete() was called */
    bool dirty;     /* something to send or report at the next flush */
    int status;     /* the first failure; reported through complete() */
    hnp_exchange_callbacks_t cb;
    flood_entry_t *entries; /* [nprocs] */
    hnp_vpid_t *log;        /* [nprocs]: vpids in the order learnt */
    uint32_t known;         /* length of log */
    uint32_t delivered;     /* log[0 .. delivered) went through learned() */
    uint32_t reported;      /* children whose subtree is complete here */
    flood_link_t *links;    /* the children in order, then the parent */
    uint64_t msgs_sent;     /* for the verbose summary */
    uint64_t bytes_sent;
} flood_coll_t;

struct flood_state {
    hnp_rte_t *rte;
    hnp_log_stream_t *log;
    hnp_vpid_t self;
    uint32_t nprocs;
    hnp_tree_t tree;        /* the spawn tree */
    uint32_t nchildren;
    uint32_t nlinks;        /* nchildren, plus one unless we are the root */
    hnp_vpid_t *children;   /* [nchildren], increasing */
    uint32_t *subtree_size; /* [nchildren]: vertices under each, itself too */
    uint32_t *seen;         /* [nprocs]: message serial that last named v */
    uint32_t serial;
    double batch_delay;
    hnp_rte_timer_t *flush_timer;
    flood_coll_t *active;
    uint32_t recent[FLOOD_RECENT_IDS];
    uint32_t nrecent;
};

/* exchange_flood_collective.c: the per-id table. */
flood_coll_t *flood_coll_find(flood_state_t *st, uint32_t id);
int flood_coll_get(flood_state_t *st, uint32_t id, flood_coll_t **out);
void flood_coll_free(flood_state_t *st, flood_coll_t *c);
void flood_coll_retire(flood_state_t *st, flood_coll_t *c);
int flood_coll_store(flood_coll_t *c, hnp_vpid_t vpid, const void *data,
                     uint32_t len, hnp_vpid_t origin);
void flood_coll_deliver(flood_state_t *st, flood_coll_t *c);
int flood_link_index(const flood_state_t *st, hnp_vpid_t vpid);
bool flood_id_is_recent(const flood_state_t *st, uint32_t id);

/* exchange_flood_wire.c: messages out and in. */
int flood_send_link(flood_state_t *st, flood_coll_t *c, flood_link_t *link);
void flood_on_entries(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata);

/* exchange_flood_module.c: the deferred flush. */
int flood_schedule_flush(flood_state_t *st);
void flood_flush_all(flood_state_t *st);

#endif /* EXCHANGE_FLOOD_INTERNAL_H */
