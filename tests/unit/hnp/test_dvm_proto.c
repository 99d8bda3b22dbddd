/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DVM's local socket (runtime/hnp/dvm_proto.c): a client's handshake
 * with an HNP that answers late while signals keep arriving (a client's
 * handlers are installed without SA_RESTART's help for poll()), and frames
 * read back in any split.
 */
#include "config.h"

#include <setjmp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hnp/dvm_proto.h"
#include "hnp_errors.h"

static const uint8_t secret[HNP_SECRET_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

/* One whole frame from blocking @p fd, or NULL. */
static const uint8_t *next_frame(int fd, dvm_inbuf_t *in, size_t *len)
{
    const uint8_t *body;
    bool bad = false;

    while ((body = dvm_inbuf_frame(in, len, &bad)) == NULL && !bad) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        long n;

        if (poll(&p, 1, 10000) != 1 ||
            (n = dvm_recv_some(fd, in, NULL, NULL)) == 0 || n < -1)
            return NULL;
    }
    return body;
}

/* The HNP's side, in a child: answers the hello after @p delay_ms, then
 * exits 0 when the client's proof is right. */
static int serve_one(int fd, int delay_ms)
{
    hnp_auth_transcript_t t;
    uint8_t answer[HNP_REPLY_LEN];
    dvm_inbuf_t in = { 0 };
    const uint8_t *body;
    size_t len = 0;

    body = next_frame(fd, &in, &len);
    if (body == NULL || dvm_accept_hello(secret, body, len, &t, answer) !=
                            HNP_SUCCESS)
        return 1;
    dvm_inbuf_drop(&in, len);
    usleep((useconds_t)delay_ms * 1000);
    if (dvm_send_frame(fd, answer, sizeof(answer), NULL, 0) != HNP_SUCCESS)
        return 2;
    body = next_frame(fd, &in, &len);
    return body != NULL && dvm_accept_proof(secret, &t, body, len) ? 0 : 3;
}

static void test_handshake_survives_signals(void **state)
{
    struct sigaction sa = { .sa_handler = on_alarm }, old;
    struct itimerval every = { { 0, 20000 }, { 0, 20000 } }, off = { 0 };
    char err[256] = "";
    int sv[2], status = -1, rc;
    pid_t hnp;

    (void)state;
    assert_int_equal(hnp_auth_init(), HNP_SUCCESS);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    hnp = fork();
    assert_true(hnp >= 0);
    if (hnp == 0) {
        close(sv[0]);
        _exit(serve_one(sv[1], 400));
    }
    close(sv[1]);
    sigemptyset(&sa.sa_mask); /* no SA_RESTART: poll() sees EINTR */
    sigaction(SIGALRM, &sa, &old);
    setitimer(ITIMER_REAL, &every, NULL);
    rc = dvm_client_handshake(sv[0], secret, err, sizeof(err));
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &old, NULL);
    assert_int_equal(waitpid(hnp, &status, 0), hnp);
    close(sv[0]);
    assert_true(alarms > 0);
    if (rc != HNP_SUCCESS)
        fail_msg("the handshake failed after %d signals: %s", (int)alarms,
                 err);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Frames handed over byte by byte come out whole, in order. */
static void test_frames_split_anywhere(void **state)
{
    static const char *const bodies[] = { "", "a", "hello, DVM" };
    dvm_inbuf_t in = { 0 };
    int sv[2];

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(dvm_send_frame(sv[0], bodies[i], strlen(bodies[i]),
                                        NULL, 0), HNP_SUCCESS);
    close(sv[0]);
    for (size_t i = 0; i < 3; i++) {
        size_t len = 99;
        const uint8_t *body = next_frame(sv[1], &in, &len);
        assert_non_null(body);
        assert_int_equal(len, strlen(bodies[i]));
        assert_memory_equal(body, bodies[i], len);
        dvm_inbuf_drop(&in, len);
    }
    assert_int_equal(in.len, 0);
    dvm_inbuf_release(&in);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_survives_signals),
        cmocka_unit_test(test_frames_split_anywhere),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
