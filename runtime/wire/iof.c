/* SPDX-License-Identifier: BSD-3-Clause */
/* A process's output on its way to the HNP (see iof.h). */
#include "config.h"

#include <string.h>

#include "hnp_errors.h"
#include "iof.h"

int hnp_wire_iof_pack(hnp_buffer_t *buf, const hnp_wire_iof_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->rank);
    hnp_pack_u8(buf, m->stream);
    hnp_pack_u8(buf, m->flags);
    hnp_pack_u64(buf, m->read_us);
    hnp_pack_blob(buf, m->data, m->len);
    return hnp_buffer_status(buf);
}

int hnp_wire_iof_unpack(hnp_reader_t *rd, hnp_wire_iof_t *m)
{
    m->jobid = hnp_unpack_u32(rd);
    m->rank = hnp_unpack_u32(rd);
    m->stream = hnp_unpack_u8(rd);
    m->flags = hnp_unpack_u8(rd);
    m->read_us = hnp_unpack_u64(rd);
    m->data = hnp_unpack_blob(rd, &m->len);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_iof_ack_pack(hnp_buffer_t *buf, const hnp_wire_iof_ack_t *m)
{
    hnp_pack_u64(buf, m->bytes);
    return hnp_buffer_status(buf);
}

int hnp_wire_iof_ack_unpack(hnp_reader_t *rd, hnp_wire_iof_ack_t *m)
{
    m->bytes = hnp_unpack_u64(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}
