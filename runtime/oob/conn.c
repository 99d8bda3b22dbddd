/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One OOB connection: the outgoing connect through a peer's addresses, the
 * handshake, then authenticated frames in and out.
 *
 * The handshake is auth.h's: the connector's hello; the acceptor's hello and
 * proof; the connector's proof. The secret itself is never sent. Each side
 * sends frames only once the other has proven itself (the connector right
 * after its proof, the acceptor once it has checked that proof), each frame
 * with its MAC (sealed in peer.c, checked here); a wrong proof or MAC ends
 * the connection with a warning that names the peer.
 * Every event callback holds the OOB (oob_hold/oob_release): a connection
 * that ends inside a callback is only marked dead, and user callbacks may
 * call any hnp_oob_* function, hnp_oob_destroy() included. Duplicates from
 * simultaneous connects retire as internal.h tells.
 */
#include "config.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "hnp_errors.h"
#include "internal.h"

#define WRITE_IOV_MAX 16
/* Per callback, so that one busy connection cannot starve the others. */
#define READ_BUDGET ((size_t)1 << 20)
#define READ_CHUNK ((size_t)64 << 10)
#define CONN_EOF (-1)

static void conn_read_cb(evutil_socket_t fd, short what, void *arg);
static void conn_write_cb(evutil_socket_t fd, short what, void *arg);
static void conn_timer_cb(evutil_socket_t fd, short what, void *arg);
static void connect_next(oob_peer_t *peer);
static void conn_end_deferred(oob_peer_t *peer);
static void conn_connected(oob_conn_t *c);

/* Our connection waits for the acceptor's reply: it costs the acceptor
 * nothing, and an acceptor busy with a flood of strangers may take a while
 * to reach it in its accept queue, so the short deadline that protects an
 * acceptor is not applied here. */
static double reply_timeout(const hnp_oob_t *oob)
{
    return oob->connect_timeout > oob->handshake_timeout
               ? oob->connect_timeout
               : oob->handshake_timeout;
}

static void timer_start(oob_conn_t *c, double seconds)
{
    struct timeval tv;

    tv.tv_sec = (time_t)seconds;
    tv.tv_usec = (suseconds_t)((seconds - (double)tv.tv_sec) * 1e6);
    event_add(c->ev_timer, &tv);
}

/* Small control messages dominate launch latency; Nagle would hold them. */
static void set_nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---------------------------------------------------------- lifecycle */

void oob_conn_free(oob_conn_t *c)
{
    if (c->ev_read != NULL)
        event_free(c->ev_read);
    if (c->ev_write != NULL)
        event_free(c->ev_write);
    if (c->ev_timer != NULL)
        event_free(c->ev_timer);
    if (c->in != NULL)
        evbuffer_free(c->in);
    if (c->out != NULL)
        evbuffer_free(c->out);
    hnp_frame_mac_wipe(&c->tx);
    hnp_frame_mac_wipe(&c->rx);
    free(c);
}

static oob_conn_t *conn_new(hnp_oob_t *oob, int fd, const struct sockaddr *sa)
{
    oob_conn_t *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    c->oob = oob;
    c->fd = fd;
    c->in = evbuffer_new();
    c->out = evbuffer_new();
    c->ev_read =
        event_new(oob->base, fd, EV_READ | EV_PERSIST, conn_read_cb, c);
    c->ev_write =
        event_new(oob->base, fd, EV_WRITE | EV_PERSIST, conn_write_cb, c);
    c->ev_timer = evtimer_new(oob->base, conn_timer_cb, c);
    if (c->in == NULL || c->out == NULL || c->ev_read == NULL ||
        c->ev_write == NULL || c->ev_timer == NULL) {
        oob_conn_free(c);
        return NULL;
    }
    oob_endpoint_str(sa, c->remote, sizeof(c->remote));
    c->next = oob->live;
    if (oob->live != NULL)
        oob->live->prev = c;
    oob->live = c;
    if (++oob->nconns > oob->maxconns)
        oob->maxconns = oob->nconns;
    return c;
}

void oob_conn_close(oob_conn_t *c)
{
    hnp_oob_t *oob = c->oob;

    if (c->state == OOB_CONN_DEAD)
        return;
    event_del(c->ev_read);
    event_del(c->ev_write);
    event_del(c->ev_timer);
    close(c->fd);
    c->fd = -1;
    if (c->state == OOB_CONN_AWAIT_PROOF)
        c->peer->naccepting--;
    c->state = OOB_CONN_DEAD;
    oob_guard_release(c);
    if (c->rx_held) {
        c->rx_held = false;
        c->peer->nheld--;
    }
    if (c->peer != NULL && c->peer->connecting == c)
        c->peer->connecting = NULL;
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        oob->live = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    c->prev = NULL;
    c->next = oob->dead;
    oob->dead = c;
    oob->nconns--;
    /* A duplicate gone can bring no more frames: what waited for it may go. */
    if (c->peer != NULL && c->peer->nheld > 0)
        oob_peer_unhold(c->peer);
}

static void conn_log_end(const oob_conn_t *c, hnp_log_severity_t sev,
                         const char *reason)
{
    hnp_log_stream_t *log = c->oob->log;
    const char *what = c->state == OOB_CONN_OPEN ||
                               c->state == OOB_CONN_CLOSING
                           ? "closed"
                           : "dropped";

    if (sev == HNP_LOG_VERBOSE && log->verbose < 1)
        return;
    /* A peer that has not proven itself may be anyone, as many times as
     * it likes: its warnings are rate-limited like a stranger's. */
    if ((c->peer == NULL || c->state == OOB_CONN_AWAIT_PROOF) &&
        sev == HNP_LOG_WARN) {
        oob_guard_warn(c->oob, c->remote, reason);
        return;
    }
    if (c->peer != NULL)
        hnp_log_emit(log, sev, "connection with peer %u (%s) %s: %s",
                     c->peer->vpid, c->remote, what, reason);
    else
        hnp_log_emit(log, sev, "connection from %s dropped: %s", c->remote,
                     reason);
}

static void attempt_note(oob_peer_t *peer, const char *where,
                         const char *reason)
{
    struct evbuffer *tried = peer->attempt.tried;

    evbuffer_add_printf(tried, "%s%s (%s)",
                        evbuffer_get_length(tried) > 0 ? ", " : "", where,
                        reason);
}

/* The connection ends: log why, then let its peer react (next address,
 * switch sender, or peer down). */
void oob_conn_end(oob_conn_t *c, hnp_log_severity_t sev, const char *fmt, ...)
{
    oob_conn_state_t was = c->state;
    oob_peer_t *peer = c->peer;
    char reason[OOB_REASON_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    conn_log_end(c, sev, reason);
    oob_conn_close(c);
    if (was == OOB_CONN_CONNECTING || was == OOB_CONN_AWAIT_REPLY) {
        attempt_note(peer, c->remote, reason);
        connect_next(peer);
        conn_end_deferred(peer);
    } else if (was == OOB_CONN_OPEN) {
        oob_peer_conn_lost(peer, c);
    } else if (was == OOB_CONN_AWAIT_PROOF) {
        /* What waited for this connection (a duplicate's EOF, a queue
         * that did not connect beside it) goes on without it. */
        conn_end_deferred(peer);
        oob_peer_kick(peer);
    }
}

/* ---------------------------------------------------------- writing */

ssize_t oob_write_evbuffer(int fd, struct evbuffer *buf, size_t limit,
                           int flags)
{
    struct evbuffer_iovec vec[WRITE_IOV_MAX];
    struct iovec iov[WRITE_IOV_MAX];
    struct msghdr msg;
    ev_ssize_t want = limit < (size_t)EV_SSIZE_MAX ? (ev_ssize_t)limit : -1;

    int n = evbuffer_peek(buf, want, NULL, vec, WRITE_IOV_MAX);
    if (n > WRITE_IOV_MAX)
        n = WRITE_IOV_MAX;
    for (int i = 0; i < n; i++) {
        iov[i].iov_base = vec[i].iov_base;
        /* The last chunk peeked may reach past the limit. */
        iov[i].iov_len = vec[i].iov_len < limit ? vec[i].iov_len : limit;
        limit -= iov[i].iov_len;
    }
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = iov;
    msg.msg_iovlen = (size_t)(n > 0 ? n : 0);
    /* MSG_NOSIGNAL: a peer that went away must give EPIPE, not a SIGPIPE
     * that kills the whole process. */
    ssize_t w = sendmsg(fd, &msg, MSG_NOSIGNAL | flags);
    if (w > 0)
        evbuffer_drain(buf, (size_t)w);
    return w;
}

/* 0 once @p buf is empty or the socket is full, else an errno. */
static int drain_to_socket(int fd, struct evbuffer *buf, int flags)
{
    while (evbuffer_get_length(buf) > 0) {
        if (oob_write_evbuffer(fd, buf, SIZE_MAX, flags) >= 0 ||
            errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : errno;
    }
    return 0;
}

/* A duplicate has written its last byte: our FIN, then the preferred
 * connection may send; the duplicate stays until the peer's FIN. */
static void conn_retire_done(oob_conn_t *c)
{
    c->retiring = false;
    c->tx_shut = true;
    shutdown(c->fd, SHUT_WR);
    HNP_VERBOSE(c->oob->log, 2, "connection with peer %u (%s) is a duplicate: "
                "our side is shut", c->peer->vpid, c->remote);
    if (c->rx_eof) {
        oob_conn_end(c, HNP_LOG_VERBOSE, "a duplicate, shut by both sides");
        return;
    }
    timer_start(c, c->oob->handshake_timeout);
    oob_peer_retired(c->peer, c);
}

void oob_conn_flush(oob_conn_t *c)
{
    hnp_oob_t *oob = c->oob;
    oob_peer_t *peer = c->peer;
    bool mine = c->state == OOB_CONN_OPEN && peer->sender == c && !c->tx_shut;
    size_t limit = c->retiring ? oob_peer_head_left(peer) : SIZE_MAX;
    size_t queued = oob->queued_bytes;

    /* The handshake's bytes go first. When frames follow at once (the
     * connector's proof, then what waited for the connection), MSG_MORE
     * holds them for the frames' write: one segment through TCP and one
     * wake-up of the peer, not two. */
    bool frames_follow = mine && limit > 0 &&
                         evbuffer_get_length(peer->queue) > 0;
    int err = drain_to_socket(c->fd, c->out, frames_follow ? MSG_MORE : 0);
    bool more = evbuffer_get_length(c->out) > 0;
    if (err == 0 && !more && mine && limit > 0) {
        err = oob_peer_flush(peer, c, limit);
        more = c->retiring ? oob_peer_head_left(peer) > 0
                           : evbuffer_get_length(peer->queue) > 0;
    }
    if (err != 0) {
        bool ordinary = err == EPIPE || err == ECONNRESET;
        oob_conn_end(c, ordinary ? HNP_LOG_VERBOSE : HNP_LOG_WARN, "write: %s",
                     strerror(err));
        return;
    }
    if (more)
        event_add(c->ev_write, NULL);
    else
        event_del(c->ev_write);
    if (!more && c->retiring)
        conn_retire_done(c);
    else if (!more && mine && peer->closing)
        oob_peer_close_now(peer);
    if (queued > 0 && oob->queued_bytes == 0)
        oob_notify_drained(oob);
}

/* An open connection's socket is most likely writable: its write callback
 * runs at the end of this turn of the loop (what else is queued by then
 * goes in the same write) without a round through epoll; it waits for the
 * socket to be writable (event_add) only once a write found it full. */
void oob_conn_want_write(oob_conn_t *c)
{
    if (c->state == OOB_CONN_DEAD)
        return;
    if (c->state == OOB_CONN_OPEN && !event_pending(c->ev_write, EV_WRITE, NULL))
        event_active(c->ev_write, EV_WRITE, 0);
    else
        event_add(c->ev_write, NULL);
}

/* ---------------------------------------------------------- connecting */

/* Nearby, the connection is often up by the time connect() returns. Saying
 * hello then, not a loop turn later, lets a peer about to connect to us
 * find us in its accept queue (oob_accept_waiting) instead of racing. */
static bool connect_done(int fd)
{
    struct pollfd pfd = { .fd = fd, .events = POLLOUT, .revents = 0 };

    return poll(&pfd, 1, 0) == 1;
}

static int connect_start(oob_peer_t *peer, const oob_endpoint_t *ep)
{
    const struct sockaddr *sa = (const struct sockaddr *)&ep->sa;
    char where[OOB_ENDPOINT_STRLEN];
    oob_conn_t *c = NULL;

    oob_endpoint_str(sa, where, sizeof(where));
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    0);
    if (fd < 0)
        goto failed;
    set_nodelay(fd);
    if (connect(fd, sa, ep->len) != 0 && errno != EINPROGRESS)
        goto failed;
    c = conn_new(peer->oob, fd, sa);
    if (c == NULL) {
        errno = ENOMEM;
        goto failed;
    }
    c->state = OOB_CONN_CONNECTING;
    c->peer = peer;
    c->outgoing = true;
    peer->connecting = c;
    event_add(c->ev_write, NULL);
    timer_start(c, peer->oob->connect_timeout);
    HNP_VERBOSE(peer->oob->log, 2, "connecting to peer %u at %s", peer->vpid,
                where);
    if (connect_done(fd))
        conn_connected(c); /* a failure there tries the next address */
    return HNP_SUCCESS;
failed:
    attempt_note(peer, where, strerror(errno));
    if (fd >= 0)
        close(fd);
    return HNP_ERR_IO;
}

static void connect_next(oob_peer_t *peer)
{
    oob_attempt_t *a = &peer->attempt;

    peer->connecting = NULL;
    /* It connected to us meanwhile: its queue is served, stop trying. */
    if (peer->nopen > 0)
        return;
    while (a->next < a->ntargets)
        if (connect_start(peer, &a->targets[a->next++]) == HNP_SUCCESS)
            return;
    if (!oob_peer_retry(peer))
        oob_peer_unreachable(peer);
}

void oob_conn_connect(oob_peer_t *peer)
{
    oob_attempt_t *a = &peer->attempt;
    hnp_oob_t *oob = peer->oob;

    free(a->targets);
    a->ntargets = 0;
    a->next = 0;
    evbuffer_drain(a->tried, evbuffer_get_length(a->tried));
    a->targets = malloc(peer->naddrs * sizeof(*a->targets));
    if (a->targets == NULL) {
        evbuffer_add_printf(a->tried, "out of memory");
        oob_peer_unreachable(peer);
        return;
    }
    memcpy(a->targets, peer->addrs, peer->naddrs * sizeof(*a->targets));
    a->ntargets = peer->naddrs;
    oob_endpoints_order(oob->ifaddrs, oob->nifaddrs, a->targets, a->ntargets);
    connect_next(peer);
}

static void conn_connected(oob_conn_t *c)
{
    int soerr = 0;
    socklen_t len = sizeof(soerr);

    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
        soerr = errno;
    if (soerr != 0) {
        oob_conn_end(c, HNP_LOG_VERBOSE, "connect: %s", strerror(soerr));
        return;
    }
    if (c->peer->nopen > 0) {
        /* The peer connected to us meanwhile. Nothing was said on this one
         * yet, so dropping it cannot lose a message. */
        HNP_VERBOSE(c->oob->log, 2, "peer %u connected to us first; dropping "
                    "our connection to %s", c->peer->vpid, c->remote);
        oob_conn_close(c);
        return;
    }
    if (oob_handshake_hello(c) != HNP_SUCCESS) {
        oob_conn_end(c, HNP_LOG_WARN, "out of memory");
        return;
    }
    c->state = OOB_CONN_AWAIT_REPLY;
    event_del(c->ev_timer);
    if (c->oob->test_stall > 0) {
        /* Tests only: as starved, nothing read until the stall is over. */
        c->stalled = true;
        timer_start(c, c->oob->test_stall);
        c->oob->test_stall = 0;
    } else {
        timer_start(c, reply_timeout(c->oob));
        event_add(c->ev_read, NULL);
    }
    oob_conn_flush(c);
}

static void stall_over(oob_conn_t *c)
{
    c->stalled = false;
    timer_start(c, reply_timeout(c->oob));
    event_add(c->ev_read, NULL);
    event_active(c->ev_read, EV_READ, 0);
}

/* ---------------------------------------------------------- reading */

/* 0 when the socket has nothing more for now, CONN_EOF, or an errno. */
static int conn_fill(oob_conn_t *c)
{
    size_t total = 0;

    while (total < READ_BUDGET) {
        struct evbuffer_iovec v;
        if (evbuffer_reserve_space(c->in, (ev_ssize_t)READ_CHUNK, &v, 1) < 1)
            return ENOMEM;
        ssize_t n = recv(c->fd, v.iov_base, v.iov_len, 0);
        if (n > 0) {
            v.iov_len = (size_t)n;
            evbuffer_commit_space(c->in, &v, 1);
            total += (size_t)n;
        } else if (n == 0) {
            return CONN_EOF;
        } else if (errno != EINTR) {
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : errno;
        }
    }
    return 0;
}

void oob_conn_opened(oob_conn_t *c)
{
    hnp_oob_t *oob = c->oob;

    c->state = OOB_CONN_OPEN;
    oob_guard_release(c);
    c->open_seq = oob->next_open_seq++;
    event_del(c->ev_timer);
    HNP_VERBOSE(oob->log, 1, "connection with peer %u (%s) is up",
                c->peer->vpid, c->remote);
    c->peer->evicted = 0;
    oob_peer_opened(c->peer);
    if (c->state == OOB_CONN_OPEN)
        oob_conn_flush(c);
}

static bool frame_take(oob_conn_t *c)
{
    hnp_oob_t *oob = c->oob;
    uint8_t raw[HNP_FRAME_HEADER_LEN];
    char why[OOB_REASON_MAX] = "";
    hnp_frame_header_t hdr;

    if (evbuffer_copyout(c->in, raw, sizeof(raw)) < (ev_ssize_t)sizeof(raw))
        return false;
    if (hnp_frame_header_decode(raw, sizeof(raw), oob->max_frame, oob->nprocs,
                                &hdr, why, sizeof(why)) < 0) {
        oob_conn_end(c, HNP_LOG_WARN, "malformed or oversized frame: %s", why);
        return false;
    }
    size_t rest = (size_t)hdr.len + HNP_MAC_LEN;
    if (evbuffer_get_length(c->in) < sizeof(raw) + rest) {
        /* One allocation for the rest of a large body, not many chunks. */
        evbuffer_expand(c->in, sizeof(raw) + rest);
        return false;
    }
    evbuffer_drain(c->in, sizeof(raw));
    /* The body and its MAC, which follows it. */
    const uint8_t *body = evbuffer_pullup(c->in, (ev_ssize_t)rest);
    if (body == NULL) {
        oob_conn_end(c, HNP_LOG_WARN, "out of memory for a %u-byte frame",
                     hdr.len);
        return false;
    }
    if (!hnp_frame_mac_verify(&c->rx, raw, body, hdr.len, body + hdr.len)) {
        oob_conn_end(c, HNP_LOG_WARN,
                     "bad MAC on a frame (tag %u, %u bytes): forged, "
                     "replayed or altered on the way", hdr.tag, hdr.len);
        return false;
    }
    oob_notify_deliver(oob, c->peer->vpid, &hdr, body);
    /* Still ours even if the callback closed things: frees are deferred. */
    evbuffer_drain(c->in, rest);
    return true;
}

static void conn_process(oob_conn_t *c)
{
    bool progress = true;

    while (progress && !c->oob->destroy_requested) {
        switch (c->state) {
        case OOB_CONN_AWAIT_HELLO:
        case OOB_CONN_AWAIT_PROOF:
        case OOB_CONN_AWAIT_REPLY: progress = oob_handshake_step(c); break;
        case OOB_CONN_OPEN:
            progress = !oob_peer_holds(c->peer, c) && frame_take(c);
            break;
        case OOB_CONN_CLOSING: progress = frame_take(c); break;
        default: progress = false; break;
        }
    }
}

void oob_conn_hold(oob_conn_t *c, bool held)
{
    if (c->rx_held == held || c->state == OOB_CONN_DEAD)
        return;
    c->rx_held = held;
    if (held) {
        /* Not read meanwhile: the peer's writes stall instead of our
         * buffer growing. */
        c->peer->nheld++;
        event_del(c->ev_read);
        return;
    }
    c->peer->nheld--;
    event_add(c->ev_read, NULL);
    /* What waited is already buffered: the socket may say nothing new. */
    event_active(c->ev_read, EV_READ, 0);
}

/* Our preferred attempt ended: a duplicate whose EOF waited for it
 * (conn_eof_duplicate) was closed by the peer after all. */
static void conn_end_deferred(oob_peer_t *p)
{
    oob_conn_t *d = p->oob->live;

    while (d != NULL && !p->oob->destroy_requested) {
        if (d->peer == p && d->state == OOB_CONN_OPEN && d->rx_eof &&
            !d->retiring && !d->tx_shut) {
            oob_conn_end(d, HNP_LOG_VERBOSE, "closed by the other side");
            d = p->oob->live; /* the callbacks may have changed the list */
        } else {
            d = d->next;
        }
    }
}

/* An EOF on a duplicate while the preferred connection is up, or while a
 * preferred one is still in its handshake here but open at the peer (our
 * attempt awaiting the peer's hello, or an accepted one awaiting the
 * connector's proof), is the peer retiring it: finish our side instead of
 * losing the peer. */
static bool conn_eof_duplicate(oob_conn_t *c)
{
    oob_peer_t *p = c->peer;

    if (oob_conn_preferred(c))
        return false;
    bool up = oob_peer_preferred_up(p);
    bool coming = oob_peer_preferred_coming(p);
    if (!up && !coming)
        return false;
    c->rx_eof = true;
    event_del(c->ev_read); /* an EOF stays readable */
    if (p->nheld > 0)
        oob_peer_unhold(p);
    if (c->tx_shut) {
        oob_conn_end(c, HNP_LOG_VERBOSE, "a duplicate, shut by both sides");
    } else if (up) {
        c->retiring = true;
        oob_conn_want_write(c);
    }
    return true;
}

static void conn_read_failed(oob_conn_t *c, int err)
{
    bool open = c->state == OOB_CONN_OPEN || c->state == OOB_CONN_CLOSING;

    if (c->state == OOB_CONN_AWAIT_REPLY &&
        (err == CONN_EOF || err == ECONNRESET))
        c->peer->attempt.handshake_failed = true;

    if (err == CONN_EOF && c->state == OOB_CONN_OPEN && conn_eof_duplicate(c))
        return;
    if (err == CONN_EOF)
        oob_conn_end(c, HNP_LOG_VERBOSE, "closed by the other side%s",
                     open ? "" : " during the handshake");
    else
        oob_conn_end(c, err == ECONNRESET ? HNP_LOG_VERBOSE : HNP_LOG_WARN,
                     "read: %s", strerror(err));
}

static void conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
    oob_conn_t *c = arg;
    hnp_oob_t *oob = c->oob;

    (void)fd;
    (void)what;
    oob_hold(oob);
    int err = conn_fill(c);
    char why[OOB_REASON_MAX];
    if (err != 0 && c->state == OOB_CONN_AWAIT_REPLY) {
        /* The acceptor closed before it had our proof (we send it only
         * on reading its answer): whatever it answered, the connection
         * never opened on its side. Taking the answer would open ours,
         * send frames into a closed socket and lose the peer. */
        conn_read_failed(c, err);
        oob_release(oob);
        return;
    }
    if (oob_guard_foreign(c, why, sizeof(why))) {
        oob_conn_end(c, HNP_LOG_WARN, "%s", why);
        oob_release(oob);
        return;
    }
    conn_process(c);
    if (c->state == OOB_CONN_OPEN && !oob->destroy_requested &&
        oob_peer_holds(c->peer, c)) {
        /* The frames wait in c->in; an EOF is read again on resuming. */
        oob_conn_hold(c, true);
        err = 0;
    }
    if (err != 0 && c->state != OOB_CONN_DEAD && !oob->destroy_requested)
        conn_read_failed(c, err);
    oob_release(oob);
}

void oob_conn_read_now(oob_conn_t *c)
{
    if (c->state != OOB_CONN_DEAD && !c->stalled && !c->rx_held)
        conn_read_cb(c->fd, EV_READ, c);
}

static void conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
    oob_conn_t *c = arg;
    hnp_oob_t *oob = c->oob;

    (void)fd;
    (void)what;
    oob_hold(oob);
    if (c->state == OOB_CONN_CONNECTING)
        conn_connected(c);
    else if (c->state != OOB_CONN_DEAD)
        oob_conn_flush(c);
    oob_release(oob);
}

static void conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    oob_conn_t *c = arg;
    hnp_oob_t *oob = c->oob;

    (void)fd;
    (void)what;
    oob_hold(oob);
    if (c->stalled) {
        stall_over(c);
        oob_release(oob);
        return;
    }
    /* A process that did not run for a while finds its deadlines passed
     * and the awaited bytes perhaps already there: read them first. */
    if (c->state == OOB_CONN_AWAIT_HELLO || c->state == OOB_CONN_AWAIT_PROOF ||
        c->state == OOB_CONN_AWAIT_REPLY) {
        oob_conn_read_now(c);
        if (c->state == OOB_CONN_OPEN || c->state == OOB_CONN_DEAD) {
            oob_release(oob);
            return;
        }
    }
    if (c->state == OOB_CONN_AWAIT_REPLY || c->state == OOB_CONN_CONNECTING)
        c->peer->attempt.handshake_failed = true;
    if (c->state == OOB_CONN_CONNECTING)
        oob_conn_end(c, HNP_LOG_VERBOSE, "connect timed out after %g s",
                     oob->connect_timeout);
    else if (c->state == OOB_CONN_AWAIT_HELLO ||
             c->state == OOB_CONN_AWAIT_PROOF)
        oob_conn_end(c, HNP_LOG_WARN, "handshake timed out: not completed "
                     "within %g s (oob_tcp_handshake_timeout)",
                     oob->handshake_timeout);
    else if (c->state == OOB_CONN_AWAIT_REPLY)
        oob_conn_end(c, HNP_LOG_VERBOSE, "failed handshake: no reply within "
                     "%g s", reply_timeout(oob));
    else if (c->state == OOB_CONN_CLOSING)
        oob_conn_end(c, HNP_LOG_VERBOSE, "not closed by the other side within "
                     "%g s of our close", oob->handshake_timeout);
    else if (c->state == OOB_CONN_OPEN && c->tx_shut)
        oob_conn_end(c, HNP_LOG_VERBOSE,
                     "a duplicate not shut by the other side within %g s "
                     "of ours", oob->handshake_timeout);
    oob_release(oob);
}

/* ---------------------------------------------------------- entry points */

int oob_conn_accepted(hnp_oob_t *oob, int fd, const struct sockaddr *sa)
{
    set_nodelay(fd);
    oob_conn_t *c = conn_new(oob, fd, sa);
    if (c == NULL) {
        char where[OOB_ENDPOINT_STRLEN];
        HNP_WARN(oob->log, "connection from %s dropped: out of memory",
                 oob_endpoint_str(sa, where, sizeof(where)));
        close(fd);
        return HNP_ERR_NOMEM;
    }
    c->state = OOB_CONN_AWAIT_HELLO;
    event_add(c->ev_read, NULL);
    timer_start(c, oob->handshake_timeout);
    HNP_VERBOSE(oob->log, 2, "accepted a connection from %s", c->remote);
    /* The connector speaks first, often before we accept: reading its
     * hello now tells oob_accept_waiting() who it is. Only a connection
     * still waiting after that takes a waiting slot (guard.c). */
    oob_hold(oob);
    conn_read_cb(fd, EV_READ, c);
    if (c->state != OOB_CONN_OPEN && c->state != OOB_CONN_DEAD)
        oob_guard_admit(c);
    oob_release(oob);
    return HNP_SUCCESS;
}

/* close_peer: what we wrote stays readable for the peer, which sees EOF
 * after it; we keep reading until the peer closes too, so nothing it sent
 * meanwhile is lost. */
void oob_conn_shutdown(oob_conn_t *c)
{
    /* Nothing to wait for once the peer has shut its side too. */
    if (c->state != OOB_CONN_OPEN || c->rx_eof) {
        oob_conn_close(c);
        return;
    }
    (void)drain_to_socket(c->fd, c->out, 0);
    shutdown(c->fd, SHUT_WR);
    c->state = OOB_CONN_CLOSING;
    c->retiring = false;
    oob_conn_hold(c, false); /* the EOF must be read */
    event_del(c->ev_write);
    timer_start(c, c->oob->handshake_timeout);
}
