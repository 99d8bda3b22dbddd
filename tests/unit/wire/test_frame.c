/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the wire codec (runtime/wire/frame.c): the hello, the frame
 * header and the job secret.
 *
 * Golden byte strings fix the layout of frame.h independently of the
 * encoder, so a change to either side shows. Every refusal is checked for
 * its code, for the sentence an administrator reads in the log, and for
 * leaving the caller's output untouched. The test is linked with
 * -Wl,--wrap=getrandom so that interrupted, short and failing calls can be
 * scripted.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

#include <cmocka.h>

#include "wire/frame.h"
#include "hnp_errors.h"

#define WHY_LEN 256

/* Scripted getrandom(2) (the linker routes the calls here): each step
 * returns -1 with an errno, or fills up to that many bytes with a counting
 * pattern. Past the end of the script, or without one, the real call. */
typedef struct random_step {
    ssize_t ret;
    int err;
} random_step_t;

ssize_t __real_getrandom(void *buf, size_t len, unsigned int flags);
ssize_t __wrap_getrandom(void *buf, size_t len, unsigned int flags);

static const random_step_t *random_script;
static size_t random_script_len, random_calls;
static uint8_t random_next_byte;

ssize_t __wrap_getrandom(void *buf, size_t len, unsigned int flags)
{
    random_step_t step;

    if (random_script == NULL || random_calls >= random_script_len)
        return __real_getrandom(buf, len, flags);
    step = random_script[random_calls++];
    assert_int_equal(flags, 0); /* blocking until the pool is seeded */
    if (step.ret < 0) {
        errno = step.err;
        return -1;
    }
    if ((size_t)step.ret < len)
        len = (size_t)step.ret;
    for (size_t i = 0; i < len; i++)
        ((uint8_t *)buf)[i] = random_next_byte++;
    return (ssize_t)len;
}

static void script_getrandom(const random_step_t *steps, size_t n)
{
    random_script = steps;
    random_script_len = n;
    random_calls = 0;
    random_next_byte = 0;
}

/* The hello of vpid 0x01020304 with the nonce 0, 1, ..., 31. */
static const uint8_t golden_hello[HNP_HELLO_LEN] = {
    'H', 'N', 'P', '1', 0x00, 0x03, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

static void counting_bytes(uint8_t *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++)
        bytes[i] = (uint8_t)i;
}

static void counting_secret(uint8_t secret[HNP_SECRET_LEN])
{
    counting_bytes(secret, HNP_SECRET_LEN);
}

static hnp_hello_t sentinel_hello(void)
{
    hnp_hello_t h;

    memset(&h, 0xa5, sizeof(h));
    return h;
}

/* Check @p bytes as a hello: expect @p code and, on failure, a sentence
 * equal to @p why and an untouched output. */
static void expect_hello(const uint8_t *bytes, size_t len, uint32_t nprocs,
                         int code, const char *why)
{
    hnp_hello_t out = sentinel_hello(), untouched = sentinel_hello();
    char msg[WHY_LEN] = "";

    assert_int_equal(hnp_hello_check(bytes, len, nprocs, &out, msg,
                                     sizeof(msg)),
                     code);
    if (code == HNP_SUCCESS)
        return;
    assert_memory_equal(&out, &untouched, sizeof(out));
    if (why != NULL)
        assert_string_equal(msg, why);
}

/* ---------------------------------------------------------------- hello */

static void test_hello_encoding_is_the_documented_layout(void **state)
{
    hnp_hello_t h = { .version = HNP_PROTOCOL_VERSION, .vpid = 0x01020304u };
    uint8_t out[HNP_HELLO_LEN];

    (void)state;
    counting_bytes(h.nonce, sizeof(h.nonce));
    memset(out, 0xee, sizeof(out));
    hnp_hello_encode(&h, out);
    assert_memory_equal(out, golden_hello, sizeof(out));
}

static void test_hello_round_trip(void **state)
{
    const hnp_vpid_t vpids[] = { 0, 1, 11, 4096, UINT32_MAX - 1 };
    uint8_t nonce[HNP_NONCE_LEN], wire[HNP_HELLO_LEN];
    hnp_hello_t in = { .version = HNP_PROTOCOL_VERSION }, out;
    char why[WHY_LEN];

    (void)state;
    assert_int_equal(hnp_secret_generate(nonce), HNP_SUCCESS);
    memcpy(in.nonce, nonce, sizeof(nonce));
    for (size_t i = 0; i < sizeof(vpids) / sizeof(vpids[0]); i++) {
        in.vpid = vpids[i];
        hnp_hello_encode(&in, wire);
        memset(&out, 0, sizeof(out));
        assert_int_equal(hnp_hello_check(wire, sizeof(wire), 0, &out, why,
                                         sizeof(why)),
                         HNP_SUCCESS);
        assert_int_equal(out.version, HNP_PROTOCOL_VERSION);
        assert_int_equal(out.vpid, vpids[i]);
        assert_memory_equal(out.nonce, nonce, HNP_NONCE_LEN);
    }
    /* Extra bytes after the hello are the caller's (the first frame). */
    uint8_t longer[HNP_HELLO_LEN + 5] = { 0 };
    memcpy(longer, golden_hello, HNP_HELLO_LEN);
    expect_hello(longer, sizeof(longer), 0, HNP_SUCCESS, NULL);
    /* NULL out and NULL why are allowed. */
    assert_int_equal(hnp_hello_check(golden_hello, HNP_HELLO_LEN, 0, NULL,
                                     NULL, 0),
                     HNP_SUCCESS);
}

/* The reserved field is room for a later version: ignored, not refused. */
static void test_hello_reserved_field_is_ignored(void **state)
{
    uint8_t wire[HNP_HELLO_LEN];

    (void)state;
    memcpy(wire, golden_hello, sizeof(wire));
    wire[6] = 0xff;
    wire[7] = 0x01;
    expect_hello(wire, sizeof(wire), 0, HNP_SUCCESS, NULL);
}

static void test_hello_truncated(void **state)
{
    char why[64];

    (void)state;
    for (size_t len = 0; len < HNP_HELLO_LEN; len++) {
        snprintf(why, sizeof(why), "hello truncated: %zu of %d bytes", len,
                 HNP_HELLO_LEN);
        expect_hello(golden_hello, len, 0, HNP_ERR_TRUNCATED, why);
    }
    expect_hello(NULL, HNP_HELLO_LEN, 0, HNP_ERR_TRUNCATED,
                 "hello truncated: 0 of 44 bytes");
}

static void test_hello_bad_magic(void **state)
{
    uint8_t wire[HNP_HELLO_LEN];

    (void)state;
    memcpy(wire, golden_hello, sizeof(wire));
    memcpy(wire, "GET ", 4); /* someone pointed a web client at the port */
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_BAD_PARAM,
                 "bad magic 0x47455420: not an hnp peer");
    memcpy(wire, "HNP2", 4);
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_BAD_PARAM,
                 "bad magic 0x484e5032: not an hnp peer");
    memcpy(wire, "hnp1", 4);
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_BAD_PARAM,
                 "bad magic 0x686e7031: not an hnp peer");
    /* The magic is diagnosed first, whatever else is wrong. */
    memset(wire + 4, 0xff, sizeof(wire) - 4);
    expect_hello(wire, sizeof(wire), 1, HNP_ERR_BAD_PARAM,
                 "bad magic 0x686e7031: not an hnp peer");
}

static void test_hello_bad_version(void **state)
{
    uint8_t wire[HNP_HELLO_LEN];

    (void)state;
    memcpy(wire, golden_hello, sizeof(wire));
    /* Version 1 sent the secret itself, version 2 did not name the job
     * in the messages about its processes: their peers are refused. */
    wire[5] = 2;
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_VERSION,
                 "protocol version 2, expected 3");
    wire[5] = 1;
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_VERSION,
                 "protocol version 1, expected 3");
    /* Version 2's frames carry another MAC: refused at the hello, not
     * at its first frame as forged. */
    wire[5] = 2;
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_VERSION,
                 "protocol version 2, expected 3");
    wire[5] = 0;
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_VERSION,
                 "protocol version 0, expected 3");
    wire[4] = 0xff;
    wire[5] = 0xff;
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_VERSION,
                 "protocol version 65535, expected 3");
    /* Version 768 would be 3 read in the wrong byte order. */
    wire[4] = 3;
    wire[5] = 0;
    expect_hello(wire, sizeof(wire), 0, HNP_ERR_VERSION,
                 "protocol version 768, expected 3");
}

/* The nonce is whatever the sender chose: a hello carries no secret to
 * check, and any nonce passes (the proof that follows is what counts). */
static void test_hello_any_nonce(void **state)
{
    uint8_t wire[HNP_HELLO_LEN];

    (void)state;
    for (size_t i = 0; i < HNP_NONCE_LEN; i++) {
        memcpy(wire, golden_hello, sizeof(wire));
        wire[12 + i] ^= 0x5a;
        expect_hello(wire, sizeof(wire), 0, HNP_SUCCESS, NULL);
    }
}

static void hello_with_vpid(uint8_t wire[HNP_HELLO_LEN], hnp_vpid_t vpid)
{
    hnp_hello_t h = { .version = HNP_PROTOCOL_VERSION, .vpid = vpid };

    counting_bytes(h.nonce, sizeof(h.nonce));
    hnp_hello_encode(&h, wire);
}

static void test_hello_vpid_range(void **state)
{
    uint8_t wire[HNP_HELLO_LEN];

    (void)state;
    hello_with_vpid(wire, 11);
    expect_hello(wire, sizeof(wire), 12, HNP_SUCCESS, NULL);
    hello_with_vpid(wire, 0);
    expect_hello(wire, sizeof(wire), 1, HNP_SUCCESS, NULL);
    hello_with_vpid(wire, 12);
    expect_hello(wire, sizeof(wire), 12, HNP_ERR_BAD_PARAM,
                 "vpid 12 out of range (job has 12 processes)");
    hello_with_vpid(wire, 77);
    expect_hello(wire, sizeof(wire), 12, HNP_ERR_BAD_PARAM,
                 "vpid 77 out of range (job has 12 processes)");
    hello_with_vpid(wire, HNP_VPID_INVALID);
    expect_hello(wire, sizeof(wire), UINT32_MAX, HNP_ERR_BAD_PARAM,
                 "vpid 4294967295 out of range (job has 4294967295 processes)");
    /* nprocs 0: the job's size is not known yet, any vpid passes. */
    expect_hello(wire, sizeof(wire), 0, HNP_SUCCESS, NULL);
}

/* A short error buffer gets a cut, terminated sentence; none is fine too. */
static void test_hello_small_why_buffer(void **state)
{
    char why[8];

    (void)state;
    memset(why, 'x', sizeof(why));
    assert_int_equal(hnp_hello_check(golden_hello, 3, 0, NULL, why,
                                     sizeof(why)),
                     HNP_ERR_TRUNCATED);
    assert_string_equal(why, "hello t");
    assert_int_equal(hnp_hello_check(golden_hello, 3, 0, NULL, NULL, 99),
                     HNP_ERR_TRUNCATED);
}

/* --------------------------------------------------------- frame header */

static const uint8_t golden_header[HNP_FRAME_HEADER_LEN] = {
    0x00, 0x00, 0x00, 0x01, /* src */
    0x00, 0x00, 0x01, 0x02, /* dst */
    0xca, 0xfe, 0xba, 0xbe, /* tag */
    0x00, 0x01, 0x00, 0x00, /* len 65536 */
};

static void test_header_encoding_is_the_documented_layout(void **state)
{
    const hnp_frame_header_t hdr = { .src = 1, .dst = 0x102,
                                     .tag = 0xcafebabeu, .len = 65536 };
    uint8_t out[HNP_FRAME_HEADER_LEN];

    (void)state;
    hnp_frame_header_encode(&hdr, out);
    assert_memory_equal(out, golden_header, sizeof(out));
}

static void test_header_round_trip(void **state)
{
    const hnp_frame_header_t cases[] = {
        { 0, 0, 0, 0 },
        { 1, 2, 3, 4 },
        { UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX },
        { 0x80000000u, 0x7fffffffu, 0xdeadbeefu, 0x00ff00ffu },
    };
    uint8_t wire[HNP_FRAME_HEADER_LEN];
    hnp_frame_header_t out;
    char why[WHY_LEN];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        hnp_frame_header_encode(&cases[i], wire);
        assert_int_equal(hnp_frame_header_decode(wire, sizeof(wire), SIZE_MAX,
                                                 0, &out, why, sizeof(why)),
                         HNP_SUCCESS);
        assert_memory_equal(&out, &cases[i], sizeof(out));
    }
    assert_int_equal(hnp_frame_header_decode(golden_header,
                                             sizeof(golden_header), 65536, 0,
                                             NULL, NULL, 0),
                     HNP_SUCCESS);
}

static void expect_header(const hnp_frame_header_t *hdr, size_t max_len,
                          uint32_t nprocs, int code, const char *why)
{
    uint8_t wire[HNP_FRAME_HEADER_LEN];
    hnp_frame_header_t out, untouched;
    char msg[WHY_LEN] = "";

    memset(&out, 0x5a, sizeof(out));
    memcpy(&untouched, &out, sizeof(out));
    hnp_frame_header_encode(hdr, wire);
    assert_int_equal(hnp_frame_header_decode(wire, sizeof(wire), max_len,
                                             nprocs, &out, msg, sizeof(msg)),
                     code);
    if (code == HNP_SUCCESS) {
        assert_memory_equal(&out, hdr, sizeof(out));
        return;
    }
    assert_memory_equal(&out, &untouched, sizeof(out));
    assert_string_equal(msg, why);
}

static void test_header_length_limit(void **state)
{
    hnp_frame_header_t hdr = { .src = 3, .dst = 0, .tag = 9, .len = 4096 };

    (void)state;
    expect_header(&hdr, 4096, 0, HNP_SUCCESS, NULL);
    hdr.len = 4097;
    expect_header(&hdr, 4096, 0, HNP_ERR_BAD_PARAM,
                  "frame of 4097 bytes exceeds the limit of 4096 bytes "
                  "(tag 9, from vpid 3)");
    hdr.len = UINT32_MAX;
    expect_header(&hdr, 4096, 0, HNP_ERR_BAD_PARAM,
                  "frame of 4294967295 bytes exceeds the limit of 4096 bytes "
                  "(tag 9, from vpid 3)");
    expect_header(&hdr, UINT32_MAX, 0, HNP_SUCCESS, NULL);
    /* A limit of 0 still allows empty bodies (a bare notification). */
    hdr.len = 0;
    expect_header(&hdr, 0, 0, HNP_SUCCESS, NULL);
    hdr.len = 1;
    expect_header(&hdr, 0, 0, HNP_ERR_BAD_PARAM,
                  "frame of 1 bytes exceeds the limit of 0 bytes "
                  "(tag 9, from vpid 3)");
}

static void test_header_vpid_range(void **state)
{
    hnp_frame_header_t hdr = { .src = 11, .dst = 0, .tag = 1, .len = 0 };

    (void)state;
    expect_header(&hdr, 16, 12, HNP_SUCCESS, NULL);
    hdr.src = 12;
    expect_header(&hdr, 16, 12, HNP_ERR_BAD_PARAM,
                  "frame source vpid 12 out of range (job has 12 processes)");
    hdr.src = 0;
    hdr.dst = 77;
    expect_header(&hdr, 16, 12, HNP_ERR_BAD_PARAM,
                  "frame destination vpid 77 out of range (job has 12 "
                  "processes)");
    /* The invalid vpid is never a real sender or receiver. */
    hdr.dst = HNP_VPID_INVALID;
    expect_header(&hdr, 16, UINT32_MAX, HNP_ERR_BAD_PARAM,
                  "frame destination vpid 4294967295 out of range (job has "
                  "4294967295 processes)");
    hdr.dst = 0;
    hdr.src = HNP_VPID_INVALID;
    expect_header(&hdr, 16, 1, HNP_ERR_BAD_PARAM,
                  "frame source vpid 4294967295 out of range (job has 1 "
                  "processes)");
    /* nprocs 0: no check. */
    hdr.dst = HNP_VPID_INVALID;
    expect_header(&hdr, 16, 0, HNP_SUCCESS, NULL);
}

static void test_header_truncated(void **state)
{
    hnp_frame_header_t out;
    char why[WHY_LEN], expect[WHY_LEN];

    (void)state;
    for (size_t len = 0; len < HNP_FRAME_HEADER_LEN; len++) {
        snprintf(expect, sizeof(expect),
                 "frame header truncated: %zu of 16 bytes", len);
        assert_int_equal(hnp_frame_header_decode(golden_header, len, SIZE_MAX,
                                                 0, &out, why, sizeof(why)),
                         HNP_ERR_TRUNCATED);
        assert_string_equal(why, expect);
    }
    assert_int_equal(hnp_frame_header_decode(NULL, 16, SIZE_MAX, 0, &out, why,
                                             sizeof(why)),
                     HNP_ERR_TRUNCATED);
}

/* ---------------------------------------------------------------- secret */

static void test_secret_hex_round_trip(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], back[HNP_SECRET_LEN];
    char hex[2 * HNP_SECRET_LEN + 1];

    (void)state;
    counting_secret(secret);
    hnp_secret_to_hex(secret, hex);
    assert_string_equal(hex, "000102030405060708090a0b0c0d0e0f"
                             "101112131415161718191a1b1c1d1e1f");
    assert_int_equal(hnp_secret_from_hex(hex, back), HNP_SUCCESS);
    assert_memory_equal(back, secret, sizeof(secret));

    for (int round = 0; round < 16; round++) {
        assert_int_equal(hnp_secret_generate(secret), HNP_SUCCESS);
        hnp_secret_to_hex(secret, hex);
        assert_int_equal(strlen(hex), 2 * HNP_SECRET_LEN);
        assert_int_equal(hnp_secret_from_hex(hex, back), HNP_SUCCESS);
        assert_memory_equal(back, secret, sizeof(secret));
    }
    /* Upper case is still hex (a user may paste it). */
    assert_int_equal(hnp_secret_from_hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"
                                         "ffffffffffffffffffffffffffffffAb",
                                         back),
                     HNP_SUCCESS);
    assert_int_equal(back[0], 0xff);
    assert_int_equal(back[31], 0xab);
}

static void expect_hex_rejected(const char *hex, const char *what)
{
    uint8_t secret[HNP_SECRET_LEN], before[HNP_SECRET_LEN];

    memset(secret, 0x77, sizeof(secret));
    memcpy(before, secret, sizeof(secret));
    if (hnp_secret_from_hex(hex, secret) != HNP_ERR_BAD_PARAM)
        fail_msg("accepted %s: \"%s\"", what, hex);
    assert_memory_equal(secret, before, sizeof(secret));
}

static void test_secret_hex_rejects(void **state)
{
    static const char good[] = "000102030405060708090a0b0c0d0e0f"
                               "101112131415161718191a1b1c1d1e1f";
    static const char not_hex[] = { 'g', 'G', 'x', ' ', '-', '\n', '/', ':',
                                    '@', '`', (char)0xc3 };
    static const size_t positions[] = { 0, 1, 31, 62, 63 };
    char hex[2 * HNP_SECRET_LEN + 2];

    (void)state;
    expect_hex_rejected(NULL, "NULL");
    expect_hex_rejected("", "an empty string");
    expect_hex_rejected("0x0102030405060708090a0b0c0d0e0f"
                        "101112131415161718191a1b1c1d1e1f", "a 0x prefix");
    /* One digit short, one too many, a trailing newline. */
    memcpy(hex, good, sizeof(good));
    hex[63] = '\0';
    expect_hex_rejected(hex, "63 digits");
    memcpy(hex, good, sizeof(good));
    strcat(hex, "0");
    expect_hex_rejected(hex, "65 digits");
    memcpy(hex, good, sizeof(good));
    strcat(hex, "\n");
    expect_hex_rejected(hex, "a trailing newline");
    memcpy(hex, good, sizeof(good));
    hex[20] = '\0';
    expect_hex_rejected(hex, "an embedded NUL");
    /* Every position, including the last, is checked for a digit. */
    for (size_t p = 0; p < sizeof(positions) / sizeof(positions[0]); p++) {
        for (size_t c = 0; c < sizeof(not_hex); c++) {
            memcpy(hex, good, sizeof(good));
            hex[positions[p]] = not_hex[c];
            expect_hex_rejected(hex, "a non-hex character");
        }
    }
}

static void test_secret_generate(void **state)
{
    uint8_t a[HNP_SECRET_LEN], b[HNP_SECRET_LEN], zero[HNP_SECRET_LEN] = { 0 };

    (void)state;
    assert_int_equal(hnp_secret_generate(a), HNP_SUCCESS);
    assert_int_equal(hnp_secret_generate(b), HNP_SUCCESS);
    /* Each fails with probability 2^-256 for a working generator. */
    assert_memory_not_equal(a, b, HNP_SECRET_LEN);
    assert_memory_not_equal(a, zero, HNP_SECRET_LEN);
}

/* Interrupted and short reads are retried until the secret is full. */
static void test_secret_generate_retries(void **state)
{
    static const random_step_t steps[] = {
        { -1, EINTR }, { 5, 0 }, { -1, EINTR }, { 1, 0 }, { 100, 0 },
    };
    uint8_t secret[HNP_SECRET_LEN], expect[HNP_SECRET_LEN];

    (void)state;
    counting_secret(expect);
    script_getrandom(steps, sizeof(steps) / sizeof(steps[0]));
    assert_int_equal(hnp_secret_generate(secret), HNP_SUCCESS);
    assert_int_equal(random_calls, 5);
    assert_memory_equal(secret, expect, sizeof(secret));
    script_getrandom(NULL, 0);
}

/* Only a kernel without getrandom(2) sends us to /dev/urandom. */
static void test_secret_generate_falls_back_to_urandom(void **state)
{
    static const random_step_t no_syscall[] = { { -1, ENOSYS } };
    uint8_t secret[HNP_SECRET_LEN], zero[HNP_SECRET_LEN] = { 0 };

    (void)state;
    memset(secret, 0, sizeof(secret));
    script_getrandom(no_syscall, 1);
    assert_int_equal(hnp_secret_generate(secret), HNP_SUCCESS);
    assert_int_equal(random_calls, 1);
    assert_memory_not_equal(secret, zero, sizeof(secret));
    script_getrandom(NULL, 0);
}

static void expect_generate_error(const random_step_t *steps, size_t n)
{
    uint8_t secret[HNP_SECRET_LEN], before[HNP_SECRET_LEN];

    memset(secret, 0x3c, sizeof(secret));
    memcpy(before, secret, sizeof(secret));
    script_getrandom(steps, n);
    assert_int_equal(hnp_secret_generate(secret), HNP_ERR_IO);
    assert_int_equal(random_calls, n);
    assert_memory_equal(secret, before, sizeof(secret));
    script_getrandom(NULL, 0);
}

/* Other failures are errors, and leave no partial secret behind. */
static void test_secret_generate_errors(void **state)
{
    static const random_step_t fault[] = { { -1, EFAULT } };
    static const random_step_t nothing[] = { { 0, 0 } };
    static const random_step_t enosys_late[] = { { 4, 0 }, { -1, ENOSYS } };

    (void)state;
    expect_generate_error(fault, 1);
    expect_generate_error(nothing, 1);
    expect_generate_error(enosys_late, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_encoding_is_the_documented_layout),
        cmocka_unit_test(test_hello_round_trip),
        cmocka_unit_test(test_hello_reserved_field_is_ignored),
        cmocka_unit_test(test_hello_truncated),
        cmocka_unit_test(test_hello_bad_magic),
        cmocka_unit_test(test_hello_bad_version),
        cmocka_unit_test(test_hello_any_nonce),
        cmocka_unit_test(test_hello_vpid_range),
        cmocka_unit_test(test_hello_small_why_buffer),
        cmocka_unit_test(test_header_encoding_is_the_documented_layout),
        cmocka_unit_test(test_header_round_trip),
        cmocka_unit_test(test_header_length_limit),
        cmocka_unit_test(test_header_vpid_range),
        cmocka_unit_test(test_header_truncated),
        cmocka_unit_test(test_secret_hex_round_trip),
        cmocka_unit_test(test_secret_hex_rejects),
        cmocka_unit_test(test_secret_generate),
        cmocka_unit_test(test_secret_generate_retries),
        cmocka_unit_test(test_secret_generate_falls_back_to_urandom),
        cmocka_unit_test(test_secret_generate_errors),
    };

    return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
