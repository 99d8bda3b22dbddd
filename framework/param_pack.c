/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The values the HNP forwards to its daemons, as one buffer.
 *
 *   "HNPP"  version (1 byte)  count (varint)
 *   count x { name length (varint) name  value length (varint) value }
 *   FNV-1a hash of everything before it (4 bytes, big-endian)
 *
 * Varints are little-endian base-128 (7 bits a byte, high bit: more), so a
 * typical entry costs two bytes besides its text. Names and values are
 * text without NUL bytes. The hash catches what structure checks cannot,
 * such as a flipped byte inside a value: FNV-1a detects any single changed
 * byte, because each of its steps is a bijection of the running state.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "param_internal.h"

#define PACK_MAGIC "HNPP"
#define PACK_MAGIC_LEN 4
#define PACK_VERSION 1
#define PACK_HASH_LEN 4
#define PACK_VARINT_MAX 5 /* bytes for a 32-bit value */

static uint32_t fnv1a(const unsigned char *data, size_t len)
{
    uint32_t hash = 2166136261u;

    for (size_t i = 0; i < len; i++) {
        hash ^= data[i];
        hash *= 16777619u;
    }
    return hash;
}

static size_t varint_len(uint32_t value)
{
    size_t len = 1;

    while (value >= 0x80) {
        value >>= 7;
        len++;
    }
    return len;
}

static unsigned char *varint_put(unsigned char *out, uint32_t value)
{
    while (value >= 0x80) {
        *out++ = (unsigned char)(value | 0x80);
        value >>= 7;
    }
    *out++ = (unsigned char)value;
    return out;
}

/* ------------------------------------------------------------ packing */

/* Call @p fn with the name and winning text of every value set by a
 * source other than the default: registered parameters first, under their
 * main name, then names nothing registered, in the order first set. */
typedef int (*forward_fn)(const char *name, const char *value, void *ctx);

typedef struct forward_unregistered {
    forward_fn fn;
    void *ctx;
} forward_unregistered_t;

static int forward_one_unregistered(const char *name, const char *value,
                                    hnp_param_source_t source, void *ctx)
{
    const forward_unregistered_t *f = ctx;

    (void)source;
    return f->fn(name, value, f->ctx);
}

static int for_each_forwarded(const hnp_params_t *params, forward_fn fn,
                              void *ctx)
{
    forward_unregistered_t unregistered = { fn, ctx };

    for (size_t i = 0; i < params->nparams; i++) {
        const param_t *param = params->params[i];
        if (param->source == HNP_PARAM_SRC_DEFAULT)
            continue;
        int rc = fn(param->full_name, param->value_text, ctx);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return hnp_params_foreach_unregistered(params, forward_one_unregistered,
                                           &unregistered);
}

typedef struct pack_sizer {
    size_t bytes;
    uint32_t count;
} pack_sizer_t;

static int size_entry(const char *name, const char *value, void *ctx)
{
    pack_sizer_t *sizer = ctx;
    size_t name_len = strlen(name);
    size_t value_len = strlen(value);

    if (name_len > UINT32_MAX || value_len > UINT32_MAX ||
        sizer->count == UINT32_MAX)
        return HNP_ERR_BAD_PARAM;
    sizer->bytes += varint_len((uint32_t)name_len) + name_len +
                    varint_len((uint32_t)value_len) + value_len;
    sizer->count++;
    return HNP_SUCCESS;
}

static unsigned char *put_text(unsigned char *out, const char *text)
{
    size_t len = strlen(text);

    out = varint_put(out, (uint32_t)len);
    memcpy(out, text, len);
    return out + len;
}

static int write_entry(const char *name, const char *value, void *ctx)
{
    unsigned char **cursor = ctx;

    *cursor = put_text(*cursor, name);
    *cursor = put_text(*cursor, value);
    return HNP_SUCCESS;
}

int hnp_params_pack(const hnp_params_t *params, char **out, size_t *len)
{
    pack_sizer_t sizer = { 0, 0 };
    unsigned char *buf;
    unsigned char *cursor;
    int rc;

    if (params == NULL || out == NULL || len == NULL)
        return HNP_ERR_BAD_PARAM;
    rc = for_each_forwarded(params, size_entry, &sizer);
    if (rc != HNP_SUCCESS)
        return rc;
    size_t total = PACK_MAGIC_LEN + 1 + varint_len(sizer.count) +
                   sizer.bytes + PACK_HASH_LEN;
    buf = malloc(total);
    if (buf == NULL)
        return HNP_ERR_NOMEM;
    memcpy(buf, PACK_MAGIC, PACK_MAGIC_LEN);
    buf[PACK_MAGIC_LEN] = PACK_VERSION;
    cursor = varint_put(buf + PACK_MAGIC_LEN + 1, sizer.count);
    for_each_forwarded(params, write_entry, &cursor);
    uint32_t hash = fnv1a(buf, (size_t)(cursor - buf));
    for (int shift = 24; shift >= 0; shift -= 8)
        *cursor++ = (unsigned char)(hash >> shift);
    *out = (char *)buf;
    *len = total;
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ unpacking */

typedef struct unpack_cursor {
    const unsigned char *pos;
    const unsigned char *end; /* where the hash begins */
} unpack_cursor_t;

static int varint_get(unpack_cursor_t *in, uint32_t *value)
{
    uint32_t result = 0;

    for (int i = 0; i < PACK_VARINT_MAX; i++) {
        if (in->pos == in->end)
            return HNP_ERR_TRUNCATED;
        unsigned char byte = *in->pos++;
        /* The fifth byte holds only the top 4 bits of 32. */
        if (i == PACK_VARINT_MAX - 1 && byte > 0x0f)
            return HNP_ERR_BAD_PARAM;
        result |= (uint32_t)(byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0) {
            *value = result;
            return HNP_SUCCESS;
        }
    }
    return HNP_ERR_BAD_PARAM;
}

/* A length-prefixed text, copied out with its terminating NUL. */
static int text_get(unpack_cursor_t *in, bool allow_empty, char **text)
{
    uint32_t len;
    int rc = varint_get(in, &len);

    if (rc != HNP_SUCCESS)
        return rc;
    if ((size_t)(in->end - in->pos) < len)
        return HNP_ERR_TRUNCATED;
    if ((len == 0 && !allow_empty) || memchr(in->pos, '\0', len) != NULL)
        return HNP_ERR_BAD_PARAM;
    *text = strndup((const char *)in->pos, len);
    if (*text == NULL)
        return HNP_ERR_NOMEM;
    in->pos += len;
    return HNP_SUCCESS;
}

typedef struct unpacked {
    param_assignment_t *items;
    size_t count;
} unpacked_t;

static void unpacked_free(unpacked_t *unpacked)
{
    for (size_t i = 0; i < unpacked->count; i++) {
        free((char *)unpacked->items[i].name);
        free((char *)unpacked->items[i].value);
    }
    free(unpacked->items);
}

/* The packer never repeats a name: one that does means a corrupt buffer. */
static bool has_duplicate_names(const unpacked_t *unpacked)
{
    for (size_t i = 0; i < unpacked->count; i++)
        for (size_t j = i + 1; j < unpacked->count; j++)
            if (strcmp(unpacked->items[i].name, unpacked->items[j].name) == 0)
                return true;
    return false;
}

static int entries_get(unpack_cursor_t *in, unpacked_t *unpacked)
{
    uint32_t count;
    int rc = varint_get(in, &count);

    if (rc != HNP_SUCCESS)
        return rc;
    /* Each entry takes at least three bytes: bound the allocation by what
     * the buffer could hold before trusting the count. */
    if (count > (size_t)(in->end - in->pos) / 3)
        return HNP_ERR_TRUNCATED;
    unpacked->items = calloc((size_t)count + 1, sizeof(*unpacked->items));
    if (unpacked->items == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < count; i++) {
        param_assignment_t *item = &unpacked->items[unpacked->count];
        char *name = NULL;
        char *value = NULL;
        rc = text_get(in, false, &name);
        if (rc == HNP_SUCCESS)
            rc = text_get(in, true, &value);
        if (rc != HNP_SUCCESS) {
            free(name);
            return rc;
        }
        *item = (param_assignment_t){ .name = name, .value = value };
        unpacked->count++;
    }
    if (in->pos != in->end)
        return HNP_ERR_BAD_PARAM;
    return has_duplicate_names(unpacked) ? HNP_ERR_BAD_PARAM : HNP_SUCCESS;
}

static int check_frame(const unsigned char *buf, size_t len)
{
    if (len < PACK_MAGIC_LEN + 1 + 1 + PACK_HASH_LEN)
        return HNP_ERR_TRUNCATED;
    if (memcmp(buf, PACK_MAGIC, PACK_MAGIC_LEN) != 0 ||
        buf[PACK_MAGIC_LEN] != PACK_VERSION)
        return HNP_ERR_BAD_PARAM;
    return HNP_SUCCESS;
}

static int check_hash(const unsigned char *buf, size_t len)
{
    const unsigned char *stored = buf + len - PACK_HASH_LEN;
    uint32_t expected = (uint32_t)stored[0] << 24 |
                        (uint32_t)stored[1] << 16 |
                        (uint32_t)stored[2] << 8 | (uint32_t)stored[3];

    return fnv1a(buf, len - PACK_HASH_LEN) == expected ? HNP_SUCCESS
                                                       : HNP_ERR_BAD_PARAM;
}

int hnp_params_unpack(hnp_params_t *params, const char *buf, size_t len,
                      hnp_param_source_t source, char *err, size_t errlen)
{
    const unsigned char *bytes = (const unsigned char *)buf;
    unpacked_t unpacked = { NULL, 0 };
    int rc;

    if (params == NULL || buf == NULL) {
        hnp_err_set(err, errlen, "no registry or no buffer to unpack");
        return HNP_ERR_BAD_PARAM;
    }
    rc = check_frame(bytes, len);
    if (rc == HNP_SUCCESS) {
        unpack_cursor_t in = { bytes + PACK_MAGIC_LEN + 1,
                               bytes + len - PACK_HASH_LEN };
        rc = entries_get(&in, &unpacked);
    }
    /* Checked last: a truncated buffer is better reported as truncated. */
    if (rc == HNP_SUCCESS)
        rc = check_hash(bytes, len);
    if (rc == HNP_SUCCESS)
        rc = param_assign(params, unpacked.items, unpacked.count, source, err,
                          errlen);
    else
        hnp_err_set(err, errlen, "packed parameters (%zu bytes) rejected: %s",
                    len, rc == HNP_ERR_BAD_PARAM ? "corrupt" : hnp_strerror(rc));
    unpacked_free(&unpacked);
    return rc;
}
