/* SPDX-License-Identifier: BSD-3-Clause */
/* A process's PMI abort, on its way to the HNP (see pmi_abort.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "pmi_abort.h"

int hnp_wire_pmi_abort_pack(hnp_buffer_t *buf, const hnp_wire_pmi_abort_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->rank);
    hnp_pack_i32(buf, m->code);
    hnp_pack_string(buf, m->words);
    return hnp_buffer_status(buf);
}

int hnp_wire_pmi_abort_unpack(hnp_reader_t *rd, hnp_wire_pmi_abort_t *m)
{
    memset(m, 0, sizeof(*m));
    m->jobid = hnp_unpack_u32(rd);
    m->rank = hnp_unpack_u32(rd);
    m->code = hnp_unpack_i32(rd);
    m->words = hnp_unpack_string(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        hnp_wire_pmi_abort_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

void hnp_wire_pmi_abort_clear(hnp_wire_pmi_abort_t *m)
{
    free(m->words);
    memset(m, 0, sizeof(*m));
}
