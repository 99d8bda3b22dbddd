/* SPDX-License-Identifier: BSD-3-Clause */
/* The checks of every runtime message (see codec_check.h). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "codec_check.h"

/* ------------------------------------------------------------ allocations */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);
void __real_free(void *ptr);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *ptr, size_t size);
void __wrap_free(void *ptr);

static long live_blocks;   /* allocated and not yet freed */
static long fail_countdown = -1; /* allocations left before one fails */
static size_t largest_asked;

/* Whether this allocation is the one that must fail. */
static bool allocation_fails(size_t size)
{
    if (size > largest_asked)
        largest_asked = size;
    if (fail_countdown < 0)
        return false;
    return fail_countdown-- == 0;
}

void *__wrap_malloc(size_t size)
{
    void *p = allocation_fails(size) ? NULL : __real_malloc(size);

    live_blocks += p != NULL;
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    void *p = allocation_fails(n * size) ? NULL : __real_calloc(n, size);

    live_blocks += p != NULL;
    return p;
}

void *__wrap_realloc(void *ptr, size_t size)
{
    void *p = allocation_fails(size) ? NULL : __real_realloc(ptr, size);

    live_blocks += ptr == NULL && p != NULL;
    return p;
}

void __wrap_free(void *ptr)
{
    live_blocks -= ptr != NULL;
    __real_free(ptr);
}

/* ------------------------------------------------------------ comparisons */

/* Strings as they come back: NULL packs like "". */
bool same_string(const char *a, const char *b)
{
    return strcmp(a != NULL ? a : "", b != NULL ? b : "") == 0;
}

bool same_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* @p n strings, and the vector NULL-terminated (as an unpack leaves it) */
bool same_strings(char *const *packed, char *const *unpacked,
                         uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!same_string(packed[i], unpacked[i]))
            return false;
    return unpacked[n] == NULL;
}

/* ------------------------------------------------------------ the checks */

/* The bytes of @p value as @p c packs them (caller frees). */
static uint8_t *packed(const codec_t *c, const void *value, size_t *len)
{
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    assert_int_equal(c->pack(&buf, value), HNP_SUCCESS);
    return hnp_buffer_steal(&buf, len);
}

/* Unpack the first @p len bytes of @p bytes from an exact-size copy into
 * @p out (c->size bytes); the reader's remaining bytes in *left. */
static int unpack_prefix(const codec_t *c, const uint8_t *bytes, size_t len,
                         void *out, uint8_t **copy, size_t *left)
{
    hnp_reader_t rd;
    int rc;

    *copy = malloc(len > 0 ? len : 1);
    assert_non_null(*copy);
    if (len > 0)
        memcpy(*copy, bytes, len);
    hnp_reader_init(&rd, *copy, len);
    rc = c->unpack(&rd, out);
    *left = hnp_reader_remaining(&rd);
    return rc;
}

static void assert_zeroed(const void *m, size_t size)
{
    static const uint8_t zero[512];

    assert_true(size <= sizeof(zero));
    assert_memory_equal(m, zero, size);
}

/* A failed unpack: a negative code, the struct zeroed, nothing left
 * allocated beyond @p baseline blocks. */
static void assert_failed_cleanly(const codec_t *c, int rc, const void *m,
                                  long baseline)
{
    assert_true(rc < 0);
    assert_zeroed(m, c->size);
    assert_int_equal(live_blocks, baseline);
}

static void check_round_trip(const codec_t *c, const uint8_t *bytes,
                             size_t len, const void *value)
{
    long baseline = live_blocks;
    void *out = calloc(1, c->size);
    uint8_t *copy;
    size_t left;

    assert_non_null(out);
    assert_int_equal(unpack_prefix(c, bytes, len, out, &copy, &left),
                     HNP_SUCCESS);
    assert_int_equal(left, 0); /* every byte is a field */
    assert_true(c->equal(value, out));
    if (c->clear != NULL) {
        c->clear(out);
        assert_zeroed(out, c->size); /* cleared twice is harmless */
        c->clear(out);
    }
    free(copy);
    free(out);
    assert_int_equal(live_blocks, baseline);
}

static void check_truncations(const codec_t *c, const uint8_t *bytes,
                              size_t len)
{
    void *out = malloc(c->size);

    assert_non_null(out);
    for (size_t cut = 0; cut < len; cut++) {
        long baseline = live_blocks;
        uint8_t *copy;
        size_t left;
        int rc;

        memset(out, 0xa5, c->size);
        rc = unpack_prefix(c, bytes, cut, out, &copy, &left);
        free(copy);
        assert_failed_cleanly(c, rc, out, baseline);
    }
    free(out);
}

/* Fail the unpack's first allocation, then its second, and so on, until
 * it makes no more. */
static void check_allocation_failures(const codec_t *c, const uint8_t *bytes,
                                      size_t len, const void *value)
{
    void *out = malloc(c->size);
    hnp_reader_t rd;
    int rc;

    assert_non_null(out);
    for (long n = 0;; n++) {
        long baseline = live_blocks;

        assert_true(n < 1000);
        memset(out, 0xa5, c->size);
        hnp_reader_init(&rd, bytes, len);
        fail_countdown = n;
        rc = c->unpack(&rd, out);
        fail_countdown = -1;
        if (rc == HNP_SUCCESS) {
            assert_true(c->equal(value, out));
            if (c->clear != NULL)
                c->clear(out);
            assert_int_equal(live_blocks, baseline);
            break;
        }
        assert_failed_cleanly(c, rc, out, baseline);
    }
    free(out);
}

/* Everything a message must survive, for @p value. */
void check_message(const codec_t *c, const void *value)
{
    long baseline = live_blocks;
    size_t len;
    uint8_t *bytes = packed(c, value, &len);

    check_round_trip(c, bytes, len, value);
    check_truncations(c, bytes, len);
    check_allocation_failures(c, bytes, len, value);
    free(bytes);
    assert_int_equal(live_blocks, baseline);
}

/* The bytes @p value packs to are @p expect. */
void check_golden(const codec_t *c, const void *value,
                         const uint8_t *expect, size_t expect_len)
{
    size_t len;
    uint8_t *bytes = packed(c, value, &len);

    assert_int_equal(len, expect_len);
    assert_memory_equal(bytes, expect, len);
    free(bytes);
}

/* Unpacking @p bytes fails with @p expect, cleanly. */
void check_refused(const codec_t *c, const uint8_t *bytes, size_t len,
                          int expect)
{
    long baseline = live_blocks;
    void *out = malloc(c->size);
    uint8_t *copy;
    size_t left;
    int rc;

    assert_non_null(out);
    memset(out, 0xa5, c->size);
    largest_asked = 0;
    rc = unpack_prefix(c, bytes, len, out, &copy, &left);
    free(copy);
    assert_int_equal(rc, expect);
    assert_failed_cleanly(c, rc, out, baseline + 1);
    free(out);
    assert_true(largest_asked <= len + 64); /* nothing sized by a lie */
}
