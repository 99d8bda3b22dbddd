/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A component's request to the daemon that hosts a rank, and its answer
 * (HNP_TAG_REQUEST, HNP_TAG_REPLY; hnp_rte_request() and hnp_rte_reply()):
 * the direct modex of PMIx, for one.
 *
 *   request: jobid u32 | id u32 | service u32 | rank u32 | data blob
 *   reply:   id u32 | status i32 | data blob
 *
 * The job id names the job the rank is of (a daemon holds several at
 * once). The id is the requesting daemon's own, unique among its pending
 * requests; the reply goes back to the daemon the request came from.
 * Contract of runtime/wire: see join.h. Nothing is allocated: the data
 * point into the reader's.
 */
#ifndef HNP_WIRE_REQUEST_H
#define HNP_WIRE_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_request {
    uint32_t jobid;   /**< the job of the rank */
    uint32_t id;
    uint32_t service; /**< the tag the serving component posted */
    uint32_t rank;    /**< the rank of the job it is about */
    const void *data; /**< borrowed */
    size_t len;
} hnp_wire_request_t;

typedef struct hnp_wire_reply {
    uint32_t id;
    int32_t status;   /**< HNP_SUCCESS or an HNP_ERR_* */
    const void *data; /**< borrowed */
    size_t len;
} hnp_wire_reply_t;

int hnp_wire_request_pack(hnp_buffer_t *buf, const hnp_wire_request_t *m);
int hnp_wire_request_unpack(hnp_reader_t *rd, hnp_wire_request_t *m);
int hnp_wire_reply_pack(hnp_buffer_t *buf, const hnp_wire_reply_t *m);
int hnp_wire_reply_unpack(hnp_reader_t *rd, hnp_wire_reply_t *m);

#endif /* HNP_WIRE_REQUEST_H */
