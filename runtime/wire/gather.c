/* SPDX-License-Identifier: BSD-3-Clause */
/* A collective across jobs and its answer (see gather.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gather.h"
#include "hnp_errors.h"

int hnp_wire_gather_pack(hnp_buffer_t *buf, const hnp_wire_gather_t *m)
{
    hnp_pack_u32(buf, m->reqid);
    hnp_pack_u32(buf, m->nmembers);
    for (uint32_t i = 0; i < m->nmembers; i++) {
        hnp_pack_u32(buf, m->members[i].jobid);
        hnp_pack_u32(buf, m->members[i].rank);
    }
    hnp_pack_u32(buf, m->nlocal);
    hnp_pack_blob(buf, m->data, m->len);
    return hnp_buffer_status(buf);
}

int hnp_wire_gather_unpack(hnp_reader_t *rd, hnp_wire_gather_t *m)
{
    int rc = HNP_SUCCESS;

    memset(m, 0, sizeof(*m));
    m->reqid = hnp_unpack_u32(rd);
    m->nmembers = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS)
        rc = HNP_ERR_TRUNCATED;
    else if (m->nmembers == 0 || m->nmembers > HNP_WIRE_GATHER_MAX_MEMBERS)
        rc = HNP_ERR_BAD_PARAM;
    else if (m->nmembers > hnp_reader_remaining(rd) / 8)
        rc = HNP_ERR_TRUNCATED;
    else if ((m->members = calloc(m->nmembers, sizeof(*m->members))) == NULL)
        rc = HNP_ERR_NOMEM;
    for (uint32_t i = 0; rc == HNP_SUCCESS && i < m->nmembers; i++) {
        m->members[i].jobid = hnp_unpack_u32(rd);
        m->members[i].rank = hnp_unpack_u32(rd);
        if (m->members[i].jobid == 0)
            rc = HNP_ERR_BAD_PARAM;
    }
    if (rc == HNP_SUCCESS) {
        m->nlocal = hnp_unpack_u32(rd);
        m->data = hnp_unpack_blob(rd, &m->len);
        if (hnp_reader_status(rd) != HNP_SUCCESS)
            rc = HNP_ERR_TRUNCATED;
    }
    if (rc != HNP_SUCCESS)
        hnp_wire_gather_clear(m);
    return rc;
}

void hnp_wire_gather_clear(hnp_wire_gather_t *m)
{
    free(m->members);
    memset(m, 0, sizeof(*m));
}

int hnp_wire_gather_reply_pack(hnp_buffer_t *buf,
                               const hnp_wire_gather_reply_t *m)
{
    hnp_pack_u32(buf, m->reqid);
    hnp_pack_i32(buf, m->status);
    hnp_pack_blob(buf, m->data, m->len);
    return hnp_buffer_status(buf);
}

int hnp_wire_gather_reply_unpack(hnp_reader_t *rd,
                                 hnp_wire_gather_reply_t *m)
{
    memset(m, 0, sizeof(*m));
    m->reqid = hnp_unpack_u32(rd);
    m->status = hnp_unpack_i32(rd);
    m->data = hnp_unpack_blob(rd, &m->len);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    if (m->status > 0) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}
