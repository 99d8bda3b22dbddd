/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The persistent runtime's failures (dvm.h): a failure a daemon reports
 * ends the job it names (0: whatever runs on its node), and a daemon's
 * loss ends the jobs that used its node or a node below it in the routing
 * tree; the DVM serves on with the rest (dvm_on_daemon_loss continue) or
 * stops.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "dvm_server.h"

/* Every running job with ranks on a node @p lost marks (all of them:
 * NULL) ends with @p status, saying @p why to its client; whether one
 * did. */
static bool end_jobs_on(hnp_dvm_t *dvm, const bool *lost, int status,
                        const char *why)
{
    uint32_t nnodes = dvm->runtime->map.nnodes;
    bool hit = false;

    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next) {
        bool uses = lost == NULL;
        if (!c->running)
            continue;
        for (uint32_t n = 0; !uses && n < nnodes; n++)
            uses = lost[n] && hnp_dvm_job_uses_node(c->job, n);
        if (!uses)
            continue;
        hit = true;
        hnp_dvm_job_log_to(c->job);
        hnp_job_abort(hnp_dvm_job_of(c->job), status, why);
        hnp_dvm_job_log_to(NULL);
    }
    return hit;
}

void hnp_dvm_failure(hnp_dvm_t *dvm, hnp_vpid_t src, uint32_t jobid,
                     int status, const char *message)
{
    dvm_conn_t *c = jobid != 0 ? dvm_running_job(dvm, jobid) : NULL;
    uint32_t nnodes = dvm->runtime->map.nnodes;

    if (!dvm->ready) {
        hnp_job_abort(dvm->runtime, status, message);
        return;
    }
    /* 0: a daemon's own failure, which ends what runs on its node */
    if (jobid == 0 && dvm->nrunning > 0) {
        bool *on = src >= 1 && src <= nnodes ? calloc(nnodes, sizeof(*on))
                                             : NULL;
        if (on != NULL)
            on[src - 1] = true;
        end_jobs_on(dvm, on, status, message);
        free(on);
    } else if (c != NULL) {
        hnp_dvm_job_log_to(c->job);
        hnp_job_abort(hnp_dvm_job_of(c->job), status, message);
        hnp_dvm_job_log_to(NULL);
    } else if (jobid != 0)
        HNP_WARN(dvm->rte->log, "job %u, which has ended: %s", jobid,
                 message);
    else
        HNP_WARN(dvm->rte->log, "%s", message);
}

/* Node @p node is no longer served; marked in @p now. */
static void lose_node(hnp_dvm_t *dvm, uint32_t node, bool *now)
{
    dvm->lost[node] = true;
    dvm->free_slots[node] = 0;
    dvm->alive--;
    now[node] = true;
}

/* The daemons below @p vpid in the routing tree reach the HNP only
 * through it: they leave when it goes (their route is gone), so they are
 * lost too (marked in @p now), named after @p msg's first @p at bytes. */
static void lose_subtree(hnp_dvm_t *dvm, hnp_vpid_t vpid, bool *now,
                         char *msg, size_t len, size_t at)
{
    const hnp_tree_t *tree = &dvm->rte->routing_tree;
    uint32_t n = hnp_tree_descendants(tree, vpid, NULL, 0), named = 0;
    hnp_vpid_t *below = calloc((size_t)n + 1, sizeof(*below));

    if (below != NULL)
        n = hnp_tree_descendants(tree, vpid, below, n);
    for (uint32_t i = 0; below != NULL && i < n; i++) {
        uint32_t node = below[i] - 1;
        if (below[i] == 0 || node >= dvm->runtime->map.nnodes ||
            dvm->lost[node])
            continue;
        lose_node(dvm, node, now);
        if (at < len)
            at += (size_t)snprintf(msg + at, len - at, "%s%s", named++
                                   ? ", " : "; unreachable below it in the "
                                   "routing tree, so lost too: ",
                                   hnp_rte_node_name(dvm->rte, below[i]));
    }
    free(below);
}

void hnp_dvm_daemon_lost(hnp_dvm_t *dvm, hnp_vpid_t vpid, const char *why)
{
    uint32_t node = vpid - 1, nnodes = dvm->runtime->map.nnodes;

    if (!dvm->ready || dvm->rte->core->dvm_on_daemon_loss ==
                           HNP_DVM_LOSS_STOP) {
        end_jobs_on(dvm, NULL, 1, why);
        if (dvm->ready)
            hnp_dvm_stop(dvm, "a daemon died (dvm_on_daemon_loss stop)");
        else
            hnp_job_abort(dvm->runtime, 1, why);
        return;
    }
    if (vpid == 0 || node >= nnodes || dvm->lost[node])
        return;
    char msg[2048];
    bool *now = calloc(nnodes, sizeof(*now));
    size_t at = (size_t)snprintf(msg, sizeof(msg), "%s", why);

    if (now == NULL) { /* no memory to name them: every job ends */
        dvm->lost[node] = true;
        dvm->free_slots[node] = 0;
        dvm->alive--;
        end_jobs_on(dvm, NULL, 1, why);
    } else {
        lose_node(dvm, node, now);
        lose_subtree(dvm, vpid, now, msg, sizeof(msg), at);
        if (!end_jobs_on(dvm, now, 1, msg))
            HNP_WARN(dvm->rte->log, "%s; the DVM serves on with %u nodes",
                     msg, dvm->alive);
        free(now);
    }
    dvm_grow_drop_lost(dvm);
    if (dvm->alive == 0)
        hnp_dvm_stop(dvm, "no daemon left");
}
