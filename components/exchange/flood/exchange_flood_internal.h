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
 * The message (FLOOD_TAG_ENTRIES, exchange_flood.h): u32 id, u32 flags,
 * u32 count, with FLOOD_FLAG_MEMBERS a u32 members, then count times
 * (u32 vpid, blob).
 *
 * Members. The processes of an all-gather are vpids 0..members-1, fixed
 * where it begins at the root (the HNP): the runtime's processes as the
 * last grow hook counted them. Daemons added later are the root's spawn
 * children and leaves (hnp_tree_extend), so every other process keeps its
 * children and its subtree, and only the root has to know, when it
 * begins, which of its children take part. The others learn the count
 * from their parent, which sends it with every message down once it knows
 * it: whatever lies outside a process's subtree comes from its parent,
 * and the root's entry lies outside, so every process but the root hears
 * it before it can be complete.
 */

/* The message carries the all-gather's member count (only down the tree). */
#define FLOOD_FLAG_MEMBERS 0x1u
/* A message with any other flag set is not understood. */
#define FLOOD_FLAGS_KNOWN FLOOD_FLAG_MEMBERS

#define FLOOD_HEADER_BYTES 16u /* with the member count */
#define FLOOD_ENTRY_OVERHEAD 8u

/* Outgoing batches are cut into messages of about this size, well below
 * the default oob_tcp_max_frame, so that a fence with large blobs never
 * builds a frame the transport refuses; a single entry may still exceed it. */
#define FLOOD_MAX_MESSAGE ((size_t)1 << 20)

/* Messages naming more processes than the runtime here has heard of (the
 * word of its growth, sent long before, still on its way) are kept, at
 * most this many, until the grow hook. */
#define FLOOD_MAX_HELD 64

/* Ids completed recently: a message for one of them is stale, and is
 * dropped rather than allowed to start a collective that never ends. */
#define FLOOD_RECENT_IDS 16

typedef struct flood_entry {
    void *data;        /* owned; a 1-byte allocation for an empty blob */
    uint32_t len;
    hnp_vpid_t origin; /* the neighbour it came from; self for our own */
    bool known;
} flood_entry_t;

typedef struct flood_held {
    struct flood_held *next;
    hnp_vpid_t src;
    size_t len;
    uint8_t data[];
} flood_held_t;

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
    uint32_t members;       /* its processes: 0..members-1; 0 while unknown */
    uint32_t cap;           /* the length of entries and log */
    uint32_t nchildren;     /* the spawn children taking part: the first ones */
    uint32_t nlinks;        /* nchildren, plus the parent but at the root */
    flood_entry_t *entries; /* [cap] */
    hnp_vpid_t *log;        /* [cap]: vpids in the order learnt */
    uint32_t known;         /* length of log */
    uint32_t delivered;     /* log[0 .. delivered) went through learned() */
    uint32_t reported;      /* children whose subtree is complete here */
    flood_link_t *links;    /* [nlinks]: the children in order, then the
                               parent */
    uint64_t msgs_sent;     /* for the verbose summary */
    uint64_t bytes_sent;
} flood_coll_t;

struct flood_state {
    hnp_rte_t *rte;
    hnp_log_stream_t *log;
    hnp_vpid_t self;
    uint32_t nprocs;        /* the runtime's vpids, as last looked at */
    uint32_t nfirst;        /* nprocs when this state was made */
    uint32_t members;       /* root: the processes of all-gathers begun now */
    uint32_t nchildren;
    uint32_t nlinks;        /* nchildren, plus one unless we are the root */
    hnp_vpid_t *children;   /* [nchildren], increasing */
    uint32_t *subtree_size; /* [nchildren]: vertices under each, itself too */
    uint32_t *seen;         /* [nprocs]: message serial that last named v */
    uint32_t serial;
    double batch_delay;
    hnp_rte_timer_t *flush_timer;
    flood_coll_t *active;
    flood_held_t *held;     /* in the order they came */
    uint32_t nheld;
    uint32_t recent[FLOOD_RECENT_IDS];
    uint32_t recent_children[FLOOD_RECENT_IDS]; /* their nchildren */
    uint32_t nrecent;
};

/* The runtime's spawn tree, read anew each time: the runtime replaces it
 * when it grows. */
static inline const hnp_tree_t *flood_tree(const flood_state_t *st)
{
    return hnp_rte_spawn_tree(st->rte);
}

/* exchange_flood_collective.c: the per-id table. */
flood_coll_t *flood_coll_find(flood_state_t *st, uint32_t id);
int flood_coll_get(flood_state_t *st, uint32_t id, flood_coll_t **out);
uint32_t flood_member_children(const flood_state_t *st, uint32_t members);
int flood_coll_reserve(flood_coll_t *c, uint32_t n);
void flood_coll_free(flood_state_t *st, flood_coll_t *c);
void flood_coll_retire(flood_state_t *st, flood_coll_t *c);
int flood_coll_store(flood_coll_t *c, hnp_vpid_t vpid, const void *data,
                     uint32_t len, hnp_vpid_t origin);
void flood_coll_deliver(flood_coll_t *c);
int flood_link_index(const flood_state_t *st, hnp_vpid_t vpid);
bool flood_id_is_recent(const flood_state_t *st, uint32_t id,
                        uint32_t *nchildren);

/* exchange_flood_wire.c: messages out and in. */
int flood_send_link(flood_state_t *st, flood_coll_t *c, flood_link_t *link);
void flood_on_entries(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata);
void flood_release_held(flood_state_t *st, bool replay);

/* exchange_flood_module.c: the deferred flush, and catching up with a
 * runtime that grew (its vpids, its spawn tree; not the members). */
int flood_schedule_flush(flood_state_t *st);
int flood_state_sync(flood_state_t *st);
void flood_flush_all(flood_state_t *st);

#endif /* EXCHANGE_FLOOD_INTERNAL_H */
