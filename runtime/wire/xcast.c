/* SPDX-License-Identifier: BSD-3-Clause */
/* The broadcast envelope (see xcast.h). */
#include "config.h"

#include <string.h>

#include "hnp_errors.h"
#include "xcast.h"

int hnp_wire_xcast_pack(hnp_buffer_t *buf, const hnp_wire_xcast_t *m)
{
    hnp_pack_u32(buf, m->tag);
    hnp_pack_blob(buf, m->data, m->len);
    return hnp_buffer_status(buf);
}

int hnp_wire_xcast_unpack(hnp_reader_t *rd, hnp_wire_xcast_t *m)
{
    m->tag = hnp_unpack_u32(rd);
    m->data = hnp_unpack_blob(rd, &m->len);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}
