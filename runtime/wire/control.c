/* SPDX-License-Identifier: BSD-3-Clause */
/* A signal for the job's processes, and the end of the job (see
 * control.h). */
#include "config.h"

#include <string.h>

#include "control.h"
#include "hnp_errors.h"

int hnp_wire_signal_pack(hnp_buffer_t *buf, const hnp_wire_signal_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_i32(buf, m->signo);
    return hnp_buffer_status(buf);
}

int hnp_wire_signal_unpack(hnp_reader_t *rd, hnp_wire_signal_t *m)
{
    m->jobid = hnp_unpack_u32(rd);
    m->signo = hnp_unpack_i32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_procs_started_pack(hnp_buffer_t *buf,
                                const hnp_wire_procs_started_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    return hnp_buffer_status(buf);
}

int hnp_wire_procs_started_unpack(hnp_reader_t *rd,
                                  hnp_wire_procs_started_t *m)
{
    m->jobid = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_shutdown_pack(hnp_buffer_t *buf, const hnp_wire_shutdown_t *m)
{
    hnp_pack_u8(buf, m->now ? 1 : 0);
    return hnp_buffer_status(buf);
}

int hnp_wire_shutdown_unpack(hnp_reader_t *rd, hnp_wire_shutdown_t *m)
{
    m->now = hnp_unpack_u8(rd) != 0;
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_kill_daemon_pack(hnp_buffer_t *buf,
                              const hnp_wire_kill_daemon_t *m)
{
    hnp_pack_u32(buf, m->vpid);
    return hnp_buffer_status(buf);
}

int hnp_wire_kill_daemon_unpack(hnp_reader_t *rd, hnp_wire_kill_daemon_t *m)
{
    m->vpid = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_job_end_pack(hnp_buffer_t *buf, const hnp_wire_job_end_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u8(buf, m->now ? 1 : 0);
    return hnp_buffer_status(buf);
}

int hnp_wire_job_end_unpack(hnp_reader_t *rd, hnp_wire_job_end_t *m)
{
    m->jobid = hnp_unpack_u32(rd);
    m->now = hnp_unpack_u8(rd) != 0;
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_collective_pack(hnp_buffer_t *buf,
                             const hnp_wire_collective_t *m)
{
    hnp_pack_u32(buf, m->id);
    return hnp_buffer_status(buf);
}

int hnp_wire_collective_unpack(hnp_reader_t *rd, hnp_wire_collective_t *m)
{
    m->id = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}
