/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output of a process (HNP_TAG_IOF), from its daemon to the HNP: whole
 * lines of one stream of one rank, in order per rank and stream. A line
 * longer than HNP_IOF_LINE_MAX comes in pieces of that size, each but the
 * last flagged HNP_IOF_CUT; the last line of a stream may lack its
 * newline. The daemon stamps each message with the time it read the
 * bytes that completed its lines (its own clock: --timestamp-output).
 *
 *   jobid u32 | rank u32 | stream u8 | flags u8 | read_us u64 | bytes blob
 *
 * And the HNP's acknowledgement (HNP_TAG_IOF_ACK), to the daemon that sent
 * them, of output bytes it has taken on: a daemon stops reading its
 * processes' output while more than rte_iof_window bytes it sent are not
 * acknowledged, which is how a slow reader of hnp's output holds the
 * processes back instead of filling the HNP's memory.
 *
 *   bytes u64
 *
 * Contract of runtime/wire: see join.h. Nothing is allocated: the bytes
 * point into the reader's data.
 */
#ifndef HNP_WIRE_IOF_H
#define HNP_WIRE_IOF_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

/** The longest line passed on whole; a longer one is cut into pieces of
 *  this many bytes. */
#define HNP_IOF_LINE_MAX (64 * 1024)
/** flags: the bytes end inside a line, which the next message goes on
 *  with */
#define HNP_IOF_CUT 0x01

typedef struct hnp_wire_iof {
    uint32_t jobid;   /**< the job it concerns; no other is touched */
    uint32_t rank;
    uint8_t stream;   /**< HNP_STDOUT or HNP_STDERR (procs/odls.h) */
    uint8_t flags;    /**< HNP_IOF_CUT */
    uint64_t read_us; /**< when the daemon read it: microseconds since
                           the epoch, by the node's clock; 0: unknown */
    const void *data; /**< borrowed */
    size_t len;
} hnp_wire_iof_t;

int hnp_wire_iof_pack(hnp_buffer_t *buf, const hnp_wire_iof_t *m);
int hnp_wire_iof_unpack(hnp_reader_t *rd, hnp_wire_iof_t *m);

typedef struct hnp_wire_iof_ack {
    uint64_t bytes; /**< output bytes taken on since the last ack */
} hnp_wire_iof_ack_t;

int hnp_wire_iof_ack_pack(hnp_buffer_t *buf, const hnp_wire_iof_ack_t *m);
int hnp_wire_iof_ack_unpack(hnp_reader_t *rd, hnp_wire_iof_ack_t *m);

#endif /* HNP_WIRE_IOF_H */
