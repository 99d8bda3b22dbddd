/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A collective across the jobs of a family (hnp_rte_gather_across() in
 * hnp_rte.h: a PMIx connect, disconnect, or fence over ranks of several
 * jobs): each daemon hosting participants sends the HNP how many it hosts
 * and its data (HNP_TAG_GATHER); once every participant is counted the
 * HNP sends each of those daemons everything (HNP_TAG_GATHER_REPLY).
 *
 *   request: reqid u32 | nmembers u32 | nmembers x (jobid u32 | rank u32)
 *            | nlocal u32 | data blob
 *   reply:   reqid u32 | status i32 | data blob
 *
 * A member's rank HNP_WIRE_ALL_RANKS is every rank of its job. Contract
 * of runtime/wire: see join.h.
 */
#ifndef HNP_WIRE_GATHER_H
#define HNP_WIRE_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

#define HNP_WIRE_ALL_RANKS UINT32_MAX
/* The most members a collective names: beyond, it is refused before
 * anything is allocated for them. */
#define HNP_WIRE_GATHER_MAX_MEMBERS (1u << 20)

typedef struct hnp_wire_member {
    uint32_t jobid;
    uint32_t rank;      /**< or HNP_WIRE_ALL_RANKS */
} hnp_wire_member_t;

typedef struct hnp_wire_gather {
    uint32_t reqid;
    uint32_t nmembers;  /**< 1 .. HNP_WIRE_GATHER_MAX_MEMBERS */
    hnp_wire_member_t *members; /**< owned once unpacked */
    uint32_t nlocal;    /**< members the sender hosts */
    const void *data;   /**< into the message once unpacked */
    size_t len;
} hnp_wire_gather_t;

typedef struct hnp_wire_gather_reply {
    uint32_t reqid;
    int32_t status;
    const void *data;   /**< into the message once unpacked */
    size_t len;
} hnp_wire_gather_reply_t;

int hnp_wire_gather_pack(hnp_buffer_t *buf, const hnp_wire_gather_t *m);
/** Also fails (HNP_ERR_BAD_PARAM) on no member or too many, or a job id
 *  0. */
int hnp_wire_gather_unpack(hnp_reader_t *rd, hnp_wire_gather_t *m);
void hnp_wire_gather_clear(hnp_wire_gather_t *m);

int hnp_wire_gather_reply_pack(hnp_buffer_t *buf,
                               const hnp_wire_gather_reply_t *m);
/** Also fails (HNP_ERR_BAD_PARAM) on a positive status. */
int hnp_wire_gather_reply_unpack(hnp_reader_t *rd,
                                 hnp_wire_gather_reply_t *m);

#endif /* HNP_WIRE_GATHER_H */
