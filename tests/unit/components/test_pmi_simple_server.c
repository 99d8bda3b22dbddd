/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the PMI server (components/pmi/simple/server.c,
 * commands.c), on the fixture of pmi_server_fixture.c: the tests play the
 * processes' side over socketpairs and the daemon's side through the
 * callbacks, on one event loop. Two local ranks (0 and 1) of a
 * job of four; "another node" is a store of this test whose blob is merged
 * into each fence.
 *
 * Every wait runs the loop with a deadline (a tick bounds each turn), so a
 * server that fails to answer fails the test instead of hanging it.
 */
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
#include "pmi_server_fixture.h"
#include "../loop_helpers.h"
/* ---------------------------------------------------------------- PMI-1 */

/* What MPICH's client asks at MPI_Init before its first fence. */
static void v1_startup(fixture_t *f, int r)
{
    char want[128];

    v1_init(f, r);
    say(&f->peer[r], "cmd=get_maxes\n");
    /* 1024 - 29 - strlen(KVS) - 63 */
    snprintf(want, sizeof(want), "cmd=maxes kvsname_max=256 keylen_max=64 "
             "vallen_max=%zu", (size_t)932 - strlen(KVS));
    expect_line(f, r, want);
    ask(f, r, "cmd=get_appnum\n", "cmd=appnum appnum=" APPNUM_TEXT);
    ask(f, r, "cmd=get_universe_size\n", "cmd=universe_size size=4");
    ask(f, r, "cmd=get_my_kvsname\n", "cmd=my_kvsname kvsname=" KVS);
    ask(f, r, "cmd=get kvsname=" KVS " key=PMI_process_mapping\n",
        "cmd=get_result rc=0 msg=success value=" MAPPING);
}

static void test_v1_full_sequence(void **state)
{
    fixture_t *f = *state;
    char put[128];

    for (int r = 0; r < NLOCAL; r++) {
        v1_startup(f, r);
        snprintf(put, sizeof(put), "cmd=put kvsname=" KVS
                 " key=card-%d value=addr%d\n", r, r);
        ask(f, r, put, "cmd=put_result rc=0 msg=success");
    }
    say(&f->peer[0], "cmd=barrier_in\n");
    expect_silence(f, 0);
    assert_int_equal(f->fences, 0);
    say(&f->peer[1], "cmd=barrier_in\n");
    for (int i = 0; i < 5 && f->fences == 0; i++)
        pump(f, &f->peer[1]);
    assert_int_equal(f->fences, 1);
    assert_int_equal(f->fence_seq, 0);
    expect_silence(f, 1);
    finish_fence(f, "card-2", "addr2");
    for (int r = 0; r < NLOCAL; r++) {
        expect_line(f, r, "cmd=barrier_out");
        ask(f, r, "cmd=get kvsname=" KVS " key=card-2\n",
            "cmd=get_result rc=0 msg=success value=addr2");
        ask(f, r, "cmd=get kvsname=" KVS " key=card-1\n",
            "cmd=get_result rc=0 msg=success value=addr1");
        ask(f, r, "cmd=get kvsname=" KVS " key=card-3\n",
            "cmd=get_result rc=-1 msg=key_not_found");
        ask(f, r, "cmd=finalize\n", "cmd=finalize_ack");
        assert_int_equal(f->initialized[r], 1);
        assert_int_equal(f->finalized[r], 1);
        close(f->peer[r].fd);
        f->peer[r].fd = socket(AF_UNIX, SOCK_STREAM, 0);
    }
    for (int i = 0; i < 5; i++)
        event_base_loop(f->base, EVLOOP_ONCE);
    assert_int_equal(f->errors, 0);
}

/* The node's blob holds exactly the puts since the last fence. */
static void test_v1_fence_blob_and_second_fence(void **state)
{
    fixture_t *f = *state;
    pmi_simple_kvs_t *seen;
    size_t len;

    f->complete_at_once = true;
    for (int r = 0; r < NLOCAL; r++) {
        v1_init(f, r);
        say(&f->peer[r], r == 0 ? "cmd=put kvsname=" KVS " key=a value=1\n"
                                : "cmd=put kvsname=" KVS " key=b value=2\n");
        expect_line(f, r, "cmd=put_result rc=0 msg=success");
        say(&f->peer[r], "cmd=barrier_in\n");
    }
    for (int r = 0; r < NLOCAL; r++)
        expect_line(f, r, "cmd=barrier_out");
    assert_int_equal(pmi_simple_kvs_create(&seen), HNP_SUCCESS);
    assert_int_equal(
        pmi_simple_kvs_merge(seen, f->blob.data, f->blob.len, NULL, 0),
        HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_count(seen), 2);
    assert_string_equal(pmi_simple_kvs_get(seen, "b", &len), "2");
    pmi_simple_kvs_destroy(seen);

    /* Fence 1: nothing new was put, so the blob is empty. */
    for (int r = 0; r < NLOCAL; r++)
        say(&f->peer[r], "cmd=barrier_in\n");
    for (int r = 0; r < NLOCAL; r++)
        expect_line(f, r, "cmd=barrier_out");
    assert_int_equal(f->fences, 2);
    assert_int_equal(f->fence_seq, 1);
    assert_int_equal(f->blob.len, 4);
    /* The daemon cannot complete a fence twice, nor one not started. */
    assert_int_equal(pmi_simple_fence_complete(f->srv, 1, 0), HNP_ERR_BAD_PARAM);
    assert_int_equal(pmi_simple_fence_complete(f->srv, 2, 0), HNP_ERR_BAD_PARAM);
    assert_int_equal(
        pmi_simple_fence_merge(f->srv, 7, f->blob.data, f->blob.len, NULL, 0),
        HNP_ERR_BAD_PARAM);
}

static void test_v1_fence_failure(void **state)
{
    fixture_t *f = *state;

    for (int r = 0; r < NLOCAL; r++)
        say(&f->peer[r], "cmd=barrier_in\n");
    for (int i = 0; i < 10 && f->fences == 0; i++)
        pump(f, &f->peer[0]);
    assert_int_equal(f->fences, 1);
    assert_int_equal(pmi_simple_fence_complete(f->srv, 0, HNP_ERR_TIMEOUT),
                     HNP_SUCCESS);
    for (int r = 0; r < NLOCAL; r++)
        expect_line(f, r, "cmd=barrier_out rc=-1 msg=fence_failed");
}

/* Partial lines, several requests in one write, and a request queued
 * behind a fence: answers come in order, the fence's first. */
static void test_v1_partial_and_batched(void **state)
{
    fixture_t *f = *state;
    const char *init = "cmd=init pmi_version=1 pmi_subversion=1\n";

    for (const char *c = init; *c != '\0'; c++) {
        char one[2] = { *c, '\0' };
        say(&f->peer[0], one);
        pump(f, &f->peer[0]);
    }
    expect_line(f, 0, "cmd=response_to_init pmi_version=1 pmi_subversion=1 "
                "rc=0");
    say(&f->peer[0], "cmd=get_appnum\ncmd=get_universe_size\n\n"
                     "cmd=barrier_in\ncmd=get_my_kvsname\n");
    expect_line(f, 0, "cmd=appnum appnum=" APPNUM_TEXT);
    expect_line(f, 0, "cmd=universe_size size=4");
    expect_silence(f, 0);
    f->complete_at_once = true;
    say(&f->peer[1], "cmd=barrier_in\n");
    expect_line(f, 0, "cmd=barrier_out");
    expect_line(f, 0, "cmd=my_kvsname kvsname=" KVS);
    expect_line(f, 1, "cmd=barrier_out");
}

static void test_v1_limits(void **state)
{
    fixture_t *f = *state;
    char line[PMI_SIMPLE_V1_INPUT_MAX];
    size_t vmax = 932 - strlen(KVS);

    v1_init(f, 0);
    /* The longest value vallen_max allows goes in, one more does not. */
    int n = snprintf(line, sizeof(line), "cmd=put kvsname=" KVS " key=k "
                     "value=%0*d\n", (int)vmax - 1, 7);
    assert_true(n > 0 && (size_t)n < sizeof(line));
    ask(f, 0, line, "cmd=put_result rc=0 msg=success");
    snprintf(line, sizeof(line), "cmd=put kvsname=" KVS " key=k value=%0*d\n",
             (int)vmax, 7);
    ask(f, 0, line, "cmd=put_result rc=-1 msg=value_too_long");
    snprintf(line, sizeof(line), "cmd=put kvsname=" KVS " key=%065d value=1\n",
             7);
    ask(f, 0, line, "cmd=put_result rc=-1 msg=key_too_long");
    ask(f, 0, "cmd=put kvsname=other key=k value=1\n",
        "cmd=put_result rc=-1 msg=unknown_kvsname");
    ask(f, 0, "cmd=put kvsname=" KVS " key=k\n",
        "cmd=put_result rc=-1 msg=missing_key_or_value");
    ask(f, 0, "cmd=init pmi_version=3 pmi_subversion=0\n",
        "cmd=response_to_init pmi_version=1 pmi_subversion=1 "
        "rc=-1 msg=unsupported_pmi_version");
    assert_int_equal(f->errors, 0);

    /* A line longer than any the protocol allows is not answered. */
    memset(line, 'x', sizeof(line));
    say_bytes(&f->peer[0], line, sizeof(line));
    expect_eof(f, 0);
    assert_int_equal(f->errors, 1);
    assert_int_equal(f->error_code, HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(f->error_msg, "longer than 4096"));
}

static void test_v1_unsupported(void **state)
{
    fixture_t *f = *state;

    v1_init(f, 0);
    ask(f, 0, "cmd=get_ranks2hosts\n",
        "cmd=put_ranks2hosts rc=-1 info=not_supported "
        "msg=not_supported_by_hnp");
    ask(f, 0, "cmd=frobnicate x=1\n", "cmd=error rc=-1 msg=unknown_command");
    /* Two executables, two blocks, one answer. */
    say(&f->peer[0], "mcmd=spawn\nnprocs=1\nexecname=a\ntotspawns=2\n"
                     "spawnssofar=1\nargcnt=0\nendcmd\n");
    expect_silence(f, 0);
    ask(f, 0, "mcmd=spawn\nnprocs=1\nexecname=b\ntotspawns=2\n"
              "spawnssofar=2\narg1=with blanks\nendcmd\n",
        "cmd=spawn_result rc=-1 msg=spawn_is_not_supported");
    /* One request, one word to the daemon, after the last block. */
    assert_int_equal(f->spawns, 1);
    assert_int_equal(f->spawn_rank, 0);
    ask(f, 0, "cmd=initack pmiid=0\n", "cmd=initack");
    expect_line(f, 0, "cmd=set size=4");
    expect_line(f, 0, "cmd=set rank=0");
    expect_line(f, 0, "cmd=set debug=0");
    assert_int_equal(f->errors, 0);
}

/* How a connection ends early: an abort (reported as such), or bytes
 * that are not PMI (reported as an error). */
static void test_abort_and_malformed(void **state)
{
    fixture_t *f = *state;

    v1_init(f, 1);
    say(&f->peer[1], "cmd=abort exitcode=13\n");
    expect_eof(f, 1);
    assert_int_equal(f->aborts, 1);
    assert_int_equal(f->abort_rank, 1);
    assert_int_equal(f->abort_code, 13);
    assert_string_equal(f->abort_msg, "");
    assert_int_equal(f->errors, 0);

    say(&f->peer[0], "hello world\n");
    expect_eof(f, 0);
    assert_int_equal(f->errors, 1);
    assert_int_equal(f->error_rank, 0);
    assert_int_equal(f->error_code, HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(f->error_msg, "malformed PMI request"));
}

/* A process that spoke PMI must finalize before it hangs up; one that
 * never spoke (not an MPI program) may go at any time. */
/* A process that closes between init and finalize is not the server's
 * error: the connection closes quietly, the runtime (told of the init)
 * reports the rank when it exits. */
static void test_close_without_finalize(void **state)
{
    fixture_t *f = *state;

    v1_init(f, 0);
    assert_int_equal(f->initialized[0], 1);
    assert_int_equal(f->initialized[1], 0);
    close(f->peer[0].fd);
    close(f->peer[1].fd);
    f->peer[0].fd = socket(AF_UNIX, SOCK_STREAM, 0);
    f->peer[1].fd = socket(AF_UNIX, SOCK_STREAM, 0);
    for (int i = 0; i < 10; i++)
        event_base_loop(f->base, EVLOOP_NONBLOCK);
    assert_int_equal(f->errors, 0);
    assert_int_equal(f->finalized[0], 0);
    assert_true(f->srv->clients[0]->closed);
    assert_true(f->srv->clients[1]->closed);
}

/* The daemon may tear the server down from inside a callback. */
static void test_destroy_from_callback(void **state)
{
    fixture_t *f = *state;

    f->destroy_on_error = true;
    say(&f->peer[0], "cmd=get_appnum\nnot pmi\ncmd=get_appnum\n");
    say(&f->peer[1], "cmd=get_appnum\n");
    expect_line(f, 0, "cmd=appnum appnum=" APPNUM_TEXT);
    expect_eof(f, 0);
    assert_null(f->srv);
    assert_int_equal(f->errors, 1);
    expect_eof(f, 1);
}

/* PMI_process_mapping worked out from the ranks' nodes when a rank asks
 * (a daemon does not work it out for ranks that never speak PMI), in the
 * job's own node numbers, by get and by info-getjobattr alike. */
static void test_mapping_from_nodes(void **state)
{
    fixture_t *f = *state;

    v1_init(f, 0);
    ask(f, 0, "cmd=get kvsname=" KVS " key=PMI_process_mapping\n",
        "cmd=get_result rc=0 msg=success value=" MAPPING);
    v2_start(f, 1);
    ask_v2(f, 1, "cmd=info-getjobattr;key=PMI_process_mapping;",
           "cmd=info-getjobattr-response;rc=0;found=TRUE;value=" MAPPING ";");
    ask_v2(f, 1, "cmd=info-getjobattr;key=universeSize;",
           "cmd=info-getjobattr-response;rc=0;found=TRUE;value=4;");
}

/* ---------------------------------------------------------------- PMI-2 */

static void test_v2_full_sequence(void **state)
{
    fixture_t *f = *state;

    for (int r = 0; r < NLOCAL; r++) {
        v2_start(f, r);
        ask_v2(f, r, "cmd=job-getid;",
               "cmd=job-getid-response;rc=0;jobid=" KVS ";");
        ask_v2(f, r, "cmd=info-getjobattr;key=PMI_process_mapping;",
               "cmd=info-getjobattr-response;rc=0;found=TRUE;"
               "value=" MAPPING ";");
        ask_v2(f, r, "cmd=info-getjobattr;key=universeSize;",
               "cmd=info-getjobattr-response;rc=0;found=TRUE;"
               "value=4;");
        ask_v2(f, r, "cmd=info-getjobattr;key=nothing;",
               "cmd=info-getjobattr-response;rc=0;found=FALSE;");
        say_v2(&f->peer[r], r == 0 ? "cmd=kvs-put;key=bc-0;value=a;;b;"
                                   : "cmd=kvs-put;key=bc-1;value=c;");
        expect_v2(f, r, "cmd=kvs-put-response;rc=0;");
        say_v2(&f->peer[r], "cmd=kvs-fence;");
    }
    for (int i = 0; i < 10 && f->fences == 0; i++)
        pump(f, &f->peer[0]);
    assert_int_equal(f->fences, 1);
    finish_fence(f, "bc-2", "remote");
    for (int r = 0; r < NLOCAL; r++) {
        expect_v2(f, r, "cmd=kvs-fence-response;rc=0;");
        ask_v2(f, r, "cmd=kvs-get;jobid=" KVS ";srcid=-1;key=bc-0;",
               "cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;");
        ask_v2(f, r, "cmd=kvs-get;jobid=" KVS ";srcid=2;key=bc-2;",
               "cmd=kvs-get-response;rc=0;found=TRUE;value=remote;");
        ask_v2(f, r, "cmd=kvs-get;jobid=" KVS ";srcid=3;key=bc-3;",
               "cmd=kvs-get-response;rc=0;found=FALSE;");
        ask_v2(f, r, "cmd=kvs-get;jobid=other;srcid=3;key=bc-0;",
               "cmd=kvs-get-response;rc=0;found=FALSE;");
        ask_v2(f, r, "cmd=finalize;", "cmd=finalize-response;rc=0;");
        assert_int_equal(f->finalized[r], 1);
    }
    assert_int_equal(f->errors, 0);
}

/* The form without the PMI-1 opening; a thread id comes back as sent. */
static void test_v2_direct_init_and_thrid(void **state)
{
    fixture_t *f = *state;

    ask_v2(f, 0, "cmd=init;pmi-version=2;pmi-subversion=0;",
           "cmd=response_to_init;rc=0;pmi-version=2;"
           "pmi-subversion=0;");
    ask_v2(f, 0, "cmd=job-getid;thrid=0x7f00;",
           "cmd=job-getid-response;thrid=0x7f00;rc=0;jobid=" KVS
           ";");
    f->complete_at_once = true;
    say_v2(&f->peer[0], "cmd=kvs-fence;thrid=0xabc;");
    expect_silence(f, 0);
    say(&f->peer[1], "cmd=barrier_in\n");   /* a PMI-1 neighbour */
    expect_v2(f, 0, "cmd=kvs-fence-response;thrid=0xabc;rc=0;");
    expect_line(f, 1, "cmd=barrier_out");
    ask_v2(f, 0, "cmd=init;pmi-version=3;",
           "cmd=response_to_init;rc=-1;pmi-version=2;"
           "pmi-subversion=0;errmsg=hnp speaks PMI version 2.0;");
}

static void test_v2_node_attributes(void **state)
{
    fixture_t *f = *state;

    v2_start(f, 0);
    v2_start(f, 1);
    ask_v2(f, 0, "cmd=info-getnodeattr;key=shm;wait=FALSE;",
           "cmd=info-getnodeattr-response;rc=0;found=FALSE;");
    say_v2(&f->peer[0], "cmd=info-getnodeattr;key=shm;wait=TRUE;thrid=t1;");
    expect_silence(f, 0);
    ask_v2(f, 1, "cmd=info-putnodeattr;key=shm;value=/dev/shm/x;",
           "cmd=info-putnodeattr-response;rc=0;");
    expect_v2(f, 0, "cmd=info-getnodeattr-response;thrid=t1;rc=0;found=TRUE;"
              "value=/dev/shm/x;");
    ask_v2(f, 1, "cmd=info-getnodeattr;key=shm;wait=TRUE;",
           "cmd=info-getnodeattr-response;rc=0;found=TRUE;"
           "value=/dev/shm/x;");
    /* Node attributes stay on the node: kvs-get does not see them. */
    ask_v2(f, 1, "cmd=kvs-get;key=shm;",
           "cmd=kvs-get-response;rc=0;found=FALSE;");
}

/* PMI-2 values far beyond a PMI-1 line; a PMI-1 get refuses them. */
static void test_v2_large_value(void **state)
{
    fixture_t *f = *state;
    size_t n = 200000;
    char *body = malloc(n + 64), *want = malloc(n + 64);

    v2_start(f, 0);
    v1_init(f, 1);
    int len = snprintf(body, n + 64, "cmd=kvs-put;key=big;value=");
    memset(body + len, 'z', n);
    strcpy(body + len + n, ";");
    ask_v2(f, 0, body, "cmd=kvs-put-response;rc=0;");
    say_v2(&f->peer[0], "cmd=kvs-get;key=big;");
    len = snprintf(want, n + 64, "cmd=kvs-get-response;rc=0;found=TRUE;"
                   "value=");
    memset(want + len, 'z', n);
    strcpy(want + len + n, ";");
    expect_v2(f, 0, want);
    ask(f, 1, "cmd=get kvsname=" KVS " key=big\n",
        "cmd=get_result rc=-1 msg=value_too_long_for_pmi1");
    free(body);
    free(want);
}


static void test_v2_unsupported_abort_and_garbage(void **state)
{
    fixture_t *f = *state;

    v2_start(f, 0);
    ask_v2(f, 0, "cmd=job-connect;jobid=other;",
           "cmd=job-connect-response;rc=-1;errmsg=job-connect is "
           "not supported by hnp;");
    ask_v2(f, 0, "cmd=spawn;ncmds=1;thrid=9;",
           "cmd=spawn-response;thrid=9;rc=-1;errmsg=spawn is not "
           "supported by hnp;");
    assert_int_equal(f->spawns, 1);
    say_v2(&f->peer[0], "cmd=abort;isworld=TRUE;msg=out of cheese;;;");
    expect_eof(f, 0);
    assert_int_equal(f->aborts, 1);
    assert_int_equal(f->abort_rank, 0);
    assert_int_equal(f->abort_code, 1);
    assert_string_equal(f->abort_msg, "out of cheese;");
    assert_int_equal(f->errors, 0);
    /* A length field that is not a number ends the connection. */
    say(&f->peer[1], "12345x");
    expect_eof(f, 1);
    assert_int_equal(f->errors, 1);
    assert_non_null(strstr(f->error_msg, "not a number"));
}

/* ------------------------------------------------ what one rank stores */

#define V1_OVER_LIMIT "cmd=put_result rc=-1 " \
    "msg=over_the_limit_of_" TEXT(KVS_LIMIT) "_bytes_a_process_may_store"
#define V2_OVER_LIMIT \
    "rc=-1;errmsg=over the limit of " TEXT(KVS_LIMIT) " bytes a process " \
    "may store;"

/* @p head, @p n times @p c, then @p tail. */
static const char *put_request(char *buf, size_t cap, const char *head,
                               size_t n, char c, const char *tail)
{
    size_t len = (size_t)snprintf(buf, cap, "%s", head);

    assert_true(len + n + strlen(tail) < cap);
    memset(buf + len, c, n);
    strcpy(buf + len + n, tail);
    return buf;
}

/* Each key costs its bytes and PMI_SIMPLE_KVS_ENTRY_COST (64): a rank may
 * store KVS_LIMIT (400). */
static void test_v1_kvs_limit(void **state)
{
    fixture_t *f = *state;
    char line[1024], want[1024];
    pmi_simple_kvs_t *seen;
    size_t len;

    v1_init(f, 0);
    v1_init(f, 1);
    /* a = 200 bytes: 265; put again with 250 bytes it costs 315, not 580. */
    ask(f, 0, put_request(line, sizeof(line), "cmd=put kvsname=" KVS
                          " key=a value=", 200, 'x', "\n"),
        "cmd=put_result rc=0 msg=success");
    ask(f, 0, put_request(line, sizeof(line), "cmd=put kvsname=" KVS
                          " key=a value=", 250, 'y', "\n"),
        "cmd=put_result rc=0 msg=success");
    /* b = 30 bytes: 95 more would make 410. Refused, and said once. */
    ask(f, 0, "cmd=put kvsname=" KVS " key=b value=123456789012345678901"
              "234567890\n", V1_OVER_LIMIT);
    assert_int_equal(f->kvs_limits, 1);
    assert_int_equal(f->kvs_limit_rank, 0);
    assert_int_equal(f->kvs_limit, KVS_LIMIT);
    ask(f, 0, "cmd=put kvsname=" KVS " key=b value=123456789012345678901"
              "234567890\n", V1_OVER_LIMIT);
    assert_int_equal(f->kvs_limits, 1);
    /* The store kept what it had. */
    ask(f, 0, "cmd=get kvsname=" KVS " key=b\n",
        "cmd=get_result rc=-1 msg=key_not_found");
    ask(f, 0, "cmd=get kvsname=" KVS " key=a\n",
        put_request(want, sizeof(want), "cmd=get_result rc=0 msg=success "
                    "value=", 250, 'y', ""));

    /* Rank 1 has its own share; taking over a gives rank 0 its 315 back. */
    ask(f, 1, put_request(line, sizeof(line), "cmd=put kvsname=" KVS
                          " key=d value=", 250, 'd', "\n"),
        "cmd=put_result rc=0 msg=success");
    ask(f, 1, "cmd=put kvsname=" KVS " key=a value=z\n",
        "cmd=put_result rc=0 msg=success");
    ask(f, 0, "cmd=put kvsname=" KVS " key=b value=123456789012345678901"
              "234567890\n", "cmd=put_result rc=0 msg=success");

    /* The node's fence blob holds only what the ranks were let store. */
    f->complete_at_once = true;
    for (int r = 0; r < NLOCAL; r++)
        say(&f->peer[r], "cmd=barrier_in\n");
    for (int r = 0; r < NLOCAL; r++)
        expect_line(f, r, "cmd=barrier_out");
    assert_true(f->blob.len <= 4 + NLOCAL * KVS_LIMIT);
    assert_int_equal(pmi_simple_kvs_create(&seen), HNP_SUCCESS);
    assert_int_equal(
        pmi_simple_kvs_merge(seen, f->blob.data, f->blob.len, NULL, 0),
        HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_count(seen), 3);
    assert_string_equal(pmi_simple_kvs_get(seen, "a", &len), "z");
    pmi_simple_kvs_destroy(seen);
    assert_int_equal(f->kvs_limits, 1);
    /* The node's own blob merged back does not wipe what rank 1 stores:
     * 381 and 95 more is over. */
    ask(f, 1, "cmd=put kvsname=" KVS " key=e value=123456789012345678901"
              "234567890\n", V1_OVER_LIMIT);
    assert_int_equal(f->kvs_limits, 2);
    assert_int_equal(f->kvs_limit_rank, 1);
    assert_int_equal(f->errors, 0);
}

/* PMI-2: kvs-put and info-putnodeattr draw on the same share. */
static void test_v2_kvs_limit(void **state)
{
    fixture_t *f = *state;
    char body[1024], want[1024];

    v2_start(f, 0);
    v2_start(f, 1);
    ask_v2(f, 0, put_request(body, sizeof(body), "cmd=kvs-put;key=k;value=",
                             300, 'v', ";"),
           "cmd=kvs-put-response;rc=0;");
    ask_v2(f, 0, "cmd=info-putnodeattr;key=n;value=abcd;",
           "cmd=info-putnodeattr-response;" V2_OVER_LIMIT);
    ask_v2(f, 0, "cmd=kvs-put;thrid=7;key=k2;value=1;",
           "cmd=kvs-put-response;thrid=7;" V2_OVER_LIMIT);
    assert_int_equal(f->kvs_limits, 1);
    assert_int_equal(f->kvs_limit_rank, 0);
    /* Smaller again, k leaves room for the node attribute. */
    ask_v2(f, 0, put_request(body, sizeof(body), "cmd=kvs-put;key=k;value=",
                             100, 'w', ";"),
           "cmd=kvs-put-response;rc=0;");
    ask_v2(f, 0, "cmd=info-putnodeattr;key=n;value=abcd;",
           "cmd=info-putnodeattr-response;rc=0;");

    /* Rank 1 is not held to rank 0's share; one value past its own is
     * refused at once. */
    ask_v2(f, 1, put_request(body, sizeof(body), "cmd=kvs-put;key=k2;value=",
                             300, 'u', ";"),
           "cmd=kvs-put-response;rc=0;");
    ask_v2(f, 1, put_request(body, sizeof(body), "cmd=kvs-put;key=k3;value=",
                             KVS_LIMIT, 't', ";"),
           "cmd=kvs-put-response;" V2_OVER_LIMIT);
    assert_int_equal(f->kvs_limits, 2);
    assert_int_equal(f->kvs_limit_rank, 1);
    ask_v2(f, 1, "cmd=kvs-get;key=k;",
           put_request(want, sizeof(want), "cmd=kvs-get-response;rc=0;"
                       "found=TRUE;value=", 100, 'w', ";"));
    ask_v2(f, 1, "cmd=kvs-get;key=k3;",
           "cmd=kvs-get-response;rc=0;found=FALSE;");
    assert_int_equal(f->errors, 0);
}

/* ------------------------------------------------------------- the API */

static void test_api_errors(void **state)
{
    fixture_t *f = *state;
    static const uint32_t twice[] = { 1, 1 };
    pmi_simple_config_t cfg = { .size = 4, .kvsname = KVS, .local_ranks = twice,
                             .nlocal = 2 };
    pmi_simple_callbacks_t cb = { .fence_ready = on_fence_ready, .ctx = f };
    pmi_simple_server_t *srv;
    char err[256], *env[PMI_SIMPLE_ENV_COUNT];
    int sv[2];

    assert_int_equal(
        pmi_simple_server_create(&srv, f->rte, &cfg, &cb, err, sizeof(err)),
        HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "local rank 1"));
    cfg.nlocal = 1;
    cfg.kvsname = "two words";
    assert_int_equal(
        pmi_simple_server_create(&srv, f->rte, &cfg, &cb, err, sizeof(err)),
        HNP_ERR_BAD_PARAM);
    cfg.kvsname = KVS;
    cb.fence_ready = NULL;
    assert_int_equal(
        pmi_simple_server_create(&srv, f->rte, &cfg, &cb, err, sizeof(err)),
        HNP_ERR_BAD_PARAM);

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(pmi_simple_server_add_client(f->srv, sv[1], 3, APPNUM),
                     HNP_ERR_BAD_PARAM);
    close(sv[0]);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(pmi_simple_server_add_client(f->srv, sv[1], 0, APPNUM),
                     HNP_ERR_EXISTS);
    close(sv[0]);

    assert_int_equal(pmi_simple_client_env(f->srv, 1, 9, env), 4);
    assert_string_equal(env[0], "PMI_FD=9");
    assert_string_equal(env[1], "PMI_RANK=1");
    assert_string_equal(env[2], "PMI_SIZE=4");
    assert_string_equal(env[3], "PMI_JOBID=" KVS);
    for (int i = 0; i < 4; i++)
        free(env[i]);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_v1_full_sequence),
        T(test_v1_fence_blob_and_second_fence),
        T(test_v1_fence_failure),
        T(test_v1_partial_and_batched),
        T(test_v1_limits),
        T(test_v1_unsupported),
        T(test_abort_and_malformed),
        T(test_close_without_finalize),
        T(test_destroy_from_callback),
        T(test_v2_full_sequence),
        T(test_v2_direct_init_and_thrid),
        T(test_v2_node_attributes),
        T(test_v2_large_value),
        T(test_v2_unsupported_abort_and_garbage),
        T(test_api_errors),
        cmocka_unit_test_setup_teardown(test_v1_kvs_limit, setup_kvs_limit,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_v2_kvs_limit, setup_kvs_limit,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mapping_from_nodes,
                                        setup_mapping_nodes, teardown),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
