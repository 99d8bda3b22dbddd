/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A published PMIx value as the name service keeps it (opaque bytes, see
 * pmi_pmix_names.c for the three encodings), and back. Strings and byte
 * objects are kept as they always were; a value of any other type is
 * libpmix's own packing of the pmix_value_t (PMIx_Data_pack of one
 * PMIX_VALUE, for this server's peer), behind PMI_PMIX_NAME_PACKED and
 * the packing's check sum (8 bytes, most significant first: FNV-1a, 64
 * bits).
 *
 * What is decoded came from another process over the network, and
 * libpmix 4.2 reads past the end of some malformed packings (a string
 * without its terminator, integers a count overstates). So a packing
 * that does not match its check sum never reaches libpmix; one that
 * does and still does not unpack into exactly one value, with nothing
 * left over, is refused as well. Either is PMIX_ERR_UNPACK_FAILURE,
 * never a value half given back. The check sum guards against what
 * was damaged, not against a forger: only the daemons of the session,
 * which hold its secret, put values into the name service, and no
 * client's string or bytes can begin with the mark.
 *
 * Threads: a value is encoded in the publish upcall, on libpmix's
 * thread, and decoded where a lookup is answered, on the event loop.
 * PMIx_Data_pack/_unpack with no target use the server's own peer
 * (its buffer ops and buffer type), which PMIx_server_init() sets and
 * nothing changes after; the buffers are the caller's. So both run on
 * either thread, from the server's init on.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmi_pmix_internal.h"

static const unsigned char packed_mark[PMI_PMIX_NAME_MARK_LEN] =
    PMI_PMIX_NAME_PACKED;

/* libpmix's packing of @p value, into @p bo (free bo->bytes). */
static pmix_status_t pack_value(const pmix_value_t *value,
                                pmix_byte_object_t *bo)
{
    pmix_data_buffer_t buf;
    pmix_status_t st;

    PMIX_BYTE_OBJECT_CONSTRUCT(bo);
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    st = PMIx_Data_pack(NULL, &buf, (void *)value, 1, PMIX_VALUE);
    if (st == PMIX_SUCCESS)
        st = PMIx_Data_unload(&buf, bo);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    if (st == PMIX_SUCCESS && bo->size == 0)
        st = PMIX_ERR_PACK_FAILURE;
    return st;
}

#define SUM_LEN 8
#define HEAD_LEN (PMI_PMIX_NAME_MARK_LEN + SUM_LEN)

/* FNV-1a: a byte changed anywhere always changes it. */
static uint64_t check_sum(const void *bytes, size_t len)
{
    const unsigned char *p = bytes;
    uint64_t sum = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < len; i++)
        sum = (sum ^ p[i]) * 0x100000001b3ull;
    return sum;
}

static pmix_status_t encode_packed(const pmix_value_t *value, char **bytes,
                                   size_t *len)
{
    pmix_byte_object_t bo;
    pmix_status_t st = pack_value(value, &bo);

    if (st == PMIX_SUCCESS && (*bytes = malloc(HEAD_LEN + bo.size)) == NULL)
        st = PMIX_ERR_NOMEM;
    if (st == PMIX_SUCCESS) {
        uint64_t sum = check_sum(bo.bytes, bo.size);
        memcpy(*bytes, packed_mark, PMI_PMIX_NAME_MARK_LEN);
        for (size_t i = 0; i < SUM_LEN; i++)
            (*bytes)[PMI_PMIX_NAME_MARK_LEN + i] =
                (char)(sum >> (8 * (SUM_LEN - 1 - i)));
        memcpy(*bytes + HEAD_LEN, bo.bytes, bo.size);
        *len = HEAD_LEN + bo.size;
    }
    free(bo.bytes);
    return st;
}

pmix_status_t pmi_pmix_name_value_encode(const pmix_value_t *value,
                                         char **bytes, size_t *len)
{
    *bytes = NULL;
    *len = 0;
    if (value->type == PMIX_STRING) {
        *bytes = strdup(value->data.string != NULL ? value->data.string : "");
        *len = *bytes != NULL ? strlen(*bytes) : 0;
    } else if (value->type == PMIX_BYTE_OBJECT) {
        size_t n = value->data.bo.bytes != NULL ? value->data.bo.size : 0;
        if ((*bytes = malloc(n + 1)) != NULL) {
            (*bytes)[0] = '\0';
            if (n > 0)
                memcpy(*bytes + 1, value->data.bo.bytes, n);
            *len = n + 1;
        }
    } else if (value->type == PMIX_POINTER) {
        /* an address means nothing in the process that looks it up */
        return PMIX_ERR_NOT_SUPPORTED;
    } else {
        return encode_packed(value, bytes, len);
    }
    return *bytes != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

/* Zeros past the bytes libpmix is given to unpack: libpmix 4.2's
 * integer decoder reads on past the end of a buffer that a count of
 * integers overstates, as long as it sees continuation bits; a zero has
 * none, so it stops in this padding and reports the truncation. */
#define UNPACK_PADDING 16

/* @p value is what @p bytes (libpmix's packing) hold: one value and
 * nothing left over. */
static pmix_status_t unpack_value(const char *bytes, size_t len,
                                  pmix_value_t *value)
{
    pmix_data_buffer_t buf;
    pmix_byte_object_t bo = { NULL, len };
    int32_t count = 1;
    pmix_status_t st;

    if (len == 0)
        return PMIX_ERR_UNPACK_FAILURE;
    /* libpmix takes the bytes it is given (and frees them) */
    if ((bo.bytes = calloc(1, len + UNPACK_PADDING)) == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(bo.bytes, bytes, len);
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    st = PMIx_Data_load(&buf, &bo);
    free(bo.bytes); /* NULL once loaded */
    if (st == PMIX_SUCCESS)
        st = PMIx_Data_unpack(NULL, &buf, value, &count, PMIX_VALUE);
    if (st == PMIX_SUCCESS &&
        (count != 1 || buf.unpack_ptr != buf.base_ptr + buf.bytes_used))
        st = PMIX_ERR_UNPACK_FAILURE;
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    return st;
}

/* @p bytes: the check sum, then the packing. */
static pmix_status_t decode_packed(const char *bytes, size_t len,
                                   pmix_value_t *value)
{
    const unsigned char *p = (const unsigned char *)bytes;
    pmix_status_t st = PMIX_ERR_UNPACK_FAILURE;
    uint64_t sum = 0;

    if (len <= SUM_LEN)
        return st;
    for (size_t i = 0; i < SUM_LEN; i++)
        sum = sum << 8 | p[i];
    if (sum == check_sum(p + SUM_LEN, len - SUM_LEN))
        st = unpack_value(bytes + SUM_LEN, len - SUM_LEN, value);
    if (st != PMIX_SUCCESS) {
        PMIX_VALUE_DESTRUCT(value);
        PMIX_VALUE_CONSTRUCT(value);
        if (st != PMIX_ERR_NOMEM)
            st = PMIX_ERR_UNPACK_FAILURE;
    }
    return st;
}

pmix_status_t pmi_pmix_name_value_decode(const void *bytes, size_t len,
                                         pmix_value_t *value)
{
    const char *v = bytes != NULL ? bytes : "";
    pmix_status_t st = PMIX_SUCCESS;

    PMIX_VALUE_CONSTRUCT(value);
    if (bytes == NULL)
        len = 0;
    if (len >= PMI_PMIX_NAME_MARK_LEN &&
        memcmp(v, packed_mark, PMI_PMIX_NAME_MARK_LEN) == 0) {
        st = decode_packed(v + PMI_PMIX_NAME_MARK_LEN,
                           len - PMI_PMIX_NAME_MARK_LEN, value);
    } else if (len > 0 && v[0] == '\0') {
        pmix_byte_object_t bo = { .bytes = (char *)v + 1, .size = len - 1 };
        st = PMIx_Value_load(value, &bo, PMIX_BYTE_OBJECT);
    } else {
        char *s = strndup(v, len);
        if (s == NULL)
            return PMIX_ERR_NOMEM;
        st = PMIx_Value_load(value, s, PMIX_STRING);
        free(s);
    }
    return st;
}
