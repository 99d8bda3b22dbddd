/* SPDX-License-Identifier: BSD-3-Clause */
/* hnp's stdin, in chunks, and their acknowledgement (see stdin.h). */
#include "config.h"

#include <string.h>

#include "hnp_errors.h"
#include "stdin.h"

int hnp_wire_stdin_pack(hnp_buffer_t *buf, const hnp_wire_stdin_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->seq);
    hnp_pack_u8(buf, m->eof ? 1 : 0);
    hnp_pack_blob(buf, m->data, m->len);
    return hnp_buffer_status(buf);
}

int hnp_wire_stdin_unpack(hnp_reader_t *rd, hnp_wire_stdin_t *m)
{
    m->jobid = hnp_unpack_u32(rd);
    m->seq = hnp_unpack_u32(rd);
    m->eof = hnp_unpack_u8(rd) != 0;
    m->data = hnp_unpack_blob(rd, &m->len);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_stdin_ack_pack(hnp_buffer_t *buf, const hnp_wire_stdin_ack_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->seq);
    return hnp_buffer_status(buf);
}

int hnp_wire_stdin_ack_unpack(hnp_reader_t *rd, hnp_wire_stdin_ack_t *m)
{
    m->jobid = hnp_unpack_u32(rd);
    m->seq = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}
