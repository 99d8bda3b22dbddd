/* SPDX-License-Identifier: BSD-3-Clause */
/* How a process ended (see proc_exit.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "proc_exit.h"

int hnp_wire_proc_exit_pack(hnp_buffer_t *buf, const hnp_wire_proc_exit_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->rank);
    hnp_pack_i32(buf, m->pid);
    hnp_pack_i32(buf, m->wait_status);
    hnp_pack_i32(buf, m->exec_errno);
    hnp_pack_string(buf, m->why);
    return hnp_buffer_status(buf);
}

int hnp_wire_proc_exit_unpack(hnp_reader_t *rd, hnp_wire_proc_exit_t *m)
{
    memset(m, 0, sizeof(*m));
    m->jobid = hnp_unpack_u32(rd);
    m->rank = hnp_unpack_u32(rd);
    m->pid = hnp_unpack_i32(rd);
    m->wait_status = hnp_unpack_i32(rd);
    m->exec_errno = hnp_unpack_i32(rd);
    m->why = hnp_unpack_string(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        hnp_wire_proc_exit_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

void hnp_wire_proc_exit_clear(hnp_wire_proc_exit_t *m)
{
    free(m->why);
    memset(m, 0, sizeof(*m));
}
