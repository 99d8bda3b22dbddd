/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The welcome (HNP_TAG_WELCOME): a spawn parent's answer to a child that
 * joined. It carries what the child needs to take its place in the job:
 * the runtime's size and that of its first launch (the daemons
 * after those were added to the running runtime: the spawn tree of the
 * first launch holds the first ones, the HNP started the others), the
 * HNP's contact, the HNP's parameters (as
 * hnp_params_pack() made them, passed on untouched by every spawner), the
 * components the HNP chose (of pmi, every active one: "a,b", "" for
 * none), of those the pmi components the daemons of the first launch
 * start before the job's launch arrives (pmi_base_start_early: those the
 * job's programs use; "" for none), and the (vpid, node) list of the
 * child's own subtree, the child first.
 *
 *   nprocs u32 | nfirst u32 | hnp uri string | params blob |
 *   plm string | routed string | exchange string | pmi string |
 *   pmi_early string | count u32 | count x (vpid u32 | node string)
 *
 * Contract of runtime/wire: see join.h. The params blob is not copied: it
 * points into the reader's data.
 */
#ifndef HNP_WIRE_WELCOME_H
#define HNP_WIRE_WELCOME_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"
#include "hnp_tree.h"

/** The components chosen, in this order on the wire. */
enum { HNP_WIRE_WELCOME_PLM, HNP_WIRE_WELCOME_ROUTED,
       HNP_WIRE_WELCOME_EXCHANGE, HNP_WIRE_WELCOME_PMI,
       HNP_WIRE_WELCOME_PMI_EARLY, HNP_WIRE_WELCOME_NCOMPONENTS };

typedef struct hnp_wire_welcome_node {
    hnp_vpid_t vpid;
    char *name; /**< owned once unpacked; "" when the sender did not know */
} hnp_wire_welcome_node_t;

typedef struct hnp_wire_welcome {
    uint32_t nprocs;         /**< the HNP and its daemons */
    uint32_t nfirst;         /**< of them, those of the first launch:
                                  1..nprocs */
    char *hnp_uri;           /**< owned once unpacked */
    const void *params;      /**< borrowed (into the reader's data) */
    size_t params_len;
    char *components[HNP_WIRE_WELCOME_NCOMPONENTS]; /**< owned once unpacked */
    uint32_t nsubtree;
    /** [nsubtree], owned once unpacked; every vpid < nprocs */
    hnp_wire_welcome_node_t *subtree;
} hnp_wire_welcome_t;

int hnp_wire_welcome_pack(hnp_buffer_t *buf, const hnp_wire_welcome_t *m);
/** Also fails (HNP_ERR_BAD_PARAM) on a subtree vpid outside the job, and
 *  on nfirst 0 or above nprocs. */
int hnp_wire_welcome_unpack(hnp_reader_t *rd, hnp_wire_welcome_t *m);
void hnp_wire_welcome_clear(hnp_wire_welcome_t *m);

#endif /* HNP_WIRE_WELCOME_H */
