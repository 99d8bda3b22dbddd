/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A line for the user (HNP_TAG_REPORT), from a daemon to the HNP, which
 * prints it: what --report-bindings asks for, and what a component says
 * with hnp_rte_report().
 *
 *   line string
 *
 * Contract of runtime/wire: see join.h.
 */
#ifndef HNP_WIRE_REPORT_H
#define HNP_WIRE_REPORT_H

#include "hnp_buffer.h"

typedef struct hnp_wire_report {
    char *line; /**< owned once unpacked */
} hnp_wire_report_t;

int hnp_wire_report_pack(hnp_buffer_t *buf, const hnp_wire_report_t *m);
int hnp_wire_report_unpack(hnp_reader_t *rd, hnp_wire_report_t *m);
void hnp_wire_report_clear(hnp_wire_report_t *m);

#endif /* HNP_WIRE_REPORT_H */
