/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Phase 1 on the wire (Algorithm 1). A daemon calls back to its spawn
 * parent with its contact and its process id (HNP_TAG_JOIN: the parent
 * kills it by that id, through the agent, should the job give up on it);
 * once welcomed it reports itself up the spawn tree (HNP_TAG_DAEMON_UP),
 * every spawner on the way passing the report on, so that the HNP learns
 * of each daemon as it joins.
 *
 *   join       uri string | pid u32
 *   daemon up  vpid u32
 *
 * As for every message of runtime/wire: pack returns HNP_SUCCESS or
 * HNP_ERR_NOMEM; an unpack that fails returns HNP_ERR_TRUNCATED (or
 * HNP_ERR_NOMEM) and leaves the struct zeroed with nothing allocated; what
 * a successful unpack allocates is freed by the message's _clear.
 */
#ifndef HNP_WIRE_JOIN_H
#define HNP_WIRE_JOIN_H

#include "hnp_buffer.h"
#include "hnp_tree.h"

typedef struct hnp_wire_join {
    char *uri;    /**< the child's contact; owned once unpacked */
    uint32_t pid; /**< the child's process id on its node; 0: unknown */
} hnp_wire_join_t;

int hnp_wire_join_pack(hnp_buffer_t *buf, const hnp_wire_join_t *m);
int hnp_wire_join_unpack(hnp_reader_t *rd, hnp_wire_join_t *m);
void hnp_wire_join_clear(hnp_wire_join_t *m);

typedef struct hnp_wire_daemon_up {
    hnp_vpid_t vpid; /**< the daemon that joined */
} hnp_wire_daemon_up_t;

int hnp_wire_daemon_up_pack(hnp_buffer_t *buf, const hnp_wire_daemon_up_t *m);
int hnp_wire_daemon_up_unpack(hnp_reader_t *rd, hnp_wire_daemon_up_t *m);

#endif /* HNP_WIRE_JOIN_H */
