/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the PMI server's dynamic-process commands
 * (components/pmi/simple/names.c, spawn.c), on the fixture of
 * pmi_server_fixture.c: name publishing, answered by the daemon's side
 * through the callbacks, in the words of MPICH's PMI-1 and PMI-2 clients;
 * and the spawn requests of both, as parsed.
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

/* Name publishing: each request goes to the daemon, and its answer to
 * the process in the words MPICH's PMI-1 client reads. */
static void test_v1_names(void **state)
{
    fixture_t *f = *state;

    v1_init(f, 0);
    v1_init(f, 1);
    say(&f->peer[0], "cmd=publish_name service=svc port=tag#0$tcp#1:5\n");
    pump(f, &f->peer[0]);
    expect_silence(f, 0); /* until the daemon answers */
    assert_int_equal(f->names, 1);
    assert_int_equal(f->name_op[0], PMI_SIMPLE_NAME_PUBLISH);
    assert_int_equal(f->name_rank[0], 0);
    assert_string_equal(f->name_key[0], "svc");
    assert_string_equal(f->name_port[0], "tag#0$tcp#1:5");
    assert_int_equal(pmi_simple_name_done(f->srv, f->name_ticket[0],
                                          HNP_SUCCESS, NULL), HNP_SUCCESS);
    expect_line(f, 0, "cmd=publish_result rc=0 info=ok msg=success");
    /* a ticket is answered once */
    assert_int_equal(pmi_simple_name_done(f->srv, f->name_ticket[0],
                                          HNP_SUCCESS, NULL),
                     HNP_ERR_NOT_FOUND);
    say(&f->peer[1], "cmd=lookup_name service=svc\n");
    say(&f->peer[0], "cmd=publish_name service=svc port=again\n");
    pump(f, &f->peer[0]);
    pump(f, &f->peer[1]);
    assert_int_equal(f->names, 3);
    assert_int_equal(f->name_op[1], PMI_SIMPLE_NAME_LOOKUP);
    assert_string_equal(f->name_port[1], "(none)");
    pmi_simple_name_done(f->srv, f->name_ticket[2], HNP_ERR_EXISTS, NULL);
    pmi_simple_name_done(f->srv, f->name_ticket[1], HNP_SUCCESS,
                         "tag#0$tcp#1:5");
    expect_line(f, 1, "cmd=lookup_result rc=0 info=ok msg=success "
                      "port=tag#0$tcp#1:5");
    expect_line(f, 0, "cmd=publish_result rc=-1 info=fail "
                      "msg=name_already_published");
    say(&f->peer[1], "cmd=unpublish_name service=svc\n");
    say(&f->peer[0], "cmd=lookup_name service=nothing\n");
    pump(f, &f->peer[0]);
    pump(f, &f->peer[1]);
    assert_int_equal(f->names, 5);
    pmi_simple_name_done(f->srv, f->name_ticket[3], HNP_ERR_NOT_FOUND, NULL);
    pmi_simple_name_done(f->srv, f->name_ticket[4], HNP_ERR_NOT_FOUND, NULL);
    expect_line(f, 1, "cmd=unpublish_result rc=-1 info=fail "
                      "msg=name_not_published");
    expect_line(f, 0, "cmd=lookup_result rc=-1 info=fail "
                      "msg=name_not_found");
    /* no service: refused without asking; a port PMI-1 cannot carry */
    ask(f, 0, "cmd=publish_name port=p\n", "cmd=publish_result rc=-1 "
        "info=fail msg=bad_name_or_port");
    say(&f->peer[0], "cmd=lookup_name service=v2name\n");
    pump(f, &f->peer[0]);
    pmi_simple_name_done(f->srv, f->name_ticket[5], HNP_SUCCESS, "a b");
    expect_line(f, 0, "cmd=lookup_result rc=-1 info=fail "
                      "msg=bad_name_or_port");
    assert_int_equal(f->names, 6);
    assert_int_equal(f->errors, 0);
}

static void test_v2_names(void **state)
{
    fixture_t *f = *state;

    v2_start(f, 0);
    say_v2(&f->peer[0], "cmd=name-publish;name=svc;port=a;;b;"
                        "infokeycount=0;");
    say_v2(&f->peer[0], "cmd=name-lookup;name=svc;infokeycount=0;thrid=7;");
    pump(f, &f->peer[0]);
    assert_int_equal(f->names, 2);
    assert_string_equal(f->name_port[0], "a;b");
    pmi_simple_name_done(f->srv, f->name_ticket[0], HNP_SUCCESS, NULL);
    expect_v2(f, 0, "cmd=name-publish-response;rc=0;");
    pmi_simple_name_done(f->srv, f->name_ticket[1], HNP_SUCCESS, "a;b");
    expect_v2(f, 0, "cmd=name-lookup-response;thrid=7;rc=0;port=a;;b;");
    say_v2(&f->peer[0], "cmd=name-unpublish;name=svc;infokeycount=0;");
    pump(f, &f->peer[0]);
    pmi_simple_name_done(f->srv, f->name_ticket[2], HNP_ERR_NOT_FOUND, NULL);
    expect_v2(f, 0, "cmd=name-unpublish-response;rc=-1;"
                    "errmsg=name not published;");
    /* the process leaves before its answer: nobody is answered */
    say_v2(&f->peer[0], "cmd=name-lookup;name=late;");
    pump(f, &f->peer[0]);
    assert_int_equal(f->names, 4);
    close(f->peer[0].fd);
    f->peer[0].fd = -1;
    for (int i = 0; i < 20; i++)
        event_base_loop(f->base, EVLOOP_NONBLOCK);
    assert_int_equal(pmi_simple_name_done(f->srv, f->name_ticket[3],
                                          HNP_SUCCESS, "p"), HNP_SUCCESS);
}

/* ------------------------------------------------ spawn requests, parsed */

static pmi_simple_msg_t parsed_v1(const char *text)
{
    pmi_simple_msg_t m;
    char err[256];

    assert_int_equal(pmi_simple_parse_v1(&m, text, strlen(text), err,
                                         sizeof(err)), HNP_SUCCESS);
    return m;
}

static pmi_simple_msg_t parsed_v2(const char *text)
{
    pmi_simple_msg_t m;
    char err[256];

    assert_int_equal(pmi_simple_parse_v2(&m, text, strlen(text), err,
                                         sizeof(err)), HNP_SUCCESS);
    return m;
}

/* MPICH 4.0's PMI_Spawn_multiple: a block per program, the preput keys
 * in each. */
static void test_spawn_parse_v1(void **state)
{
    pmi_simple_spawn_t *s = calloc(1, sizeof(*s));
    pmi_simple_msg_t m;
    bool done;

    (void)state;
    m = parsed_v1("mcmd=spawn\nnprocs=2\nexecname=/bin/w\ntotspawns=2\n"
                  "spawnssofar=1\narg1=a b\narg2=c=d\nargcnt=2\n"
                  "preput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n"
                  "preput_val_0=tag#0$x\ninfo_num=2\ninfo_key_0=wdir\n"
                  "info_val_0=/tmp\ninfo_key_1=host\ninfo_val_1=n2\n"
                  "endcmd");
    assert_null(pmi_spawn_parse_v1(&m, s, &done));
    assert_false(done);
    pmi_simple_msg_release(&m);
    m = parsed_v1("mcmd=spawn\nnprocs=1\nexecname=v\ntotspawns=2\n"
                  "spawnssofar=2\nargcnt=0\npreput_num=1\n"
                  "preput_key_0=PARENT_ROOT_PORT_NAME\npreput_val_0=tag#0$x\n"
                  "info_num=0\nendcmd");
    assert_null(pmi_spawn_parse_v1(&m, s, &done));
    assert_true(done);
    pmi_simple_msg_release(&m);
    assert_int_equal(s->napps, 2);
    assert_string_equal(s->apps[0].cmd, "/bin/w");
    assert_int_equal(s->apps[0].maxprocs, 2);
    assert_string_equal(s->apps[0].argv[0], "a b");
    assert_string_equal(s->apps[0].argv[1], "c=d");
    assert_null(s->apps[0].argv[2]);
    assert_int_equal(s->apps[0].ninfo, 2);
    assert_string_equal(s->apps[0].info[1].key, "host");
    assert_string_equal(s->apps[0].info[1].value, "n2");
    assert_null(s->apps[1].argv[0]);
    assert_int_equal(s->npreput, 1); /* once, though each block had it */
    assert_string_equal(s->preput[0].value, "tag#0$x");
    pmi_spawn_request_free(s);
}

static void test_spawn_parse_v1_refused(void **state)
{
    static const struct { const char *text, *bad; } cases[] = {
        { "mcmd=spawn\nnprocs=1\ntotspawns=1\nspawnssofar=1\nendcmd",
          "execname" },
        { "mcmd=spawn\nnprocs=0\nexecname=x\ntotspawns=1\n"
          "spawnssofar=1\nendcmd", "nprocs" },
        { "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\n"
          "spawnssofar=1\nargcnt=2\narg1=a\nendcmd", "arg" },
        { "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=2\n"
          "spawnssofar=2\nendcmd", "spawnssofar" },
        { "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\n"
          "spawnssofar=1\ninfo_num=1\ninfo_key_0=wdir\nendcmd",
          "info_val_" },
        { "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=-1\n"
          "spawnssofar=1\nendcmd", "totspawns" },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pmi_simple_spawn_t *s = calloc(1, sizeof(*s));
        pmi_simple_msg_t m = parsed_v1(cases[i].text);
        bool done;
        const char *bad = pmi_spawn_parse_v1(&m, s, &done);
        assert_non_null(bad);
        assert_string_equal(bad, cases[i].bad);
        pmi_simple_msg_release(&m);
        pmi_spawn_request_free(s);
    }
}

static void test_spawn_parse_v2(void **state)
{
    pmi_simple_spawn_t *s = NULL;
    pmi_simple_msg_t m = parsed_v2(
        "cmd=spawn;ncmds=2;preputcount=1;ppkey0=PARENT_ROOT_PORT_NAME;"
        "ppval0=p;;q;subcmd=/bin/w;maxprocs=2;argc=2;argv0=x;argv1=y;"
        "infokeycount=1;infokey0=path;infoval0=/opt/bin;subcmd=v;"
        "maxprocs=1;argc=0;infokeycount=0;");

    (void)state;
    assert_null(pmi_spawn_parse_v2(&m, &s));
    assert_int_equal(s->napps, 2);
    assert_string_equal(s->apps[0].argv[1], "y");
    assert_string_equal(s->apps[0].info[0].value, "/opt/bin");
    assert_string_equal(s->apps[1].cmd, "v");
    assert_string_equal(s->preput[0].value, "p;q");
    pmi_simple_msg_release(&m);
    pmi_spawn_request_free(s);
    /* ncmds says 2, one came; argc past the arguments */
    m = parsed_v2("cmd=spawn;ncmds=2;subcmd=w;maxprocs=1;");
    s = NULL;
    assert_string_equal(pmi_spawn_parse_v2(&m, &s), "ncmds");
    pmi_simple_msg_release(&m);
    pmi_spawn_request_free(s);
    m = parsed_v2("cmd=spawn;ncmds=1;subcmd=w;maxprocs=1;argc=2;argv0=x;");
    s = NULL;
    assert_string_equal(pmi_spawn_parse_v2(&m, &s), "argv");
    pmi_simple_msg_release(&m);
    pmi_spawn_request_free(s);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_v1_names),
        T(test_v2_names),
        cmocka_unit_test(test_spawn_parse_v1),
        cmocka_unit_test(test_spawn_parse_v1_refused),
        cmocka_unit_test(test_spawn_parse_v2),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
