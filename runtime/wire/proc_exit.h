/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How a process ended (HNP_TAG_PROC_EXIT), from its daemon to the HNP: its
 * wait status, or why it never started (exec's errno, or words for what
 * failed before exec).
 *
 *   jobid u32 | rank u32 | pid i32 | wait_status i32 | exec_errno i32 | why string
 *
 * Contract of runtime/wire: see join.h.
 */
#ifndef HNP_WIRE_PROC_EXIT_H
#define HNP_WIRE_PROC_EXIT_H

#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_proc_exit {
    uint32_t jobid;   /**< the job it concerns; no other is touched */
    uint32_t rank;
    int32_t pid;         /**< 0 when it never started */
    int32_t wait_status; /**< as waitpid(2) gave it */
    int32_t exec_errno;  /**< 0, or why the start failed */
    char *why;           /**< "" (or NULL when packing), or what failed
                              before exec; owned once unpacked */
} hnp_wire_proc_exit_t;

int hnp_wire_proc_exit_pack(hnp_buffer_t *buf, const hnp_wire_proc_exit_t *m);
int hnp_wire_proc_exit_unpack(hnp_reader_t *rd, hnp_wire_proc_exit_t *m);
void hnp_wire_proc_exit_clear(hnp_wire_proc_exit_t *m);

#endif /* HNP_WIRE_PROC_EXIT_H */
