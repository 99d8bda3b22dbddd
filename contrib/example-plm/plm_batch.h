/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file plm_batch.h
 * @brief `batch`, an example plm component built outside the hnp tree.
 *
 * It starts every daemon through a batch system's "run this task on node
 * N" command, as a launcher for PBS (tm_spawn) or Flux would: one command
 * a daemon, which gives the task its rank in the environment and no stdin.
 * The batch system here is a stand-in, the script example-batch-run of
 * this directory, which runs the task on this machine with
 * EXAMPLE_BATCH_RANK and EXAMPLE_BATCH_NODE set.
 *
 * What it shows:
 *  - launch_daemons hands each daemon to hnp_rte_spawn_daemon_with(),
 *    which appends the daemon's own command line;
 *  - the secret cannot travel on stdin, so the module says
 *    HNP_PLM_SECRET_FILE: the runtime leaves it in a file of mode 0600
 *    that the daemon reads and removes;
 *  - the daemon, started with `--plm batch`, loads this component alone
 *    and asks daemon_identity who it is, which reads the environment the
 *    batch system gave it.
 *
 * Only installed hnp headers are used, found through
 * `pkg-config --cflags hnp-component`.
 */
#ifndef PLM_BATCH_H
#define PLM_BATCH_H

#include <hnp_plm.h>

/** Below every in-tree launcher (rsh has 10): installing the example never
 *  changes which plm hnp selects; name it with --mca plm batch. */
#define PLM_BATCH_DEFAULT_PRIORITY 5

/** What the batch system tells its task (the stand-in's names). */
#define PLM_BATCH_RANK_VAR "EXAMPLE_BATCH_RANK"
#define PLM_BATCH_NODE_VAR "EXAMPLE_BATCH_NODE"

/** `plm_batch_command` and `plm_batch_priority`, bound at registration. */
extern char *plm_batch_command;
extern int plm_batch_priority;

/** The component descriptor, the one symbol hnp looks up and the one the
 *  shared object exports: the Makefile builds with -fvisibility=hidden and
 *  HNP_COMPONENT_EXPORT (hnp_mca.h) marks the exception. */
HNP_COMPONENT_EXPORT
extern const hnp_mca_component_t mca_plm_batch_component;

/** The module the component offers (plm_batch_module.c). */
extern const hnp_plm_module_t plm_batch_module;

#endif /* PLM_BATCH_H */
