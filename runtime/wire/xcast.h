/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The broadcast envelope (HNP_TAG_XCAST): a message for every daemon,
 * passed down the routing tree. Each daemon forwards the envelope to its
 * routing children and delivers the message inside under its own tag.
 *
 *   tag u32 | message blob
 *
 * Contract of runtime/wire: see join.h. Nothing is allocated: the message
 * points into the reader's data.
 */
#ifndef HNP_WIRE_XCAST_H
#define HNP_WIRE_XCAST_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_xcast {
    uint32_t tag;     /**< the tag of the message inside */
    const void *data; /**< the message inside; borrowed */
    size_t len;
} hnp_wire_xcast_t;

int hnp_wire_xcast_pack(hnp_buffer_t *buf, const hnp_wire_xcast_t *m);
int hnp_wire_xcast_unpack(hnp_reader_t *rd, hnp_wire_xcast_t *m);

#endif /* HNP_WIRE_XCAST_H */
