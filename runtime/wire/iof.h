/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output of a process (HNP_TAG_IOF), from its daemon to the HNP: whole
 * lines of one stream of one rank, in order per rank and stream.
 *
 *   rank u32 | stream u8 | bytes blob
 *
 * Contract of runtime/wire: see join.h. Nothing is allocated: the bytes
 * point into the reader's data.
 */
#ifndef HNP_WIRE_IOF_H
#define HNP_WIRE_IOF_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_iof {
    uint32_t rank;
    uint8_t stream;   /**< HNP_STDOUT or HNP_STDERR (procs/odls.h) */
    const void *data; /**< borrowed */
    size_t len;
} hnp_wire_iof_t;

int hnp_wire_iof_pack(hnp_buffer_t *buf, const hnp_wire_iof_t *m);
int hnp_wire_iof_unpack(hnp_reader_t *rd, hnp_wire_iof_t *m);

#endif /* HNP_WIRE_IOF_H */
