/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the OOB (runtime/oob_*.c): several instances in this one
 * process on one event base, talking over 127.0.0.1 only. Every wait has a
 * deadline (RUN_UNTIL), so a broken OOB fails a test instead of hanging it.
 * Raw sockets play the misbehaving peers: garbage, oversized frames,
 * strangers with a wrong vpid, connections that never say hello.
 */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "oob_fixture.h"
#include "oob/internal.h"

/* ------------------------------------------------------------ the tests */

static void test_uri_and_parsing(void **state)
{
    world_t *w = *state;
    node_t a;
    char err[256];

    node_start(w, &a, 0);
    const char *uri = hnp_oob_uri(a.oob);
    assert_non_null(strstr(uri, "tcp://127.0.0.1:"));
    assert_null(strchr(uri, ','));
    assert_true(uri_port(uri) > 0);
    assert_int_equal(hnp_oob_num_connections(a.oob), 0);
    assert_false(hnp_oob_knows(a.oob, 1));

    /* The syntax itself is test_oob_addr's business. */
    assert_int_equal(hnp_oob_set_uri(a.oob, 1, "tcp://localhost:80"),
                     HNP_ERR_BAD_PARAM);
    assert_true(log_has(w, HNP_LOG_WARN, "ignoring the URI of peer 1",
                        "localhost"));
    assert_int_equal(hnp_oob_set_uri(a.oob, 9, "tcp://127.0.0.1:5"),
                     HNP_ERR_BAD_PARAM); /* 9 >= nprocs */
    assert_int_equal(hnp_oob_set_uri(a.oob, 1, NULL), HNP_ERR_BAD_PARAM);
    assert_false(hnp_oob_knows(a.oob, 1));
    assert_int_equal(hnp_oob_set_uri(a.oob, 1, "tcp://127.0.0.1:5,"
                                     "tcp6://[::1]:6"), HNP_SUCCESS);
    assert_true(hnp_oob_knows(a.oob, 1));
    node_stop(&a);

    /* An interface name: loopback's addresses, IPv4 first. */
    assert_int_equal(node_create(w, &a, 0, 0, good_secret, "lo", NULL, err,
                                 sizeof(err)), HNP_SUCCESS);
    assert_non_null(strstr(hnp_oob_uri(a.oob), "tcp://127.0.0.1:"));
    node_stop(&a);

    /* Errors say what is wrong; our own vpid must be one of the job's. */
    assert_int_equal(node_create(w, &a, 0, 0, good_secret, "nosuchif0", NULL,
                                 err, sizeof(err)), HNP_ERR_NOT_FOUND);
    assert_non_null(strstr(err, "nosuchif0"));
    assert_int_equal(node_create(w, &a, 5, 5, good_secret, LOOPBACK, NULL,
                                 err, sizeof(err)), HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "vpid 5"));
}

static void test_exchange_both_ways(void **state)
{
    world_t *w = *state;
    node_t a, b;
    const size_t count = 300;

    pair_meet(w, &a, &b);
    for (uint32_t i = 0; i < count; i++) {
        assert_int_equal(send_msg(&a, 1, i, i % 50), HNP_SUCCESS);
        assert_int_equal(send_msg(&b, 0, i, (i * 7) % 300), HNP_SUCCESS);
        if (i == count / 2)
            assert_int_equal(send_msg(&a, 1, 100000, BIG_BODY), HNP_SUCCESS);
    }
    assert_true(hnp_oob_queued_bytes(a.oob) > BIG_BODY);
    RUN_UNTIL(w, b.nmsgs == count + 1 && a.nmsgs == count, 20);
    run_for(w, 0.05); /* nothing more, no duplicate, may arrive */
    assert_int_equal(b.nmsgs, count + 1);
    assert_int_equal(a.nmsgs, count);

    /* In order, whole, from the right peer, exactly once. */
    for (size_t i = 0, seq = 0; i < b.nmsgs; i++) {
        const msg_rec_t *m = &b.msgs[i];
        assert_int_equal(m->from, 0);
        assert_true(m->body_ok);
        if (m->hdr.tag == 100000) {
            assert_int_equal(m->hdr.len, BIG_BODY);
            assert_int_equal(i, count / 2 + 1);
            continue;
        }
        assert_int_equal(m->hdr.tag, seq++);
        assert_int_equal(m->hdr.src, 0);
        assert_int_equal(m->hdr.dst, 1);
    }
    for (size_t i = 0; i < a.nmsgs; i++) {
        assert_int_equal(a.msgs[i].hdr.tag, i);
        assert_int_equal(a.msgs[i].hdr.len, (i * 7) % 300);
        assert_true(a.msgs[i].body_ok);
    }
    assert_int_equal(a.nups, 1);
    assert_int_equal(b.nups, 1);
    assert_true(hnp_oob_connected(a.oob, 1) && hnp_oob_connected(b.oob, 0));
    assert_int_equal(hnp_oob_queued_bytes(a.oob), 0);
    assert_int_equal(hnp_oob_queued_bytes(b.oob), 0);
    /* Both sent at once: one connection is left (a duplicate, if the
     * connects crossed, retires; test_oob_dup has the details). */
    RUN_UNTIL(w, hnp_oob_num_connections(a.oob) == 1 &&
                     hnp_oob_num_connections(b.oob) == 1, 2);
    assert_int_equal(a.ndowns, 0);
    assert_int_equal(b.ndowns, 0);
    node_stop(&a);
    node_stop(&b);
}

static void test_queued_before_uri(void **state)
{
    world_t *w = *state;
    node_t a, b;

    node_start(w, &a, 0);
    node_start(w, &b, 1);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(send_msg(&a, 1, i, 10), HNP_SUCCESS);
    run_for(w, 0.05);
    assert_int_equal(b.nmsgs, 0);
    assert_int_equal(hnp_oob_num_connections(a.oob), 0);
    assert_int_equal(hnp_oob_queued_bytes(a.oob),
                     5 * (HNP_FRAME_HEADER_LEN + 10 + HNP_MAC_LEN));
    assert_false(hnp_oob_connected(a.oob, 1));
    assert_int_equal(a.ndrained, 0);
    /* Nobody gave peer 1's contact: nothing of that can go. */
    assert_int_equal(hnp_oob_queued_deliverable(a.oob), 0);

    introduce(&a, &b);
    assert_int_equal(hnp_oob_queued_deliverable(a.oob),
                     5 * (HNP_FRAME_HEADER_LEN + 10 + HNP_MAC_LEN));
    RUN_UNTIL(w, b.nmsgs == 5, 5);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(b.msgs[i].hdr.tag, i);
    assert_int_equal(hnp_oob_queued_bytes(a.oob), 0);
    /* Told once the last byte is written, and only then. */
    RUN_UNTIL(w, a.ndrained == 1, 5);
    assert_int_equal(a.queued_at_drain, 0);
    assert_int_equal(b.ndrained, 0);
    assert_true(hnp_oob_connected(a.oob, 1));
    /* The acceptor answers on the same connection, URI or not. */
    assert_int_equal(send_msg(&b, 0, 42, 3), HNP_SUCCESS);
    RUN_UNTIL(w, a.nmsgs == 1, 5);
    assert_int_equal(hnp_oob_num_connections(a.oob), 1);
    RUN_UNTIL(w, b.ndrained == 1, 5);
    assert_int_equal(a.ndrained, 1);
    node_stop(&a);
    node_stop(&b);
}

static void test_wrong_secret(void **state)
{
    world_t *w = *state;
    node_t intruder, b, c;

    node_start(w, &b, 1);
    node_start_full(w, &intruder, 0, 8, bad_secret);
    introduce(&intruder, &b);
    assert_int_equal(send_msg(&intruder, 1, 1, 8), HNP_SUCCESS);
    RUN_UNTIL(w, intruder.ndowns == 1, 5);
    assert_int_equal(intruder.down_peer[0], 1);
    assert_int_equal(intruder.down_unsent[0], 1);
    /* The dropped frame was the last one queued: nothing left to wait for. */
    assert_int_equal(intruder.ndrained, 1);
    assert_int_equal(intruder.queued_at_drain, 0);
    /* The intruder finds b's proof wrong; b never sees one from it. */
    assert_true(log_has(w, HNP_LOG_WARN, "failed handshake", "job's secret"));
    assert_true(log_has(w, HNP_LOG_WARN, "peer 1 is unreachable", "127.0.0."));
    assert_int_equal(b.nups, 0);
    assert_int_equal(b.nmsgs, 0);

    /* The listener still serves a peer that knows the secret. */
    node_start(w, &c, 2);
    introduce(&c, &b);
    assert_int_equal(send_msg(&c, 1, 5, 8), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 1, 5);
    assert_int_equal(b.msgs[0].from, 2);
    node_stop(&intruder);
    node_stop(&b);
    node_stop(&c);
}

static void test_wrong_vpid_answers(void **state)
{
    world_t *w = *state;
    node_t a, b;

    node_start(w, &a, 0);
    node_start(w, &b, 1);
    /* Peer 2's URI points at vpid 1. */
    assert_int_equal(hnp_oob_set_uri(a.oob, 2, hnp_oob_uri(b.oob)),
                     HNP_SUCCESS);
    assert_int_equal(send_msg(&a, 2, 1, 8), HNP_SUCCESS);
    assert_int_equal(send_msg(&a, 2, 2, 8), HNP_SUCCESS);
    RUN_UNTIL(w, a.ndowns == 1, 5);
    assert_int_equal(a.down_peer[0], 2);
    assert_int_equal(a.down_unsent[0], 2);
    assert_int_equal(a.ndrained, 1);
    assert_true(log_has(w, HNP_LOG_WARN, "answered as vpid 1", NULL));
    /* a never proved itself to b: the connection never opened there. */
    RUN_UNTIL(w, hnp_oob_num_connections(b.oob) == 0, 5);
    assert_int_equal(b.nups, 0);
    assert_int_equal(b.nmsgs, 0);
    node_stop(&a);
    node_stop(&b);
}

static void test_garbage(void **state)
{
    world_t *w = *state;
    node_t b;
    uint8_t junk[64];

    node_start_full(w, &b, 1, 4, good_secret);
    unsigned port = uri_port(hnp_oob_uri(b.oob));

    /* Not an hnp peer at all. */
    int fd = raw_connect(port);
    memset(junk, 'x', sizeof(junk));
    raw_write(fd, junk, sizeof(junk));
    RUN_UNTIL(w, log_has(w, HNP_LOG_WARN, "failed handshake", "bad magic"), 5);
    RUN_UNTIL(w, hnp_oob_num_connections(b.oob) == 0, 5);
    close(fd);

    /* A vpid that is not one of the job's. */
    fd = raw_connect(port);
    assert_false(raw_hello(w, fd, 9, good_secret));
    RUN_UNTIL(w, log_has(w, HNP_LOG_WARN, "unknown peer", "vpid 9"), 5);
    close(fd);
    assert_int_equal(b.nups, 0);
    node_stop(&b);
}

static void test_bad_frames(void **state)
{
    world_t *w = *state;
    node_t b, a;

    node_start_full(w, &b, 1, 4, good_secret);
    unsigned port = uri_port(hnp_oob_uri(b.oob));

    /* A good hello, then a header announcing more than max_frame. */
    int fd = raw_peer(w, &b, 2);
    assert_int_equal(b.nups, 1);
    raw_header(fd, 2, 1, (uint32_t)MAX_FRAME + 1);
    RUN_UNTIL(w, b.ndowns == 1, 5);
    assert_int_equal(b.down_peer[0], 2);
    assert_int_equal(b.down_unsent[0], 0);
    assert_true(log_has(w, HNP_LOG_WARN, "malformed or oversized frame", NULL));
    close(fd);

    /* A frame whose source is out of range. */
    fd = raw_connect(port);
    assert_true(raw_hello(w, fd, 3, good_secret));
    raw_header(fd, 77, 1, 0);
    RUN_UNTIL(w, b.ndowns == 2, 5);
    assert_int_equal(b.nmsgs, 0);
    close(fd);

    /* A good frame that arrives in pieces is delivered once, whole. */
    fd = raw_connect(port);
    assert_true(raw_hello(w, fd, 2, good_secret));
    uint8_t *frame;
    size_t total = raw_frame_build(fd, 2, 1, 3, 5, &frame);
    raw_write(fd, frame, 7);
    run_for(w, 0.02);
    raw_write(fd, frame + 7, 12);
    run_for(w, 0.02);
    raw_write(fd, frame + 19, total - 20);
    run_for(w, 0.02);
    assert_int_equal(b.nmsgs, 0);
    raw_write(fd, frame + total - 1, 1); /* the last byte of the MAC */
    RUN_UNTIL(w, b.nmsgs == 1, 5);
    assert_true(b.msgs[0].body_ok);
    free(frame);
    close(fd);
    RUN_UNTIL(w, b.ndowns == 3, 5);

    /* Through all of it, the process and the listener are fine. */
    node_start_full(w, &a, 0, 4, good_secret);
    introduce(&a, &b);
    assert_int_equal(send_msg(&a, 1, 9, 9), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 2, 5);
    node_stop(&a);
    node_stop(&b);
}

static void test_handshake_timeout(void **state)
{
    world_t *w = *state;
    node_t b;

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 0.1);
    int fd = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    /* Not a wait for the one connection: on a starved process its 0.1 s
     * may be over before the loop looks; the maximum says it was there. */
    RUN_UNTIL(w, log_has(w, HNP_LOG_WARN, "not completed within", NULL), 5);
    assert_int_equal(hnp_oob_num_connections(b.oob), 0);
    assert_int_equal(hnp_oob_max_connections(b.oob), 1);
    close(fd);
    node_stop(&b);
}

static void test_peer_down_on_destroy(void **state)
{
    world_t *w = *state;
    node_t a, b;

    node_start(w, &a, 0);
    node_start(w, &b, 1);
    introduce(&a, &b);
    assert_int_equal(send_msg(&a, 1, 1, 1), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 1 && a.nups == 1, 5);
    node_stop(&b);
    RUN_UNTIL(w, a.ndowns == 1, 5);
    assert_int_equal(a.down_peer[0], 1);
    assert_int_equal(a.down_unsent[0], 0);
    assert_false(hnp_oob_connected(a.oob, 1));
    assert_int_equal(hnp_oob_num_connections(a.oob), 0);
    node_stop(&a);
}

static void test_unreachable(void **state)
{
    world_t *w = *state;
    node_t a, b;
    char uri[128], where[64];

    unsigned port = closed_port(w);
    node_start(w, &a, 0);
    snprintf(uri, sizeof(uri), "tcp://127.0.0.1:%u", port);
    assert_int_equal(hnp_oob_set_uri(a.oob, 5, uri), HNP_SUCCESS);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(send_msg(&a, 5, i, 100), HNP_SUCCESS);
    RUN_UNTIL(w, a.ndowns == 1, 5);
    assert_int_equal(a.down_peer[0], 5);
    assert_int_equal(a.down_unsent[0], 3);
    snprintf(where, sizeof(where), "127.0.0.1:%u", port);
    assert_true(log_has(w, HNP_LOG_WARN, "peer 5 is unreachable", where));
    assert_int_equal(hnp_oob_queued_bytes(a.oob), 0);
    assert_int_equal(hnp_oob_num_connections(a.oob), 0);

    /* A dead address first, then a live one: the next one is tried. */
    node_start(w, &b, 1);
    snprintf(uri, sizeof(uri), "tcp://127.0.0.1:%u,%s", port,
             hnp_oob_uri(b.oob));
    assert_int_equal(hnp_oob_set_uri(a.oob, 1, uri), HNP_SUCCESS);
    assert_int_equal(send_msg(&a, 1, 1, 1), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 1, 5);
    assert_int_equal(a.ndowns, 1);
    node_stop(&a);
    node_stop(&b);
}

static void test_connection_counts(void **state)
{
    world_t *w = *state;
    node_t hnp, d[4];

    node_start(w, &hnp, 0);
    for (int i = 0; i < 4; i++) {
        node_start(w, &d[i], (hnp_vpid_t)i + 1);
        introduce(&d[i], &hnp);
        assert_int_equal(send_msg(&d[i], 0, (uint32_t)i, 4), HNP_SUCCESS);
    }
    RUN_UNTIL(w, hnp.nmsgs == 4 && hnp.nups == 4, 5);
    assert_int_equal(hnp_oob_num_connections(hnp.oob), 4);
    assert_int_equal(hnp_oob_max_connections(hnp.oob), 4);
    for (int i = 0; i < 4; i++)
        assert_true(hnp_oob_connected(hnp.oob, (hnp_vpid_t)i + 1));
    node_stop(&d[0]);
    node_stop(&d[1]);
    RUN_UNTIL(w, hnp_oob_num_connections(hnp.oob) == 2, 5);
    assert_int_equal(hnp_oob_max_connections(hnp.oob), 4);
    assert_int_equal(hnp.ndowns, 2);
    node_stop(&d[2]);
    node_stop(&d[3]);
    node_stop(&hnp);
}

static void test_close_peer(void **state)
{
    world_t *w = *state;
    node_t a, b;

    node_start(w, &a, 0);
    node_start(w, &b, 1);
    introduce(&a, &b);
    for (uint32_t i = 0; i < 10; i++)
        assert_int_equal(send_msg(&a, 1, i, 1000), HNP_SUCCESS);
    hnp_oob_close_peer(a.oob, 1);
    RUN_UNTIL(w, b.nmsgs == 10 && a.ndowns == 1 && b.ndowns == 1, 5);
    assert_int_equal(a.down_unsent[0], 0);
    assert_int_equal(b.down_unsent[0], 0);
    RUN_UNTIL(w, hnp_oob_num_connections(a.oob) == 0, 5);

    /* Sending again opens a new connection. */
    assert_int_equal(send_msg(&a, 1, 10, 1), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 11, 5);
    assert_int_equal(a.nups, 2);
    hnp_oob_close_peer(a.oob, 3); /* never heard of: nothing happens */
    node_stop(&a);
    node_stop(&b);
}

static void test_reentrant_callbacks(void **state)
{
    world_t *w = *state;
    node_t a, b;

    pair_meet(w, &a, &b);
    /* Ping-pong: every delivery sends from inside the callback. */
    a.echo_until = b.echo_until = 200;
    assert_int_equal(send_msg(&a, 1, 0, 100), HNP_SUCCESS);
    RUN_UNTIL(w, a.nmsgs + b.nmsgs == 201, 10);
    assert_int_equal(b.nmsgs, 101);
    /* close_peer from inside deliver: the connection goes after the echo. */
    b.close_on_tag = 201;
    a.echo_until = 0;
    assert_int_equal(send_msg(&a, 1, 201, 1), HNP_SUCCESS);
    RUN_UNTIL(w, a.ndowns == 1 && b.ndowns == 1, 5);

    /* Destroy from inside deliver while more frames are buffered. */
    b.destroy_after = b.nmsgs + 3;
    for (uint32_t i = 0; i < 20; i++)
        assert_int_equal(send_msg(&a, 1, 500 + i, 10), HNP_SUCCESS);
    RUN_UNTIL(w, b.oob == NULL && a.ndowns == 2, 5);
    node_stop(&b);

    /* Destroy from inside peer_down. */
    node_start(w, &b, 1);
    introduce(&a, &b);
    a.destroy_on_down = true;
    assert_int_equal(send_msg(&a, 1, 1, 1), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 1, 5);
    node_stop(&b);
    RUN_UNTIL(w, a.oob == NULL, 5);
    node_stop(&a);
}

/* Two handshaken connections with one vpid: the older one sends; when it
 * dies mid-frame, that frame is lost (and said so) and the next frames go
 * out on the other one, with no peer_down in between. */
static void test_duplicate_connections(void **state)
{
    world_t *w = *state;
    node_t a;
    uint8_t raw[HNP_FRAME_HEADER_LEN];
    hnp_frame_header_t hdr;

    node_start_full(w, &a, 0, 4, good_secret);
    int r1 = raw_peer(w, &a, 2);
    int r2 = raw_peer(w, &a, 2);
    assert_int_equal(a.nups, 1);
    assert_int_equal(hnp_oob_num_connections(a.oob), 2);
    assert_int_equal(send_msg(&a, 2, 1, MAX_FRAME), HNP_SUCCESS);
    assert_int_equal(send_msg(&a, 2, 2, 5), HNP_SUCCESS);
    /* r1 reads nothing: the big frame stops halfway in the socket. */
    RUN_UNTIL(w, oob_peer_find(a.oob, 2)->head_written > 0, 5);
    run_for(w, 0.02);
    assert_int_equal(bytes_ready(r2), 0);
    close(r1);
    RUN_UNTIL(w, log_has(w, HNP_LOG_WARN, "cut off", NULL), 5);
    RUN_UNTIL(w, bytes_ready(r2) >= HNP_FRAME_HEADER_LEN + 5 + HNP_MAC_LEN, 5);
    assert_int_equal(recv(r2, raw, sizeof(raw), 0), (ssize_t)sizeof(raw));
    assert_int_equal(hnp_frame_header_decode(raw, sizeof(raw), MAX_FRAME, 4,
                                             &hdr, NULL, 0), HNP_SUCCESS);
    assert_int_equal(hdr.tag, 2);
    assert_int_equal(hdr.len, 5);
    assert_int_equal(a.ndowns, 0);
    assert_true(hnp_oob_connected(a.oob, 2));
    assert_int_equal(hnp_oob_queued_bytes(a.oob), 0);
    close(r2);
    RUN_UNTIL(w, a.ndowns == 1, 5);
    assert_int_equal(a.down_unsent[0], 0);
    node_stop(&a);
}

/* After close_peer, what the peer still sends is delivered; a peer that
 * never closes its side is cut off after the linger time. */
static void test_close_linger(void **state)
{
    world_t *w = *state;
    node_t a;
    uint8_t byte;

    node_start_full(w, &a, 0, 4, good_secret);
    oob_set_handshake_timeout(a.oob, 0.2);
    int r = raw_peer(w, &a, 2);
    hnp_oob_close_peer(a.oob, 2);
    RUN_UNTIL(w, a.ndowns == 1, 5);
    RUN_UNTIL(w, recv(r, &byte, 1, MSG_DONTWAIT | MSG_PEEK) == 0, 5);
    raw_frame(r, 2, 0, 0, 0);
    RUN_UNTIL(w, a.nmsgs == 1, 5);
    assert_int_equal(a.msgs[0].from, 2);
    RUN_UNTIL(w, hnp_oob_num_connections(a.oob) == 0, 5);
    assert_true(log_has(w, HNP_LOG_VERBOSE, "not closed by the other side",
                        NULL));
    close(r);
    node_stop(&a);
}

/* The connection storm of paper 002: a listener whose accept queue is full
 * drops SYNs, and the connector gives that address up after its timeout. */
static void test_connect_timeout(void **state)
{
    world_t *w = *state;
    node_t a;
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);
    int fillers[3];
    char uri[64];

    int l = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(listen(l, 0), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
    for (int i = 0; i < 3; i++) {
        fillers[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        (void)connect(fillers[i], (struct sockaddr *)&sin, sizeof(sin));
    }
    node_start(w, &a, 0);
    a.oob->connect_timeout = 0.2;
    snprintf(uri, sizeof(uri), "tcp://127.0.0.1:%u", ntohs(sin.sin_port));
    assert_int_equal(hnp_oob_set_uri(a.oob, 3, uri), HNP_SUCCESS);
    assert_int_equal(send_msg(&a, 3, 1, 1), HNP_SUCCESS);
    RUN_UNTIL(w, a.ndowns == 1, 5);
    assert_int_equal(a.down_unsent[0], 1);
    assert_true(log_has(w, HNP_LOG_WARN, "peer 3 is unreachable",
                        "timed out after 0.2 s"));
    for (int i = 0; i < 3; i++)
        close(fillers[i]);
    close(l);
    node_stop(&a);
}

/* Out of descriptors in the middle of a storm: the listener pauses instead
 * of spinning, and accepts the waiting connection once it can. */
static void test_accept_emfile(void **state)
{
    world_t *w = *state;
    node_t b;
    struct rlimit old, low;
    int fillers[1024], nfillers = 0, highest = 0;

    node_start(w, &b, 1);
    int fd = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    raw_hello_send(fd, 2);
    for (int i = 0; i < 1024; i++)
        if (fcntl(i, F_GETFD) >= 0)
            highest = i;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = (rlim_t)highest + 1;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    while (nfillers < 1024 && (fillers[nfillers] = dup(fd)) >= 0)
        nfillers++; /* every descriptor below the limit is now taken */
    RUN_UNTIL(w, log_has(w, HNP_LOG_WARN, "accept:", "not accepting"), 5);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    while (nfillers > 0)
        close(fillers[--nfillers]);
    /* Listening again: a new peer gets through (and, outside valgrind,
     * which closes descriptors above its emulated limit, the waiting one). */
    int fd2 = raw_peer(w, &b, 3);
    assert_true(b.nups >= 1);
    close(fd2);
    close(fd);
    node_stop(&b);
}

static void test_send_errors(void **state)
{
    world_t *w = *state;
    node_t a;
    hnp_frame_header_t hdr = { 0, 1, 0, 4 };

    node_start(w, &a, 0);
    assert_int_equal(send_msg(&a, 0, 1, 1), HNP_ERR_BAD_PARAM);  /* self */
    assert_int_equal(send_msg(&a, 8, 1, 1), HNP_ERR_BAD_PARAM);  /* nprocs */
    assert_int_equal(hnp_oob_send(a.oob, 1, &hdr, NULL), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_oob_send(a.oob, 1, NULL, "x"), HNP_ERR_BAD_PARAM);
    assert_int_equal(send_msg(&a, 1, 1, MAX_FRAME + 1), HNP_ERR_BAD_PARAM);
    assert_true(log_has(w, HNP_LOG_WARN, "refusing to send", NULL));
    hnp_oob_set_nprocs(a.oob, 100);
    assert_int_equal(send_msg(&a, 8, 1, 1), HNP_SUCCESS);
    assert_int_equal(hnp_oob_queued_bytes(a.oob),
                     HNP_FRAME_HEADER_LEN + 1 + HNP_MAC_LEN);
    assert_false(hnp_oob_connected(a.oob, 8));
    assert_false(hnp_oob_connected(a.oob, 50));
    node_stop(&a);
    hnp_oob_destroy(NULL);
}

/* Each test gets its own event base and log. */
#define OOB_TEST(f)                                                        \
    cmocka_unit_test_setup_teardown(f, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        OOB_TEST(test_uri_and_parsing),
        OOB_TEST(test_exchange_both_ways),
        OOB_TEST(test_queued_before_uri),
        OOB_TEST(test_wrong_secret),
        OOB_TEST(test_wrong_vpid_answers),
        OOB_TEST(test_garbage),
        OOB_TEST(test_bad_frames),
        OOB_TEST(test_handshake_timeout),
        OOB_TEST(test_peer_down_on_destroy),
        OOB_TEST(test_unreachable),
        OOB_TEST(test_connection_counts),
        OOB_TEST(test_close_peer),
        OOB_TEST(test_reentrant_callbacks),
        OOB_TEST(test_duplicate_connections),
        OOB_TEST(test_close_linger),
        OOB_TEST(test_connect_timeout),
        OOB_TEST(test_accept_emfile),
        OOB_TEST(test_send_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
