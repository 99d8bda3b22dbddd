/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What ends a job from inside the runtime, sent straight to the HNP (the
 * routing tree may be what broke): a fatal error in words
 * (HNP_TAG_FAILURE), and a daemon that found a neighbour dead or silent
 * (HNP_TAG_PEER_LOST), named by vpid since only the HNP knows every node.
 * And what may explain a daemon that never joins: its spawn parent's word
 * on the agent starting it (HNP_TAG_SPAWN_NOTE), kept by the HNP for its
 * launch-timeout message.
 *
 *   failure     jobid u32 | status i32 | message string
 *
 * (jobid: the job whose failure it is, 0 when it is the daemon's own)
 *   peer lost   vpid u32 | why string
 *   spawn note  vpid u32 | command string | output string
 *
 * Contract of runtime/wire: see join.h.
 */
#ifndef HNP_WIRE_FAILURE_H
#define HNP_WIRE_FAILURE_H

#include <stdint.h>

#include "hnp_buffer.h"
#include "hnp_tree.h"

typedef struct hnp_wire_failure {
    uint32_t jobid; /**< the job it ends; 0: the daemon's own failure */
    int32_t status; /**< hnp's exit status (0: 1) */
    char *message;  /**< owned once unpacked */
} hnp_wire_failure_t;

int hnp_wire_failure_pack(hnp_buffer_t *buf, const hnp_wire_failure_t *m);
int hnp_wire_failure_unpack(hnp_reader_t *rd, hnp_wire_failure_t *m);
void hnp_wire_failure_clear(hnp_wire_failure_t *m);

typedef struct hnp_wire_peer_lost {
    hnp_vpid_t vpid; /**< the daemon lost */
    char *why;       /**< "died (...)", "stopped responding: ..."; owned
                          once unpacked */
} hnp_wire_peer_lost_t;

int hnp_wire_peer_lost_pack(hnp_buffer_t *buf, const hnp_wire_peer_lost_t *m);
int hnp_wire_peer_lost_unpack(hnp_reader_t *rd, hnp_wire_peer_lost_t *m);
void hnp_wire_peer_lost_clear(hnp_wire_peer_lost_t *m);

typedef struct hnp_wire_spawn_note {
    hnp_vpid_t vpid; /**< the daemon being started, not joined yet */
    char *command;   /**< the agent's command line; owned once unpacked */
    char *output;    /**< the agent's last lines ("": none); owned once
                          unpacked */
} hnp_wire_spawn_note_t;

int hnp_wire_spawn_note_pack(hnp_buffer_t *buf,
                             const hnp_wire_spawn_note_t *m);
int hnp_wire_spawn_note_unpack(hnp_reader_t *rd, hnp_wire_spawn_note_t *m);
void hnp_wire_spawn_note_clear(hnp_wire_spawn_note_t *m);

#endif /* HNP_WIRE_FAILURE_H */
