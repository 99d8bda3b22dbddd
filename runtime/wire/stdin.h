/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp's stdin on the wire: which ranks get it, as the launch message
 * carries it (launch.h); the chunks the HNP sends the daemons of those
 * ranks (HNP_TAG_STDIN), numbered from 1; and a daemon's acknowledgement
 * that every chunk up to a number is written (HNP_TAG_STDIN_ACK), which
 * lets the HNP send more.
 *
 *   chunk  jobid u32 | seq u32 | eof u8 | bytes blob
 *   ack    jobid u32 | seq u32
 *
 * Contract of runtime/wire: see join.h. Nothing is allocated: a chunk's
 * bytes point into the reader's data.
 */
#ifndef HNP_WIRE_STDIN_H
#define HNP_WIRE_STDIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

/* A rank (>= 0), or one of these. */
enum { HNP_STDIN_NONE = -1, HNP_STDIN_ALL = -2 };

typedef struct hnp_wire_stdin {
    uint32_t jobid;   /**< the job it concerns; no other is touched */
    uint32_t seq;     /**< this chunk's number */
    bool eof;         /**< the last chunk: close the processes' stdin */
    const void *data; /**< borrowed */
    size_t len;
} hnp_wire_stdin_t;

int hnp_wire_stdin_pack(hnp_buffer_t *buf, const hnp_wire_stdin_t *m);
int hnp_wire_stdin_unpack(hnp_reader_t *rd, hnp_wire_stdin_t *m);

typedef struct hnp_wire_stdin_ack {
    uint32_t jobid;   /**< the job it concerns; no other is touched */
    uint32_t seq; /**< every chunk up to this one is written */
} hnp_wire_stdin_ack_t;

int hnp_wire_stdin_ack_pack(hnp_buffer_t *buf, const hnp_wire_stdin_ack_t *m);
int hnp_wire_stdin_ack_unpack(hnp_reader_t *rd, hnp_wire_stdin_ack_t *m);

#endif /* HNP_WIRE_STDIN_H */
