/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the HNP tells every daemon about the job's processes, in a
 * broadcast: a signal the user sent hnp, to pass on to them
 * (HNP_TAG_SIGNAL), and the end of the job (HNP_TAG_SHUTDOWN, also passed
 * down the spawn tree): kill the processes, at once or after the grace
 * period, and exit. And what it tells one daemon about a child it started:
 * the job gave up on that child (it stopped responding), which is to be
 * killed, so that nothing of the job stays on its node
 * (HNP_TAG_KILL_DAEMON). And, in a runtime that outlives its jobs (hnp
 * --dvm), the end of one job (HNP_TAG_JOB_END, in a broadcast): kill what
 * is left of that job's processes, at once or after the grace period, and
 * release what the daemon holds for it; the daemon stays. And, for a job
 * that leaves some of the runtime's daemons without ranks, an all-gather
 * the HNP heard of (HNP_TAG_COLLECTIVE, in a broadcast): those daemons
 * join it with nothing, as they cannot hear of it from ranks of their own.
 * And, from a daemon to the HNP, that it has forked its processes of a
 * job (HNP_TAG_PROCS_STARTED).
 *
 *   signal       jobid u32 | signo i32
 *   shutdown     now u8 (0: after the grace period)
 *   kill daemon  vpid u32
 *   job end      jobid u32 | now u8
 *   collective   id u32
 *   started      jobid u32
 *
 * Contract of runtime/wire: see join.h. Nothing is allocated.
 */
#ifndef HNP_WIRE_CONTROL_H
#define HNP_WIRE_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_signal {
    uint32_t jobid;   /**< the job it concerns; no other is touched */
    int32_t signo;
} hnp_wire_signal_t;

int hnp_wire_signal_pack(hnp_buffer_t *buf, const hnp_wire_signal_t *m);
int hnp_wire_signal_unpack(hnp_reader_t *rd, hnp_wire_signal_t *m);

typedef struct hnp_wire_procs_started {
    uint32_t jobid; /**< the job whose processes this daemon forked */
} hnp_wire_procs_started_t;

int hnp_wire_procs_started_pack(hnp_buffer_t *buf,
                                const hnp_wire_procs_started_t *m);
int hnp_wire_procs_started_unpack(hnp_reader_t *rd,
                                  hnp_wire_procs_started_t *m);

typedef struct hnp_wire_shutdown {
    bool now; /**< kill the processes at once, without a grace period */
} hnp_wire_shutdown_t;

int hnp_wire_shutdown_pack(hnp_buffer_t *buf, const hnp_wire_shutdown_t *m);
int hnp_wire_shutdown_unpack(hnp_reader_t *rd, hnp_wire_shutdown_t *m);

typedef struct hnp_wire_kill_daemon {
    uint32_t vpid; /**< the spawn child to kill */
} hnp_wire_kill_daemon_t;

int hnp_wire_kill_daemon_pack(hnp_buffer_t *buf,
                              const hnp_wire_kill_daemon_t *m);
int hnp_wire_kill_daemon_unpack(hnp_reader_t *rd, hnp_wire_kill_daemon_t *m);

typedef struct hnp_wire_job_end {
    uint32_t jobid; /**< the job that ends; others are not touched */
    bool now;       /**< kill its processes without a grace period */
} hnp_wire_job_end_t;

int hnp_wire_job_end_pack(hnp_buffer_t *buf, const hnp_wire_job_end_t *m);
int hnp_wire_job_end_unpack(hnp_reader_t *rd, hnp_wire_job_end_t *m);

typedef struct hnp_wire_collective {
    uint32_t id; /**< the all-gather (core/job.c numbers them) */
} hnp_wire_collective_t;

int hnp_wire_collective_pack(hnp_buffer_t *buf,
                             const hnp_wire_collective_t *m);
int hnp_wire_collective_unpack(hnp_reader_t *rd, hnp_wire_collective_t *m);

#endif /* HNP_WIRE_CONTROL_H */
