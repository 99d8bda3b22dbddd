/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Daemons added to a running runtime (the HNP's word to its daemons,
 * runtime/core/grow.c): the runtime's new size and, for some of its
 * daemons, their node and contact. The HNP broadcasts the added daemons'
 * nodes before it starts them (HNP_TAG_GROW: contacts empty), tells an
 * added daemon the contacts of the others, and broadcasts the added
 * daemons' contacts once they have joined (HNP_TAG_CONTACTS).
 *
 *   nprocs u32 | count u32 | count x (vpid u32 | node string | uri string)
 *
 * Contract of runtime/wire: see join.h. Unpack also fails
 * (HNP_ERR_BAD_PARAM) on an entry's vpid 0 or not below nprocs.
 */
#ifndef HNP_WIRE_ROSTER_H
#define HNP_WIRE_ROSTER_H

#include <stdint.h>

#include "hnp_buffer.h"
#include "hnp_tree.h"

typedef struct hnp_wire_roster_entry {
    hnp_vpid_t vpid;
    char *node; /**< owned once unpacked; "" when not said */
    char *uri;  /**< owned once unpacked; "" when not said */
} hnp_wire_roster_entry_t;

typedef struct hnp_wire_roster {
    uint32_t nprocs; /**< the runtime's processes, the HNP counted */
    uint32_t count;
    hnp_wire_roster_entry_t *entries; /**< [count], owned once unpacked */
} hnp_wire_roster_t;

int hnp_wire_roster_pack(hnp_buffer_t *buf, const hnp_wire_roster_t *m);
int hnp_wire_roster_unpack(hnp_reader_t *rd, hnp_wire_roster_t *m);
void hnp_wire_roster_clear(hnp_wire_roster_t *m);

#endif /* HNP_WIRE_ROSTER_H */
