/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixture of test_pmi_simple_server.c (pmi_server_fixture.h). */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "hnp_errors.h"
#include "../loop_helpers.h"
#include "pmi_server_fixture.h"


/* ----------------------------------------------------- the daemon's side */

void on_fence_ready(void *ctx, uint32_t seq, const void *blob,
                           size_t len)
{
    fixture_t *f = ctx;

    f->fences++;
    f->fence_seq = seq;
    hnp_buffer_release(&f->blob);
    hnp_buffer_init(&f->blob);
    hnp_pack_bytes(&f->blob, blob, len);
    if (f->complete_at_once) {
        assert_int_equal(pmi_simple_fence_merge(f->srv, seq, blob, len, NULL, 0),
                         HNP_SUCCESS);
        assert_int_equal(pmi_simple_fence_complete(f->srv, seq, 0), HNP_SUCCESS);
    }
}

static void on_abort(void *ctx, uint32_t rank, int code, const char *msg)
{
    fixture_t *f = ctx;

    f->aborts++;
    f->abort_rank = rank;
    f->abort_code = code;
    snprintf(f->abort_msg, sizeof(f->abort_msg), "%s", msg);
}

static void on_client_error(void *ctx, uint32_t rank, int code,
                            const char *msg)
{
    fixture_t *f = ctx;

    f->errors++;
    f->error_rank = rank;
    f->error_code = code;
    snprintf(f->error_msg, sizeof(f->error_msg), "%s", msg);
    if (f->destroy_on_error) {
        pmi_simple_server_destroy(f->srv);
        f->srv = NULL;
    }
}

static void on_finalized(void *ctx, uint32_t rank)
{
    fixture_t *f = ctx;
    f->finalized[rank]++;
}

static void on_initialized(void *ctx, uint32_t rank)
{
    fixture_t *f = ctx;
    f->initialized[rank]++;
}

static void on_spawn(void *ctx, uint32_t rank)
{
    fixture_t *f = ctx;
    f->spawns++;
    f->spawn_rank = rank;
}

static void on_kvs_limit(void *ctx, uint32_t rank, size_t limit)
{
    fixture_t *f = ctx;

    f->kvs_limits++;
    f->kvs_limit_rank = rank;
    f->kvs_limit = limit;
}

static void on_name(void *ctx, uint32_t rank, pmi_simple_name_op_t op,
                    const char *name, const char *port, uint64_t ticket)
{
    fixture_t *f = ctx;
    int i = f->names++;

    assert_true(i < 8);
    f->name_ticket[i] = ticket;
    f->name_op[i] = op;
    f->name_rank[i] = rank;
    snprintf(f->name_key[i], sizeof(f->name_key[i]), "%s", name);
    snprintf(f->name_port[i], sizeof(f->name_port[i]), "%s",
             port != NULL ? port : "(none)");
}

/* With @p mapping_nodes, the server works PMI_process_mapping out from
 * them; else it is given MAPPING. */
static int setup_with(void **state, size_t max_kvs_bytes,
                      const uint32_t *mapping_nodes)
{
    static const uint32_t local[NLOCAL] = { 0, 1 };
    static const pmi_simple_attr_t attrs[] = { { "PMI_hwloc_xmlfile", "none" } };
    pmi_simple_config_t cfg = {
        .size = 4, .kvsname = KVS,
        .process_mapping = mapping_nodes == NULL ? MAPPING : NULL,
        .mapping_nodes = mapping_nodes,
        .local_ranks = local, .nlocal = NLOCAL, .job_attrs = attrs,
        .njob_attrs = 1, .max_kvs_bytes = max_kvs_bytes,
    };
    fixture_t *f = calloc(1, sizeof(*f));
    pmi_simple_callbacks_t cb = {
        .fence_ready = on_fence_ready, .abort = on_abort,
        .client_error = on_client_error, .initialized = on_initialized,
        .finalized = on_finalized, .spawn = on_spawn,
        .kvs_limit = on_kvs_limit, .name = on_name, .ctx = f,
    };
    struct timeval ten_ms = { 0, 10000 };
    char err[256];

    assert_non_null(f);
    assert_int_equal(hnp_rte_create(&f->rte, &f->setup, false, 1, err,
                                    sizeof(err)), HNP_SUCCESS);
    f->base = f->rte->base;
    f->tick = event_new(f->base, -1, EV_PERSIST, loop_tick, NULL);
    event_add(f->tick, &ten_ms);
    hnp_buffer_init(&f->blob);
    assert_int_equal(
        pmi_simple_server_create(&f->srv, f->rte, &cfg, &cb, err, sizeof(err)),
        HNP_SUCCESS);
    for (uint32_t r = 0; r < NLOCAL; r++) {
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        f->peer[r].f = f;
        f->peer[r].fd = sv[0];
        f->peer[r].buf = malloc(PEER_BUF);
        assert_non_null(f->peer[r].buf);
        assert_int_equal(pmi_simple_server_add_client(f->srv, sv[1], r, APPNUM),
                         HNP_SUCCESS);
    }
    *state = f;
    return 0;
}

int setup(void **state)
{
    return setup_with(state, 0, NULL);
}

int setup_mapping_nodes(void **state)
{
    /* a DVM's job on its nodes 7 and 9, two ranks each: MAPPING */
    static const uint32_t nodes[4] = { 7, 7, 9, 9 };

    return setup_with(state, 0, nodes);
}

int setup_kvs_limit(void **state)
{
    return setup_with(state, KVS_LIMIT, NULL);
}

int teardown(void **state)
{
    fixture_t *f = *state;

    pmi_simple_server_destroy(f->srv);
    for (int r = 0; r < NLOCAL; r++) {
        close(f->peer[r].fd);
        free(f->peer[r].buf);
    }
    hnp_buffer_release(&f->blob);
    event_free(f->tick);
    hnp_rte_destroy(f->rte);
    free(f);
    return 0;
}

/* --------------------------------------------------- the process's side */

void pump(fixture_t *f, peer_t *p)
{
    event_base_loop(f->base, EVLOOP_ONCE);
    while (!p->eof && p->len < PEER_BUF) {
        ssize_t n = recv(p->fd, p->buf + p->len, PEER_BUF - p->len,
                         MSG_DONTWAIT);
        if (n > 0)
            p->len += (size_t)n;
        else if (n == 0)
            p->eof = true;
        if (n <= 0)
            break;
    }
}

/* Send all of @p text; while the socket is full, let the server read. */
void say_bytes(peer_t *p, const char *text, size_t len)
{
    double deadline = loop_now() + DEADLINE;

    while (len > 0 && loop_now() < deadline) {
        ssize_t n = send(p->fd, text, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            text += n;
            len -= (size_t)n;
        } else {
            assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
            pump(p->f, p);
        }
    }
    assert_int_equal(len, 0);
}

void say(peer_t *p, const char *text)
{
    say_bytes(p, text, strlen(text));
}

/* A PMI-2 message: the length field, then the body. */
void say_v2(peer_t *p, const char *body)
{
    char head[24];

    snprintf(head, sizeof(head), "%-6zu", strlen(body));
    say(p, head);
    say(p, body);
}

/* Wait for one PMI-1 line and check it (without its newline). */
void expect_line(fixture_t *f, int rank, const char *want)
{
    peer_t *p = &f->peer[rank];
    double deadline = loop_now() + DEADLINE;
    char *eol;

    while ((eol = memchr(p->buf, '\n', p->len)) == NULL && !p->eof &&
           loop_now() < deadline)
        pump(f, p);
    assert_non_null(eol);
    size_t n = (size_t)(eol - p->buf);
    *eol = '\0';
    if (strcmp(p->buf, want) != 0)
        fail_msg("rank %d got \"%s\", wanted \"%s\"", rank, p->buf, want);
    memmove(p->buf, eol + 1, p->len - n - 1);
    p->len -= n + 1;
}

/* Wait for one PMI-2 message and check its body. */
void expect_v2(fixture_t *f, int rank, const char *want)
{
    peer_t *p = &f->peer[rank];
    double deadline = loop_now() + DEADLINE;
    size_t body = 0;

    while (loop_now() < deadline && !p->eof &&
           (p->len < 6 || p->len < 6 + (body = strtoul(p->buf, NULL, 10))))
        pump(f, p);
    assert_true(p->len >= 6 && p->len >= 6 + body);
    if (body != strlen(want) || memcmp(p->buf + 6, want, body) != 0)
        fail_msg("rank %d got \"%.*s\", wanted \"%s\"", rank, (int)body,
                 p->buf + 6, want);
    memmove(p->buf, p->buf + 6 + body, p->len - 6 - body);
    p->len -= 6 + body;
}

/* Send one request and check the one answer. */
void ask(fixture_t *f, int rank, const char *request, const char *want)
{
    say(&f->peer[rank], request);
    expect_line(f, rank, want);
}

void ask_v2(fixture_t *f, int rank, const char *request,
                   const char *want)
{
    say_v2(&f->peer[rank], request);
    expect_v2(f, rank, want);
}

/* Run the loop a while: nothing may arrive. */
void expect_silence(fixture_t *f, int rank)
{
    for (int i = 0; i < 5; i++)
        pump(f, &f->peer[rank]);
    assert_int_equal(f->peer[rank].len, 0);
    assert_false(f->peer[rank].eof);
}

void expect_eof(fixture_t *f, int rank)
{
    double deadline = loop_now() + DEADLINE;

    while (!f->peer[rank].eof && loop_now() < deadline)
        pump(f, &f->peer[rank]);
    assert_true(f->peer[rank].eof);
}

/* The daemon's part of a fence: this node's blob back, another node's
 * (one put, from a store of the test), then done. */
void finish_fence(fixture_t *f, const char *key, const char *value)
{
    pmi_simple_kvs_t *remote;
    hnp_buffer_t blob;

    assert_int_equal(pmi_simple_fence_merge(f->srv, f->fence_seq, f->blob.data,
                                            f->blob.len, NULL, 0),
                     HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_create(&remote), HNP_SUCCESS);
    pmi_simple_kvs_put(remote, key, value, strlen(value), true);
    hnp_buffer_init(&blob);
    assert_int_equal(pmi_simple_kvs_pack_pending(remote, &blob), HNP_SUCCESS);
    assert_int_equal(pmi_simple_fence_merge(f->srv, f->fence_seq, blob.data,
                                            blob.len, NULL, 0),
                     HNP_SUCCESS);
    hnp_buffer_release(&blob);
    pmi_simple_kvs_destroy(remote);
    assert_int_equal(pmi_simple_fence_complete(f->srv, f->fence_seq, 0),
                     HNP_SUCCESS);
}

void v1_init(fixture_t *f, int rank)
{
    ask(f, rank, "cmd=init pmi_version=1 pmi_subversion=1\n",
        "cmd=response_to_init pmi_version=1 "
        "pmi_subversion=1 rc=0");
}

/* MPICH's PMI-2 client opens in PMI-1, then switches: rank @p rank of
 * the job of four, fully initialized. */
void v2_start(fixture_t *f, int rank)
{
    char want[256];

    /* MPICH's PMI-2 client opens in PMI-1, then switches. */
    ask(f, rank, "cmd=init pmi_version=2 pmi_subversion=0\n",
        "cmd=response_to_init pmi_version=2 "
        "pmi_subversion=0 rc=0");
    snprintf(want, sizeof(want), "cmd=fullinit;pmijobid=" KVS ";pmirank=%d;"
             "threaded=FALSE;", rank);
    say_v2(&f->peer[rank], want);
    snprintf(want, sizeof(want), "cmd=fullinit-response;rc=0;pmi-version=2;"
             "pmi-subversion=0;rank=%d;size=4;appnum=" APPNUM_TEXT ";debugged=FALSE;"
             "pmiverbose=FALSE;", rank);
    expect_v2(f, rank, want);
}
