/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `prsh` plm module: every process of the runtime spawns its own
 * children in the spawn tree (Algorithm 1 of paper 002).
 *
 * The runtime does the rest of the algorithm: it hands each child that
 * calls back the (vpid, node) list of its subtree, and calls
 * spawn_subtree() in a daemon once that list has arrived. So the HNP and a
 * daemon do the same thing here, on their own part of the tree.
 */
#include "config.h"

#include <stdlib.h>

#include "hnp_rte.h"
#include "plm_prsh.h"

/*
 * Every process builds the tree from the same forwarded δ (or SEQ and REM)
 * and job size, so the HNP and the daemons agree on it without sending it
 * around. δ = 0 borrows the routing tree: a daemon then calls back to the
 * process it will route through anyway, so the spawn connections are the
 * routing connections and phase 1 opens none of its own.
 */
static int plm_prsh_spawn_tree(struct hnp_rte *rte, uint32_t nprocs,
                               const hnp_tree_t *routing, hnp_tree_t *out)
{
    (void)rte;
    if (out == NULL || nprocs == 0)
        return HNP_ERR_BAD_PARAM;
    if (plm_prsh_tree == PLM_PRSH_TREE_GREEDY)
        return hnp_tree_greedy(nprocs, plm_prsh_seq, plm_prsh_rem, out);
    if (plm_prsh_tree == PLM_PRSH_TREE_KARY && plm_prsh_spawning_degree > 0) {
        *out = hnp_tree_kary(nprocs, plm_prsh_spawning_degree);
        return HNP_SUCCESS;
    }
    if (routing == NULL || routing->n != nprocs)
        return HNP_ERR_BAD_PARAM;
    return hnp_tree_copy(routing, out);
}

/* Start this process's spawn-tree children: the HNP's when called from
 * launch_daemons, a daemon's own when called from spawn_subtree. The
 * runtime's launcher bounds the agents starting at once and queues the
 * rest, so all of them are handed over in one go. */
static int plm_prsh_spawn_children(struct hnp_rte *rte)
{
    uint32_t n = hnp_rte_spawn_children(rte, NULL, 0);
    hnp_vpid_t *children;
    int rc;

    if (n == 0)
        return HNP_SUCCESS;
    children = malloc(n * sizeof(*children));
    if (children == NULL)
        return HNP_ERR_NOMEM;
    hnp_rte_spawn_children(rte, children, n);
    /* A daemon keeps its few children's agents for the job, as the HNP
     * keeps its own: none of them forks to leave its agent. */
    hnp_rte_set_spawn_attached(rte, true);
    rc = hnp_rte_spawn_daemons(rte, children, n);
    free(children);
    return rc;
}

/* The model the greedy tree is built for; calibrated only when the user
 * asked for it (plm_prsh_model=auto) and the tree depends on it; the
 * estimate is --plan's whenever the user asked for it. */
static int plm_prsh_launch_model(struct hnp_rte *rte,
                                 hnp_plm_launch_model_t *out)
{
    (void)rte;
    *out = (hnp_plm_launch_model_t){
        .seq = plm_prsh_seq,
        .rem = plm_prsh_rem,
        .seq_param = "plm_prsh_seq",
        .rem_param = "plm_prsh_rem",
        .calibrate = plm_prsh_model == PLM_PRSH_MODEL_AUTO &&
                     plm_prsh_tree == PLM_PRSH_TREE_GREEDY,
        .estimate = plm_prsh_model == PLM_PRSH_MODEL_AUTO,
    };
    return HNP_SUCCESS;
}

/* No finalize: the agents belong to the runtime's launcher, which
 * cancels them. */
const hnp_plm_module_t plm_prsh_module = {
    .capabilities = HNP_PLM_CAP_SPAWNS_TREE | HNP_PLM_CAP_LAUNCH_MODEL,
    .secret = HNP_PLM_SECRET_STDIN,
    .spawn_tree = plm_prsh_spawn_tree,
    .launch_daemons = plm_prsh_spawn_children,
    .spawn_subtree = plm_prsh_spawn_children,
    .launch_model = plm_prsh_launch_model,
};
