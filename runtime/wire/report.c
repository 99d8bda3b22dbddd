/* SPDX-License-Identifier: BSD-3-Clause */
/* A line for the user (see report.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "hnp_log.h"
#include "report.h"

int hnp_wire_report_pack(hnp_buffer_t *buf, const hnp_wire_report_t *m)
{
    hnp_pack_i32(buf, m->severity);
    hnp_pack_string(buf, m->stream != NULL ? m->stream : "");
    hnp_pack_string(buf, m->line);
    return hnp_buffer_status(buf);
}

int hnp_wire_report_unpack(hnp_reader_t *rd, hnp_wire_report_t *m)
{
    memset(m, 0, sizeof(*m));
    m->severity = hnp_unpack_i32(rd);
    m->stream = hnp_unpack_string(rd);
    m->line = hnp_unpack_string(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS ||
        m->severity < HNP_WIRE_REPORT_PLAIN || m->severity > HNP_LOG_VERBOSE) {
        hnp_wire_report_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

void hnp_wire_report_clear(hnp_wire_report_t *m)
{
    free(m->stream);
    free(m->line);
    memset(m, 0, sizeof(*m));
}
