/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks every runtime message goes through in test_messages.c,
 * driven by a codec (its struct's size, pack, unpack, clear and
 * equality): a round trip, every truncation, every allocation of the
 * unpack failed in turn, golden layouts and refusals. The test is linked
 * with -Wl,--wrap for malloc, calloc, realloc and free: codec_check.c
 * counts the live blocks of the code under test and can fail any one
 * allocation.
 */
#ifndef HNP_TEST_CODEC_CHECK_H
#define HNP_TEST_CODEC_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

/* One message, seen through void pointers so that one set of checks serves
 * them all. */
typedef struct codec {
    const char *name;
    size_t size; /* of its struct */
    int (*pack)(hnp_buffer_t *buf, const void *m);
    int (*unpack)(hnp_reader_t *rd, void *m);
    void (*clear)(void *m); /* NULL: the struct owns nothing */
    bool (*equal)(const void *a, const void *b);
} codec_t;

#define CODEC_CALLS(msg)                                                  \
    static int pack_##msg(hnp_buffer_t *buf, const void *m)               \
    {                                                                     \
        return hnp_wire_##msg##_pack(buf, m);                             \
    }                                                                     \
    static int unpack_##msg(hnp_reader_t *rd, void *m)                    \
    {                                                                     \
        return hnp_wire_##msg##_unpack(rd, m);                            \
    }
#define CLEAR_CALL(msg)                                                   \
    static void clear_##msg(void *m) { hnp_wire_##msg##_clear(m); }
#define CODEC(msg, clear)                                                 \
    { #msg, sizeof(hnp_wire_##msg##_t), pack_##msg, unpack_##msg, clear,  \
      equal_##msg }

#define U32(v)                                                            \
    (uint8_t)((uint32_t)(v) >> 24), (uint8_t)((uint32_t)(v) >> 16),       \
        (uint8_t)((uint32_t)(v) >> 8), (uint8_t)(v)
#define U64(v) U32((uint64_t)(v) >> 32), U32(v)

/* Strings as they come back: NULL packs like "". */
bool same_string(const char *a, const char *b);
bool same_bytes(const void *a, size_t alen, const void *b, size_t blen);
/* @p n strings, and the vector NULL-terminated (as an unpack leaves it) */
bool same_strings(char *const *packed, char *const *unpacked, uint32_t n);

/* Everything a message must survive, for @p value. */
void check_message(const codec_t *c, const void *value);
/* The bytes @p value packs to are @p expect. */
void check_golden(const codec_t *c, const void *value, const uint8_t *expect,
                  size_t expect_len);
/* Unpacking @p bytes fails with @p expect, cleanly. */
void check_refused(const codec_t *c, const uint8_t *bytes, size_t len,
                   int expect);

#endif /* HNP_TEST_CODEC_CHECK_H */
