/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OOB's peers: a table by vpid, each peer's send queue, and the
 * peer_up / peer_down transitions.
 *
 * A peer is "up" while it has at least one handshaken (OPEN) connection;
 * peer_up and peer_down alternate strictly. Which of two simultaneous
 * connections stays, and why switching between them keeps the frames in
 * order, is told in internal.h. Frames are encoded into the
 * queue when sent, so the caller's buffers are free at once, and the frame
 * lengths are kept beside the bytes so that a peer going down can report
 * exactly how many frames were not written.
 *
 * Each frame in the queue is followed by room for its MAC (auth.h), which
 * depends on the connection that sends it (its key and its count of
 * frames). So a frame is sealed, its MAC written into that room, only
 * shortly before it is written: the sender seals a window ahead of what it
 * writes, and a connection that takes over seals again what the last one
 * sealed and did not begin (that one never sends again).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "hnp_errors.h"
#include "internal.h"

#define BUCKETS_MIN 64
/* How far ahead of the socket a sender seals; a larger frame whole. */
#define SEAL_AHEAD ((size_t)256 << 10)
#define SEAL_BATCH 64

static void peer_kick_cb(evutil_socket_t fd, short what, void *arg);

static void notify_up(hnp_oob_t *oob, hnp_vpid_t vpid)
{
    if (!oob->destroy_requested && oob->cb.peer_up != NULL)
        oob->cb.peer_up(oob->cb.ctx, vpid);
}

static void notify_down(hnp_oob_t *oob, hnp_vpid_t vpid, size_t unsent)
{
    if (!oob->destroy_requested && oob->cb.peer_down != NULL)
        oob->cb.peer_down(oob->cb.ctx, vpid, unsent);
}

void oob_notify_drained(hnp_oob_t *oob)
{
    if (!oob->destroy_requested && oob->cb.drained != NULL)
        oob->cb.drained(oob->cb.ctx);
}

void oob_notify_deliver(hnp_oob_t *oob, hnp_vpid_t from,
                        const hnp_frame_header_t *hdr, const uint8_t *body)
{
    if (!oob->destroy_requested && oob->cb.deliver != NULL)
        oob->cb.deliver(oob->cb.ctx, from, hdr, body);
}

/* ---------------------------------------------------------- the table */

oob_peer_t *oob_peer_find(const hnp_oob_t *oob, hnp_vpid_t vpid)
{
    if (oob->nbuckets == 0)
        return NULL;
    for (oob_peer_t *p = oob->buckets[vpid % oob->nbuckets]; p != NULL;
         p = p->hash_next)
        if (p->vpid == vpid)
            return p;
    return NULL;
}

static int buckets_grow(hnp_oob_t *oob)
{
    size_t n = oob->nbuckets > 0 ? oob->nbuckets * 2 : BUCKETS_MIN;
    oob_peer_t **b = calloc(n, sizeof(*b));

    if (b == NULL)
        return HNP_ERR_NOMEM;
    for (size_t i = 0; i < oob->nbuckets; i++) {
        oob_peer_t *p = oob->buckets[i];
        while (p != NULL) {
            oob_peer_t *next = p->hash_next;
            p->hash_next = b[p->vpid % n];
            b[p->vpid % n] = p;
            p = next;
        }
    }
    free(oob->buckets);
    oob->buckets = b;
    oob->nbuckets = n;
    return HNP_SUCCESS;
}

static void peer_free(oob_peer_t *p)
{
    if (p->kick != NULL)
        event_free(p->kick);
    if (p->queue != NULL)
        evbuffer_free(p->queue);
    if (p->lengths != NULL)
        evbuffer_free(p->lengths);
    if (p->attempt.tried != NULL)
        evbuffer_free(p->attempt.tried);
    free(p->attempt.targets);
    free(p->addrs);
    free(p->uri);
    free(p);
}

static oob_peer_t *peer_new(hnp_oob_t *oob, hnp_vpid_t vpid)
{
    oob_peer_t *p = calloc(1, sizeof(*p));

    if (p == NULL)
        return NULL;
    p->oob = oob;
    p->vpid = vpid;
    p->queue = evbuffer_new();
    p->lengths = evbuffer_new();
    p->attempt.tried = evbuffer_new();
    p->kick = event_new(oob->base, -1, 0, peer_kick_cb, p);
    if (p->queue == NULL || p->lengths == NULL || p->attempt.tried == NULL ||
        p->kick == NULL) {
        peer_free(p);
        return NULL;
    }
    return p;
}

oob_peer_t *oob_peer_get(hnp_oob_t *oob, hnp_vpid_t vpid)
{
    oob_peer_t *p = oob_peer_find(oob, vpid);

    if (p != NULL)
        return p;
    /* Growing is an optimisation once a table exists: longer chains work. */
    if (oob->npeers >= 2 * oob->nbuckets && buckets_grow(oob) != HNP_SUCCESS &&
        oob->nbuckets == 0)
        return NULL;
    p = peer_new(oob, vpid);
    if (p == NULL)
        return NULL;
    p->hash_next = oob->buckets[vpid % oob->nbuckets];
    oob->buckets[vpid % oob->nbuckets] = p;
    oob->npeers++;
    return p;
}

void oob_peers_free(hnp_oob_t *oob)
{
    for (size_t i = 0; i < oob->nbuckets; i++) {
        oob_peer_t *p = oob->buckets[i];
        while (p != NULL) {
            oob_peer_t *next = p->hash_next;
            oob->queued_bytes -= evbuffer_get_length(p->queue);
            peer_free(p);
            p = next;
        }
    }
    free(oob->buckets);
    oob->buckets = NULL;
    oob->nbuckets = 0;
    oob->npeers = 0;
}

/* ---------------------------------------------------------- the queue */

int oob_peer_enqueue(oob_peer_t *p, const hnp_frame_header_t *hdr,
                     const void *body)
{
    static const uint8_t unsealed[HNP_MAC_LEN];
    uint8_t raw[HNP_FRAME_HEADER_LEN];
    size_t frame = sizeof(raw) + (size_t)hdr->len + HNP_MAC_LEN;

    /* Room first, so that the adds below cannot stop halfway and leave part
     * of a frame in the queue. */
    if (evbuffer_expand(p->queue, frame) != 0 ||
        evbuffer_expand(p->lengths, sizeof(frame)) != 0)
        return HNP_ERR_NOMEM;
    hnp_frame_header_encode(hdr, raw);
    if (evbuffer_add(p->queue, raw, sizeof(raw)) != 0 ||
        (hdr->len > 0 && evbuffer_add(p->queue, body, hdr->len) != 0) ||
        evbuffer_add(p->queue, unsealed, sizeof(unsealed)) != 0 ||
        evbuffer_add(p->lengths, &frame, sizeof(frame)) != 0)
        return HNP_ERR_NOMEM;
    p->oob->queued_bytes += frame;
    return HNP_SUCCESS;
}

size_t oob_peer_unsent(const oob_peer_t *p)
{
    return evbuffer_get_length(p->lengths) / sizeof(size_t);
}

static size_t queue_head(const oob_peer_t *p)
{
    size_t head = 0;

    evbuffer_copyout(p->lengths, &head, sizeof(head));
    return head;
}

/* Keep the frame lengths in step with what a write took off the queue. */
static void queue_written(oob_peer_t *p, size_t n)
{
    p->oob->queued_bytes -= n;
    p->sealed_bytes -= n;
    while (n > 0) {
        size_t left = queue_head(p) - p->head_written;
        if (n < left) {
            p->head_written += n;
            return;
        }
        n -= left;
        p->head_written = 0;
        p->nsealed--;
        evbuffer_drain(p->lengths, sizeof(size_t));
    }
}

static void queue_unseal(oob_peer_t *p)
{
    p->sealed_for = 0;
    p->nsealed = 0;
    p->sealed_bytes = 0;
}

static size_t queue_drop(oob_peer_t *p)
{
    size_t unsent = oob_peer_unsent(p);

    p->oob->queued_bytes -= evbuffer_get_length(p->queue);
    evbuffer_drain(p->queue, evbuffer_get_length(p->queue));
    evbuffer_drain(p->lengths, evbuffer_get_length(p->lengths));
    p->head_written = 0;
    queue_unseal(p);
    return unsent;
}

/* The rest of a frame begun on a connection that died cannot go on
 * another one: the receiver would take it for a header. */
static void queue_drop_partial(oob_peer_t *p)
{
    if (p->head_written == 0)
        return;
    size_t rest = queue_head(p) - p->head_written;
    evbuffer_drain(p->queue, rest);
    p->oob->queued_bytes -= rest;
    evbuffer_drain(p->lengths, sizeof(size_t));
    p->head_written = 0;
    queue_unseal(p);
    HNP_WARN(p->oob->log, "a frame to peer %u was cut off when its "
             "connection closed and is lost", p->vpid);
}

/* What is left of a frame begun on the sender: a retiring sender writes
 * that much and no more. */
size_t oob_peer_head_left(const oob_peer_t *p)
{
    return p->head_written > 0 ? queue_head(p) - p->head_written : 0;
}

/* Calls @p fn on the pieces of the @p len queue bytes at @p pos, and moves
 * @p pos past them. */
static void queue_span(struct evbuffer *q, struct evbuffer_ptr *pos,
                       size_t len, void (*fn)(void *, uint8_t *, size_t),
                       void *arg)
{
    struct evbuffer_iovec v[8];

    while (len > 0) {
        int n = evbuffer_peek(q, (ev_ssize_t)len, pos, v, 8);
        size_t done = 0;
        for (int i = 0; i < n && i < 8 && done < len; i++) {
            size_t take = v[i].iov_len < len - done ? v[i].iov_len
                                                    : len - done;
            fn(arg, v[i].iov_base, take);
            done += take;
        }
        if (done == 0 ||
            evbuffer_ptr_set(q, pos, done, EVBUFFER_PTR_ADD) != 0)
            return; /* the lengths say the bytes are there: not reached */
        len -= done;
    }
}

static void span_mac(void *run, uint8_t *data, size_t n)
{
    hnp_frame_mac_add(run, data, n);
}

/* Written through evbuffer_peek: the queue holds only copies made by
 * evbuffer_add, plain memory of its own that may be written in place. */
static void span_store(void *src, uint8_t *data, size_t n)
{
    const uint8_t **from = src;

    memcpy(data, *from, n);
    *from += n;
}

/* Seal the frames after the sealed ones until @p want bytes are sealed
 * (or all are), with @p c's key. */
static void queue_seal(oob_peer_t *p, oob_conn_t *c, size_t want)
{
    size_t frames = oob_peer_unsent(p);
    struct evbuffer_ptr pos, at;
    size_t lens[SEAL_BATCH];

    if (evbuffer_ptr_set(p->queue, &pos, p->sealed_bytes, EVBUFFER_PTR_SET))
        return;
    while (p->sealed_bytes < want && p->nsealed < frames) {
        size_t n = frames - p->nsealed < SEAL_BATCH ? frames - p->nsealed
                                                     : SEAL_BATCH;
        if (evbuffer_ptr_set(p->lengths, &at, p->nsealed * sizeof(size_t),
                             EVBUFFER_PTR_SET) != 0 ||
            evbuffer_copyout_from(p->lengths, &at, lens, n * sizeof(size_t)) <
                (ev_ssize_t)(n * sizeof(size_t)))
            return;
        for (size_t i = 0; i < n && p->sealed_bytes < want; i++) {
            hnp_frame_mac_run_t run;
            uint8_t tag[HNP_MAC_LEN];
            const uint8_t *from = tag;

            hnp_frame_mac_begin(&c->tx, &run);
            queue_span(p->queue, &pos, lens[i] - HNP_MAC_LEN, span_mac, &run);
            hnp_frame_mac_end(&c->tx, &run, tag);
            queue_span(p->queue, &pos, HNP_MAC_LEN, span_store, &from);
            p->sealed_bytes += lens[i];
            p->nsealed++;
        }
    }
}

int oob_peer_flush(oob_peer_t *p, oob_conn_t *c, size_t limit)
{
    uint64_t me = c->open_seq + 1;

    if (p->sealed_for != me) {
        /* A frame begun by another connection cannot be sealed again (it
         * is dropped when its connection goes: not reached). */
        if (p->head_written > 0)
            queue_drop_partial(p);
        queue_unseal(p);
        p->sealed_for = me;
    }
    while (evbuffer_get_length(p->queue) > 0 && limit > 0) {
        queue_seal(p, c, limit < SEAL_AHEAD ? limit : SEAL_AHEAD);
        if (p->sealed_bytes == 0)
            return EIO; /* the queue and its lengths disagree: not reached */
        ssize_t n = oob_write_evbuffer(c->fd, p->queue,
                                       limit < p->sealed_bytes
                                           ? limit : p->sealed_bytes, 0);
        if (n > 0) {
            queue_written(p, (size_t)n);
            limit -= (size_t)n;
        }
        else if (n == 0)
            return EIO; /* a non-empty write that wrote nothing */
        else if (errno != EINTR)
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : errno;
    }
    return 0;
}

/* ---------------------------------------------------------- duplicates */

static bool conn_writable(const oob_conn_t *c, const oob_peer_t *p)
{
    return c->peer == p && c->state == OOB_CONN_OPEN && !c->retiring &&
           !c->tx_shut;
}

/* The connection that sends next: a preferred one over a duplicate, then
 * the oldest, so that sending moves to another one as rarely as possible. */
static oob_conn_t *sender_next(const oob_peer_t *p)
{
    oob_conn_t *best = NULL;

    for (oob_conn_t *c = p->oob->live; c != NULL; c = c->next) {
        if (!conn_writable(c, p))
            continue;
        bool pref = oob_conn_preferred(c);
        if (best == NULL || (pref && !oob_conn_preferred(best)) ||
            (pref == oob_conn_preferred(best) && c->open_seq < best->open_seq))
            best = c;
    }
    return best;
}

/* Once a preferred connection is up, every duplicate retires; the sender
 * among them stays the sender until its FIN (oob_peer_retired), so that
 * the preferred one writes nothing before the duplicate's last frame. */
static void peer_settle(oob_peer_t *p)
{
    oob_conn_t *best = sender_next(p);

    if (best != NULL && oob_conn_preferred(best))
        for (oob_conn_t *c = p->oob->live; c != NULL; c = c->next)
            if (conn_writable(c, p) && !oob_conn_preferred(c)) {
                c->retiring = true;
                oob_conn_want_write(c);
            }
    if (p->sender == NULL)
        p->sender = best;
}

void oob_peer_retired(oob_peer_t *p, oob_conn_t *c)
{
    if (p->sender != c)
        return;
    /* The duplicate's last frame is out: the preferred one takes over. If
     * that one failed meanwhile, the queue waits for the peer to go down
     * (a new connection beside a draining one could overtake it). */
    p->sender = sender_next(p);
    if (p->sender != NULL)
        oob_conn_want_write(p->sender);
}

bool oob_peer_preferred_up(const oob_peer_t *p)
{
    for (const oob_conn_t *c = p->oob->live; c != NULL; c = c->next)
        if (c->peer == p && c->state == OOB_CONN_OPEN && oob_conn_preferred(c))
            return true;
    return false;
}

/* Whether a preferred connection that the peer may have open already is
 * still in its handshake here: our attempt awaiting the acceptor's hello,
 * or an accepted one awaiting the connector's proof. */
bool oob_peer_preferred_coming(const oob_peer_t *p)
{
    const oob_conn_t *attempt = p->connecting;

    if (attempt != NULL && attempt->state == OOB_CONN_AWAIT_REPLY &&
        oob_conn_preferred(attempt))
        return true;
    if (p->naccepting == 0)
        return false;
    for (const oob_conn_t *c = p->oob->live; c != NULL; c = c->next)
        if (c->peer == p && c->state == OOB_CONN_AWAIT_PROOF &&
            oob_conn_preferred(c))
            return true;
    return false;
}

/* Whether frames on @p c must wait: it is preferred and a duplicate from
 * the same peer may still bring frames that were sent before them. */
bool oob_peer_holds(const oob_peer_t *p, const oob_conn_t *c)
{
    /* The usual case, one connection, without a walk over all of them. */
    if (!oob_conn_preferred(c) ||
        (p->nopen <= 1 && p->connecting == NULL && p->naccepting == 0))
        return false;
    for (const oob_conn_t *d = p->oob->live; d != NULL; d = d->next) {
        if (d == c || d->peer != p || oob_conn_preferred(d))
            continue;
        if ((d->state == OOB_CONN_OPEN && !d->rx_eof) ||
            d->state == OOB_CONN_AWAIT_REPLY ||
            d->state == OOB_CONN_AWAIT_PROOF)
            return true;
    }
    return false;
}

/* A duplicate stopped bringing frames: read the held connections again. */
void oob_peer_unhold(oob_peer_t *p)
{
    oob_conn_t *next;

    for (oob_conn_t *c = p->oob->live; c != NULL && p->nheld > 0; c = next) {
        next = c->next;
        if (c->peer == p && c->rx_held)
            oob_conn_hold(c, false);
    }
}

/* ---------------------------------------------------------- up and down */

void oob_peer_opened(oob_peer_t *p)
{
    p->attempt.retries = 0;
    p->attempt.handshake_failed = false;
    p->nopen++;
    peer_settle(p);
    if (p->nopen == 1)
        notify_up(p->oob, p->vpid);
}

static void peer_down(oob_peer_t *p)
{
    hnp_oob_t *oob = p->oob;
    bool had_queued = oob->queued_bytes > 0;
    size_t unsent = queue_drop(p);

    p->closing = false;
    HNP_VERBOSE(oob->log, 1, "peer %u is down; %zu queued frame(s) "
                "dropped", p->vpid, unsent);
    notify_down(oob, p->vpid, unsent);
    /* A process waiting for its queues to empty (a daemon leaving) need
     * not wait for a write that will not come. */
    if (had_queued && oob->queued_bytes == 0)
        oob_notify_drained(oob);
}

void oob_peer_conn_lost(oob_peer_t *p, oob_conn_t *c)
{
    p->nopen--;
    if (p->sender == c) {
        /* Whichever connection sends next, the cut frame cannot go on it. */
        if (p->nopen > 0)
            queue_drop_partial(p);
        p->sender = sender_next(p);
        if (p->sender != NULL)
            oob_conn_want_write(p->sender);
    }
    if (p->nopen == 0)
        peer_down(p);
}

/* Every address was tried. When a handshake failed without a word against
 * the peer (a peer starved of CPU past its deadline, or a guard that made
 * room for others; a peer that is gone refuses), its queue stays and the
 * attempt starts over after a pause that doubles (true); else the peer
 * is unreachable (false). */
bool oob_peer_retry(oob_peer_t *p)
{
    oob_attempt_t *a = &p->attempt;
    double pause = 0.25 * (double)(1u << a->retries);

    if (!a->handshake_failed || a->retries >= OOB_HANDSHAKE_RETRIES ||
        p->oob->destroy_requested)
        return false;
    a->retries++;
    a->handshake_failed = false;
    evbuffer_add(a->tried, "", 1);
    HNP_VERBOSE(p->oob->log, 1, "peer %u: handshake failed (%s); trying "
                "again in %g s (%u of %d)", p->vpid,
                (const char *)evbuffer_pullup(a->tried, -1), pause,
                a->retries, OOB_HANDSHAKE_RETRIES);
    evbuffer_drain(a->tried, evbuffer_get_length(a->tried));
    oob_peer_kick_after(p, pause);
    return true;
}

void oob_peer_unreachable(oob_peer_t *p)
{
    struct evbuffer *tried = p->attempt.tried;

    evbuffer_add(tried, "", 1);
    const char *list = (const char *)evbuffer_pullup(tried, -1);
    HNP_WARN(p->oob->log, "peer %u is unreachable: tried %s; dropping %zu "
             "queued message(s)", p->vpid, list != NULL ? list : "?",
             oob_peer_unsent(p));
    evbuffer_drain(tried, evbuffer_get_length(tried));
    peer_down(p);
}

void oob_peer_close_now(oob_peer_t *p)
{
    hnp_oob_t *oob = p->oob;
    bool was_up = p->nopen > 0;
    oob_conn_t *next;

    p->closing = false;
    for (oob_conn_t *c = oob->live; c != NULL; c = next) {
        next = c->next;
        if (c->peer == p && c->state != OOB_CONN_CLOSING)
            oob_conn_shutdown(c);
    }
    p->sender = NULL;
    p->connecting = NULL;
    p->nopen = 0;
    if (!was_up)
        return;
    HNP_VERBOSE(oob->log, 1, "closed the connection(s) with peer %u", p->vpid);
    notify_down(oob, p->vpid, 0);
}

/* Connecting and closing start from the event loop, never inside an API
 * call, so that no user callback runs within hnp_oob_send() and the like. */
void oob_peer_kick(oob_peer_t *p)
{
    event_active(p->kick, EV_TIMEOUT, 0);
}

void oob_peer_kick_after(oob_peer_t *p, double seconds)
{
    struct timeval tv;

    tv.tv_sec = (time_t)seconds;
    tv.tv_usec = (suseconds_t)((seconds - (double)tv.tv_sec) * 1e6);
    event_add(p->kick, &tv);
}

/* Never beside an open connection, even a draining duplicate: frames on a
 * new one could overtake the duplicate's last ones. Nor beside one from
 * the peer that awaits only its proof: it opens within a round trip, and
 * if it fails the peer is kicked again (oob_conn_end). But only for as
 * long as a proof takes (guard.c): anyone can say a hello naming this
 * peer, and a stranger's would otherwise hold our connection back until
 * its deadline, again and again. Past that, we connect; should the
 * peer's own connection open too, it is a duplicate like any other. */
static void peer_connect(oob_peer_t *p)
{
    if (!p->oob->race_connects)
        oob_accept_waiting(p->oob);
    /* Accepting may have brought a connection from this very peer. */
    if (p->nopen > 0 || p->connecting != NULL || p->oob->destroy_requested)
        return;
    double wait = p->naccepting > 0 ? oob_guard_proof_due(p) : 0;
    if (wait > 0)
        oob_peer_kick_after(p, wait);
    else
        oob_conn_connect(p);
}

static void peer_kick_cb(evutil_socket_t fd, short what, void *arg)
{
    oob_peer_t *p = arg;
    hnp_oob_t *oob = p->oob;
    bool empty = evbuffer_get_length(p->queue) == 0;

    (void)fd;
    (void)what;
    oob_hold(oob);
    if (p->closing && empty)
        oob_peer_close_now(p);
    else if (p->sender != NULL)
        oob_conn_want_write(p->sender);
    else if (!empty && p->connecting == NULL && p->naddrs > 0 && p->nopen == 0)
        peer_connect(p);
    oob_release(oob);
}
