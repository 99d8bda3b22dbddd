/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixture of test_pmi_simple_server.c: a PMI server for two local
 * ranks (0 and 1) of a job of four, on a runtime of its own, the
 * processes' side played over socketpairs and the daemon's side through
 * the callbacks, on the runtime's event loop. Every wait runs the loop
 * with a deadline, so a server that fails to answer fails the test instead
 * of hanging it.
 */
#ifndef HNP_TEST_PMI_SERVER_FIXTURE_H
#define HNP_TEST_PMI_SERVER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"
#include "pmi/simple/internal.h"
#include "rte.h"

#define DEADLINE 10.0
#define NLOCAL 2
#define PEER_BUF (2u << 20)
#define KVS "kvs_test_1"
#define APPNUM 3 /* the program the ranks belong to (MPMD) */
#define TEXT_OF(x) #x
#define TEXT(x) TEXT_OF(x)
#define APPNUM_TEXT TEXT(APPNUM) /* as the answers spell it */
#define MAPPING "(vector,(0,2,2))"
#define KVS_LIMIT 400 /* max_kvs_bytes under setup_kvs_limit() */

struct fixture;
struct event;
struct event_base;

typedef struct peer {
    struct fixture *f;
    int fd;           /* the process's end, non-blocking */
    char *buf;        /* read, not yet consumed */
    size_t len;
    bool eof;
} peer_t;

typedef struct fixture {
    hnp_setup_t setup;
    hnp_rte_t *rte;
    struct event_base *base;  /* the runtime's loop */
    struct event *tick;
    pmi_simple_server_t *srv;
    peer_t peer[NLOCAL];
    int fences;               /* fence_ready calls */
    uint32_t fence_seq;
    hnp_buffer_t blob;        /* the last fence_ready blob */
    bool complete_at_once;    /* a one-node job: finish inside fence_ready */
    int aborts, abort_code;
    uint32_t abort_rank;
    char abort_msg[256];
    int errors, error_code;
    uint32_t error_rank;
    char error_msg[256];
    bool destroy_on_error;
    int finalized[NLOCAL];
    int initialized[NLOCAL];
    int spawns;
    uint32_t spawn_rank;
    int kvs_limits;           /* kvs_limit calls */
    uint32_t kvs_limit_rank;
    size_t kvs_limit;
    /* name requests handed to the daemon, oldest first */
    int names;
    uint64_t name_ticket[8];
    pmi_simple_name_op_t name_op[8];
    uint32_t name_rank[8];
    char name_key[8][64], name_port[8][64];
} fixture_t;

/* The daemon's side of a fence: record @p blob, and finish it at once when
 * f->complete_at_once. */
void on_fence_ready(void *ctx, uint32_t seq, const void *blob, size_t len);

/* cmocka set-up and tear-down of every case; setup_kvs_limit() lets each
 * rank store KVS_LIMIT bytes, setup() any amount; setup_mapping_nodes()
 * gives the server the ranks' nodes instead of MAPPING. */
int setup(void **state);
int setup_mapping_nodes(void **state);
int setup_kvs_limit(void **state);
int teardown(void **state);

/* The processes' side: read what the server sent @p p; write to it. */
void pump(fixture_t *f, peer_t *p);
void say_bytes(peer_t *p, const char *text, size_t len);
void say(peer_t *p, const char *text);
void say_v2(peer_t *p, const char *body);
void expect_line(fixture_t *f, int rank, const char *want);
void expect_v2(fixture_t *f, int rank, const char *want);
void ask(fixture_t *f, int rank, const char *request, const char *want);
void ask_v2(fixture_t *f, int rank, const char *request, const char *want);
void expect_silence(fixture_t *f, int rank);
void expect_eof(fixture_t *f, int rank);
void finish_fence(fixture_t *f, const char *key, const char *value);
void v1_init(fixture_t *f, int rank);
void v2_start(fixture_t *f, int rank);

#endif /* HNP_TEST_PMI_SERVER_FIXTURE_H */
