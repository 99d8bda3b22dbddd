/* SPDX-License-Identifier: BSD-3-Clause */
/* A fatal error, a lost daemon, and a daemon slow to start, reported to
 * the HNP (see failure.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "failure.h"
#include "hnp_errors.h"

int hnp_wire_failure_pack(hnp_buffer_t *buf, const hnp_wire_failure_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_i32(buf, m->status);
    hnp_pack_string(buf, m->message);
    return hnp_buffer_status(buf);
}

int hnp_wire_failure_unpack(hnp_reader_t *rd, hnp_wire_failure_t *m)
{
    memset(m, 0, sizeof(*m));
    m->jobid = hnp_unpack_u32(rd);
    m->status = hnp_unpack_i32(rd);
    m->message = hnp_unpack_string(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        hnp_wire_failure_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

void hnp_wire_failure_clear(hnp_wire_failure_t *m)
{
    free(m->message);
    memset(m, 0, sizeof(*m));
}

int hnp_wire_peer_lost_pack(hnp_buffer_t *buf, const hnp_wire_peer_lost_t *m)
{
    hnp_pack_u32(buf, m->vpid);
    hnp_pack_string(buf, m->why);
    return hnp_buffer_status(buf);
}

int hnp_wire_peer_lost_unpack(hnp_reader_t *rd, hnp_wire_peer_lost_t *m)
{
    memset(m, 0, sizeof(*m));
    m->vpid = hnp_unpack_u32(rd);
    m->why = hnp_unpack_string(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        hnp_wire_peer_lost_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

void hnp_wire_peer_lost_clear(hnp_wire_peer_lost_t *m)
{
    free(m->why);
    memset(m, 0, sizeof(*m));
}

int hnp_wire_spawn_note_pack(hnp_buffer_t *buf,
                             const hnp_wire_spawn_note_t *m)
{
    hnp_pack_u32(buf, m->vpid);
    hnp_pack_string(buf, m->command);
    hnp_pack_string(buf, m->output);
    return hnp_buffer_status(buf);
}

int hnp_wire_spawn_note_unpack(hnp_reader_t *rd, hnp_wire_spawn_note_t *m)
{
    memset(m, 0, sizeof(*m));
    m->vpid = hnp_unpack_u32(rd);
    m->command = hnp_unpack_string(rd);
    m->output = hnp_unpack_string(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        hnp_wire_spawn_note_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

void hnp_wire_spawn_note_clear(hnp_wire_spawn_note_t *m)
{
    free(m->command);
    free(m->output);
    memset(m, 0, sizeof(*m));
}
