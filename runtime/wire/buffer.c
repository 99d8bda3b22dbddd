/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message buffers: a growable packer and a bounds-checked reader.
 *
 * Both sides record failure in a sticky flag instead of returning an error
 * from every call, so a message is built or parsed as straight-line code and
 * checked once at the end. Bytes from the network are untrusted: every read
 * is checked against what is left before anything is copied, and lengths are
 * compared with the remaining bytes by subtraction, which cannot overflow.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "hnp_errors.h"

/* The first allocation; small messages (most control traffic) fit at once. */
#define BUFFER_MIN_CAP 64

void hnp_buffer_init(hnp_buffer_t *buf)
{
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    buf->failed = false;
}

void hnp_buffer_release(hnp_buffer_t *buf)
{
    free(buf->data);
    hnp_buffer_init(buf);
}

/*
 * A failed buffer hands over nothing: its contents lack whatever could not be
 * appended, and sending them would put a malformed message on the wire. An
 * empty buffer hands over a one-byte allocation so that NULL always means
 * failure to the caller, even for a message with an empty body.
 */
uint8_t *hnp_buffer_steal(hnp_buffer_t *buf, size_t *len)
{
    uint8_t *data = buf->data;
    size_t n = buf->len;

    if (buf->failed) {
        hnp_buffer_release(buf);
        *len = 0;
        return NULL;
    }
    if (data == NULL)
        data = malloc(1);
    hnp_buffer_init(buf);
    *len = data != NULL ? n : 0;
    return data;
}

/* The capacity to grow to: doubling keeps appends amortized O(1); near the
 * top of size_t, exactly what is needed. */
static size_t grown_capacity(size_t cap, size_t need)
{
    size_t next = cap > 0 ? cap : BUFFER_MIN_CAP;

    while (next < need) {
        if (next > SIZE_MAX / 2)
            return need;
        next *= 2;
    }
    return next;
}

/* Room for @p extra more bytes, or mark the buffer failed. The old contents
 * stay valid when realloc fails, so release() still frees them. */
static bool buffer_reserve(hnp_buffer_t *buf, size_t extra)
{
    uint8_t *data;
    size_t cap;

    if (buf->failed)
        return false;
    if (extra > SIZE_MAX - buf->len) {
        buf->failed = true;
        return false;
    }
    if (buf->len + extra <= buf->cap)
        return true;
    cap = grown_capacity(buf->cap, buf->len + extra);
    data = realloc(buf->data, cap);
    if (data == NULL) {
        buf->failed = true;
        return false;
    }
    buf->data = data;
    buf->cap = cap;
    return true;
}

void hnp_pack_bytes(hnp_buffer_t *buf, const void *data, size_t len)
{
    if (len == 0)
        return;
    if (data == NULL) {
        /* A caller bug, but it must not become a silently short message. */
        buf->failed = true;
        return;
    }
    if (!buffer_reserve(buf, len))
        return;
    memcpy(buf->data + buf->len, data, len);
    buf->len += len;
}

void hnp_pack_u8(hnp_buffer_t *buf, uint8_t v)
{
    hnp_pack_bytes(buf, &v, 1);
}

void hnp_pack_u32(hnp_buffer_t *buf, uint32_t v)
{
    uint8_t be[4] = {
        (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v,
    };

    hnp_pack_bytes(buf, be, sizeof(be));
}

void hnp_pack_u64(hnp_buffer_t *buf, uint64_t v)
{
    hnp_pack_u32(buf, (uint32_t)(v >> 32));
    hnp_pack_u32(buf, (uint32_t)v);
}

/* Two's complement bits on the wire, whatever the host does. */
void hnp_pack_i32(hnp_buffer_t *buf, int32_t v)
{
    hnp_pack_u32(buf, (uint32_t)v);
}

/* The IEEE-754 bit pattern travels as a u64, so every value (NaN payloads,
 * signed zeros, infinities) arrives exactly as sent. */
void hnp_pack_double(hnp_buffer_t *buf, double v)
{
    uint64_t bits;

    _Static_assert(sizeof(double) == sizeof(uint64_t),
                   "doubles travel as 64-bit IEEE-754 values");
    memcpy(&bits, &v, sizeof(bits));
    hnp_pack_u64(buf, bits);
}

/* A length that does not fit the u32 prefix fails the buffer rather than
 * being truncated into a message the reader would misparse. */
void hnp_pack_blob(hnp_buffer_t *buf, const void *data, size_t len)
{
    if (len > UINT32_MAX || (data == NULL && len > 0)) {
        buf->failed = true;
        return;
    }
    hnp_pack_u32(buf, (uint32_t)len);
    hnp_pack_bytes(buf, data, len);
}

void hnp_pack_string(hnp_buffer_t *buf, const char *s)
{
    if (s == NULL)
        s = "";
    hnp_pack_blob(buf, s, strlen(s));
}

int hnp_buffer_status(const hnp_buffer_t *buf)
{
    return buf->failed ? HNP_ERR_NOMEM : HNP_SUCCESS;
}

void hnp_reader_init(hnp_reader_t *rd, const void *data, size_t len)
{
    rd->data = data;
    rd->len = data != NULL ? len : 0;
    rd->pos = 0;
    rd->failed = data == NULL && len > 0;
}

/* A failed reader has nothing left to give, so loops that run while bytes
 * remain end at the first malformed field. */
size_t hnp_reader_remaining(const hnp_reader_t *rd)
{
    return rd->failed ? 0 : rd->len - rd->pos;
}

int hnp_reader_status(const hnp_reader_t *rd)
{
    return rd->failed ? HNP_ERR_TRUNCATED : HNP_SUCCESS;
}

/* The next @p n bytes, or NULL (and the reader failed) when fewer remain. */
static const uint8_t *reader_take(hnp_reader_t *rd, size_t n)
{
    const uint8_t *p;

    if (rd->failed || n > rd->len - rd->pos) {
        rd->failed = true;
        return NULL;
    }
    p = rd->data + rd->pos;
    rd->pos += n;
    return p;
}

uint8_t hnp_unpack_u8(hnp_reader_t *rd)
{
    const uint8_t *p = reader_take(rd, 1);

    return p != NULL ? p[0] : 0;
}

uint32_t hnp_unpack_u32(hnp_reader_t *rd)
{
    const uint8_t *p = reader_take(rd, 4);

    if (p == NULL)
        return 0;
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

uint64_t hnp_unpack_u64(hnp_reader_t *rd)
{
    uint64_t hi = hnp_unpack_u32(rd);
    uint64_t lo = hnp_unpack_u32(rd);

    /* A short second half must not leave half a value behind. */
    return rd->failed ? 0 : hi << 32 | lo;
}

int32_t hnp_unpack_i32(hnp_reader_t *rd)
{
    uint32_t u = hnp_unpack_u32(rd);

    /* Converting an out-of-range value to a signed type is
     * implementation-defined; build the negative value arithmetically. */
    if (u <= INT32_MAX)
        return (int32_t)u;
    return -(int32_t)(UINT32_MAX - u) - 1;
}

double hnp_unpack_double(hnp_reader_t *rd)
{
    uint64_t bits = hnp_unpack_u64(rd);
    double v;

    memcpy(&v, &bits, sizeof(v));
    return v;
}

const void *hnp_unpack_blob(hnp_reader_t *rd, size_t *len)
{
    uint32_t n = hnp_unpack_u32(rd);
    const uint8_t *p = reader_take(rd, n);

    if (len != NULL)
        *len = p != NULL ? n : 0;
    return p;
}

/* A C string cannot hold a NUL: one inside the bytes would silently cut the
 * string short on the receiving side, so it makes the message malformed. */
char *hnp_unpack_string(hnp_reader_t *rd)
{
    size_t n;
    const char *p = hnp_unpack_blob(rd, &n);
    char *s;

    if (p == NULL)
        return NULL;
    if (memchr(p, '\0', n) != NULL || n == SIZE_MAX) {
        rd->failed = true;
        return NULL;
    }
    s = malloc(n + 1);
    if (s == NULL) {
        rd->failed = true;
        return NULL;
    }
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}
