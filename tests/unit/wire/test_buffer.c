/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the message buffers (runtime/wire/buffer.c).
 *
 * Round trips pin down that what one process packs another reads back,
 * golden byte strings pin down the wire encoding itself (so both ends agree
 * whatever their host byte order), and the malformed-input cases check that
 * the reader fails, stays failed and never reads outside its input: every
 * input is copied into an allocation of exactly its size, so an over-read
 * shows under valgrind or AddressSanitizer. The test is linked with
 * -Wl,--wrap=malloc,--wrap=realloc so that allocation failures can be
 * injected into the code under test.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hnp_buffer.h"
#include "hnp_errors.h"

/* Allocation failure on demand (the linker routes the calls here). While
 * armed, every malloc and realloc fails; the size asked is recorded. */
void *__real_malloc(size_t size);
void *__real_realloc(void *ptr, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static bool allocations_fail;
static size_t last_size_asked;

void *__wrap_malloc(size_t size)
{
    last_size_asked = size;
    return allocations_fail ? NULL : __real_malloc(size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
    last_size_asked = size;
    return allocations_fail ? NULL : __real_realloc(ptr, size);
}

/* An exact-size heap copy of @p bytes, read through a reader. */
typedef struct exact_input {
    uint8_t *copy;
    hnp_reader_t rd;
} exact_input_t;

static void exact_input_open(exact_input_t *in, const void *bytes, size_t len)
{
    in->copy = malloc(len > 0 ? len : 1);
    assert_non_null(in->copy);
    if (len > 0)
        memcpy(in->copy, bytes, len);
    hnp_reader_init(&in->rd, in->copy, len);
}

static void exact_input_close(exact_input_t *in)
{
    free(in->copy);
    in->copy = NULL;
}

/* The reader has failed, and every kind of read now yields nothing. */
static void assert_reader_dead(hnp_reader_t *rd)
{
    size_t len = 99;

    assert_true(rd->failed);
    assert_int_equal(hnp_reader_status(rd), HNP_ERR_TRUNCATED);
    assert_int_equal(hnp_reader_remaining(rd), 0);
    assert_int_equal(hnp_unpack_u8(rd), 0);
    assert_int_equal(hnp_unpack_u32(rd), 0);
    assert_int_equal(hnp_unpack_u64(rd), 0);
    assert_int_equal(hnp_unpack_i32(rd), 0);
    assert_true(hnp_unpack_double(rd) == 0.0);
    assert_null(hnp_unpack_string(rd));
    assert_null(hnp_unpack_blob(rd, &len));
    assert_int_equal(len, 0);
    assert_true(rd->failed);
}

static void assert_packed_bytes(hnp_buffer_t *buf, const uint8_t *expect,
                                size_t len)
{
    assert_int_equal(hnp_buffer_status(buf), HNP_SUCCESS);
    assert_int_equal(buf->len, len);
    assert_memory_equal(buf->data, expect, len);
}

/* ------------------------------------------------------------ encoding */

static void test_integers_are_big_endian(void **state)
{
    static const uint8_t expect[] = {
        0xab,                                           /* u8 */
        0x01, 0x02, 0x03, 0x04,                         /* u32 */
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* u64 */
        0xff, 0xff, 0xff, 0xfe,                         /* i32 -2 */
        0x80, 0x00, 0x00, 0x00,                         /* i32 min */
    };
    hnp_buffer_t buf;

    (void)state;
    hnp_buffer_init(&buf);
    hnp_pack_u8(&buf, 0xab);
    hnp_pack_u32(&buf, 0x01020304u);
    hnp_pack_u64(&buf, 0x0102030405060708ull);
    hnp_pack_i32(&buf, -2);
    hnp_pack_i32(&buf, INT32_MIN);
    assert_packed_bytes(&buf, expect, sizeof(expect));
    hnp_buffer_release(&buf);
}

static void test_double_is_ieee754_bits(void **state)
{
    static const uint8_t expect[] = {
        0x3f, 0xf0, 0, 0, 0, 0, 0, 0, /* 1.0 */
        0xc0, 0x00, 0, 0, 0, 0, 0, 0, /* -2.0 */
        0x80, 0x00, 0, 0, 0, 0, 0, 0, /* -0.0 */
        0x7f, 0xf0, 0, 0, 0, 0, 0, 0, /* +inf */
    };
    hnp_buffer_t buf;

    (void)state;
    hnp_buffer_init(&buf);
    hnp_pack_double(&buf, 1.0);
    hnp_pack_double(&buf, -2.0);
    hnp_pack_double(&buf, -0.0);
    hnp_pack_double(&buf, INFINITY);
    assert_packed_bytes(&buf, expect, sizeof(expect));
    hnp_buffer_release(&buf);
}

static void test_strings_and_blobs_carry_u32_length(void **state)
{
    static const uint8_t expect[] = {
        0, 0, 0, 2, 'h', 'i',   /* "hi": length without the NUL */
        0, 0, 0, 0,             /* "" */
        0, 0, 0, 0,             /* NULL packs like "" */
        0, 0, 0, 3, 1, 0, 2,    /* a blob may hold NULs */
        0, 0, 0, 0,             /* empty blob */
        9, 8,                   /* raw bytes: no length */
    };
    static const uint8_t blob[] = { 1, 0, 2 };
    static const uint8_t raw[] = { 9, 8 };
    hnp_buffer_t buf;

    (void)state;
    hnp_buffer_init(&buf);
    hnp_pack_string(&buf, "hi");
    hnp_pack_string(&buf, "");
    hnp_pack_string(&buf, NULL);
    hnp_pack_blob(&buf, blob, sizeof(blob));
    hnp_pack_blob(&buf, NULL, 0);
    hnp_pack_bytes(&buf, raw, sizeof(raw));
    hnp_pack_bytes(&buf, NULL, 0);
    assert_packed_bytes(&buf, expect, sizeof(expect));
    hnp_buffer_release(&buf);
}

/* ---------------------------------------------------------- round trips */

static const uint8_t u8_values[] = { 0, 1, 0x7f, 0x80, 0xfe, 0xff };
static const uint32_t u32_values[] = {
    0, 1, 0xff, 0x100, 0x7fffffffu, 0x80000000u, 0xfffffffeu, UINT32_MAX,
};
static const uint64_t u64_values[] = {
    0, 1, UINT32_MAX, (uint64_t)UINT32_MAX + 1, 0x0123456789abcdefull,
    INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX,
};
static const int32_t i32_values[] = {
    INT32_MIN, INT32_MIN + 1, -65536, -1, 0, 1, 65536, INT32_MAX - 1, INT32_MAX,
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_integer_round_trips(void **state)
{
    hnp_buffer_t buf;
    exact_input_t in;

    (void)state;
    hnp_buffer_init(&buf);
    for (size_t i = 0; i < COUNT(u8_values); i++)
        hnp_pack_u8(&buf, u8_values[i]);
    for (size_t i = 0; i < COUNT(u32_values); i++)
        hnp_pack_u32(&buf, u32_values[i]);
    for (size_t i = 0; i < COUNT(u64_values); i++)
        hnp_pack_u64(&buf, u64_values[i]);
    for (size_t i = 0; i < COUNT(i32_values); i++)
        hnp_pack_i32(&buf, i32_values[i]);
    assert_int_equal(hnp_buffer_status(&buf), HNP_SUCCESS);

    exact_input_open(&in, buf.data, buf.len);
    for (size_t i = 0; i < COUNT(u8_values); i++)
        assert_int_equal(hnp_unpack_u8(&in.rd), u8_values[i]);
    for (size_t i = 0; i < COUNT(u32_values); i++)
        assert_int_equal(hnp_unpack_u32(&in.rd), u32_values[i]);
    for (size_t i = 0; i < COUNT(u64_values); i++)
        assert_true(hnp_unpack_u64(&in.rd) == u64_values[i]);
    for (size_t i = 0; i < COUNT(i32_values); i++)
        assert_int_equal(hnp_unpack_i32(&in.rd), i32_values[i]);
    assert_int_equal(hnp_reader_status(&in.rd), HNP_SUCCESS);
    assert_int_equal(hnp_reader_remaining(&in.rd), 0);
    exact_input_close(&in);
    hnp_buffer_release(&buf);
}

static uint64_t double_bits(double v)
{
    uint64_t bits;

    memcpy(&bits, &v, sizeof(bits));
    return bits;
}

static double double_from_bits(uint64_t bits)
{
    double v;

    memcpy(&v, &bits, sizeof(v));
    return v;
}

/* Compared bit for bit: -0.0 must stay negative and a NaN keep its payload. */
static void test_double_round_trips(void **state)
{
    const double values[] = {
        0.0, -0.0, 1.0, -1.5, 3.141592653589793, DBL_MAX, -DBL_MAX, DBL_MIN,
        DBL_MIN / 4 /* subnormal */, DBL_EPSILON, INFINITY, -INFINITY,
        double_from_bits(0x7ff8000000000123ull), /* quiet NaN with payload */
        double_from_bits(0xfff8000000000001ull), /* negative NaN */
    };
    hnp_buffer_t buf;
    exact_input_t in;

    (void)state;
    hnp_buffer_init(&buf);
    for (size_t i = 0; i < COUNT(values); i++)
        hnp_pack_double(&buf, values[i]);
    exact_input_open(&in, buf.data, buf.len);
    for (size_t i = 0; i < COUNT(values); i++) {
        uint64_t got = double_bits(hnp_unpack_double(&in.rd));

        if (got != double_bits(values[i]))
            fail_msg("double %zu: got bits %016llx, packed %016llx", i,
                     (unsigned long long)got,
                     (unsigned long long)double_bits(values[i]));
    }
    assert_int_equal(hnp_reader_status(&in.rd), HNP_SUCCESS);
    assert_int_equal(hnp_reader_remaining(&in.rd), 0);
    exact_input_close(&in);
    hnp_buffer_release(&buf);
}

static void test_string_round_trips(void **state)
{
    const char *values[] = { "", "a", "tcp://10.0.0.1:4711,tcp6://[::1]:4711",
                             "h\xc3\xa9llo \xe2\x9c\x93", "\x7f\x01\xff" };
    size_t big_len = 100000;
    char *big = malloc(big_len + 1);
    hnp_buffer_t buf;
    exact_input_t in;

    (void)state;
    assert_non_null(big);
    for (size_t i = 0; i < big_len; i++)
        big[i] = (char)('a' + i % 26);
    big[big_len] = '\0';
    hnp_buffer_init(&buf);
    for (size_t i = 0; i < COUNT(values); i++)
        hnp_pack_string(&buf, values[i]);
    hnp_pack_string(&buf, big);
    hnp_pack_string(&buf, NULL);

    exact_input_open(&in, buf.data, buf.len);
    for (size_t i = 0; i < COUNT(values); i++) {
        char *s = hnp_unpack_string(&in.rd);

        assert_non_null(s);
        assert_string_equal(s, values[i]);
        free(s);
    }
    char *s = hnp_unpack_string(&in.rd);
    assert_non_null(s);
    assert_string_equal(s, big);
    free(s);
    s = hnp_unpack_string(&in.rd);
    assert_non_null(s);
    assert_string_equal(s, "");
    free(s);
    assert_int_equal(hnp_reader_remaining(&in.rd), 0);
    assert_int_equal(hnp_reader_status(&in.rd), HNP_SUCCESS);
    exact_input_close(&in);
    hnp_buffer_release(&buf);
    free(big);
}

static void test_blob_round_trips(void **state)
{
    uint8_t all[256];
    hnp_buffer_t buf;
    exact_input_t in;
    const uint8_t *p;
    size_t len = 99;

    (void)state;
    for (size_t i = 0; i < sizeof(all); i++)
        all[i] = (uint8_t)i;
    hnp_buffer_init(&buf);
    hnp_pack_blob(&buf, all, sizeof(all));
    hnp_pack_blob(&buf, all, 0);
    hnp_pack_blob(&buf, all + 7, 1);

    exact_input_open(&in, buf.data, buf.len);
    p = hnp_unpack_blob(&in.rd, &len);
    assert_non_null(p);
    assert_int_equal(len, sizeof(all));
    assert_memory_equal(p, all, sizeof(all));
    /* Zero-copy: the blob points into the reader's input. */
    assert_ptr_equal(p, in.copy + 4);
    /* An empty blob is a success, not NULL. */
    p = hnp_unpack_blob(&in.rd, &len);
    assert_non_null(p);
    assert_int_equal(len, 0);
    p = hnp_unpack_blob(&in.rd, NULL);
    assert_non_null(p);
    assert_int_equal(p[0], 7);
    assert_int_equal(hnp_reader_status(&in.rd), HNP_SUCCESS);
    assert_int_equal(hnp_reader_remaining(&in.rd), 0);
    exact_input_close(&in);
    hnp_buffer_release(&buf);
}

/* ------------------------------------------------ growth and ownership */

static void test_growth_is_amortized_doubling(void **state)
{
    hnp_buffer_t buf;
    size_t last_cap = 0, reallocs = 0;
    const size_t n = 1u << 20;

    (void)state;
    hnp_buffer_init(&buf);
    for (size_t i = 0; i < n; i++) {
        hnp_pack_u8(&buf, (uint8_t)i);
        if (buf.cap != last_cap) {
            /* Each growth at least doubles: log2(n) reallocations at most. */
            assert_true(last_cap == 0 || buf.cap >= 2 * last_cap);
            last_cap = buf.cap;
            reallocs++;
        }
    }
    assert_int_equal(hnp_buffer_status(&buf), HNP_SUCCESS);
    assert_int_equal(buf.len, n);
    assert_true(buf.cap >= n && buf.cap <= 2 * n);
    assert_true(reallocs <= 21);
    for (size_t i = 0; i < n; i += 4099)
        assert_int_equal(buf.data[i], (uint8_t)i);
    hnp_buffer_release(&buf);
    assert_null(buf.data);
    assert_int_equal(buf.len, 0);
    assert_int_equal(buf.cap, 0);
}

static void test_steal_hands_over_the_bytes(void **state)
{
    hnp_buffer_t buf;
    uint8_t *data;
    size_t len = 99;

    (void)state;
    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, 0xdeadbeefu);
    data = hnp_buffer_steal(&buf, &len);
    assert_non_null(data);
    assert_int_equal(len, 4);
    assert_int_equal(data[0], 0xde);
    assert_null(buf.data);
    assert_int_equal(buf.len, 0);
    free(data);

    /* An empty message body is not a failure: NULL is kept for those. */
    data = hnp_buffer_steal(&buf, &len);
    assert_non_null(data);
    assert_int_equal(len, 0);
    free(data);

    /* The buffer is reusable after a steal. */
    hnp_pack_u8(&buf, 5);
    assert_int_equal(buf.len, 1);
    hnp_buffer_release(&buf);
    hnp_buffer_release(&buf); /* twice is harmless */
}

/* Sizes that cannot be represented fail the buffer before anything is read
 * from the (too small) source, and the failure is sticky. */
static void test_impossible_sizes_fail_the_buffer(void **state)
{
    static const uint8_t small[4] = { 1, 2, 3, 4 };
    hnp_buffer_t buf;
    size_t len = 99;

    (void)state;
    hnp_buffer_init(&buf);
    hnp_pack_u8(&buf, 1);
    hnp_pack_bytes(&buf, small, SIZE_MAX); /* len + SIZE_MAX overflows */
    assert_true(buf.failed);
    assert_int_equal(hnp_buffer_status(&buf), HNP_ERR_NOMEM);
    hnp_pack_u32(&buf, 7);
    hnp_pack_string(&buf, "x");
    assert_int_equal(buf.len, 1);
    assert_null(hnp_buffer_steal(&buf, &len));
    assert_int_equal(len, 0);
    assert_false(buf.failed); /* steal leaves an empty, usable buffer */

    if (SIZE_MAX > UINT32_MAX) {
        /* Blob and string lengths travel as u32. */
        hnp_pack_blob(&buf, small, (size_t)UINT32_MAX + 1);
        assert_true(buf.failed);
        assert_int_equal(buf.len, 0);
        hnp_buffer_release(&buf);
    }
    hnp_pack_bytes(&buf, NULL, 3);
    assert_true(buf.failed);
    hnp_buffer_release(&buf);
    hnp_pack_blob(&buf, NULL, 3);
    assert_true(buf.failed);
    hnp_buffer_release(&buf);
}

/* A failed allocation keeps what was packed (release() frees it), makes
 * every later pack a no-op and the steal a NULL. */
static void test_allocation_failure_is_sticky(void **state)
{
    static const uint8_t big[100] = { 0 };
    hnp_buffer_t buf;
    size_t len = 99;

    (void)state;
    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, 0x01020304u);
    allocations_fail = true;
    hnp_pack_bytes(&buf, big, sizeof(big)); /* needs to grow */
    allocations_fail = false;
    assert_true(buf.failed);
    assert_int_equal(hnp_buffer_status(&buf), HNP_ERR_NOMEM);
    assert_int_equal(buf.len, 4);
    assert_int_equal(buf.data[3], 0x04);
    hnp_pack_u8(&buf, 1);
    assert_int_equal(buf.len, 4);
    assert_null(hnp_buffer_steal(&buf, &len));
    assert_int_equal(len, 0);

    /* The very first allocation failing. */
    allocations_fail = true;
    hnp_pack_string(&buf, "x");
    allocations_fail = false;
    assert_true(buf.failed);
    assert_null(buf.data);
    hnp_buffer_release(&buf);

    /* Stealing an empty buffer needs one byte; without it, NULL. */
    allocations_fail = true;
    assert_null(hnp_buffer_steal(&buf, &len));
    allocations_fail = false;
    assert_int_equal(len, 0);
}

/* Near the top of size_t, doubling would wrap around: the buffer must ask
 * for exactly what it needs instead. */
static void test_growth_near_size_max_does_not_wrap(void **state)
{
    hnp_buffer_t buf;
    uint8_t *real_data = malloc(1);

    (void)state;
    assert_non_null(real_data);
    hnp_buffer_init(&buf);
    buf.data = real_data;
    buf.len = buf.cap = SIZE_MAX / 2 + 1; /* a pretend, full buffer */
    allocations_fail = true;
    hnp_pack_u32(&buf, 1);
    allocations_fail = false;
    assert_int_equal(last_size_asked, SIZE_MAX / 2 + 1 + 4);
    assert_true(buf.failed);
    assert_ptr_equal(buf.data, real_data);
    hnp_buffer_release(&buf);
}

static void test_string_allocation_failure_fails_the_reader(void **state)
{
    static const uint8_t bytes[] = { 0, 0, 0, 2, 'o', 'k' };
    exact_input_t in;

    (void)state;
    exact_input_open(&in, bytes, sizeof(bytes));
    allocations_fail = true;
    assert_null(hnp_unpack_string(&in.rd));
    allocations_fail = false;
    assert_int_equal(last_size_asked, 3);
    assert_reader_dead(&in.rd);
    exact_input_close(&in);
}

/* -------------------------------------------------- malformed input */

static void test_empty_input_fails_every_read(void **state)
{
    hnp_reader_t rd;

    (void)state;
    hnp_reader_init(&rd, NULL, 0);
    assert_int_equal(hnp_reader_status(&rd), HNP_SUCCESS);
    assert_int_equal(hnp_reader_remaining(&rd), 0);
    assert_int_equal(hnp_unpack_u8(&rd), 0);
    assert_reader_dead(&rd);

    /* NULL data with a length is refused outright. */
    hnp_reader_init(&rd, NULL, 10);
    assert_reader_dead(&rd);
}

/* Every fixed-size read, given each too-short input, fails and yields 0. */
static void test_short_fixed_reads(void **state)
{
    static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff };
    enum { U8, U32, U64, I32, DBL, NKINDS };
    static const size_t width[NKINDS] = { 1, 4, 8, 4, 8 };
    exact_input_t in;

    (void)state;
    for (int kind = 0; kind < NKINDS; kind++) {
        for (size_t len = 0; len < width[kind]; len++) {
            exact_input_open(&in, ones, len);
            switch (kind) {
            case U8: assert_int_equal(hnp_unpack_u8(&in.rd), 0); break;
            case U32: assert_int_equal(hnp_unpack_u32(&in.rd), 0); break;
            case U64: assert_true(hnp_unpack_u64(&in.rd) == 0); break;
            case I32: assert_int_equal(hnp_unpack_i32(&in.rd), 0); break;
            default: assert_true(double_bits(hnp_unpack_double(&in.rd)) == 0);
            }
            assert_reader_dead(&in.rd);
            exact_input_close(&in);
        }
    }
}

/* After one failed read, even a read that would fit yields nothing. */
static void test_failure_is_sticky(void **state)
{
    static const uint8_t bytes[] = { 0, 0, 0, 9, 'a', 'b', 7, 7 };
    exact_input_t in;

    (void)state;
    exact_input_open(&in, bytes, sizeof(bytes));
    assert_null(hnp_unpack_string(&in.rd)); /* claims 9, has 4 */
    assert_int_equal(hnp_reader_status(&in.rd), HNP_ERR_TRUNCATED);
    assert_reader_dead(&in.rd);
    exact_input_close(&in);
}

static void expect_bad_string(const uint8_t *bytes, size_t len)
{
    exact_input_t in;

    exact_input_open(&in, bytes, len);
    assert_null(hnp_unpack_string(&in.rd));
    assert_reader_dead(&in.rd);
    exact_input_close(&in);
}

static void test_malformed_strings(void **state)
{
    static const uint8_t short_prefix[] = { 0, 0, 1 };
    static const uint8_t past_end[] = { 0, 0, 0, 3, 'a', 'b' };
    static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 'a' };
    static const uint8_t high_bit[] = { 0x80, 0, 0, 1, 'a' };
    static const uint8_t inner_nul[] = { 0, 0, 0, 3, 'a', 0, 'b' };
    static const uint8_t trailing_nul[] = { 0, 0, 0, 3, 'a', 'b', 0 };
    static const uint8_t only_nul[] = { 0, 0, 0, 1, 0 };

    (void)state;
    expect_bad_string(short_prefix, sizeof(short_prefix));
    expect_bad_string(past_end, sizeof(past_end));
    expect_bad_string(huge, sizeof(huge));
    expect_bad_string(high_bit, sizeof(high_bit));
    expect_bad_string(inner_nul, sizeof(inner_nul));
    expect_bad_string(trailing_nul, sizeof(trailing_nul));
    expect_bad_string(only_nul, sizeof(only_nul));
}

static void expect_bad_blob(const uint8_t *bytes, size_t len)
{
    exact_input_t in;
    size_t blob_len = 99;

    exact_input_open(&in, bytes, len);
    assert_null(hnp_unpack_blob(&in.rd, &blob_len));
    assert_int_equal(blob_len, 0);
    assert_reader_dead(&in.rd);
    exact_input_close(&in);
}

static void test_malformed_blobs(void **state)
{
    static const uint8_t short_prefix[] = { 0, 0 };
    static const uint8_t one_past_end[] = { 0, 0, 0, 3, 1, 2 };
    static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4 };
    static const uint8_t exact[] = { 0, 0, 0, 2, 1, 2 };
    exact_input_t in;
    size_t len;

    (void)state;
    expect_bad_blob(short_prefix, sizeof(short_prefix));
    expect_bad_blob(one_past_end, sizeof(one_past_end));
    expect_bad_blob(huge, sizeof(huge));

    /* A length equal to what remains is fine, and leaves nothing. */
    exact_input_open(&in, exact, sizeof(exact));
    assert_non_null(hnp_unpack_blob(&in.rd, &len));
    assert_int_equal(len, 2);
    assert_int_equal(hnp_reader_remaining(&in.rd), 0);
    assert_int_equal(hnp_reader_status(&in.rd), HNP_SUCCESS);
    exact_input_close(&in);
}

/* A message of every type, and every prefix of it: only the whole message
 * parses, and every cut one fails without reading outside the prefix. */
static int read_whole_message(hnp_reader_t *rd)
{
    size_t len;
    char *s;
    int ok = 1;

    ok &= hnp_unpack_u8(rd) == 0x42;
    ok &= hnp_unpack_u32(rd) == 0x01020304u;
    ok &= hnp_unpack_u64(rd) == UINT64_MAX;
    ok &= hnp_unpack_i32(rd) == -7;
    ok &= hnp_unpack_double(rd) == 0.25;
    s = hnp_unpack_string(rd);
    ok &= s != NULL && strcmp(s, "node17") == 0;
    free(s);
    ok &= hnp_unpack_blob(rd, &len) != NULL && len == 3;
    return ok && hnp_reader_status(rd) == HNP_SUCCESS;
}

static void test_every_truncation_fails(void **state)
{
    hnp_buffer_t buf;
    exact_input_t in;

    (void)state;
    hnp_buffer_init(&buf);
    hnp_pack_u8(&buf, 0x42);
    hnp_pack_u32(&buf, 0x01020304u);
    hnp_pack_u64(&buf, UINT64_MAX);
    hnp_pack_i32(&buf, -7);
    hnp_pack_double(&buf, 0.25);
    hnp_pack_string(&buf, "node17");
    hnp_pack_blob(&buf, "xyz", 3);
    assert_int_equal(hnp_buffer_status(&buf), HNP_SUCCESS);

    for (size_t cut = 0; cut < buf.len; cut++) {
        exact_input_open(&in, buf.data, cut);
        if (read_whole_message(&in.rd))
            fail_msg("a message cut to %zu of %zu bytes parsed", cut, buf.len);
        assert_reader_dead(&in.rd);
        exact_input_close(&in);
    }
    exact_input_open(&in, buf.data, buf.len);
    assert_true(read_whole_message(&in.rd));
    assert_int_equal(hnp_reader_remaining(&in.rd), 0);
    exact_input_close(&in);
    hnp_buffer_release(&buf);
}

static void test_remaining_tracks_reads(void **state)
{
    static const uint8_t bytes[10] = { 0 };
    hnp_reader_t rd;

    (void)state;
    hnp_reader_init(&rd, bytes, sizeof(bytes));
    assert_int_equal(hnp_reader_remaining(&rd), 10);
    hnp_unpack_u8(&rd);
    assert_int_equal(hnp_reader_remaining(&rd), 9);
    hnp_unpack_u64(&rd);
    assert_int_equal(hnp_reader_remaining(&rd), 1);
    hnp_unpack_u32(&rd); /* too long: fails, consumes nothing usable */
    assert_int_equal(hnp_reader_remaining(&rd), 0);
    assert_int_equal(hnp_reader_status(&rd), HNP_ERR_TRUNCATED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers_are_big_endian),
        cmocka_unit_test(test_double_is_ieee754_bits),
        cmocka_unit_test(test_strings_and_blobs_carry_u32_length),
        cmocka_unit_test(test_integer_round_trips),
        cmocka_unit_test(test_double_round_trips),
        cmocka_unit_test(test_string_round_trips),
        cmocka_unit_test(test_blob_round_trips),
        cmocka_unit_test(test_growth_is_amortized_doubling),
        cmocka_unit_test(test_steal_hands_over_the_bytes),
        cmocka_unit_test(test_impossible_sizes_fail_the_buffer),
        cmocka_unit_test(test_allocation_failure_is_sticky),
        cmocka_unit_test(test_growth_near_size_max_does_not_wrap),
        cmocka_unit_test(test_string_allocation_failure_fails_the_reader),
        cmocka_unit_test(test_empty_input_fails_every_read),
        cmocka_unit_test(test_short_fixed_reads),
        cmocka_unit_test(test_failure_is_sticky),
        cmocka_unit_test(test_malformed_strings),
        cmocka_unit_test(test_malformed_blobs),
        cmocka_unit_test(test_every_truncation_fails),
        cmocka_unit_test(test_remaining_tracks_reads),
    };

    return cmocka_run_group_tests_name("buffer", tests, NULL, NULL);
}
