/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_buffer.h
 * @brief Message bodies: a growable buffer with typed packing, and a
 * bounds-checked reader.
 *
 * Integers travel in network byte order, doubles as their IEEE 754 bits in
 * a u64; strings and blobs carry a 32-bit length. Every runtime message
 * body is built with these.
 */
#ifndef HNP_BUFFER_H
#define HNP_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hnp_buffer {
    uint8_t *data;
    size_t len;
    size_t cap;
    bool failed; /**< a pack failed (no memory, or a blob too long for its
                      32-bit length): every later pack is a no-op */
} hnp_buffer_t;

HNP_EXPORT void hnp_buffer_init(hnp_buffer_t *buf);
HNP_EXPORT void hnp_buffer_release(hnp_buffer_t *buf);
/** Hand the bytes over to the caller (who frees them); the buffer is empty.
 *  NULL when a pack failed (the buffer is then released); an empty buffer
 *  gives a one-byte allocation and *len 0. */
HNP_EXPORT uint8_t *hnp_buffer_steal(hnp_buffer_t *buf, size_t *len);

/* Packing never fails visibly; check buf->failed (or the return of
 * hnp_buffer_status()) once at the end. */
HNP_EXPORT void hnp_pack_u8(hnp_buffer_t *buf, uint8_t v);
HNP_EXPORT void hnp_pack_u32(hnp_buffer_t *buf, uint32_t v);
HNP_EXPORT void hnp_pack_u64(hnp_buffer_t *buf, uint64_t v);
HNP_EXPORT void hnp_pack_i32(hnp_buffer_t *buf, int32_t v);
HNP_EXPORT void hnp_pack_double(hnp_buffer_t *buf, double v);
/** A NUL-terminated string; NULL packs like "". */
HNP_EXPORT void hnp_pack_string(hnp_buffer_t *buf, const char *s);
HNP_EXPORT void hnp_pack_blob(hnp_buffer_t *buf, const void *data, size_t len);
/** Raw bytes without a length. */
HNP_EXPORT void hnp_pack_bytes(hnp_buffer_t *buf, const void *data, size_t len);
/** HNP_SUCCESS, or HNP_ERR_NOMEM when any pack failed (for any reason). */
HNP_EXPORT int hnp_buffer_status(const hnp_buffer_t *buf);

/** Reads what the packers wrote. Never reads past the end: a short or
 *  malformed input sets @c failed and every later read yields zero/NULL. */
typedef struct hnp_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    bool failed;
} hnp_reader_t;

HNP_EXPORT void hnp_reader_init(hnp_reader_t *rd, const void *data, size_t len);
HNP_EXPORT uint8_t hnp_unpack_u8(hnp_reader_t *rd);
HNP_EXPORT uint32_t hnp_unpack_u32(hnp_reader_t *rd);
HNP_EXPORT uint64_t hnp_unpack_u64(hnp_reader_t *rd);
HNP_EXPORT int32_t hnp_unpack_i32(hnp_reader_t *rd);
HNP_EXPORT double hnp_unpack_double(hnp_reader_t *rd);
/** A string packed by hnp_pack_string(), malloc'd (caller frees); NULL on
 *  failure, including an embedded NUL or a length past the end. */
HNP_EXPORT char *hnp_unpack_string(hnp_reader_t *rd);
/** A blob without copying: points into the reader's data; NULL (and
 *  *len 0) when the read fails. */
HNP_EXPORT const void *hnp_unpack_blob(hnp_reader_t *rd, size_t *len);
/** HNP_SUCCESS, or HNP_ERR_TRUNCATED when any read failed. */
HNP_EXPORT int hnp_reader_status(const hnp_reader_t *rd);
/** Bytes not yet read. */
HNP_EXPORT size_t hnp_reader_remaining(const hnp_reader_t *rd);

#ifdef __cplusplus
}
#endif

#endif /* HNP_BUFFER_H */
