/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `batch` module: one batch command a daemon in the HNP, and in each
 * daemon the answer to "who am I" from the batch system's environment.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <hnp_log.h>
#include <hnp_rte.h>

#include "plm_batch.h"

/*
 * Daemon r runs on the r-th node (vpid r, 1..N); the batch system numbers
 * its tasks from 0, so task r - 1 is daemon r. The runtime appends the
 * daemon's command line (with --plm batch and where the secret is) to
 * COMMAND NODE RANK, runs at most plm_rsh_num_concurrent of these at once,
 * and reports a command that fails with the node's name.
 */
static int batch_launch_daemons(struct hnp_rte *rte)
{
    uint32_t n = hnp_rte_num_procs(rte);
    char rank[16];
    int rc = HNP_SUCCESS;

    for (hnp_vpid_t v = 1; rc == HNP_SUCCESS && v < n; v++) {
        char *command[] = { plm_batch_command,
                            (char *)hnp_rte_node_name(rte, v), rank, NULL };
        snprintf(rank, sizeof(rank), "%u", v - 1);
        HNP_VERBOSE(hnp_log_stream("plm"), 5, "batch: task %s on %s", rank,
                    command[1]);
        rc = hnp_rte_spawn_daemon_with(rte, v, command);
    }
    return rc;
}

/* In the daemon, before anything else: the batch system's task rank and
 * node. Without them this daemon was not started by the batch system. */
static int batch_daemon_identity(hnp_vpid_t *vpid, char *node, size_t len,
                                 char *err, size_t errlen)
{
    const char *rank = getenv(PLM_BATCH_RANK_VAR);
    const char *name = getenv(PLM_BATCH_NODE_VAR);
    char *end = NULL;
    unsigned long r = 0;

    if (rank != NULL && rank[0] != '\0') {
        errno = 0;
        r = strtoul(rank, &end, 10);
    }
    if (end == NULL || *end != '\0' || errno != 0 ||
        r >= HNP_VPID_INVALID - 1 || name == NULL || name[0] == '\0') {
        hnp_err_set(err, errlen, "not a task of the batch system: %s and %s "
                    "must give the task's rank and node",
                    PLM_BATCH_RANK_VAR, PLM_BATCH_NODE_VAR);
        return HNP_ERR_NOT_FOUND;
    }
    if ((size_t)snprintf(node, len, "%s", name) >= len) {
        hnp_err_set(err, errlen, "%s is too long", PLM_BATCH_NODE_VAR);
        return HNP_ERR_TRUNCATED;
    }
    *vpid = (hnp_vpid_t)r + 1;
    return HNP_SUCCESS;
}

/* A flat launch (no spawn_tree, no capability): every daemon is started
 * from the HNP, and calls back to it. */
const hnp_plm_module_t plm_batch_module = {
    .secret = HNP_PLM_SECRET_FILE,
    .launch_daemons = batch_launch_daemons,
    .daemon_identity = batch_daemon_identity,
};
