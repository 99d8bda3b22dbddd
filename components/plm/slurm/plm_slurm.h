/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file plm_slurm.h
 * @brief The `slurm` plm component: one `srun` starts every daemon.
 *
 * Inside a Slurm allocation (SLURM_JOB_ID set) the nodes and their slots
 * come from SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE, and the HNP runs a
 * single `srun --ntasks-per-node=1` over the job's nodes; each daemon learns
 * its vpid from SLURM_NODEID and its node from SLURMD_NODENAME (the
 * module's daemon_identity, asked by hnpd --plm slurm), reads the
 * job secret from srun's stdin (`--input=all`, never a command line) and
 * calls back to the HNP: a flat spawn tree, like rsh, with Slurm's own
 * fast fan-out doing the remote starts.
 */
#ifndef PLM_SLURM_H
#define PLM_SLURM_H

#include "hnp_plm.h"

/** plm_slurm_args: extra words for srun. */
extern char *plm_slurm_args;

extern const hnp_plm_module_t plm_slurm_module;

/** Parse SLURM_TASKS_PER_NODE ("2(x3),1") into @p slots for @p count
 *  nodes; HNP_ERR_BAD_PARAM when it does not describe that many. */
int plm_slurm_tasks_per_node(const char *text, uint32_t *slots, size_t count);

/** The module's daemon_identity: vpid SLURM_NODEID + 1 on SLURMD_NODENAME. */
int plm_slurm_daemon_identity(hnp_vpid_t *vpid, char *node, size_t len,
                              char *err, size_t errlen);

/** sinfo's "NODE STATE REASON" lines as "node3 (down: why), ..." in
 *  @p buf, each node once, their number in *nodes; HNP_ERR_NOT_FOUND when
 *  there is none. */
int plm_slurm_describe_down(const char *sinfo_out, char *buf, size_t len,
                            size_t *nodes);

/** The module's explain_failure: the allocation's nodes that sinfo says
 *  are down, drained, failing or not responding. */
int plm_slurm_explain_failure(struct hnp_rte *rte, char *buf, size_t len);

#endif /* PLM_SLURM_H */
