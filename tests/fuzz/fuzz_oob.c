/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the OOB connection state machine (runtime/oob) as a peer
 * drives it: the handshake, frames split anywhere, forged and replayed
 * frames, a second connection from the same vpid, what the OOB sends back,
 * EOF. The peer's ends are socketpairs handed to the OOB's accept path.
 * One OOB per vpid of the OOB serves input after input (creating one reads
 * the interfaces, which would cost more than the input): after each, all
 * its connections must be gone, and one left with frames queued is made
 * anew.
 *
 * Input layout (make-corpus.sh writes seeds in it):
 *   byte 0    bits 0-1  the OOB's vpid: 0, 1, 2, 5 (job size 8)
 *             bits 2-4  the vpid the peer claims (0..7; its own is refused)
 *             bit 5     honest: the peer does the handshake itself, with
 *                       the job's secret; else the bytes are all the peer's
 *             bit 6     the OOB's socket buffers are small (partial writes)
 *   then records, each an op byte (low 3 bits) and its operands:
 *     0 RAW n, n bytes      written as they are
 *     1 FRAME t, n, n bytes  a frame (tag t | the frame's number << 8) to
 *                            the OOB, with the right MAC (once honest);
 *                            with op bit 3, written in two pieces with
 *                            the OOB run in between
 *     2 FORGED t, n, k, n bytes  the same with byte k of the MAC flipped
 *     3 REPLAY               the last FRAME's bytes again
 *     4 PUMP                 run the OOB now: what follows arrives apart
 *     5 EOF                  shut the peer's side of this connection
 *     6 SWITCH               go on on a second connection (opened, with
 *                            its handshake, the first time)
 *     7 SEND n               the OOB sends an n-byte frame to the peer
 * The oracle: every frame the OOB delivers is a FRAME sent with the right
 * MAC on a connection that saw no bad one, each once, in the order sent
 * on its connection; everything the OOB sends the peer carries a right
 * MAC, in sequence; once the peer has closed, no connection is left.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "fuzz_target.h"
#include "hnp_errors.h"
#include "oob/internal.h"
#include "wire/auth.h"

#define NPROCS 8
#define MAX_SENT 512
#define MAX_FRAME_BODY 255

typedef struct peer_conn {
    int fd;                    /* the peer's end; -1 when not open */
    bool keyed, bad, shut;
    hnp_auth_transcript_t hs;
    hnp_frame_mac_t tx, rx;
    uint8_t last[HNP_FRAME_HEADER_LEN + MAX_FRAME_BODY + HNP_MAC_LEN];
    size_t last_len;
    uint32_t next_expected;    /* the first good frame not delivered yet */
    uint32_t nsent;            /* good frames sent before any bad byte */
} peer_conn_t;

typedef struct run {
    hnp_vpid_t self, claimed;
    bool honest;
    peer_conn_t conn[2];
    int cur;
    uint32_t ndelivered;
} run_t;

static struct event_base *base;
static hnp_oob_t *oobs[4];
static const uint8_t secret[HNP_SECRET_LEN] = "fuzz secret, fuzz secret, fuzz!";
static run_t *current;

static void pump(void)
{
    for (int i = 0; i < 4; i++)
        event_base_loop(base, EVLOOP_NONBLOCK);
}

/* tag = connection << 24 | frame number << 8 | the input's byte. */
static void on_deliver(void *ctx, hnp_vpid_t from, const hnp_frame_header_t *h,
                       const uint8_t *body)
{
    run_t *r = ctx;
    uint32_t which = h->tag >> 24, number = (h->tag >> 8) & 0xffff;

    (void)body;
    FUZZ_CHECK(r == current);
    FUZZ_CHECK(r->honest);
    FUZZ_CHECK(from == r->claimed);
    FUZZ_CHECK(which < 2);
    peer_conn_t *c = &r->conn[which];
    /* Sent with a right MAC before any bad byte, in order, once. (Frames
     * after a bad byte are not counted: their number is nsent.) */
    FUZZ_CHECK(number < c->nsent);
    FUZZ_CHECK(number == c->next_expected);
    c->next_expected++;
    r->ndelivered++;
}

static void peer_write(peer_conn_t *c, const void *p, size_t n)
{
    const uint8_t *b = p;

    while (c->fd >= 0 && !c->shut && n > 0) {
        ssize_t w = send(c->fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            b += w;
            n -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pump(); /* the OOB reads, or holds: then give up */
            if (send(c->fd, b, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
                c->bad = true; /* the rest is lost: the stream is cut */
                return;
            }
            b++;
            n--;
        } else {
            return;
        }
    }
}

/* The peer's side of the handshake, as vpid r->claimed. */
static void handshake(run_t *r, peer_conn_t *c)
{
    uint8_t raw[HNP_REPLY_LEN], proof[HNP_PROOF_LEN];

    c->hs.connector.version = HNP_PROTOCOL_VERSION;
    c->hs.connector.vpid = r->claimed;
    hnp_auth_nonce(c->hs.connector.nonce);
    hnp_hello_encode(&c->hs.connector, raw);
    peer_write(c, raw, HNP_HELLO_LEN);
    pump();
    if (recv(c->fd, raw, sizeof(raw), MSG_DONTWAIT | MSG_PEEK) !=
        (ssize_t)sizeof(raw))
        return; /* refused: an unknown vpid, or its own */
    FUZZ_CHECK(recv(c->fd, raw, sizeof(raw), 0) == (ssize_t)sizeof(raw));
    FUZZ_CHECK(hnp_hello_check(raw, sizeof(raw), NPROCS, &c->hs.acceptor,
                               NULL, 0) == HNP_SUCCESS);
    FUZZ_CHECK(c->hs.acceptor.vpid == r->self);
    FUZZ_CHECK(hnp_auth_proof_check(secret, &c->hs, HNP_AUTH_ACCEPTOR,
                                    raw + HNP_HELLO_LEN));
    hnp_auth_proof(secret, &c->hs, HNP_AUTH_CONNECTOR, proof);
    peer_write(c, proof, sizeof(proof));
    hnp_frame_mac_init(&c->tx, secret, &c->hs, HNP_AUTH_CONNECTOR);
    hnp_frame_mac_init(&c->rx, secret, &c->hs, HNP_AUTH_ACCEPTOR);
    c->keyed = true;
}

static void conn_open(run_t *r, peer_conn_t *c, hnp_oob_t *oob, bool small)
{
    struct sockaddr_in sin;
    int sv[2];

    memset(c, 0, sizeof(*c));
    c->fd = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                   sv) != 0)
        return;
    if (small) {
        int size = 4096;
        (void)setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
        (void)setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    }
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons(40000);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    c->fd = sv[0];
    if (oob_conn_accepted(oob, sv[1], (struct sockaddr *)&sin) !=
        HNP_SUCCESS) {
        close(sv[0]);
        c->fd = -1;
        return;
    }
    if (r->honest)
        handshake(r, c);
}

/* One frame to the OOB; @p flip: the MAC byte to spoil, or -1; @p split:
 * in two pieces. */
static void send_frame(run_t *r, peer_conn_t *c, uint8_t t,
                       const uint8_t *body, size_t n, int flip, bool split)
{
    hnp_frame_header_t hdr = { r->claimed, r->self, 0, (uint32_t)n };
    uint8_t *f = c->last;
    size_t len = HNP_FRAME_HEADER_LEN + n;
    uint32_t number = c->nsent < MAX_SENT ? c->nsent : MAX_SENT - 1;

    hdr.tag = (uint32_t)(c - r->conn) << 24 | number << 8 | t;
    hnp_frame_header_encode(&hdr, f);
    memcpy(f + HNP_FRAME_HEADER_LEN, body, n);
    if (c->keyed) {
        hnp_frame_mac_sign(&c->tx, f, body, n, f + len);
        if (flip >= 0)
            f[len + (size_t)flip % HNP_MAC_LEN] ^= 0x80;
        len += HNP_MAC_LEN;
    }
    if (flip < 0 && c->keyed && !c->bad && c->nsent < MAX_SENT - 1) {
        c->nsent++;
        c->last_len = len;
    } else {
        c->bad = true;
        c->last_len = 0;
    }
    size_t first = split ? (len + t) % len : len;
    peer_write(c, f, first);
    if (first < len) {
        pump();
        peer_write(c, f + first, len - first);
    }
}

/* What the OOB wrote to the peer: frames with right MACs, in sequence. */
static void read_from_oob(peer_conn_t *c)
{
    uint8_t buf[HNP_FRAME_HEADER_LEN + 4096 + HNP_MAC_LEN];
    hnp_frame_header_t hdr;

    for (;;) {
        ssize_t n = recv(c->fd, buf, HNP_FRAME_HEADER_LEN,
                         MSG_DONTWAIT | MSG_PEEK);
        if (n < (ssize_t)HNP_FRAME_HEADER_LEN)
            return;
        FUZZ_CHECK(hnp_frame_header_decode(buf, HNP_FRAME_HEADER_LEN, 4096,
                                           NPROCS, &hdr, NULL, 0) ==
                   HNP_SUCCESS);
        size_t whole = HNP_FRAME_HEADER_LEN + hdr.len + HNP_MAC_LEN;
        if (recv(c->fd, buf, whole, MSG_DONTWAIT | MSG_PEEK) != (ssize_t)whole)
            return;
        FUZZ_CHECK(recv(c->fd, buf, whole, 0) == (ssize_t)whole);
        FUZZ_CHECK(c->keyed);
        FUZZ_CHECK(hnp_frame_mac_verify(&c->rx, buf,
                                        buf + HNP_FRAME_HEADER_LEN, hdr.len,
                                        buf + HNP_FRAME_HEADER_LEN + hdr.len));
    }
}

static size_t take(const uint8_t **p, size_t *left, size_t n)
{
    size_t got = n < *left ? n : *left;

    *p += got;
    *left -= got;
    return got;
}

static void play(run_t *r, hnp_oob_t *oob, bool small, const uint8_t *p,
                 size_t left)
{
    static const uint8_t zeros[4096];

    while (left > 0 && !oob->destroy_requested) {
        uint8_t op = *p;
        const uint8_t *arg = p + 1;
        size_t n;

        take(&p, &left, 1);
        peer_conn_t *c = &r->conn[r->cur];
        switch (op & 7) {
        case 0:
        case 1:
        case 2:
            n = left > 0 ? *arg : 0;
            take(&p, &left, 1);
            if ((op & 7) == 2) {
                int k = left > 0 ? *p : 0;
                take(&p, &left, 1);
                const uint8_t *body = p;
                n = take(&p, &left, n);
                send_frame(r, c, (uint8_t)op, body, n, k, false);
            } else {
                const uint8_t *body = p;
                n = take(&p, &left, n);
                if ((op & 7) == 0) {
                    peer_write(c, body, n);
                    if (n > 0)
                        c->bad = true; /* not ours to predict any more */
                } else {
                    send_frame(r, c, (uint8_t)op, body, n, -1, op & 8);
                }
            }
            break;
        case 3:
            if (c->last_len > 0) {
                c->bad = true;
                peer_write(c, c->last, c->last_len);
            }
            break;
        case 4: pump(); break;
        case 5:
            if (c->fd >= 0 && !c->shut) {
                shutdown(c->fd, SHUT_WR);
                c->shut = true;
            }
            break;
        case 6:
            r->cur ^= 1;
            if (r->conn[r->cur].fd < 0 && r->cur == 1)
                conn_open(r, &r->conn[1], oob, small);
            break;
        case 7: {
            n = left > 0 ? (size_t)*arg * 16 : 0;
            take(&p, &left, 1);
            hnp_frame_header_t hdr = { r->self, r->claimed, 9, (uint32_t)n };
            if (r->claimed != r->self)
                (void)hnp_oob_send(oob, r->claimed, &hdr, zeros);
            pump();
            for (int i = 0; i < 2; i++)
                if (r->conn[i].fd >= 0 && r->conn[i].keyed)
                    read_from_oob(&r->conn[i]);
            break;
        }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const hnp_vpid_t selves[4] = { 0, 1, 2, 5 };
    hnp_oob_config_t config = {
        .if_include = "127.0.0.1/32",
        .max_frame = 4096,
        .nprocs = NPROCS,
    };
    hnp_oob_callbacks_t cb = { .deliver = on_deliver };
    char err[256];
    run_t r;

    if (size < 1)
        return 0;
    if (base == NULL) {
        base = event_base_new();
        hnp_log_set_handler(fuzz_discard_log, NULL);
        if (base == NULL || hnp_auth_init() != HNP_SUCCESS)
            abort();
    }
    memset(&r, 0, sizeof(r));
    r.self = selves[data[0] & 3];
    r.claimed = (data[0] >> 2) & 7;
    r.honest = (data[0] >> 5) & 1;
    r.conn[0].fd = r.conn[1].fd = -1;
    cb.ctx = &r;
    current = &r;
    hnp_oob_t **slot = &oobs[data[0] & 3];
    if (*slot == NULL &&
        hnp_oob_create(slot, base, r.self, secret, &config, &cb, err,
                       sizeof(err)) != HNP_SUCCESS)
        return 0; /* no loopback here: nothing to fuzz */
    hnp_oob_t *oob = *slot;
    oob->cb.ctx = &r;
    bool small = (data[0] >> 6) & 1;
    conn_open(&r, &r.conn[0], oob, small);
    play(&r, oob, small, data + 1, size - 1);
    pump();
    /* Every connection ends with the peer's. */
    for (int i = 0; i < 2; i++) {
        if (r.conn[i].fd >= 0) {
            close(r.conn[i].fd);
            r.conn[i].fd = -1;
        }
        hnp_frame_mac_wipe(&r.conn[i].tx);
        hnp_frame_mac_wipe(&r.conn[i].rx);
    }
    for (int i = 0; i < 8 && hnp_oob_num_connections(oob) > 0; i++)
        pump();
    FUZZ_CHECK(hnp_oob_num_connections(oob) == 0);
    if (hnp_oob_queued_bytes(oob) > 0) {
        hnp_oob_destroy(oob);
        *slot = NULL;
    }
    current = NULL;
    return 0;
}
