/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A line for the user (HNP_TAG_REPORT), from a daemon to the HNP, which
 * prints it: what --report-bindings asks for, what a component says with
 * hnp_rte_report(), and the daemon's own log messages (its warnings and
 * errors, the verbose output asked for, what its libraries write to its
 * stderr), which have nowhere else to go once it has left its agent.
 *
 *   severity i32     HNP_WIRE_REPORT_USER (-1): a line for the user,
 *                    printed as hnp's own message; HNP_WIRE_REPORT_PLAIN
 *                    (-2): one an option asked for, printed as it is
 *                    (--report-bindings); otherwise the
 *                    hnp_log_severity_t of a log message
 *   stream   string  the log stream of a log message ("" otherwise)
 *   line     string
 *
 * Contract of runtime/wire: see join.h. A severity outside those is
 * refused as malformed (HNP_ERR_TRUNCATED).
 */
#ifndef HNP_WIRE_REPORT_H
#define HNP_WIRE_REPORT_H

#include <stdint.h>

#include "hnp_buffer.h"

#define HNP_WIRE_REPORT_USER (-1)
#define HNP_WIRE_REPORT_PLAIN (-2)

typedef struct hnp_wire_report {
    int32_t severity; /**< HNP_WIRE_REPORT_USER, _PLAIN or a
                           hnp_log_severity_t */
    char *stream;     /**< owned once unpacked; NULL packs as "" */
    char *line;       /**< owned once unpacked */
} hnp_wire_report_t;

int hnp_wire_report_pack(hnp_buffer_t *buf, const hnp_wire_report_t *m);
int hnp_wire_report_unpack(hnp_reader_t *rd, hnp_wire_report_t *m);
void hnp_wire_report_clear(hnp_wire_report_t *m);

#endif /* HNP_WIRE_REPORT_H */
