/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the HNP tells every daemon about the job's processes, in a
 * broadcast: a signal the user sent hnp, to pass on to them
 * (HNP_TAG_SIGNAL), and the end of the job (HNP_TAG_SHUTDOWN, also passed
 * down the spawn tree): kill the processes, at once or after the grace
 * period, and exit.
 *
 *   signal    signo i32
 *   shutdown  now u8 (0: after the grace period)
 *
 * Contract of runtime/wire: see join.h. Nothing is allocated.
 */
#ifndef HNP_WIRE_CONTROL_H
#define HNP_WIRE_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_signal {
    int32_t signo;
} hnp_wire_signal_t;

int hnp_wire_signal_pack(hnp_buffer_t *buf, const hnp_wire_signal_t *m);
int hnp_wire_signal_unpack(hnp_reader_t *rd, hnp_wire_signal_t *m);

typedef struct hnp_wire_shutdown {
    bool now; /**< kill the processes at once, without a grace period */
} hnp_wire_shutdown_t;

int hnp_wire_shutdown_pack(hnp_buffer_t *buf, const hnp_wire_shutdown_t *m);
int hnp_wire_shutdown_unpack(hnp_reader_t *rd, hnp_wire_shutdown_t *m);

#endif /* HNP_WIRE_CONTROL_H */
