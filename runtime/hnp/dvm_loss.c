/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The persistent runtime's failures (dvm.h): a failure a daemon reports
 * ends the job it names (0: whatever runs on it), and a daemon's loss ends
 * the jobs that used its node or a node below it in the routing tree; the
 * DVM serves on with the rest (dvm_on_daemon_loss continue) or stops.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "dvm_server.h"

void hnp_dvm_failure(hnp_dvm_t *dvm, uint32_t jobid, int status,
                     const char *message)
{
    hnp_job_t *running = dvm->running != NULL
                             ? hnp_dvm_job_of(dvm->running->job) : NULL;

    if (!dvm->ready) {
        hnp_job_abort(dvm->runtime, status, message);
        return;
    }
    /* 0: a daemon's own failure, which ends what runs on it */
    if (running != NULL && (jobid == 0 || jobid == running->jobid))
        hnp_job_abort(running, status, message);
    else if (jobid != 0)
        HNP_WARN(dvm->rte->log, "job %u, which has ended: %s", jobid,
                 message);
    else
        HNP_WARN(dvm->rte->log, "%s", message);
}

/* Node @p node is no longer served; whether the running job used it. */
static bool lose_node(hnp_dvm_t *dvm, uint32_t node)
{
    dvm->lost[node] = true;
    dvm->alive--;
    return dvm->running != NULL &&
           hnp_dvm_job_uses_node(dvm->running->job, node);
}

/* The daemons below @p vpid in the routing tree reach the HNP only
 * through it: they leave when it goes (their route is gone), so they are
 * lost too, named after @p msg's first @p at bytes; whether the running
 * job used one of them. */
static bool lose_subtree(hnp_dvm_t *dvm, hnp_vpid_t vpid, char *msg,
                         size_t len, size_t at)
{
    const hnp_tree_t *tree = &dvm->rte->routing_tree;
    uint32_t n = hnp_tree_descendants(tree, vpid, NULL, 0), named = 0;
    hnp_vpid_t *below = calloc((size_t)n + 1, sizeof(*below));
    bool hit = false;

    if (below != NULL)
        n = hnp_tree_descendants(tree, vpid, below, n);
    for (uint32_t i = 0; below != NULL && i < n; i++) {
        uint32_t node = below[i] - 1;
        if (below[i] == 0 || node >= dvm->runtime->map.nnodes ||
            dvm->lost[node])
            continue;
        hit |= lose_node(dvm, node);
        if (at < len)
            at += (size_t)snprintf(msg + at, len - at, "%s%s", named++
                                   ? ", " : "; unreachable below it in the "
                                   "routing tree, so lost too: ",
                                   hnp_rte_node_name(dvm->rte, below[i]));
    }
    free(below);
    return hit;
}

void hnp_dvm_daemon_lost(hnp_dvm_t *dvm, hnp_vpid_t vpid, const char *why)
{
    uint32_t node = vpid - 1;

    if (!dvm->ready || dvm->rte->core->dvm_on_daemon_loss ==
                           HNP_DVM_LOSS_STOP) {
        if (dvm->running != NULL)
            hnp_job_abort(hnp_dvm_job_of(dvm->running->job), 1, why);
        if (dvm->ready)
            hnp_dvm_stop(dvm, "a daemon died (dvm_on_daemon_loss stop)");
        else
            hnp_job_abort(dvm->runtime, 1, why);
        return;
    }
    if (vpid == 0 || node >= dvm->runtime->map.nnodes || dvm->lost[node])
        return;
    char msg[2048];
    bool hit = lose_node(dvm, node);
    size_t at = (size_t)snprintf(msg, sizeof(msg), "%s", why);

    hit |= lose_subtree(dvm, vpid, msg, sizeof(msg), at);
    if (hit)
        hnp_job_abort(hnp_dvm_job_of(dvm->running->job), 1, msg);
    else
        HNP_WARN(dvm->rte->log, "%s; the DVM serves on with %u nodes", msg,
                 dvm->alive);
    if (dvm->alive == 0)
        hnp_dvm_stop(dvm, "no daemon left");
}
