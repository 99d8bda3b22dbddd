/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of simultaneous connections (runtime/oob/internal.h,
 * "Simultaneous connections"): OOBs that really race each other, checked
 * for order, exactly-once delivery and one connection per pair at the end;
 * then raw sockets that play the peer step by step, so that each ordering
 * of handshakes, frames and FINs is reached on purpose.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "oob_fixture.h"
#include "oob/internal.h"

#define RACE_ROUNDS 8
#define RACE_MSGS 400
#define RACE_NODES_MAX 4
/* Larger than a fresh loopback socket takes at once: a switch of
 * connection may fall in the middle of one. */
#define RACE_BIG ((size_t)1 << 20)

static size_t race_len(uint32_t i)
{
    return i % 100 == 7 ? RACE_BIG : (i * 37u) % 2000;
}

/* What @p n got from @p from: tags 0, 1, 2... in order, each once, whole. */
static void check_stream(const node_t *n, hnp_vpid_t from, uint32_t count)
{
    uint32_t next = 0;
    for (size_t i = 0; i < n->nmsgs; i++) {
        const msg_rec_t *m = &n->msgs[i];
        if (m->from != from)
            continue;
        assert_int_equal(m->hdr.src, from);
        assert_int_equal(m->hdr.dst, n->vpid);
        assert_int_equal(m->hdr.tag, next);
        assert_int_equal(m->hdr.len, race_len(next));
        assert_true(m->body_ok);
        next++;
    }
    assert_int_equal(next, count);
}

static bool all_received(const node_t *nodes, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (nodes[i].nmsgs < (k - 1) * RACE_MSGS)
            return false;
    return true;
}

/* Every node sends message @p tag to every other; @p backwards changes
 * which one connects first. */
static void send_round(node_t *nodes, size_t k, uint32_t tag, bool backwards)
{
    for (size_t s = 0; s < k; s++) {
        node_t *from = &nodes[backwards ? k - 1 - s : s];
        for (size_t d = 0; d < k; d++)
            if (from != &nodes[d])
                assert_int_equal(send_msg(from, nodes[d].vpid, tag,
                                          race_len(tag)), HNP_SUCCESS);
    }
}

/* All pairs connect at once (the first quarter is queued before the loop
 * turns), and more is sent while the duplicates retire. */
static void race(world_t *w, const hnp_vpid_t *vpids, size_t k, bool backwards)
{
    node_t nodes[RACE_NODES_MAX];
    uint32_t sent = 0;

    nodes_meet(w, nodes, vpids, k);
    for (size_t i = 0; i < k; i++)
        nodes[i].oob->race_connects = true;
    while (sent < RACE_MSGS) {
        for (uint32_t b = sent == 0 ? RACE_MSGS / 4 : 10; b > 0; b--)
            send_round(nodes, k, sent++, backwards);
        run_for(w, 0.001);
    }
    RUN_UNTIL(w, all_received(nodes, k), 30);
    run_for(w, 0.05); /* nothing more, no duplicate, may arrive */
    bool crossed = false;
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < k; j++)
            if (i != j)
                check_stream(&nodes[i], nodes[j].vpid, RACE_MSGS);
        crossed |= hnp_oob_max_connections(nodes[i].oob) > k - 1;
        RUN_UNTIL(w, hnp_oob_num_connections(nodes[i].oob) == k - 1, 2);
        assert_int_equal(nodes[i].ndowns, 0);
        assert_int_equal(nodes[i].nups, k - 1);
        assert_int_equal(hnp_oob_queued_bytes(nodes[i].oob), 0);
    }
    assert_true(crossed); /* or this tested nothing */
    for (size_t i = 0; i < k; i++)
        node_stop(&nodes[i]);
}

static void test_race_pairs(void **state)
{
    world_t *w = *state;
    const hnp_vpid_t pairs[][2] = { { 0, 1 }, { 5, 2 }, { 3, 6 }, { 7, 4 } };

    for (int r = 0; r < RACE_ROUNDS; r++)
        race(w, pairs[r % 4], 2, r >= RACE_ROUNDS / 2);
    const hnp_vpid_t four[] = { 6, 1, 3, 0 };
    race(w, four, 4, false);
    race(w, four, 4, true);
}

/* When one side's connection, hello included, already waits in the other's
 * accept queue as the other wants to connect, it is taken instead: no
 * duplicate is made at all. */
static void test_accept_before_connect(void **state)
{
    world_t *w = *state;
    node_t a, b;

    pair_meet(w, &a, &b);
    assert_int_equal(send_msg(&a, 1, 0, 10), HNP_SUCCESS);
    assert_int_equal(send_msg(&b, 0, 0, 10), HNP_SUCCESS);
    RUN_UNTIL(w, a.nmsgs == 1 && b.nmsgs == 1, 5);
    assert_int_equal(hnp_oob_max_connections(a.oob), 1);
    assert_int_equal(hnp_oob_max_connections(b.oob), 1);
    node_stop(&a);
    node_stop(&b);
}

/* ------------------------------------------------- step by step */

/* Node 0 and a raw peer 2 connect to each other at once. Node 0's
 * connection (the preferred one: the lower vpid made it) awaits the raw
 * peer's hello; the raw peer's (the duplicate) is up, and carries frame 1
 * of @p len bytes, the first thing node 0 sends. */
typedef struct crossing {
    int listener;
    int pref; /**< the raw peer's end of node 0's connection */
    int dup;  /**< the raw peer's own connection */
} crossing_t;

/* Node @p a sends frame 1 of @p len bytes to @p peer, whose URI is a raw
 * listener (*listener): the raw side accepts a's connection and reads its
 * hello, leaving a awaiting the reply. Returns the accepted socket. */
static int dial(world_t *w, node_t *a, hnp_vpid_t peer, size_t len,
                int *listener)
{
    char uri[64];
    unsigned port;

    *listener = raw_listen(&port);
    snprintf(uri, sizeof(uri), "tcp://127.0.0.1:%u", port);
    assert_int_equal(hnp_oob_set_uri(a->oob, peer, uri), HNP_SUCCESS);
    assert_int_equal(send_msg(a, peer, 1, len), HNP_SUCCESS);
    oob_peer_t *p = oob_peer_get(a->oob, peer);
    RUN_UNTIL(w, p->connecting != NULL &&
                     p->connecting->state == OOB_CONN_AWAIT_REPLY, 5);
    return raw_accept_hello(w, *listener);
}

static void cross(world_t *w, node_t *a, crossing_t *x, size_t len)
{
    node_start_full(w, a, 0, 4, good_secret);
    x->pref = dial(w, a, 2, len, &x->listener);
    x->dup = raw_peer(w, a, 2);
    assert_int_equal(a->nups, 1);
    assert_int_equal(hnp_oob_num_connections(a->oob), 2);
}

static void uncross(world_t *w, node_t *a, crossing_t *x, size_t downs)
{
    close(x->dup);
    if (x->pref >= 0)
        close(x->pref);
    close(x->listener);
    RUN_UNTIL(w, a->ndowns == downs, 5);
    node_stop(a);
}

/* The preferred connection opens while the duplicate is in the middle of
 * a frame: the frame ends there, then the duplicate's FIN, and only then
 * does the next frame leave on the preferred one. Receiving, a frame on
 * the preferred connection waits for the duplicate's EOF. */
static void test_handover_mid_frame(void **state)
{
    world_t *w = *state;
    node_t a;
    crossing_t x;

    cross(w, &a, &x, MAX_FRAME);
    oob_peer_t *p = oob_peer_find(a.oob, 2);
    assert_int_equal(send_msg(&a, 2, 2, 5), HNP_SUCCESS);
    RUN_UNTIL(w, p->head_written > 0, 5); /* nobody reads: frame 1 is cut */
    raw_hello(w, x.pref, 2, good_secret);
    RUN_UNTIL(w, p->nopen == 2, 5);
    raw_frame(x.pref, 2, 0, 11, 3);
    run_for(w, 0.05);
    assert_int_equal(bytes_ready(x.pref), HNP_PROOF_LEN); /* no frame */
    assert_int_equal(a.nmsgs, 0);
    raw_frame(x.dup, 2, 0, 10, 3);
    RUN_UNTIL(w, a.nmsgs == 1, 5);
    assert_int_equal(a.msgs[0].hdr.tag, 10);

    raw_expect_frame(w, x.dup, 1, MAX_FRAME);
    raw_expect_eof(w, x.dup);
    raw_expect_frame(w, x.pref, 2, 5);
    assert_int_equal(a.nmsgs, 1); /* 11 waits: the duplicate is not shut */
    shutdown(x.dup, SHUT_WR);
    RUN_UNTIL(w, a.nmsgs == 2, 5);
    assert_int_equal(a.msgs[1].hdr.tag, 11);
    assert_true(a.msgs[1].body_ok);
    RUN_UNTIL(w, hnp_oob_num_connections(a.oob) == 1, 5);
    assert_int_equal(hnp_oob_max_connections(a.oob), 2);
    assert_int_equal(a.ndowns, 0);
    assert_int_equal(a.nups, 1);
    assert_false(log_has(w, HNP_LOG_WARN, "cut off", NULL));
    uncross(w, &a, &x, 1);
}

/* The peer retires its duplicate before our preferred connection has its
 * hello: that EOF waits, the duplicate still carries our frames, and the
 * peer stays up through it all. */
static void test_duplicate_eof_before_hello(void **state)
{
    world_t *w = *state;
    node_t a;
    crossing_t x;

    cross(w, &a, &x, 10);
    raw_expect_frame(w, x.dup, 1, 10);
    shutdown(x.dup, SHUT_WR);
    run_for(w, 0.05);
    assert_int_equal(hnp_oob_num_connections(a.oob), 2);
    assert_int_equal(send_msg(&a, 2, 2, 10), HNP_SUCCESS);
    raw_expect_frame(w, x.dup, 2, 10);
    raw_hello(w, x.pref, 2, good_secret);
    raw_expect_eof(w, x.dup);
    RUN_UNTIL(w, hnp_oob_num_connections(a.oob) == 1, 5);
    assert_int_equal(send_msg(&a, 2, 3, 10), HNP_SUCCESS);
    raw_expect_frame(w, x.pref, 3, 10);
    assert_int_equal(a.ndowns, 0);
    assert_int_equal(a.nups, 1);
    uncross(w, &a, &x, 1);
}

/* As above, but the preferred connection fails its handshake: the EOF on
 * the duplicate was the peer going away after all. */
static void test_duplicate_eof_then_no_hello(void **state)
{
    world_t *w = *state;
    node_t a;
    crossing_t x;

    cross(w, &a, &x, 10);
    raw_expect_frame(w, x.dup, 1, 10);
    shutdown(x.dup, SHUT_WR);
    run_for(w, 0.05);
    assert_int_equal(a.ndowns, 0);
    close(x.pref);
    RUN_UNTIL(w, a.ndowns == 1, 5);
    assert_int_equal(a.down_unsent[0], 0);
    assert_int_equal(hnp_oob_num_connections(a.oob), 0);
    assert_true(log_has(w, HNP_LOG_VERBOSE, "during the handshake", NULL));
    x.pref = -1;
    uncross(w, &a, &x, 1);
}

/* A duplicate whose hello comes after the preferred connection is up gets
 * our hello and our FIN at once; one that the peer never shuts is cut off
 * after the linger time. Neither takes the peer down. */
static void test_late_duplicate(void **state)
{
    world_t *w = *state;
    node_t a;
    crossing_t x;

    node_start_full(w, &a, 0, 4, good_secret);
    oob_set_handshake_timeout(a.oob, 0.3);
    x.pref = dial(w, &a, 2, 10, &x.listener);
    raw_hello(w, x.pref, 2, good_secret);
    raw_expect_frame(w, x.pref, 1, 10);

    x.dup = raw_peer(w, &a, 2);
    raw_expect_eof(w, x.dup);
    assert_int_equal(send_msg(&a, 2, 2, 10), HNP_SUCCESS);
    raw_expect_frame(w, x.pref, 2, 10);
    RUN_UNTIL(w, hnp_oob_num_connections(a.oob) == 1, 5);
    assert_true(log_has(w, HNP_LOG_VERBOSE, "a duplicate not shut by the "
                        "other side", NULL));
    assert_int_equal(a.ndowns, 0);
    assert_int_equal(a.nups, 1);
    uncross(w, &a, &x, 1);
}

/* We are the higher vpid: our own connection is the duplicate. While it
 * awaits the peer's hello, frames on the preferred one wait too (the peer
 * may have sent some on ours first); once it opens, we shut it at once. */
static void test_hold_while_duplicate_handshakes(void **state)
{
    world_t *w = *state;
    node_t a;
    crossing_t x;

    node_start_full(w, &a, 3, 4, good_secret);
    x.dup = dial(w, &a, 1, 10, &x.listener);
    x.pref = raw_peer(w, &a, 1);
    raw_expect_frame(w, x.pref, 1, 10);

    raw_frame(x.pref, 1, 3, 11, 4);
    run_for(w, 0.05);
    assert_int_equal(a.nmsgs, 0);
    raw_hello(w, x.dup, 1, good_secret);
    raw_frame(x.dup, 1, 3, 10, 4);
    RUN_UNTIL(w, a.nmsgs == 1, 5);
    assert_int_equal(a.msgs[0].hdr.tag, 10);
    raw_expect_eof(w, x.dup);
    assert_int_equal(a.nmsgs, 1);
    shutdown(x.dup, SHUT_WR);
    RUN_UNTIL(w, a.nmsgs == 2 && hnp_oob_num_connections(a.oob) == 1, 5);
    assert_int_equal(a.msgs[1].hdr.tag, 11);
    assert_int_equal(a.ndowns, 0);
    assert_int_equal(a.nups, 1);
    uncross(w, &a, &x, 1);
}

/* Each test gets its own event base and log. */
#define OOB_TEST(f)                                                        \
    cmocka_unit_test_setup_teardown(f, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        OOB_TEST(test_race_pairs),
        OOB_TEST(test_accept_before_connect),
        OOB_TEST(test_handover_mid_frame),
        OOB_TEST(test_duplicate_eof_before_hello),
        OOB_TEST(test_duplicate_eof_then_no_hello),
        OOB_TEST(test_late_duplicate),
        OOB_TEST(test_hold_while_duplicate_handshakes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
