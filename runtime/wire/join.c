/* SPDX-License-Identifier: BSD-3-Clause */
/* Phase 1's call back and report up the spawn tree (see join.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "join.h"

int hnp_wire_join_pack(hnp_buffer_t *buf, const hnp_wire_join_t *m)
{
    hnp_pack_string(buf, m->uri);
    hnp_pack_u32(buf, m->pid);
    return hnp_buffer_status(buf);
}

int hnp_wire_join_unpack(hnp_reader_t *rd, hnp_wire_join_t *m)
{
    memset(m, 0, sizeof(*m));
    m->uri = hnp_unpack_string(rd);
    m->pid = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        hnp_wire_join_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

void hnp_wire_join_clear(hnp_wire_join_t *m)
{
    free(m->uri);
    memset(m, 0, sizeof(*m));
}

int hnp_wire_daemon_up_pack(hnp_buffer_t *buf, const hnp_wire_daemon_up_t *m)
{
    hnp_pack_u32(buf, m->vpid);
    return hnp_buffer_status(buf);
}

int hnp_wire_daemon_up_unpack(hnp_reader_t *rd, hnp_wire_daemon_up_t *m)
{
    m->vpid = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}
