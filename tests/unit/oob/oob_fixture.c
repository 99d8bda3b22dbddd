/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixture of test_oob (see oob_fixture.h). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "hnp_errors.h"
#include "oob_fixture.h"
#include "oob/internal.h"
#include "wire/auth.h"

const uint8_t good_secret[HNP_SECRET_LEN] = "0123456789abcdef0123456789abcde";
const uint8_t bad_secret[HNP_SECRET_LEN] = "fedcba9876543210fedcba987654321";

/* ------------------------------------------------------------ plumbing */

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void run_for(world_t *w, double seconds)
{
    struct timeval tv = { (time_t)seconds,
                          (suseconds_t)((seconds - (time_t)seconds) * 1e6) };
    event_base_loopexit(w->base, &tv);
    event_base_dispatch(w->base);
}

static void capture(void *ctx, hnp_log_severity_t sev,
                    const char *stream, const char *message)
{
    world_t *w = ctx;
    (void)stream;
    if (w->nlines == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->lines = realloc(w->lines, w->cap * sizeof(*w->lines));
        assert_non_null(w->lines);
    }
    w->lines[w->nlines].sev = sev;
    w->lines[w->nlines++].text = strdup(message);
    if (getenv("TEST_OOB_LOG") != NULL)
        fprintf(stderr, "[%d] %s\n", (int)sev, message);
}

/* Whether a message at @p sev contains both @p a and @p b (b may be NULL). */
bool log_has(const world_t *w, hnp_log_severity_t sev, const char *a,
             const char *b)
{
    for (size_t i = 0; i < w->nlines; i++)
        if (w->lines[i].sev == sev && strstr(w->lines[i].text, a) != NULL &&
            (b == NULL || strstr(w->lines[i].text, b) != NULL))
            return true;
    return false;
}

static void log_clear(world_t *w)
{
    for (size_t i = 0; i < w->nlines; i++)
        free(w->lines[i].text);
    w->nlines = 0;
}

int fixture_setup(void **state)
{
    world_t *w = calloc(1, sizeof(*w));
    assert_non_null(w);
    w->base = event_base_new();
    assert_non_null(w->base);
    hnp_log_set_handler(capture, w);
    /* Verbose on: the lifecycle messages are exercised too. */
    hnp_log_stream("oob")->verbose = 2;
    *state = w;
    return 0;
}

int fixture_teardown(void **state)
{
    world_t *w = *state;
    hnp_log_set_handler(NULL, NULL);
    log_clear(w);
    free(w->lines);
    event_base_free(w->base);
    free(w);
    return 0;
}

uint8_t pattern(uint32_t tag, size_t i)
{
    return (uint8_t)(tag * 7u + i * 13u);
}

int send_msg(node_t *from, hnp_vpid_t to, uint32_t tag, size_t len)
{
    uint8_t *body = malloc(len > 0 ? len : 1);
    assert_non_null(body);
    for (size_t i = 0; i < len; i++)
        body[i] = pattern(tag, i);
    hnp_frame_header_t hdr = { from->vpid, to, tag, (uint32_t)len };
    int rc = hnp_oob_send(from->oob, to, &hdr, body);
    free(body);
    return rc;
}

static void on_deliver(void *ctx, hnp_vpid_t from,
                       const hnp_frame_header_t *hdr, const uint8_t *body)
{
    node_t *n = ctx;
    if (n->nmsgs == n->cap) {
        n->cap = n->cap ? 2 * n->cap : 64;
        n->msgs = realloc(n->msgs, n->cap * sizeof(*n->msgs));
        assert_non_null(n->msgs);
    }
    msg_rec_t *m = &n->msgs[n->nmsgs++];
    m->from = from;
    m->hdr = *hdr;
    m->body_ok = true;
    for (size_t i = 0; i < hdr->len && m->body_ok; i++)
        m->body_ok = body[i] == pattern(hdr->tag, i);

    if (hdr->tag < n->echo_until)
        assert_int_equal(send_msg(n, from, hdr->tag + 1, 100), HNP_SUCCESS);
    if (n->close_on_tag != 0 && hdr->tag == n->close_on_tag)
        hnp_oob_close_peer(n->oob, from);
    if (n->destroy_after != 0 && n->nmsgs == n->destroy_after) {
        hnp_oob_destroy(n->oob);
        n->oob = NULL;
    }
}

static void on_up(void *ctx, hnp_vpid_t peer)
{
    node_t *n = ctx;
    (void)peer;
    n->nups++;
}

static void on_down(void *ctx, hnp_vpid_t peer, size_t unsent)
{
    node_t *n = ctx;
    assert_true(n->ndowns < MAX_EVENTS);
    n->down_peer[n->ndowns] = peer;
    n->down_unsent[n->ndowns++] = unsent;
    if (n->destroy_on_down) {
        hnp_oob_destroy(n->oob);
        n->oob = NULL;
    }
}

static void on_drained(void *ctx)
{
    node_t *n = ctx;
    n->ndrained++;
    n->queued_at_drain = hnp_oob_queued_bytes(n->oob);
}

int node_create(world_t *w, node_t *n, hnp_vpid_t vpid, uint32_t nprocs,
                const uint8_t *secret, const char *include,
                const char *exclude, char *err, size_t errlen)
{
    hnp_oob_config_t cfg = {
        .if_include = include,
        .if_exclude = exclude,
        .max_frame = MAX_FRAME,
        .backlog = 16,
        .connect_timeout = 2.0,
        .nprocs = nprocs,
    };
    hnp_oob_callbacks_t cb = { on_deliver, on_up, on_down, on_drained, n };

    memset(n, 0, sizeof(*n));
    n->vpid = vpid;
    return hnp_oob_create(&n->oob, w->base, vpid, secret, &cfg, &cb, err,
                          errlen);
}

void node_start_full(world_t *w, node_t *n, hnp_vpid_t vpid, uint32_t nprocs,
                     const uint8_t *secret)
{
    char err[512] = "";
    int rc = node_create(w, n, vpid, nprocs, secret, LOOPBACK, NULL, err,
                         sizeof(err));
    if (rc != HNP_SUCCESS)
        fail_msg("hnp_oob_create: %s", err);
}

void node_start(world_t *w, node_t *n, hnp_vpid_t vpid)
{
    node_start_full(w, n, vpid, 8, good_secret);
}

void node_stop(node_t *n)
{
    hnp_oob_destroy(n->oob);
    n->oob = NULL;
    free(n->msgs);
    n->msgs = NULL;
}

void introduce(node_t *a, node_t *b)
{
    assert_int_equal(hnp_oob_set_uri(a->oob, b->vpid, hnp_oob_uri(b->oob)),
                     HNP_SUCCESS);
}

void nodes_meet(world_t *w, node_t *nodes, const hnp_vpid_t *vpids, size_t k)
{
    for (size_t i = 0; i < k; i++)
        node_start(w, &nodes[i], vpids[i]);
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++)
            if (i != j)
                introduce(&nodes[i], &nodes[j]);
}

void pair_meet(world_t *w, node_t *a, node_t *b)
{
    node_start(w, a, 0);
    node_start(w, b, 1);
    introduce(a, b);
    introduce(b, a);
}

unsigned uri_port(const char *uri)
{
    unsigned port = 0;
    assert_int_equal(sscanf(uri, "tcp://127.0.0.1:%u", &port), 1);
    return port;
}

/* A port nobody listens on: an OOB's, after the OOB is gone. */
unsigned closed_port(world_t *w)
{
    node_t tmp;
    node_start(w, &tmp, 7);
    unsigned port = uri_port(hnp_oob_uri(tmp.oob));
    node_stop(&tmp);
    return port;
}

/* ------------------------------------------------------------ raw peers */

/* What a raw socket knows of its handshake, by descriptor. */
#define RAW_FDS 4096
typedef struct raw_auth {
    hnp_auth_role_t role;
    hnp_auth_transcript_t hs;
    uint8_t secret[HNP_SECRET_LEN];
    bool proof_pending; /* acceptor: the connector's proof not read yet */
    bool keyed;
    hnp_frame_mac_t tx, rx;
} raw_auth_t;

static raw_auth_t raw_auths[RAW_FDS];

static raw_auth_t *raw_auth(int fd, bool fresh)
{
    assert_true(fd >= 0 && fd < RAW_FDS);
    if (fresh)
        memset(&raw_auths[fd], 0, sizeof(raw_auths[fd]));
    return &raw_auths[fd];
}

static void raw_keys(raw_auth_t *a)
{
    hnp_auth_role_t other = a->role == HNP_AUTH_CONNECTOR ? HNP_AUTH_ACCEPTOR
                                                          : HNP_AUTH_CONNECTOR;
    hnp_frame_mac_init(&a->tx, a->secret, &a->hs, a->role);
    hnp_frame_mac_init(&a->rx, a->secret, &a->hs, other);
    a->keyed = true;
}

int raw_connect(unsigned port)
{
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    raw_auth(fd, true)->role = HNP_AUTH_CONNECTOR;
    assert_int_equal(hnp_auth_init(), HNP_SUCCESS);
    return fd;
}

void raw_write(int fd, const void *buf, size_t len)
{
    assert_int_equal(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

void raw_hello_send(int fd, hnp_vpid_t vpid)
{
    raw_auth_t *a = raw_auth(fd, false);
    hnp_hello_t *mine = a->role == HNP_AUTH_CONNECTOR ? &a->hs.connector
                                                      : &a->hs.acceptor;
    uint8_t raw[HNP_HELLO_LEN];

    mine->version = HNP_PROTOCOL_VERSION;
    mine->vpid = vpid;
    hnp_auth_nonce(mine->nonce);
    hnp_hello_encode(mine, raw);
    raw_write(fd, raw, sizeof(raw));
}

/* Connector: our hello, the acceptor's hello and proof (or its EOF), our
 * proof. Acceptor (raw_accept_hello): our hello and proof. */
bool raw_hello(world_t *w, int fd, hnp_vpid_t vpid, const uint8_t *secret)
{
    raw_auth_t *a = raw_auth(fd, false);
    uint8_t reply[HNP_REPLY_LEN], proof[HNP_PROOF_LEN], byte;

    memcpy(a->secret, secret, HNP_SECRET_LEN);
    if (a->role == HNP_AUTH_ACCEPTOR) {
        raw_hello_send(fd, vpid);
        hnp_auth_proof(secret, &a->hs, HNP_AUTH_ACCEPTOR, proof);
        raw_write(fd, proof, sizeof(proof));
        a->proof_pending = true;
        raw_keys(a);
        return true;
    }
    raw_hello_send(fd, vpid);
    RUN_UNTIL(w, bytes_ready(fd) >= HNP_REPLY_LEN ||
                     recv(fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK) == 0, 5);
    if (bytes_ready(fd) < HNP_REPLY_LEN)
        return false; /* refused at the hello */
    assert_int_equal(recv(fd, reply, sizeof(reply), 0), (ssize_t)sizeof(reply));
    assert_int_equal(hnp_hello_check(reply, sizeof(reply), 0, &a->hs.acceptor,
                                     NULL, 0), HNP_SUCCESS);
    bool proven = hnp_auth_proof_check(secret, &a->hs, HNP_AUTH_ACCEPTOR,
                                       reply + HNP_HELLO_LEN);
    hnp_auth_proof(secret, &a->hs, HNP_AUTH_CONNECTOR, proof);
    raw_write(fd, proof, sizeof(proof));
    raw_keys(a);
    return proven;
}

int raw_accept_hello(world_t *w, int listener)
{
    uint8_t raw[HNP_HELLO_LEN];
    int fd = accept(listener, NULL, NULL);

    assert_true(fd >= 0);
    raw_auth_t *a = raw_auth(fd, true);
    a->role = HNP_AUTH_ACCEPTOR;
    raw_read(w, fd, raw, sizeof(raw));
    assert_int_equal(hnp_hello_check(raw, sizeof(raw), 0, &a->hs.connector,
                                     NULL, 0), HNP_SUCCESS);
    return fd;
}

/* The acceptor reads the connector's proof before its first frame. */
static void raw_take_proof(world_t *w, int fd)
{
    raw_auth_t *a = raw_auth(fd, false);
    uint8_t proof[HNP_PROOF_LEN];

    if (!a->proof_pending)
        return;
    raw_read(w, fd, proof, sizeof(proof));
    assert_true(hnp_auth_proof_check(a->secret, &a->hs, HNP_AUTH_CONNECTOR,
                                     proof));
    a->proof_pending = false;
}

void raw_header(int fd, hnp_vpid_t src, hnp_vpid_t dst, uint32_t len)
{
    hnp_frame_header_t hdr = { src, dst, 0, len };
    uint8_t raw[HNP_FRAME_HEADER_LEN];
    hnp_frame_header_encode(&hdr, raw);
    raw_write(fd, raw, sizeof(raw));
}

/* Bytes waiting to be read on a raw socket (never blocks). */
int bytes_ready(int fd)
{
    int n = 0;
    assert_int_equal(ioctl(fd, FIONREAD, &n), 0);
    return n;
}

/* A raw peer that completed the handshake as @p vpid with @p n's OOB. */
int raw_peer(world_t *w, node_t *n, hnp_vpid_t vpid)
{
    int fd = raw_connect(uri_port(hnp_oob_uri(n->oob)));
    assert_true(raw_hello(w, fd, vpid, good_secret));
    assert_int_equal(raw_auth(fd, false)->hs.acceptor.vpid, n->vpid);
    /* Until our proof is read, the connection is not open there. */
    oob_peer_t *p = oob_peer_find(n->oob, vpid);
    assert_non_null(p);
    RUN_UNTIL(w, p->naccepting == 0, 5);
    return fd;
}

size_t raw_frame_build(int fd, hnp_vpid_t src, hnp_vpid_t dst, uint32_t tag,
                       size_t len, uint8_t **out)
{
    raw_auth_t *a = raw_auth(fd, false);
    hnp_frame_header_t hdr = { src, dst, tag, (uint32_t)len };
    size_t total = HNP_FRAME_HEADER_LEN + len + (a->keyed ? HNP_MAC_LEN : 0);
    uint8_t *frame = malloc(total);
    assert_non_null(frame);
    hnp_frame_header_encode(&hdr, frame);
    for (size_t i = 0; i < len; i++)
        frame[HNP_FRAME_HEADER_LEN + i] = pattern(tag, i);
    if (a->keyed)
        hnp_frame_mac_sign(&a->tx, frame, frame + HNP_FRAME_HEADER_LEN, len,
                           frame + HNP_FRAME_HEADER_LEN + len);
    *out = frame;
    return total;
}

void raw_frame(int fd, hnp_vpid_t src, hnp_vpid_t dst, uint32_t tag,
               size_t len)
{
    uint8_t *frame;
    size_t total = raw_frame_build(fd, src, dst, tag, len, &frame);
    raw_write(fd, frame, total);
    free(frame);
}

int raw_listen(unsigned *port)
{
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(l >= 0);
    assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(listen(l, 4), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
    *port = ntohs(sin.sin_port);
    return l;
}

/* The OOB under test runs in this thread: the loop must turn while we
 * wait, or a large frame would never arrive. */
void raw_read(world_t *w, int fd, void *buf, size_t len)
{
    uint8_t *p = buf;
    size_t got = 0;
    double deadline = now() + 5;
    while (got < len && now() < deadline) {
        ssize_t n = recv(fd, p + got, len - got, MSG_DONTWAIT);
        if (n > 0)
            got += (size_t)n;
        else if (n == 0)
            fail_msg("EOF after %zu of %zu bytes", got, len);
        else
            run_for(w, 0.002);
    }
    if (got < len)
        fail_msg("timed out after %zu of %zu bytes", got, len);
}

void raw_expect_frame(world_t *w, int fd, uint32_t tag, size_t len)
{
    raw_auth_t *a = raw_auth(fd, false);
    uint8_t raw[HNP_FRAME_HEADER_LEN], mac[HNP_MAC_LEN];
    hnp_frame_header_t hdr;
    raw_take_proof(w, fd);
    raw_read(w, fd, raw, sizeof(raw));
    assert_int_equal(hnp_frame_header_decode(raw, sizeof(raw), MAX_FRAME, 0,
                                             &hdr, NULL, 0), HNP_SUCCESS);
    assert_int_equal(hdr.tag, tag);
    assert_int_equal(hdr.len, len);
    uint8_t *body = malloc(len > 0 ? len : 1);
    assert_non_null(body);
    raw_read(w, fd, body, len);
    for (size_t i = 0; i < len; i++)
        if (body[i] != pattern(tag, i))
            fail_msg("frame %u: byte %zu is wrong", tag, i);
    raw_read(w, fd, mac, sizeof(mac));
    assert_true(a->keyed);
    if (!hnp_frame_mac_verify(&a->rx, raw, body, len, mac))
        fail_msg("frame %u: bad MAC", tag);
    free(body);
}

void raw_expect_eof(world_t *w, int fd)
{
    uint8_t byte;
    raw_take_proof(w, fd);
    RUN_UNTIL(w, recv(fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK) == 0, 5);
}
