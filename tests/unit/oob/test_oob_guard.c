/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections that never authenticate (runtime/oob/guard.c): a peer whose
 * first bytes are not the magic is dropped at once, the connections
 * awaiting their handshake are capped (the oldest goes), they are not
 * counted as peers, and the warnings about them are rate-limited
 * (ratelimit.c, tested here as the pure function it is).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "hnp_errors.h"
#include "oob_fixture.h"
#include "oob/internal.h"
#include "oob/ratelimit.h"

/* ------------------------------------------------------- rate limiting */

static void test_ratelimit_one_line_per_cause_per_interval(void **state)
{
    oob_ratelimit_t rl;
    unsigned long suppressed = 99;

    (void)state;
    oob_ratelimit_init(&rl, 1.0);
    assert_true(oob_ratelimit_allow(&rl, "bad magic", 0.0, &suppressed));
    assert_int_equal(suppressed, 0);
    for (int i = 0; i < 5; i++)
        assert_false(oob_ratelimit_allow(&rl, "bad magic", 0.1 * i,
                                         &suppressed));
    /* Another cause has its own second. */
    assert_true(oob_ratelimit_allow(&rl, "timed out", 0.5, &suppressed));
    assert_int_equal(suppressed, 0);
    /* A second later, one line with the count of those not shown. */
    assert_true(oob_ratelimit_allow(&rl, "bad magic", 1.0, &suppressed));
    assert_int_equal(suppressed, 5);
    assert_false(oob_ratelimit_allow(&rl, "bad magic", 1.5, &suppressed));
    assert_true(oob_ratelimit_allow(&rl, "bad magic", 7.0, &suppressed));
    assert_int_equal(suppressed, 1);
}

static unsigned long flushed_total;
static char flushed_key[OOB_RATELIMIT_KEY_LEN];

static void flushed(void *ctx, const char *key, unsigned long suppressed)
{
    (void)ctx;
    flushed_total += suppressed;
    snprintf(flushed_key, sizeof(flushed_key), "%s", key);
}

static void test_ratelimit_flush_and_many_causes(void **state)
{
    oob_ratelimit_t rl;
    unsigned long suppressed = 0;
    char key[16];

    (void)state;
    oob_ratelimit_init(&rl, 1.0);
    assert_true(oob_ratelimit_allow(&rl, "x", 0.0, &suppressed));
    assert_false(oob_ratelimit_allow(&rl, "x", 0.2, &suppressed));
    assert_false(oob_ratelimit_allow(&rl, "x", 0.3, &suppressed));
    flushed_total = 0;
    oob_ratelimit_flush(&rl, flushed, NULL);
    assert_int_equal(flushed_total, 2);
    assert_string_equal(flushed_key, "x");
    flushed_total = 0;
    oob_ratelimit_flush(&rl, flushed, NULL);
    assert_int_equal(flushed_total, 0);
    /* More causes than slots: each new one is shown, none crashes. */
    for (int i = 0; i < 3 * OOB_RATELIMIT_CAUSES; i++) {
        snprintf(key, sizeof(key), "cause %d", i);
        assert_true(oob_ratelimit_allow(&rl, key, 1.0 + i, &suppressed));
    }
}

static void test_ratelimit_key(void **state)
{
    char key[OOB_RATELIMIT_KEY_LEN];

    (void)state;
    oob_ratelimit_key("failed handshake: wrong job secret (peer claims vpid "
                      "3)", key, sizeof(key));
    assert_string_equal(key, "failed handshake: wrong");
    oob_ratelimit_key("failed handshake: bad magic (it began with \"GET \")",
                      key, sizeof(key));
    assert_string_equal(key, "failed handshake: bad");
    oob_ratelimit_key("no colon here", key, sizeof(key));
    assert_string_equal(key, "no colon here");
    oob_ratelimit_key("unknown peer: the hello names vpid 9", key, 8);
    assert_string_equal(key, "unknown");
}

/* ------------------------------------------------------- the guard */

static void test_bad_magic_dropped_at_once(void **state)
{
    world_t *w = *state;
    node_t b;
    char c;

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 30);
    int fd = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    /* Fewer bytes than a hello: only the magic can tell. */
    raw_write(fd, "GET / HTTP/1.0\r\n\r\n", 18);
    RUN_UNTIL(w, log_has(w, HNP_LOG_WARN, "bad magic", "\"GET \""), 5);
    assert_int_equal(hnp_oob_num_connections(b.oob), 0);
    assert_int_equal(read(fd, &c, 1), 0); /* closed on our side too */
    close(fd);

    /* The magic's first bytes alone are no reason to drop anyone. */
    fd = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    raw_write(fd, "HN", 2);
    run_for(w, 0.1);
    assert_int_equal(hnp_oob_num_connections(b.oob), 1);
    raw_write(fd, "X", 1);
    RUN_UNTIL(w, hnp_oob_num_connections(b.oob) == 0, 5);
    close(fd);
    node_stop(&b);
}

static void test_waiting_connections_capped(void **state)
{
    world_t *w = *state;
    node_t a, b;
    int fds[6];

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 30);
    hnp_oob_set_max_handshakes(b.oob, 2);
    for (int i = 0; i < 6; i++) {
        fds[i] = raw_connect(uri_port(hnp_oob_uri(b.oob)));
        run_for(w, 0.1); /* each one older than the next */
    }
    /* The oldest go; strangers are not peers. A third silent one dropped
     * with no handshake after them is more than the slots: told. */
    RUN_UNTIL(w, log_has(w, HNP_LOG_WARN, "oob_tcp_max_handshakes = 2",
                         "the oldest silent one goes"), 10);
    assert_int_equal(hnp_oob_num_connections(b.oob), 2);
    assert_int_equal(hnp_oob_num_peer_connections(b.oob), 0);
    char c;
    assert_int_equal(read(fds[0], &c, 1), 0);

    /* A peer that says hello still gets through, and counts. */
    node_start(w, &a, 0);
    introduce(&a, &b);
    assert_int_equal(send_msg(&a, 1, 7, 8), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 1, 5);
    assert_int_equal(hnp_oob_num_peer_connections(b.oob), 1);
    for (int i = 0; i < 6; i++)
        close(fds[i]);
    node_stop(&a);
    node_stop(&b);
}

/* Whether the other side has closed @p fd: what it sent is drained, and
 * only an end of stream counts. */
static bool closed_by_peer(int fd)
{
    char buf[256];

    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n == 0)
            return true;
        if (n < 0)
            return errno != EAGAIN && errno != EWOULDBLOCK;
    }
}

/* Silent strangers go first: one old enough (GUARD_MIN_AGE) is dropped
 * before a connection that said its hello. */
static void test_silent_go_before_hellos(void **state)
{
    world_t *w = *state;
    node_t b;
    int hello, fds[2];

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 30);
    hnp_oob_set_max_handshakes(b.oob, 2);
    hello = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    raw_hello_send(hello, 3);
    fds[0] = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    run_for(w, 0.7);
    fds[1] = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    RUN_UNTIL(w, closed_by_peer(fds[0]), 5);
    assert_false(closed_by_peer(hello));
    assert_false(closed_by_peer(fds[1]));
    /* One silent connection dropped, fewer than the slots: it may have
     * been a daemon whose hello a loaded node delayed, which connects
     * again. Nothing to tell. */
    assert_false(log_has(w, HNP_LOG_WARN, "oob_tcp_max_handshakes = 2",
                         NULL));
    close(hello);
    for (int i = 0; i < 2; i++)
        close(fds[i]);
    node_stop(&b);
}

/* A hello proves nothing: slots all held by connections that said one
 * and never their proof do not keep a real peer out. The oldest of them
 * makes room, and the peer's handshake completes. */
static void test_full_of_hellos_makes_room(void **state)
{
    world_t *w = *state;
    node_t a, b;
    int hellos[2];

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 30);
    hnp_oob_set_max_handshakes(b.oob, 2);
    for (int i = 0; i < 2; i++) {
        hellos[i] = raw_connect(uri_port(hnp_oob_uri(b.oob)));
        /* Strangers may name the real peer's vpid: 0 is node a's. */
        raw_hello_send(hellos[i], 0);
        run_for(w, 0.1);
    }
    run_for(w, 0.3);
    node_start(w, &a, 0);
    introduce(&a, &b);
    assert_int_equal(send_msg(&a, 1, 7, 8), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 1, 10);
    assert_int_equal(hnp_oob_num_peer_connections(b.oob), 1);
    assert_true(closed_by_peer(hellos[0]));
    /* One hello in the name of a peer not yet up is dropped as its own
     * daemon's would be: quietly, as that daemon connects again. */
    assert_false(log_has(w, HNP_LOG_WARN, "oob_tcp_max_handshakes = 2",
                         NULL));
    for (int i = 0; i < 2; i++)
        close(hellos[i]);
    node_stop(&a);
    node_stop(&b);
}

/* The flake of a loaded launch: 1,024 daemons call one HNP back, and a
 * daemon that said its hello does not run in time to send its proof; the
 * guard needs its slot for the next connection. The daemon connects again
 * and gets through, and the user is told nothing: nothing went wrong. */
static void test_slow_daemon_dropped_quietly(void **state)
{
    world_t *w = *state;
    node_t a, b;

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 30);
    hnp_oob_set_max_handshakes(b.oob, 1);
    node_start(w, &a, 0);
    a.oob->test_stall = 0.6; /* its proof comes after 0.6 s */
    introduce(&a, &b);
    assert_int_equal(send_msg(&a, 1, 7, 8), HNP_SUCCESS);
    run_for(w, 0.05);
    /* the next one in: b must make room */
    int next = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    RUN_UNTIL(w, b.nmsgs == 1, 10);
    assert_int_equal(b.msgs[0].from, 0);
    assert_int_equal(a.ndowns, 0);
    assert_false(log_has(w, HNP_LOG_WARN, "said only its hello", NULL));
    close(next);
    node_stop(&a);
    node_stop(&b);
}

/* More hellos naming one peer dropped than its daemon would ever try:
 * someone else says them, and that is told. */
static void test_hellos_beyond_retries_told(void **state)
{
    world_t *w = *state;
    node_t b;
    int fds[OOB_HANDSHAKE_RETRIES + 3];
    const int n = (int)(sizeof(fds) / sizeof(fds[0]));

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 30);
    hnp_oob_set_max_handshakes(b.oob, 1);
    for (int i = 0; i < n; i++) {
        fds[i] = raw_connect(uri_port(hnp_oob_uri(b.oob)));
        raw_hello_send(fds[i], 0);
    }
    RUN_UNTIL(w, closed_by_peer(fds[n - 2]), 20);
    assert_true(log_has(w, HNP_LOG_WARN, "oob_tcp_max_handshakes = 1",
                        "the oldest one that said only its hello goes"));
    for (int i = 0; i < n; i++)
        close(fds[i]);
    node_stop(&b);
}

/* A connector that does not run for longer than the acceptor's deadline
 * finds the answer and the close together: its handshake failed, the
 * peer is not gone. It connects again, and the frame it queued arrives;
 * nobody is declared down. */
static void test_slow_handshake_tried_again(void **state)
{
    world_t *w = *state;
    node_t a, b;

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 0.2);
    node_start(w, &a, 0);
    a.oob->test_stall = 0.6; /* as if a did not run for 0.6 s */
    introduce(&a, &b);
    assert_int_equal(send_msg(&a, 1, 7, 8), HNP_SUCCESS);
    RUN_UNTIL(w, b.nmsgs == 1, 10);
    assert_int_equal(b.msgs[0].from, 0);
    assert_int_equal(a.ndowns, 0);
    assert_int_equal(b.ndowns, 0);
    assert_true(log_has(w, HNP_LOG_WARN, "handshake timed out", NULL));
    assert_false(log_has(w, HNP_LOG_WARN, "unreachable", NULL));
    node_stop(&a);
    node_stop(&b);
}

/* A stranger's hello naming a peer does not hold back our own connection
 * to that peer beyond the time a proof takes: the frame for the peer goes
 * out long before the stranger's handshake deadline. */
static void test_hello_in_a_peers_name_does_not_block(void **state)
{
    world_t *w = *state;
    node_t a, b;

    node_start(w, &b, 1);
    oob_set_handshake_timeout(b.oob, 30);
    node_start(w, &a, 0);
    int stranger = raw_connect(uri_port(hnp_oob_uri(b.oob)));
    raw_hello_send(stranger, 0); /* a's vpid */
    run_for(w, 0.2);
    introduce(&b, &a);
    assert_int_equal(send_msg(&b, 0, 7, 8), HNP_SUCCESS);
    RUN_UNTIL(w, a.nmsgs == 1, 5);
    assert_int_equal(a.msgs[0].from, 1);
    close(stranger);
    node_stop(&a);
    node_stop(&b);
}

/* Each test gets its own event base and log. */
#define OOB_TEST(f)                                                        \
    cmocka_unit_test_setup_teardown(f, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratelimit_one_line_per_cause_per_interval),
        cmocka_unit_test(test_ratelimit_flush_and_many_causes),
        cmocka_unit_test(test_ratelimit_key),
        OOB_TEST(test_bad_magic_dropped_at_once),
        OOB_TEST(test_waiting_connections_capped),
        OOB_TEST(test_silent_go_before_hellos),
        OOB_TEST(test_full_of_hellos_makes_room),
        OOB_TEST(test_slow_handshake_tried_again),
        OOB_TEST(test_slow_daemon_dropped_quietly),
        OOB_TEST(test_hellos_beyond_retries_told),
        OOB_TEST(test_hello_in_a_peers_name_does_not_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
