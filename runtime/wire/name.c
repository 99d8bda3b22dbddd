/* SPDX-License-Identifier: BSD-3-Clause */
/* The name service's request and answer (see name.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "name.h"

/* The smallest an entry can be on the wire: an empty key (its length),
 * and an empty value; an answer's adds two u32. Bounds the count
 * before anything is allocated. */
#define ENTRY_MIN_BYTES 8

static void pack_entries(hnp_buffer_t *buf, const hnp_wire_name_t *m,
                         int answer)
{
    hnp_pack_u32(buf, m->count);
    for (uint32_t i = 0; i < m->count; i++) {
        const hnp_wire_name_entry_t *e = &m->entries[i];
        hnp_pack_string(buf, e->key);
        if (answer) {
            hnp_pack_u32(buf, e->jobid);
            hnp_pack_u32(buf, e->rank);
            hnp_pack_string(buf, e->job_name);
        }
        hnp_pack_blob(buf, e->value, e->len);
    }
}

static int key_ok(const char *key)
{
    return key != NULL && key[0] != '\0' &&
           strlen(key) <= HNP_WIRE_NAME_KEY_MAX;
}

static int unpack_entries(hnp_reader_t *rd, hnp_wire_name_t *m, int answer)
{
    m->count = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS ||
        m->count > hnp_reader_remaining(rd) / ENTRY_MIN_BYTES)
        return HNP_ERR_TRUNCATED;
    if (m->count == 0)
        return HNP_SUCCESS;
    m->entries = calloc(m->count, sizeof(*m->entries));
    if (m->entries == NULL) {
        m->count = 0;
        return HNP_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < m->count; i++) {
        hnp_wire_name_entry_t *e = &m->entries[i];
        e->key = hnp_unpack_string(rd);
        if (answer) {
            e->jobid = hnp_unpack_u32(rd);
            e->rank = hnp_unpack_u32(rd);
            e->job_name = hnp_unpack_string(rd);
        }
        e->value = hnp_unpack_blob(rd, &e->len);
        if (hnp_reader_status(rd) != HNP_SUCCESS)
            return HNP_ERR_TRUNCATED;
        if (!key_ok(e->key))
            return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

int hnp_wire_name_request_pack(hnp_buffer_t *buf, const hnp_wire_name_t *m)
{
    hnp_pack_u8(buf, m->op);
    hnp_pack_u32(buf, m->id);
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->rank);
    hnp_pack_u32(buf, m->flags);
    hnp_pack_u32(buf, m->timeout_ms);
    pack_entries(buf, m, 0);
    return hnp_buffer_status(buf);
}

int hnp_wire_name_request_unpack(hnp_reader_t *rd, hnp_wire_name_t *m)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->op = hnp_unpack_u8(rd);
    m->id = hnp_unpack_u32(rd);
    m->jobid = hnp_unpack_u32(rd);
    m->rank = hnp_unpack_u32(rd);
    m->flags = hnp_unpack_u32(rd);
    m->timeout_ms = hnp_unpack_u32(rd);
    rc = unpack_entries(rd, m, 0);
    if (rc == HNP_SUCCESS && (m->op < HNP_WIRE_NAME_PUBLISH ||
                              m->op > HNP_WIRE_NAME_UNPUBLISH ||
                              (m->op != HNP_WIRE_NAME_UNPUBLISH &&
                               m->count == 0)))
        rc = HNP_ERR_BAD_PARAM;
    if (rc != HNP_SUCCESS)
        hnp_wire_name_clear(m);
    return rc;
}

int hnp_wire_name_reply_pack(hnp_buffer_t *buf, const hnp_wire_name_t *m)
{
    hnp_pack_u32(buf, m->id);
    hnp_pack_i32(buf, m->status);
    pack_entries(buf, m, 1);
    return hnp_buffer_status(buf);
}

int hnp_wire_name_reply_unpack(hnp_reader_t *rd, hnp_wire_name_t *m)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->id = hnp_unpack_u32(rd);
    m->status = hnp_unpack_i32(rd);
    rc = unpack_entries(rd, m, 1);
    if (rc == HNP_SUCCESS && m->status > 0)
        rc = HNP_ERR_BAD_PARAM;
    if (rc != HNP_SUCCESS)
        hnp_wire_name_clear(m);
    return rc;
}

void hnp_wire_name_clear(hnp_wire_name_t *m)
{
    for (uint32_t i = 0; m->entries != NULL && i < m->count; i++) {
        free(m->entries[i].key);
        free(m->entries[i].job_name);
    }
    free(m->entries);
    memset(m, 0, sizeof(*m));
}
