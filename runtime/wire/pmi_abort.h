/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A process called PMI abort (MPI_Abort) (HNP_TAG_PMI_ABORT): its daemon
 * tells the HNP, which ends the job with the process's code.
 *
 *   jobid u32 | rank u32 | code i32 | words string
 *
 * Contract of runtime/wire: see join.h.
 */
#ifndef HNP_WIRE_PMI_ABORT_H
#define HNP_WIRE_PMI_ABORT_H

#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_pmi_abort {
    uint32_t jobid;   /**< the job it concerns; no other is touched */
    uint32_t rank;
    int32_t code;  /**< the exit code the process asked for */
    char *words;   /**< its message, maybe ""; owned once unpacked */
} hnp_wire_pmi_abort_t;

int hnp_wire_pmi_abort_pack(hnp_buffer_t *buf, const hnp_wire_pmi_abort_t *m);
int hnp_wire_pmi_abort_unpack(hnp_reader_t *rd, hnp_wire_pmi_abort_t *m);
void hnp_wire_pmi_abort_clear(hnp_wire_pmi_abort_t *m);

#endif /* HNP_WIRE_PMI_ABORT_H */
