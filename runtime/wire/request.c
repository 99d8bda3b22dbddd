/* SPDX-License-Identifier: BSD-3-Clause */
/* A request to a rank's daemon, and its answer (see request.h). */
#include "config.h"

#include <string.h>

#include "hnp_errors.h"
#include "request.h"

int hnp_wire_request_pack(hnp_buffer_t *buf, const hnp_wire_request_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->id);
    hnp_pack_u32(buf, m->service);
    hnp_pack_u32(buf, m->rank);
    hnp_pack_blob(buf, m->data, m->len);
    return hnp_buffer_status(buf);
}

int hnp_wire_request_unpack(hnp_reader_t *rd, hnp_wire_request_t *m)
{
    m->jobid = hnp_unpack_u32(rd);
    m->id = hnp_unpack_u32(rd);
    m->service = hnp_unpack_u32(rd);
    m->rank = hnp_unpack_u32(rd);
    m->data = hnp_unpack_blob(rd, &m->len);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_reply_pack(hnp_buffer_t *buf, const hnp_wire_reply_t *m)
{
    hnp_pack_u32(buf, m->id);
    hnp_pack_i32(buf, m->status);
    hnp_pack_blob(buf, m->data, m->len);
    return hnp_buffer_status(buf);
}

int hnp_wire_reply_unpack(hnp_reader_t *rd, hnp_wire_reply_t *m)
{
    m->id = hnp_unpack_u32(rd);
    m->status = hnp_unpack_i32(rd);
    m->data = hnp_unpack_blob(rd, &m->len);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}
