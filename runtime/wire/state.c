/* SPDX-License-Identifier: BSD-3-Clause */
/* The state of the ranks when --timeout expires (see state.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "state.h"

/* The fewest bytes a rank's entry takes: its numbers and an empty stack. */
#define RANK_STATE_MIN_BYTES (4 + 4 + 1 + 4 + 4)

int hnp_wire_state_request_pack(hnp_buffer_t *buf,
                                const hnp_wire_state_request_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u8(buf, m->flags);
    hnp_pack_u32(buf, m->stack_ms);
    return hnp_buffer_status(buf);
}

int hnp_wire_state_request_unpack(hnp_reader_t *rd,
                                  hnp_wire_state_request_t *m)
{
    m->jobid = hnp_unpack_u32(rd);
    m->flags = hnp_unpack_u8(rd);
    m->stack_ms = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

int hnp_wire_state_reply_pack(hnp_buffer_t *buf,
                              const hnp_wire_state_reply_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->nranks);
    for (uint32_t i = 0; i < m->nranks; i++) {
        const hnp_wire_rank_state_t *r = &m->ranks[i];
        hnp_pack_u32(buf, r->rank);
        hnp_pack_i32(buf, r->pid);
        hnp_pack_u8(buf, r->state);
        hnp_pack_i32(buf, r->wait_status);
        hnp_pack_string(buf, r->stack);
    }
    return hnp_buffer_status(buf);
}

static void unpack_rank_state(hnp_reader_t *rd, hnp_wire_rank_state_t *r)
{
    r->rank = hnp_unpack_u32(rd);
    r->pid = hnp_unpack_i32(rd);
    r->state = hnp_unpack_u8(rd);
    r->wait_status = hnp_unpack_i32(rd);
    r->stack = hnp_unpack_string(rd);
}

int hnp_wire_state_reply_unpack(hnp_reader_t *rd, hnp_wire_state_reply_t *m)
{
    memset(m, 0, sizeof(*m));
    m->jobid = hnp_unpack_u32(rd);
    m->nranks = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS ||
        m->nranks > hnp_reader_remaining(rd) / RANK_STATE_MIN_BYTES) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    if (m->nranks > 0 &&
        (m->ranks = calloc(m->nranks, sizeof(*m->ranks))) == NULL) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < m->nranks; i++)
        unpack_rank_state(rd, &m->ranks[i]);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        hnp_wire_state_reply_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

void hnp_wire_state_reply_clear(hnp_wire_state_reply_t *m)
{
    for (uint32_t i = 0; m->ranks != NULL && i < m->nranks; i++)
        free(m->ranks[i].stack);
    free(m->ranks);
    memset(m, 0, sizeof(*m));
}
