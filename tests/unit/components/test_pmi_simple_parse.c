/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the PMI wire codec (runtime/pmi/parse.c) and of the
 * key-value store, fence blobs and process mapping (runtime/pmi/kvs.c):
 * where messages end in a byte stream, how PMI-1 lines, mcmd blocks and
 * PMI-2 messages parse (and which do not), how answers are written and
 * when they are refused, and that a malformed fence blob changes nothing.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "pmi/simple/internal.h"

#define ERRLEN 256

typedef struct framed {
    int rc;
    size_t start, len, consumed;
    char err[ERRLEN];
} framed_t;

static framed_t frame(pmi_simple_wire_t wire, const char *data, size_t max)
{
    framed_t f;

    memset(&f, 0, sizeof(f));
    f.rc = pmi_simple_frame(wire, data, strlen(data), max, &f.start, &f.len,
                            &f.consumed, f.err, sizeof(f.err));
    return f;
}

/* ------------------------------------------------------------- framing */

static void test_frame_v1_lines(void **state)
{
    (void)state;
    framed_t f = frame(PMI_SIMPLE_WIRE_V1, "cmd=get_maxes\ncmd=barrier_in\n", 64);
    assert_int_equal(f.rc, 1);
    assert_int_equal(f.start, 0);
    assert_int_equal(f.len, strlen("cmd=get_maxes"));
    assert_int_equal(f.consumed, f.len + 1);

    assert_int_equal(frame(PMI_SIMPLE_WIRE_V1, "cmd=get_ma", 64).rc, 0);
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V1, "", 64).rc, 0);
    /* A line of exactly max bytes with its newline fits; one more does not. */
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V1, "cmd=abcde\n", 10).rc, 1);
    f = frame(PMI_SIMPLE_WIRE_V1, "cmd=abcdef\n", 10);
    assert_int_equal(f.rc, HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(f.err, "longer than 10"));
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V1, "cmd=abcdefghij", 10).rc,
                     HNP_ERR_BAD_PARAM);
}

static void test_frame_v1_mcmd_block(void **state)
{
    const char *block = "mcmd=spawn\nnprocs=2\nexecname=a b\nendcmd\n"
                        "cmd=get_maxes\n";
    (void)state;

    framed_t f = frame(PMI_SIMPLE_WIRE_V1, block, 1024);
    assert_int_equal(f.rc, 1);
    assert_int_equal(f.len, strlen("mcmd=spawn\nnprocs=2\nexecname=a b\n"
                                   "endcmd"));
    assert_int_equal(f.consumed, f.len + 1);
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V1, "mcmd=spawn\nnprocs=2\n", 1024).rc,
                     0);
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V1, "mcmd=spawn\nnprocs=2\nend", 1024)
                         .rc, 0);
    /* The whole block counts against the limit. */
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V1,
                           "mcmd=spawn\nnprocs=2\nargs=xxxxxxxxxx\n", 30).rc,
                     HNP_ERR_BAD_PARAM);
}

static void test_frame_v2(void **state)
{
    (void)state;
    framed_t f = frame(PMI_SIMPLE_WIRE_V2, "13    cmd=finalize;", 100);
    assert_int_equal(f.rc, 1);
    assert_int_equal(f.start, 6);
    assert_int_equal(f.len, 13);
    assert_int_equal(f.consumed, 19);
    /* Right-justified digits are a length field too. */
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V2, "    13cmd=finalize;", 100).rc, 1);
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V2, "13    cmd=fin", 100).rc, 0);
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V2, "13  ", 100).rc, 0);
    f = frame(PMI_SIMPLE_WIRE_V2, "1x    cmd=finalize;", 100);
    assert_int_equal(f.rc, HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(f.err, "not a number"));
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V2, "      cmd", 100).rc,
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V2, "1 3   cmd=finalize;", 100).rc,
                     HNP_ERR_BAD_PARAM);
    f = frame(PMI_SIMPLE_WIRE_V2, "999999", 1000);
    assert_int_equal(f.rc, HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(f.err, "999999 bytes"));
    assert_int_equal(frame(PMI_SIMPLE_WIRE_V2, "0     ", 100).rc, 1);
}

/* ------------------------------------------------------------- parsing */

static void test_parse_v1_line(void **state)
{
    const char *line = "cmd=put  kvsname=kvs_1\tkey=a=b value=x=y=z\r";
    pmi_simple_msg_t msg;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(
        pmi_simple_parse_v1(&msg, line, strlen(line), err, sizeof(err)),
        HNP_SUCCESS);
    assert_string_equal(msg.cmd, "put");
    assert_false(msg.multiline);
    assert_int_equal(msg.npairs, 3);
    assert_string_equal(pmi_simple_msg_get(&msg, "kvsname"), "kvs_1");
    /* The key ends at the first '='; the rest is the value. */
    assert_null(pmi_simple_msg_get(&msg, "key=a"));
    assert_string_equal(pmi_simple_msg_get(&msg, "key"), "a=b");
    assert_string_equal(pmi_simple_msg_get(&msg, "value"), "x=y=z");
    assert_int_equal(pmi_simple_msg_find(&msg, "value")->value_len, 5);
    assert_null(pmi_simple_msg_get(&msg, "missing"));
    pmi_simple_msg_release(&msg);

    assert_int_equal(
        pmi_simple_parse_v1(&msg, "cmd=put value=", 14, err, sizeof(err)),
        HNP_SUCCESS);
    assert_string_equal(pmi_simple_msg_get(&msg, "value"), "");
    pmi_simple_msg_release(&msg);
}

static void expect_v1_error(const char *line, size_t len, const char *why)
{
    pmi_simple_msg_t msg;
    char err[ERRLEN] = "";

    assert_int_equal(pmi_simple_parse_v1(&msg, line, len, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, why));
    assert_null(msg.storage);
    assert_null(msg.pairs);
}

static void test_parse_v1_malformed(void **state)
{
    (void)state;
    expect_v1_error("hello world", 11, "is not key=value");
    expect_v1_error("cmd=put junk", 12, "\"junk\" is not key=value");
    expect_v1_error("cmd=put =x", 10, "is not key=value");
    expect_v1_error("key=x cmd=put", 13, "does not start with cmd=");
    expect_v1_error("cmd= key=x", 10, "does not start with cmd=");
    expect_v1_error("   ", 3, "empty");
    expect_v1_error("cmd=put\0key=x", 13, "NUL byte");
    expect_v1_error("mcmd=spawn\nnprocs=1\nendcmdx", 27, "endcmd");
    expect_v1_error("mcmd=spawn\nnprocs\nendcmd", 24, "is not key=value");
    expect_v1_error("mcmd=spawn", 10, "endcmd");
}

static void test_parse_v1_block(void **state)
{
    const char *block = "mcmd=spawn\nnprocs=2\nexecname=./a.out\n"
                        "arg1=two words\nendcmd";
    pmi_simple_msg_t msg;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(
        pmi_simple_parse_v1(&msg, block, strlen(block), err, sizeof(err)),
        HNP_SUCCESS);
    assert_true(msg.multiline);
    assert_string_equal(msg.cmd, "spawn");
    assert_int_equal(msg.npairs, 3);
    assert_string_equal(pmi_simple_msg_get(&msg, "arg1"), "two words");
    pmi_simple_msg_release(&msg);
}

static void test_parse_v2(void **state)
{
    const char body[] =
        "cmd=kvs-put;key=a;;b;value=x;;;;y;;;empty=;bin=1\0002;";
    pmi_simple_msg_t msg;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(
        pmi_simple_parse_v2(&msg, body, sizeof(body) - 1, err, sizeof(err)),
        HNP_SUCCESS);
    assert_string_equal(msg.cmd, "kvs-put");
    assert_int_equal(msg.npairs, 4);
    assert_string_equal(pmi_simple_msg_get(&msg, "key"), "a;b");
    assert_string_equal(pmi_simple_msg_get(&msg, "value"), "x;;y;");
    assert_string_equal(pmi_simple_msg_get(&msg, "empty"), "");
    const pmi_simple_pair_t *bin = pmi_simple_msg_find(&msg, "bin");
    assert_int_equal(bin->value_len, 3);
    assert_memory_equal(bin->value, "1\0002", 3);
    pmi_simple_msg_release(&msg);

    /* The last ';' may be missing. */
    assert_int_equal(
        pmi_simple_parse_v2(&msg, "cmd=finalize", 12, err, sizeof(err)),
        HNP_SUCCESS);
    assert_string_equal(msg.cmd, "finalize");
    assert_int_equal(msg.npairs, 0);
    pmi_simple_msg_release(&msg);
}

static void test_parse_v2_malformed(void **state)
{
    static const struct { const char *body; size_t len; } bad[] = {
        { "", 0 },
        { "cmd=x;novalue;", 14 },
        { "cmd=x;=v;", 9 },
        { "key=v;cmd=x;", 12 },
        { "cmd=;", 5 },
        { "cmd=x;k\0y=v;", 12 },
        { "cmd=x;a;b=c;", 12 },
    };
    pmi_simple_msg_t msg;
    char err[ERRLEN];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(pmi_simple_parse_v2(&msg, bad[i].body, bad[i].len, err,
                                             sizeof(err)),
                         HNP_ERR_BAD_PARAM);
        assert_true(err[0] != '\0');
        assert_null(msg.storage);
    }
}

/* ------------------------------------------------------------- answers */

static void test_reply_v1(void **state)
{
    hnp_buffer_t out;
    pmi_simple_reply_t r;

    (void)state;
    hnp_buffer_init(&out);
    pmi_simple_reply_begin(&r, &out, PMI_SIMPLE_WIRE_V1, "get_result");
    pmi_simple_reply_add_int(&r, "rc", 0);
    pmi_simple_reply_add_str(&r, "msg", "success");
    pmi_simple_reply_add_str(&r, "value", "a=b");
    assert_int_equal(pmi_simple_reply_end(&r), HNP_SUCCESS);
    const char *want = "cmd=get_result rc=0 msg=success value=a=b\n";
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);

    /* A value with a blank cannot go on a PMI-1 line: nothing is added. */
    size_t before = out.len;
    pmi_simple_reply_begin(&r, &out, PMI_SIMPLE_WIRE_V1, "get_result");
    pmi_simple_reply_add_str(&r, "value", "two words");
    assert_int_equal(pmi_simple_reply_end(&r), HNP_ERR_BAD_PARAM);
    assert_int_equal(out.len, before);

    /* Nor a line longer than MPICH's line buffer. */
    char big[PMI_SIMPLE_V1_LINE_MAX];
    memset(big, 'v', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    pmi_simple_reply_begin(&r, &out, PMI_SIMPLE_WIRE_V1, "get_result");
    pmi_simple_reply_add_str(&r, "value", big);
    assert_int_equal(pmi_simple_reply_end(&r), HNP_ERR_BAD_PARAM);
    assert_int_equal(out.len, before);
    assert_false(out.failed);
    hnp_buffer_release(&out);
}

static void test_reply_v2(void **state)
{
    hnp_buffer_t out;
    pmi_simple_reply_t r;
    pmi_simple_msg_t msg;
    char err[ERRLEN];

    (void)state;
    hnp_buffer_init(&out);
    pmi_simple_reply_begin(&r, &out, PMI_SIMPLE_WIRE_V2, "kvs-get-response");
    pmi_simple_reply_add_str(&r, "found", "TRUE");
    pmi_simple_reply_add(&r, "value", "a;b;", 4);
    assert_int_equal(pmi_simple_reply_end(&r), HNP_SUCCESS);
    const char *want = "45    cmd=kvs-get-response;found=TRUE;value=a;;b;;;";
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);

    /* What the builder writes, the parser reads back. */
    assert_int_equal(pmi_simple_parse_v2(&msg, (char *)out.data + 6,
                                         out.len - 6, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_string_equal(pmi_simple_msg_get(&msg, "value"), "a;b;");
    pmi_simple_msg_release(&msg);

    /* Six digits cannot announce a larger body. */
    size_t n = PMI_SIMPLE_V2_BODY_MAX;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'v', n);
    size_t before = out.len;
    pmi_simple_reply_begin(&r, &out, PMI_SIMPLE_WIRE_V2, "kvs-get-response");
    pmi_simple_reply_add(&r, "value", big, n);
    assert_int_equal(pmi_simple_reply_end(&r), HNP_ERR_TRUNCATED);
    assert_int_equal(out.len, before);
    free(big);
    hnp_buffer_release(&out);
}

/* ---------------------------------------------------------- the store */

static void test_kvs_put_get(void **state)
{
    pmi_simple_kvs_t *kvs;
    char key[32], value[32];
    size_t len;

    (void)state;
    assert_int_equal(pmi_simple_kvs_create(&kvs), HNP_SUCCESS);
    assert_null(pmi_simple_kvs_get(kvs, "nothing", &len));
    assert_int_equal(pmi_simple_kvs_put(kvs, "", "x", 1, false),
                     HNP_ERR_BAD_PARAM);
    /* Enough keys to grow the table several times. */
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof(key), "key-%d", i);
        snprintf(value, sizeof(value), "value-%d", i * 7);
        assert_int_equal(
            pmi_simple_kvs_put(kvs, key, value, strlen(value), false),
            HNP_SUCCESS);
    }
    assert_int_equal(pmi_simple_kvs_count(kvs), 5000);
    for (int i = 0; i < 5000; i += 499) {
        snprintf(key, sizeof(key), "key-%d", i);
        snprintf(value, sizeof(value), "value-%d", i * 7);
        assert_string_equal(pmi_simple_kvs_get(kvs, key, &len), value);
        assert_int_equal(len, strlen(value));
    }
    assert_int_equal(pmi_simple_kvs_put(kvs, "key-3", "new\0bytes", 9, false),
                     HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_count(kvs), 5000);
    assert_memory_equal(pmi_simple_kvs_get(kvs, "key-3", &len), "new\0bytes", 10);
    assert_int_equal(len, 9);
    pmi_simple_kvs_destroy(kvs);
}

static void test_kvs_fence_blob(void **state)
{
    pmi_simple_kvs_t *a, *b;
    hnp_buffer_t blob;
    char err[ERRLEN];
    size_t len;

    (void)state;
    assert_int_equal(pmi_simple_kvs_create(&a), HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_create(&b), HNP_SUCCESS);
    pmi_simple_kvs_put(a, "known", "everywhere", 10, false);
    pmi_simple_kvs_put(a, "k1", "v1", 2, true);
    pmi_simple_kvs_put(a, "k2", "v;2", 3, true);
    pmi_simple_kvs_put(a, "k1", "v1-again", 8, true);   /* listed once */
    hnp_buffer_init(&blob);
    assert_int_equal(pmi_simple_kvs_pack_pending(a, &blob), HNP_SUCCESS);
    assert_int_equal(
        pmi_simple_kvs_merge(b, blob.data, blob.len, err, sizeof(err)),
        HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_count(b), 2);
    assert_string_equal(pmi_simple_kvs_get(b, "k1", &len), "v1-again");
    assert_string_equal(pmi_simple_kvs_get(b, "k2", &len), "v;2");
    assert_null(pmi_simple_kvs_get(b, "known", &len));
    /* A node's own blob coming back changes nothing. */
    assert_int_equal(
        pmi_simple_kvs_merge(a, blob.data, blob.len, err, sizeof(err)),
        HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_count(a), 3);

    /* Once packed, nothing is pending: the next blob is empty. */
    hnp_buffer_release(&blob);
    assert_int_equal(pmi_simple_kvs_pack_pending(a, &blob), HNP_SUCCESS);
    assert_int_equal(blob.len, 4);
    assert_memory_equal(blob.data, "\0\0\0\0", 4);
    hnp_buffer_release(&blob);
    pmi_simple_kvs_destroy(a);
    pmi_simple_kvs_destroy(b);
}

/* Who put a key and what it was charged: a put sets both, a fence merge
 * (another node's value for the key) leaves them. */
static void test_kvs_owner(void **state)
{
    pmi_simple_kvs_t *a, *remote;
    hnp_buffer_t blob;
    char err[ERRLEN];
    size_t charge, len;

    (void)state;
    assert_int_equal(pmi_simple_kvs_create(&a), HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_create(&remote), HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_owner(a, "k", &charge), 0);
    assert_int_equal(charge, 0);
    assert_int_equal(pmi_simple_kvs_put_owned(a, "k", "v1", 2, true, 3, 67),
                     HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_owner(a, "k", &charge), 3);
    assert_int_equal(charge, 67);
    assert_int_equal(pmi_simple_kvs_put_owned(a, "k", "v22", 3, true, 5, 68),
                     HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_owner(a, "k", &charge), 5);
    assert_int_equal(charge, 68);

    pmi_simple_kvs_put(remote, "k", "from afar", 9, true);
    hnp_buffer_init(&blob);
    assert_int_equal(pmi_simple_kvs_pack_pending(remote, &blob), HNP_SUCCESS);
    assert_int_equal(
        pmi_simple_kvs_merge(a, blob.data, blob.len, err, sizeof(err)),
        HNP_SUCCESS);
    assert_string_equal(pmi_simple_kvs_get(a, "k", &len), "from afar");
    assert_int_equal(pmi_simple_kvs_owner(a, "k", &charge), 5);
    assert_int_equal(charge, 68);
    hnp_buffer_release(&blob);

    /* A plain put is nobody's. */
    pmi_simple_kvs_put(a, "k", "x", 1, false);
    assert_int_equal(pmi_simple_kvs_owner(a, "k", &charge), 0);
    assert_int_equal(charge, 0);
    pmi_simple_kvs_destroy(a);
    pmi_simple_kvs_destroy(remote);
}

static void expect_merge_refused(pmi_simple_kvs_t *kvs, const void *blob,
                                 size_t len)
{
    char err[ERRLEN] = "";
    size_t before = pmi_simple_kvs_count(kvs);

    assert_int_equal(pmi_simple_kvs_merge(kvs, blob, len, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "fence blob"));
    assert_int_equal(pmi_simple_kvs_count(kvs), before);
}

static void test_kvs_bad_blobs(void **state)
{
    pmi_simple_kvs_t *kvs;
    hnp_buffer_t good;
    size_t len;

    (void)state;
    assert_int_equal(pmi_simple_kvs_create(&kvs), HNP_SUCCESS);
    hnp_buffer_init(&good);
    hnp_pack_u32(&good, 2);
    hnp_pack_string(&good, "first");
    hnp_pack_blob(&good, "1", 1);
    hnp_pack_string(&good, "second");
    hnp_pack_blob(&good, "2", 1);

    expect_merge_refused(kvs, good.data, 3);
    expect_merge_refused(kvs, good.data, good.len - 1);   /* all or nothing */
    uint8_t *longer = malloc(good.len + 1);
    memcpy(longer, good.data, good.len);
    longer[good.len] = 0;
    expect_merge_refused(kvs, longer, good.len + 1);
    free(longer);
    expect_merge_refused(kvs, "\xff\xff\xff\xff", 4);
    expect_merge_refused(kvs, "\0\0\0\1\0\0\0\0\0\0\0\0", 12); /* empty key */
    expect_merge_refused(kvs, "\0\0\0\1\0\0\0\1\0\0\0\0\0", 13); /* NUL key */
    assert_int_equal(pmi_simple_kvs_count(kvs), 0);
    /* A node with no ranks contributes nothing at all: no keys. */
    assert_int_equal(pmi_simple_kvs_merge(kvs, "", 0, NULL, 0), HNP_SUCCESS);
    assert_int_equal(pmi_simple_kvs_count(kvs), 0);
    assert_int_equal(pmi_simple_kvs_merge(kvs, good.data, good.len, NULL, 0),
                     HNP_SUCCESS);
    assert_string_equal(pmi_simple_kvs_get(kvs, "second", &len), "2");
    hnp_buffer_release(&good);
    pmi_simple_kvs_destroy(kvs);
}

/* ----------------------------------------------------- process mapping */

static void expect_mapping(const uint32_t *nodes, uint32_t n, const char *want)
{
    char *got = NULL;

    assert_int_equal(pmi_simple_process_mapping(nodes, n, &got), HNP_SUCCESS);
    assert_string_equal(got, want);
    free(got);
}

static void test_process_mapping(void **state)
{
    static const uint32_t block[] = { 0, 0, 1, 1, 2, 2, 3, 3 };
    static const uint32_t cyclic[] = { 0, 1, 2, 0, 1, 2, 0, 1 };
    static const uint32_t uneven[] = { 0, 0, 0, 1, 2, 2 };
    static const uint32_t late[] = { 3, 3, 4, 4 };
    static const uint32_t repeat_block[] = { 0, 0, 1, 1, 0, 0, 1, 1, 0 };
    static const uint32_t one[] = { 0 };
    char *out;

    (void)state;
    expect_mapping(block, 8, "(vector,(0,4,2))");
    expect_mapping(cyclic, 8, "(vector,(0,3,1))");
    expect_mapping(uneven, 6, "(vector,(0,1,3),(1,1,1),(2,1,2))");
    /* A job on nodes 3 and 4 (of a DVM's) is on its own nodes 0 and 1. */
    expect_mapping(late, 4, "(vector,(0,2,2))");
    expect_mapping(repeat_block, 9, "(vector,(0,2,2))");
    expect_mapping(one, 1, "(vector,(0,1,1))");
    assert_int_equal(pmi_simple_process_mapping(one, 0, &out), HNP_ERR_BAD_PARAM);
}

/* MPICH takes the highest node number plus one for the job's node count,
 * and a job with as many nodes as ranks for one rank a node: then it
 * skips the barrier between the put of a node's shared-memory name and
 * the other ranks' get of it ("unable to allocate shared memory" when a
 * get came first). Jobs of a DVM side by side, placed on nodes past the
 * first, got numbers such as these; a job's mapping numbers its own
 * nodes from 0, so the count is right. */
static unsigned mpich_node_count(const char *mapping)
{
    unsigned first, count, ppn, top = 0;
    const char *p = strchr(mapping, '(') + 1;

    while ((p = strchr(p, '(')) != NULL) {
        assert_int_equal(sscanf(p, "(%u,%u,%u)", &first, &count, &ppn), 3);
        if (first + count > top)
            top = first + count;
        p++;
    }
    return top;
}

static void test_process_mapping_dvm_nodes(void **state)
{
    /* seen failing: 2 ranks on a DVM's second node; 5 ranks on its
     * fourth and fifth */
    static const uint32_t second[] = { 1, 1 };
    static const uint32_t fourth[] = { 3, 4, 4, 4, 4 };
    static const uint32_t gaps[] = { 2, 2, 7, 7, 9 };
    char *got = NULL;

    (void)state;
    expect_mapping(second, 2, "(vector,(0,1,2))");
    expect_mapping(fourth, 5, "(vector,(0,1,1),(1,1,4))");
    expect_mapping(gaps, 5, "(vector,(0,2,2),(2,1,1))");
    assert_int_equal(pmi_simple_process_mapping(fourth, 5, &got), HNP_SUCCESS);
    assert_int_equal(mpich_node_count(got), 2);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_v1_lines),
        cmocka_unit_test(test_frame_v1_mcmd_block),
        cmocka_unit_test(test_frame_v2),
        cmocka_unit_test(test_parse_v1_line),
        cmocka_unit_test(test_parse_v1_malformed),
        cmocka_unit_test(test_parse_v1_block),
        cmocka_unit_test(test_parse_v2),
        cmocka_unit_test(test_parse_v2_malformed),
        cmocka_unit_test(test_reply_v1),
        cmocka_unit_test(test_reply_v2),
        cmocka_unit_test(test_kvs_put_get),
        cmocka_unit_test(test_kvs_fence_blob),
        cmocka_unit_test(test_kvs_owner),
        cmocka_unit_test(test_kvs_bad_blobs),
        cmocka_unit_test(test_process_mapping),
        cmocka_unit_test(test_process_mapping_dvm_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
