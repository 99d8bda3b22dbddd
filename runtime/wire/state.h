/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state of the ranks, asked when --timeout expires with
 * --report-state-on-timeout or --get-stack-traces.
 *
 * The HNP's question (HNP_TAG_STATE_REQUEST, in a broadcast): whether to
 * take each running rank's stack, and for how long at most.
 *
 *   jobid u32 | flags u8 | stack_ms u32
 *
 * Each daemon's answer (HNP_TAG_STATE_REPLY), to the HNP: every rank of
 * its node, with its stack (gdb's words, or why there is none) when asked.
 *
 *   jobid u32 | nranks u32 | nranks x (rank u32 | pid i32 | state u8 |
 *                                      wait_status i32 | stack string)
 *
 * Contract of runtime/wire: see join.h.
 */
#ifndef HNP_WIRE_STATE_H
#define HNP_WIRE_STATE_H

#include <stdint.h>

#include "hnp_buffer.h"

/** flags: take the stacks of the running ranks (--get-stack-traces) */
#define HNP_STATE_STACKS 0x01

typedef struct hnp_wire_state_request {
    uint32_t jobid;   /**< the job it concerns; no other is touched */
    uint8_t flags;     /**< HNP_STATE_* */
    uint32_t stack_ms; /**< the longest a stack may take, in ms */
} hnp_wire_state_request_t;

int hnp_wire_state_request_pack(hnp_buffer_t *buf,
                                const hnp_wire_state_request_t *m);
int hnp_wire_state_request_unpack(hnp_reader_t *rd,
                                  hnp_wire_state_request_t *m);

/** Where a rank is in its life, as its daemon sees it. */
typedef enum hnp_rank_state {
    HNP_RANK_NOT_STARTED, /**< not forked (yet) */
    HNP_RANK_RUNNING,     /**< forked, not reaped */
    HNP_RANK_EXITED,      /**< reaped: wait_status says how */
    HNP_RANK_FAILED,      /**< could not start */
} hnp_rank_state_t;

typedef struct hnp_wire_rank_state {
    uint32_t rank;
    int32_t pid;         /**< 0 when never forked */
    uint8_t state;       /**< hnp_rank_state_t */
    int32_t wait_status; /**< as waitpid(2) gave it, when EXITED */
    char *stack;         /**< "" (or NULL when packing): none asked or
                              taken; owned once unpacked */
} hnp_wire_rank_state_t;

typedef struct hnp_wire_state_reply {
    uint32_t jobid;   /**< the job it concerns; no other is touched */
    uint32_t nranks;
    hnp_wire_rank_state_t *ranks; /**< [nranks]; owned once unpacked */
} hnp_wire_state_reply_t;

int hnp_wire_state_reply_pack(hnp_buffer_t *buf,
                              const hnp_wire_state_reply_t *m);
/** Also refuses (HNP_ERR_TRUNCATED) a count the bytes left cannot hold,
 *  before allocating for it. */
int hnp_wire_state_reply_unpack(hnp_reader_t *rd, hnp_wire_state_reply_t *m);
void hnp_wire_state_reply_clear(hnp_wire_state_reply_t *m);

#endif /* HNP_WIRE_STATE_H */
