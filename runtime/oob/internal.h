/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the OOB's files (tcp.c, peer.c, conn.c,
 * addr.c) and its unit test. Nothing here is part of the contract of
 * oob.h.
 *
 * Ownership: the hnp_oob_t owns its peers (kept until destroy) and its
 * connections. A connection that closes is unlinked, its socket closed and
 * its events deleted at once, but it is freed only when no OOB event
 * callback is running (oob_release()), so code that called out to a user
 * callback can still look at it and see state OOB_CONN_DEAD.
 *
 * Simultaneous connections. When two processes connect to each other at
 * once, both handshakes may complete. Both sides then keep the connection
 * initiated by the lower vpid (the "preferred" one: each side knows who
 * connected and both vpids, so they agree without a message) and retire
 * the other (the "duplicate"). Connections initiated by the same side are
 * of one class; among those the oldest sends, and none is retired.
 *
 * Sending. A peer has one queue and one sender, the connection its frames
 * are written on. When a preferred connection opens, every duplicate is
 * marked retiring: the sender among them finishes the frame it began
 * (never more), then each sends FIN (shutdown(SHUT_WR)); only after the
 * old sender's FIN does the preferred one write. So per peer, the bytes we
 * send are: frames on the duplicate, its FIN, frames on the preferred one.
 * A preferred connection is never retired, so that never goes the other
 * way round, and no frame is written twice or split across connections (a
 * sender that fails mid-frame loses that frame, logged, as before).
 *
 * Receiving. Frames on a preferred connection are held back (and its
 * socket no longer read) while a duplicate from the same peer may still
 * bring frames: one that is open and whose FIN has not been read, our
 * own duplicate still waiting for the acceptor's hello (the acceptor may
 * have written frames once it has our proof, which follows that hello),
 * or an accepted duplicate still waiting for the connector's proof (the
 * connector writes frames right after it). By the order above,
 * everything the peer wrote on the duplicate precedes its FIN and
 * everything on the preferred one, so reading the duplicate to its EOF
 * before going on with the preferred one delivers in the order sent.
 * This cannot deadlock: frames on the preferred connection mean the peer
 * has it open, hence retires its duplicate (at once, right after its
 * hello, if the duplicate opens later), and the only thing that FIN waits
 * for is the end of a frame on the duplicate, which we keep reading.
 *
 * Closing. A duplicate is closed once both FINs are through: ours after
 * retiring, the peer's read as EOF. An EOF on a duplicate while the
 * preferred connection is up is the peer retiring it, not the peer going
 * away: the duplicate finishes its frame, sends its FIN and closes, and
 * since the preferred one is up, no peer_down follows. The same EOF may
 * come while a preferred connection is still in its handshake here but
 * open at the peer (our attempt awaiting the peer's hello, or an accepted
 * one awaiting the connector's proof); it waits, unread, until that one
 * opens (then as above) or fails (then it is the peer's close after
 * all). Receiving goes on until the EOF, so nothing in flight is
 * lost. A peer that never sends its FIN is cut off after the handshake
 * timeout.
 *
 * Fewer races. Most "simultaneous" connects are not: one side's
 * connection already waits in the other's accept queue, hello included,
 * while the other is busy (a daemon connecting to its 32 children before
 * its loop turns to the listener). So a process accepts what is waiting
 * before it connects, and says hello as soon as connect() completes; a
 * connection accepted from the peer that awaits only its proof counts as
 * coming (no connect beside it; if it fails, the peer's queue is kicked
 * again); a duplicate is then made only when both connections really
 * cross on the wire. hnp_oob_max_connections() counts such a duplicate: it is really
 * open, for the length of the race.
 */
#ifndef HNP_OOB_INTERNAL_H
#define HNP_OOB_INTERNAL_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "hnp_log.h"
#include "oob.h"
#include "wire/auth.h"
#include "ratelimit.h"

struct event;
struct evbuffer;

/* Daemons calling back at once must not overflow the accept queue: the
 * SYNs the kernel drops are retried only after a second or more. */
#define OOB_MIN_BACKLOG 128
#define OOB_DEFAULT_CONNECT_TIMEOUT 10.0
#define OOB_DEFAULT_MAX_HANDSHAKES 128
/* A connection whose handshake failed without a word against the peer
 * (it closed, or did not answer in time: a loaded peer, or a guard that
 * made room) is tried again this many times, after 0.25, 0.5, 1, ... s,
 * before the peer is declared unreachable. */
#define OOB_HANDSHAKE_RETRIES 4
/* Used when the config leaves max_frame at 0. */
#define OOB_DEFAULT_MAX_FRAME ((size_t)64 << 20)

/** One local address that may carry OOB traffic. */
typedef struct oob_ifaddr {
    char name[IF_NAMESIZE];
    int family;         /**< AF_INET or AF_INET6 */
    uint8_t addr[16];   /**< network byte order; 4 bytes used for IPv4 */
    unsigned prefix;    /**< netmask length */
    bool loopback;
} oob_ifaddr_t;

/** An address to connect to or listen on. */
typedef struct oob_endpoint {
    struct sockaddr_storage sa;
    socklen_t len;
} oob_endpoint_t;

/* "[ffff:...:ffff]:65535" and a NUL. */
#define OOB_ENDPOINT_STRLEN (INET6_ADDRSTRLEN + 10)
/* "tcp6://" in front of that. */
#define OOB_URI_ENTRY_LEN (OOB_ENDPOINT_STRLEN + 8)

typedef enum oob_conn_state {
    OOB_CONN_CONNECTING,  /**< outgoing: TCP connect in progress */
    OOB_CONN_AWAIT_REPLY, /**< outgoing: our hello sent, the peer's awaited */
    OOB_CONN_AWAIT_HELLO, /**< accepted: the connector's hello awaited */
    OOB_CONN_AWAIT_PROOF, /**< accepted: our hello and proof sent, the
                               connector's proof awaited */
    OOB_CONN_OPEN,        /**< handshaken, counts in its peer's nopen */
    OOB_CONN_CLOSING,     /**< close_peer: our side shut, reading to EOF */
    OOB_CONN_DEAD,        /**< closed, waiting to be freed */
} oob_conn_state_t;

typedef struct oob_peer oob_peer_t;
typedef struct oob_conn oob_conn_t;

struct oob_conn {
    hnp_oob_t *oob;
    oob_conn_state_t state;
    int fd;
    struct event *ev_read;
    struct event *ev_write;
    struct event *ev_timer; /**< connect, handshake or linger deadline */
    struct evbuffer *in;
    struct evbuffer *out;   /**< our handshake; frames come from the peer
                                 queue */
    oob_peer_t *peer;       /**< NULL until an accepted hello names it (an
                                 accepted one is proven only when OPEN) */
    hnp_auth_transcript_t hs; /**< both hellos, as auth.h binds them */
    hnp_frame_mac_t tx;     /**< the key and sequence of what we send */
    hnp_frame_mac_t rx;     /**< the same of what the peer sends */
    uint64_t open_seq;      /**< when the handshake completed: oldest sends */
    bool outgoing;          /**< we connected (decides which duplicate stays) */
    bool retiring;          /**< a duplicate: end the frame begun, then FIN */
    bool tx_shut;           /**< a retired duplicate: our FIN is sent */
    bool rx_eof;            /**< the peer's FIN is read */
    bool rx_held;           /**< not read until a duplicate's EOF */
    bool stalled;           /**< test_stall: not read until its timer */
    char remote[OOB_ENDPOINT_STRLEN];
    oob_conn_t *prev, *next; /**< in the OOB's live or dead list */
    /* guard.c: an accepted connection before its handshake completes */
    bool waiting;            /**< in the OOB's waiting list */
    bool magic_seen;         /**< its first four bytes were the magic */
    double accepted_at;      /**< monotonic seconds */
    double replied_at;       /**< when our answer to its hello went */
    uint64_t accept_round;   /**< the accept callback that took it */
    oob_conn_t *wait_prev, *wait_next;
};

/** An outgoing connection attempt walking through a peer's addresses. */
typedef struct oob_attempt {
    oob_endpoint_t *targets; /**< the peer's addresses, best first */
    size_t ntargets;
    size_t next;             /**< the next one to try */
    struct evbuffer *tried;  /**< "addr (error)" of each failure, for the log */
    bool handshake_failed;   /**< a connection was made, and its handshake
                                  failed for want of time or an answer */
    unsigned retries;        /**< attempts again since the last open */
} oob_attempt_t;

struct oob_peer {
    hnp_oob_t *oob;
    hnp_vpid_t vpid;
    char *uri;
    oob_endpoint_t *addrs;
    size_t naddrs;
    struct evbuffer *queue;   /**< encoded frames not yet written */
    struct evbuffer *lengths; /**< a size_t per frame in queue, oldest first */
    size_t head_written;      /**< bytes of the oldest frame already written */
    oob_conn_t *sender;       /**< the OPEN connection frames go out on */
    oob_conn_t *connecting;   /**< our outgoing attempt, if any */
    oob_attempt_t attempt;
    uint32_t nopen;           /**< OPEN connections */
    uint32_t naccepting;      /**< accepted ones in AWAIT_PROOF */
    uint32_t evicted;         /**< its hellos the guard dropped since it
                                   last opened (guard.c) */
    /* The first nsealed frames of the queue (sealed_bytes bytes of it) carry
     * the MAC of the connection whose open_seq + 1 is sealed_for. */
    uint64_t sealed_for;
    size_t nsealed;
    size_t sealed_bytes;
    uint32_t nheld;           /**< connections with rx_held set */
    bool closing;             /**< close_peer: close once the queue drains */
    struct event *kick;       /**< runs connect/close from the event loop */
    oob_peer_t *hash_next;
};

struct hnp_oob {
    struct event_base *base;
    hnp_log_stream_t *log;
    hnp_vpid_t self;
    uint8_t secret[HNP_SECRET_LEN];
    size_t max_frame;
    int backlog;
    double connect_timeout;
    double handshake_timeout;
    uint32_t nprocs;
    hnp_oob_callbacks_t cb;

    oob_ifaddr_t *ifaddrs; /**< the selected local addresses */
    size_t nifaddrs;
    int *listen_fds;
    struct event **listen_evs;
    size_t nlisteners;
    struct event *accept_resume; /**< re-arms listeners after EMFILE */
    char *uri;

    oob_peer_t **buckets;
    size_t nbuckets;
    size_t npeers;

    oob_conn_t *live;
    oob_conn_t *dead;
    uint32_t nconns;
    uint32_t maxconns;
    size_t queued_bytes;
    uint64_t next_open_seq;
    uint64_t handshake_cpu_ns; /**< CPU in the handshakes' cryptography */
    uint32_t handshakes;       /**< handshakes completed */
    /* guard.c: accepted connections still in their handshake, oldest
     * first, at most max_waiting of them; warnings about strangers */
    oob_conn_t *wait_head, *wait_tail;
    uint32_t nwaiting;
    uint64_t accept_round;  /**< accept callbacks so far */
    uint32_t max_waiting;
    uint32_t silent_unmatched; /**< silent connections dropped by the guard
                                    and not followed by a proven handshake
                                    each (guard.c) */
    double proof_wait;      /**< how long proofs took to come after our
                                 answer, lately (a decaying maximum) */
    oob_ratelimit_t warn_limit;
    double test_stall;      /**< hnp_oob_config_t's, until used once */
    bool race_connects;     /**< test hook: connect without looking at the
                                 accept queue first, as if the peer's
                                 connection were still on the wire */
    unsigned busy;          /**< OOB event callbacks on the stack */
    bool destroy_requested; /**< hnp_oob_destroy() called from a callback */
};

/** Whether @p c is the connection both sides keep: the one initiated by
 *  the lower vpid. @p c must have a peer. */
static inline bool oob_conn_preferred(const oob_conn_t *c)
{
    return c->outgoing == (c->oob->self < c->peer->vpid);
}

/* addr.c: interfaces, include/exclude lists, URIs. */
int oob_addr_select(const char *include, const char *exclude,
                    hnp_log_stream_t *log, oob_ifaddr_t **out, size_t *nout,
                    char *err, size_t errlen);
void oob_ifaddr_endpoint(const oob_ifaddr_t *ifa, oob_endpoint_t *ep);
int oob_uri_parse(const char *uri, oob_endpoint_t **out, size_t *nout,
                  char *err, size_t errlen);
void oob_endpoint_uri(const oob_endpoint_t *ep, char *buf, size_t len);
const char *oob_endpoint_str(const struct sockaddr *sa, char *buf,
                             size_t len);
void oob_endpoints_order(const oob_ifaddr_t *local, size_t nlocal,
                         oob_endpoint_t *eps, size_t n);

/* tcp.c: the object itself. */
void oob_hold(hnp_oob_t *oob);
void oob_release(hnp_oob_t *oob);
void oob_accept_waiting(hnp_oob_t *oob);
/** Test hook: the handshake deadline (the default is 10 s). */
void oob_set_handshake_timeout(hnp_oob_t *oob, double seconds);

/* peer.c: peers, their queues, up and down. */
oob_peer_t *oob_peer_find(const hnp_oob_t *oob, hnp_vpid_t vpid);
oob_peer_t *oob_peer_get(hnp_oob_t *oob, hnp_vpid_t vpid);
void oob_peers_free(hnp_oob_t *oob);
void oob_peer_kick(oob_peer_t *peer);
/** The same, @p seconds from now (a retry, a wait for a proof). */
void oob_peer_kick_after(oob_peer_t *peer, double seconds);
/** After every address failed: connect again later when a handshake
 *  failed for want of time or an answer and retries are left (true). */
bool oob_peer_retry(oob_peer_t *peer);
int oob_peer_enqueue(oob_peer_t *peer, const hnp_frame_header_t *hdr,
                     const void *body);
int oob_peer_flush(oob_peer_t *peer, oob_conn_t *conn, size_t limit);
size_t oob_peer_head_left(const oob_peer_t *peer);
void oob_peer_opened(oob_peer_t *peer);
void oob_peer_retired(oob_peer_t *peer, oob_conn_t *conn);
bool oob_peer_preferred_up(const oob_peer_t *peer);
bool oob_peer_preferred_coming(const oob_peer_t *peer);
bool oob_peer_holds(const oob_peer_t *peer, const oob_conn_t *conn);
void oob_peer_unhold(oob_peer_t *peer);
void oob_peer_conn_lost(oob_peer_t *peer, oob_conn_t *conn);
void oob_peer_unreachable(oob_peer_t *peer);
void oob_peer_close_now(oob_peer_t *peer);
size_t oob_peer_unsent(const oob_peer_t *peer);
/** The drained callback: a write or a dropped queue emptied the last one. */
void oob_notify_drained(hnp_oob_t *oob);
void oob_notify_deliver(hnp_oob_t *oob, hnp_vpid_t from,
                        const hnp_frame_header_t *hdr, const uint8_t *body);

/* handshake.c: what the handshake says and checks (auth.h). */
/** Start the library (its CPU counted with the handshakes'). */
int oob_handshake_init(hnp_oob_t *oob);
/** Connector: queue our hello, and nothing more before the acceptor's proof. */
int oob_handshake_hello(oob_conn_t *conn);
/** Acceptor: queue our hello and our proof (over the connector's nonce). */
int oob_handshake_reply(oob_conn_t *conn);
/** Connector: queue our proof, once the acceptor's is checked. */
int oob_handshake_proof(oob_conn_t *conn);
/** 1: @p prover's proof was taken off the input and is right; 0: not all
 *  of it has arrived; < 0: it is wrong. */
int oob_handshake_proof_take(oob_conn_t *conn, hnp_auth_role_t prover);
/** Both proven: the connection's keys, one per direction. */
void oob_handshake_keys(oob_conn_t *conn, hnp_auth_role_t me);
/** The next step of @p conn's handshake from what it has read (its state
 *  says which): true when one was taken and another may follow; false when
 *  more input is needed or the connection ended (it names why). */
bool oob_handshake_step(oob_conn_t *conn);
/* guard.c: what keeps connections that never authenticate from using up
 * the process's descriptors or its log. */
bool oob_guard_room(hnp_oob_t *oob, double *wait);
void oob_guard_admit(oob_conn_t *conn);
void oob_guard_release(oob_conn_t *conn);
bool oob_guard_foreign(oob_conn_t *conn, char *why, size_t whylen);
/** A warning about a connection from @p remote (NULL: about none),
 *  rate-limited by the cause of @p reason. */
void oob_guard_warn(hnp_oob_t *oob, const char *remote, const char *reason);
void oob_guard_flush(hnp_oob_t *oob);
/** Seconds until the proofs that connections from @p peer awaiting only
 *  theirs are overdue (0: none is due any more). */
double oob_guard_proof_due(const oob_peer_t *peer);
/** An answer to @p conn's hello went; its proof has come. */
void oob_guard_replied(oob_conn_t *conn);
void oob_guard_proven(oob_conn_t *conn);

/* conn.c: one connection's state machine. */
/** The longest reason a connection's end gives. */
#define OOB_REASON_MAX 256
int oob_conn_accepted(hnp_oob_t *oob, int fd, const struct sockaddr *sa);
/** Read what @p conn's socket holds now and act on it (its proof may be
 *  there, unread while this process did not run). */
void oob_conn_read_now(oob_conn_t *conn);
void oob_conn_connect(oob_peer_t *peer);
void oob_conn_want_write(oob_conn_t *conn);
void oob_conn_shutdown(oob_conn_t *conn);
void oob_conn_close(oob_conn_t *conn);
void oob_conn_free(oob_conn_t *conn);
void oob_conn_hold(oob_conn_t *conn, bool held);
/** Queued output goes out now, as far as the socket takes it. */
void oob_conn_flush(oob_conn_t *conn);
/** Both sides proven: frames may flow (the peer is told). */
void oob_conn_opened(oob_conn_t *conn);
/** The connection ends: the reason is logged, its peer reacts (next
 *  address, another sender, or the peer lost). */
void oob_conn_end(oob_conn_t *conn, hnp_log_severity_t sev, const char *fmt,
                  ...) __attribute__((format(printf, 3, 4)));
ssize_t oob_write_evbuffer(int fd, struct evbuffer *buf, size_t limit,
                           int flags);

#endif /* HNP_OOB_INTERNAL_H */
