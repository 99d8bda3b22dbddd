/* SPDX-License-Identifier: BSD-3-Clause */
/* Daemons added to a running runtime (see roster.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "roster.h"

int hnp_wire_roster_pack(hnp_buffer_t *buf, const hnp_wire_roster_t *m)
{
    hnp_pack_u32(buf, m->nprocs);
    hnp_pack_u32(buf, m->count);
    for (uint32_t i = 0; i < m->count; i++) {
        hnp_pack_u32(buf, m->entries[i].vpid);
        hnp_pack_string(buf, m->entries[i].node);
        hnp_pack_string(buf, m->entries[i].uri);
    }
    return hnp_buffer_status(buf);
}

/* Each entry takes at least 12 bytes (a vpid and two empty strings): a
 * count larger than the rest of the message could hold is refused before
 * anything is allocated for it. */
int hnp_wire_roster_unpack(hnp_reader_t *rd, hnp_wire_roster_t *m)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->nprocs = hnp_unpack_u32(rd);
    m->count = hnp_unpack_u32(rd);
    rc = hnp_reader_status(rd);
    if (rc == HNP_SUCCESS && m->count > hnp_reader_remaining(rd) / 12)
        rc = HNP_ERR_TRUNCATED;
    if (rc == HNP_SUCCESS &&
        (m->entries = calloc(m->count > 0 ? m->count : 1,
                             sizeof(*m->entries))) == NULL)
        rc = HNP_ERR_NOMEM;
    for (uint32_t i = 0; rc == HNP_SUCCESS && i < m->count; i++) {
        m->entries[i].vpid = hnp_unpack_u32(rd);
        m->entries[i].node = hnp_unpack_string(rd);
        m->entries[i].uri = hnp_unpack_string(rd);
        rc = hnp_reader_status(rd);
        if (rc == HNP_SUCCESS && (m->entries[i].vpid == 0 ||
                                  m->entries[i].vpid >= m->nprocs))
            rc = HNP_ERR_BAD_PARAM;
    }
    if (rc != HNP_SUCCESS)
        hnp_wire_roster_clear(m);
    return rc;
}

void hnp_wire_roster_clear(hnp_wire_roster_t *m)
{
    for (uint32_t i = 0; m->entries != NULL && i < m->count; i++) {
        free(m->entries[i].node);
        free(m->entries[i].uri);
    }
    free(m->entries);
    memset(m, 0, sizeof(*m));
}
