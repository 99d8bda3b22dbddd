/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Out-of-band messaging over TCP on libevent: connections to direct peers
 * only. Routing (which peer is the next hop) is the caller's business.
 *
 * Each process listens on every address that oob_tcp_if_include /
 * oob_tcp_if_exclude allow; its URI lists them all ("tcp://a.b.c.d:port" and
 * "tcp6://[addr]:port", comma-separated). To reach a peer, the OOB tries the
 * peer's addresses in order, those on a network one of its own interfaces
 * shares first. Connections start with the handshake of auth.h (hellos
 * with fresh nonces, then each side's proof that it knows the job's secret,
 * which is never sent); every frame after it carries a MAC with the
 * connection's key for its direction, and a frame that fails the check
 * ends the connection. Whichever side connected, a connection serves both
 * directions.
 * All I/O is non-blocking; a peer has one send queue, which also holds what
 * is sent before the peer's URI is known or while connecting.
 */
#ifndef HNP_OOB_H
#define HNP_OOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/frame.h"
#include "hnp_tree.h"

struct event_base;

typedef struct hnp_oob hnp_oob_t;

/** Seconds an accepted connection has to complete its handshake when the
 *  config leaves it at 0 (oob_tcp_handshake_timeout's default). */
#define HNP_OOB_HANDSHAKE_TIMEOUT_DEFAULT 5

typedef struct hnp_oob_config {
    const char *if_include; /**< interface names or CIDRs, comma list; NULL/"" = all */
    const char *if_exclude; /**< same; applied when if_include is empty */
    size_t max_frame;       /**< largest body accepted or sent */
    int backlog;            /**< listen(2) backlog (raised to the job's size) */
    double connect_timeout; /**< seconds per address tried */
    double handshake_timeout; /**< seconds for a handshake (0: default) */
    uint32_t max_handshakes; /**< accepted connections awaiting their
                                  handshake at once; past it the oldest is
                                  dropped (0: default) */
    uint32_t nprocs;        /**< vpids >= nprocs are refused (0: unknown yet) */
    double test_stall;      /**< tests only: seconds this process waits,
                                 after the hello of its first connection,
                                 before it reads the answer, as a process
                                 starved of CPU would (0: none) */
} hnp_oob_config_t;

typedef struct hnp_oob_callbacks {
    /** A frame arrived from direct peer @p from (its header names the
     *  original source and final destination). */
    void (*deliver)(void *ctx, hnp_vpid_t from, const hnp_frame_header_t *hdr,
                    const uint8_t *body);
    /** A connection with @p peer completed its handshake. */
    void (*peer_up)(void *ctx, hnp_vpid_t peer);
    /** The connection with @p peer closed or failed (errors already logged);
     *  what was queued for it is dropped, and @p unsent says how many. */
    void (*peer_down)(void *ctx, hnp_vpid_t peer, size_t unsent);
    /** The last queue emptied, by a write or because its peer went down
     *  (after peer_down): nothing is left to send. */
    void (*drained)(void *ctx);
    void *ctx;
} hnp_oob_callbacks_t;

/** Open the listeners. @p err says which interface or address failed. */
int hnp_oob_create(hnp_oob_t **out, struct event_base *base, hnp_vpid_t self,
                   const uint8_t secret[HNP_SECRET_LEN],
                   const hnp_oob_config_t *config,
                   const hnp_oob_callbacks_t *callbacks, char *err,
                   size_t errlen);
/** Close every connection and listener; queued messages are dropped. */
void hnp_oob_destroy(hnp_oob_t *oob);

/** This process's URI (owned by the OOB). */
const char *hnp_oob_uri(const hnp_oob_t *oob);
/** Learn @p peer's URI; a queue waiting for it starts connecting. */
int hnp_oob_set_uri(hnp_oob_t *oob, hnp_vpid_t peer, const char *uri);
/** Admit at most @p max accepted connections awaiting their handshake at
 *  once (0: the default); past it the oldest is dropped. */
void hnp_oob_set_max_handshakes(hnp_oob_t *oob, uint32_t max);
/** Update the number of the job's processes (a daemon learns it late). */
void hnp_oob_set_nprocs(hnp_oob_t *oob, uint32_t nprocs);
/** The contact given for @p peer (hnp_oob_set_uri), or NULL. */
const char *hnp_oob_peer_uri(const hnp_oob_t *oob, hnp_vpid_t peer);

/**
 * Queue a frame (body copied) for direct peer @p peer: sent on the existing
 * connection, or after connecting when the URI is known, or once it is.
 */
int hnp_oob_send(hnp_oob_t *oob, hnp_vpid_t peer,
                 const hnp_frame_header_t *hdr, const void *body);

/** Whether a handshaken connection to @p peer exists. */
bool hnp_oob_connected(const hnp_oob_t *oob, hnp_vpid_t peer);
/** Whether @p peer's URI is known. */
bool hnp_oob_knows(const hnp_oob_t *oob, hnp_vpid_t peer);
/** Open connections (handshaken or not), for the resource invariants. */
uint32_t hnp_oob_num_connections(const hnp_oob_t *oob);
/** Those of them that are with a known peer: not counting accepted
 *  connections still in their handshake (strangers, perhaps). */
uint32_t hnp_oob_num_peer_connections(const hnp_oob_t *oob);
/** The most connections open at once so far. */
uint32_t hnp_oob_max_connections(const hnp_oob_t *oob);
/** CPU spent on the handshakes' cryptography so far (nonces, proofs,
 *  keys; not the frames' MACs), and the handshakes completed. */
uint64_t hnp_oob_handshake_cpu_us(const hnp_oob_t *oob);
uint32_t hnp_oob_handshakes(const hnp_oob_t *oob);
/** Bytes queued and not yet written, over all peers. */
size_t hnp_oob_queued_bytes(const hnp_oob_t *oob);
/** The same for peers that can still take them: connected, being
 *  connected to, or with a contact to try. Frames waiting for a contact
 *  nobody has given are left out. Walks every peer. */
size_t hnp_oob_queued_deliverable(const hnp_oob_t *oob);
/** The largest frame body sent or accepted. */
size_t hnp_oob_max_frame(const hnp_oob_t *oob);
/** Change it (0: the default): a daemon learns the HNP's value
 *  (oob_tcp_max_frame) only after its OOB has started. */
void hnp_oob_set_max_frame(hnp_oob_t *oob, size_t max_frame);
/** Close the connection with @p peer after its queue drains. */
void hnp_oob_close_peer(hnp_oob_t *oob, hnp_vpid_t peer);

#endif /* HNP_OOB_H */
