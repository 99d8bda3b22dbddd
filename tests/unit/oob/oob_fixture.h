/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixture of test_oob: one event base with a captured log per test,
 * OOB instances ("nodes") that record what their callbacks saw, and raw
 * sockets that play misbehaving peers. Everything talks over 127.0.0.1.
 */
#ifndef HNP_TEST_OOB_FIXTURE_H
#define HNP_TEST_OOB_FIXTURE_H

#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hnp_log.h"
#include "oob/oob.h"

#define MAX_FRAME ((size_t)8 << 20)
#define BIG_BODY ((size_t)4 << 20)
#define LOOPBACK "127.0.0.1/32"
#define MAX_EVENTS 64

extern const uint8_t good_secret[HNP_SECRET_LEN];
extern const uint8_t bad_secret[HNP_SECRET_LEN];

typedef struct log_line {
    hnp_log_severity_t sev;
    char *text;
} log_line_t;

typedef struct world {
    struct event_base *base;
    log_line_t *lines;
    size_t nlines, cap;
} world_t;

typedef struct msg_rec {
    hnp_vpid_t from;
    hnp_frame_header_t hdr;
    bool body_ok;
} msg_rec_t;

typedef struct node {
    hnp_oob_t *oob;
    hnp_vpid_t vpid;
    msg_rec_t *msgs;
    size_t nmsgs, cap;
    size_t nups;
    hnp_vpid_t down_peer[MAX_EVENTS];
    size_t down_unsent[MAX_EVENTS];
    size_t ndowns;
    size_t ndrained;         /* drained callbacks */
    size_t queued_at_drain;  /* hnp_oob_queued_bytes() in the last one */
    /* Re-entrancy hooks, run from inside the callbacks. */
    uint32_t echo_until;     /* answer tag t with t + 1 while t < this */
    size_t destroy_after;    /* destroy ourselves on delivery number N */
    uint32_t close_on_tag;   /* close_peer(from) when this tag arrives */
    bool destroy_on_down;
} node_t;

/* Run the loop until @p cond holds; fail the test after @p secs. */
/* A wait for a state gives up after @p secs, but never before
 * STATE_WAIT_FLOOR seconds: a process starved on a loaded machine (the
 * sanitizer build under a load of 50 missed 5 s) must not fail a test
 * whose state comes late; one that never comes still fails. */
#define STATE_WAIT_FLOOR 60.0
#define RUN_UNTIL(w, cond, secs)                                           \
    do {                                                                   \
        double deadline_ = now() + ((secs) > STATE_WAIT_FLOOR              \
                                        ? (secs) : STATE_WAIT_FLOOR);      \
        while (!(cond) && now() < deadline_)                               \
            run_for((w), 0.005);                                           \
        if (!(cond))                                                       \
            fail_msg("timed out waiting for %s", #cond);                   \
    } while (0)

double now(void);
/** Run the event loop for @p seconds. */
void run_for(world_t *w, double seconds);
/** Whether a message at @p sev contains @p a and @p b (b may be NULL). */
bool log_has(const world_t *w, hnp_log_severity_t sev, const char *a,
             const char *b);
/** A fresh event base and captured log (state is the world_t). */
int fixture_setup(void **state);
int fixture_teardown(void **state);

/** The bytes of every test body, so receivers can check them. */
uint8_t pattern(uint32_t tag, size_t i);
int send_msg(node_t *from, hnp_vpid_t to, uint32_t tag, size_t len);
int node_create(world_t *w, node_t *n, hnp_vpid_t vpid, uint32_t nprocs,
                const uint8_t *secret, const char *include,
                const char *exclude, char *err, size_t errlen);
/** node_create on 127.0.0.1 only; fails the test on error. */
void node_start_full(world_t *w, node_t *n, hnp_vpid_t vpid, uint32_t nprocs,
                     const uint8_t *secret);
/** nprocs 8, the good secret. */
void node_start(world_t *w, node_t *n, hnp_vpid_t vpid);
void node_stop(node_t *n);
/** Tell @p a the URI of @p b. */
void introduce(node_t *a, node_t *b);
/** node_start @p k nodes with @p vpids, each told every other's URI. */
void nodes_meet(world_t *w, node_t *nodes, const hnp_vpid_t *vpids, size_t k);
/** Nodes 0 (@p a) and 1 (@p b), each told the other's URI. */
void pair_meet(world_t *w, node_t *a, node_t *b);
unsigned uri_port(const char *uri);
/** A port nobody listens on. */
unsigned closed_port(world_t *w);

/* Raw sockets (blocking) to 127.0.0.1. */
int raw_connect(unsigned port);
void raw_write(int fd, const void *buf, size_t len);
/** Only the first flight: our hello (with a fresh nonce), nothing more. */
void raw_hello_send(int fd, hnp_vpid_t vpid);
/** The handshake as @p vpid knowing @p secret. On a connected socket: our
 *  hello, the acceptor's reply read (the loop runs meanwhile), our proof;
 *  false when refused at the hello or the acceptor's proof is wrong. On
 *  an accepted one (raw_accept_hello): our hello and proof. */
bool raw_hello(world_t *w, int fd, hnp_vpid_t vpid, const uint8_t *secret);
/** Accept on @p listener and read the connector's hello. */
int raw_accept_hello(world_t *w, int listener);
void raw_header(int fd, hnp_vpid_t src, hnp_vpid_t dst, uint32_t len);
/** Bytes waiting to be read (never blocks). */
int bytes_ready(int fd);
/** A raw peer that completed the handshake as @p vpid with @p n. */
int raw_peer(world_t *w, node_t *n, hnp_vpid_t vpid);
/** A frame with tag @p tag and a pattern() body of @p len bytes, with its
 *  MAC once the handshake is done. */
void raw_frame(int fd, hnp_vpid_t src, hnp_vpid_t dst, uint32_t tag,
               size_t len);
/** The same frame in *@p out (malloc'd) for writing by hand; its size. */
size_t raw_frame_build(int fd, hnp_vpid_t src, hnp_vpid_t dst, uint32_t tag,
                       size_t len, uint8_t **out);
/** A listening socket on 127.0.0.1 (backlog 4); its port in @p port. */
int raw_listen(unsigned *port);
/** Read exactly @p len bytes, running the loop meanwhile (5 s at most). */
void raw_read(world_t *w, int fd, void *buf, size_t len);
/** Read one frame; fail unless its header, body and MAC are as sent (the
 *  connector's proof first, where it is due). */
void raw_expect_frame(world_t *w, int fd, uint32_t tag, size_t len);
/** Run the loop until the other side has shut @p fd (EOF). */
void raw_expect_eof(world_t *w, int fd);

#endif /* HNP_TEST_OOB_FIXTURE_H */
