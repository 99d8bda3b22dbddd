/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file plm_prsh.h
 * @brief The `prsh` plm component: the tree spawn of paper 002 (Algorithm 1).
 *
 * The HNP starts only its own children in the spawn tree. Each daemon, once
 * its parent has welcomed it with the list of its subtree, starts its own
 * children through the same remote-shell agent, telling them to call back
 * to itself rather than to the HNP. Launching therefore proceeds on every
 * level of the tree at once, and no process ever handles more than its
 * children's connections during phase 1.
 *
 * The spawn tree is a δ-ary tree, δ = `plm_prsh_spawning_degree` (the
 * paper's `prsh_spawning_degree` is accepted too), or, for δ = 0, the
 * spanning tree of the selected routing topology.
 */
#ifndef PLM_PRSH_H
#define PLM_PRSH_H

#include "hnp_plm.h"

/*
 * The default δ, chosen by measurement. A launch costs each level of the
 * tree about δ·s + r, s being the launching node's share of one agent (it
 * runs its agents one after another) and r the remote start-up; the tree
 * has log_δ N levels. `hnp /bin/true` on 256 simulated nodes with s = 10 ms
 * and r = 50 ms (an ssh on a LAN), 11 runs each on a shared 2-core
 * machine, median (best) seconds:
 *
 *     δ = 2: 1.54 (1.25)   4: 1.39 (1.12)   8: 1.41 (1.14)
 *     δ = 16: 1.38 (1.24)  0 = radix 32: 1.47 (1.13)   rsh: 3.43 (3.16)
 *
 * 4, 8 and 16 are within noise of each other. When the remote start-up
 * dominates (r = 200 ms) 16 came out best, when the launching node's share
 * does (s = 50 ms) 4 did (2 runs each): 8 is never far from the better one,
 * and keeps the tree to 4 levels up to 4680 nodes, where 4 would need 6.
 */
#define PLM_PRSH_DEFAULT_DEGREE 8

/**
 * The value of `plm_prsh_spawning_degree`. Owned by the component, which
 * binds it to the parameter at registration; the module reads it when it
 * builds the spawn tree, after the HNP's forwarded value is in place.
 */
extern unsigned int plm_prsh_spawning_degree;

/** Values of `plm_prsh_tree`: which spawn tree to build. */
enum plm_prsh_tree_shape {
    PLM_PRSH_TREE_KARY = 0,   /**< δ-ary, δ = plm_prsh_spawning_degree */
    PLM_PRSH_TREE_ROUTED = 1, /**< the routing topology's tree (δ = 0) */
    PLM_PRSH_TREE_GREEDY = 2, /**< paper 001's greedy tree for seq, rem */
};

/* The launch model's costs the greedy tree is built for (seconds): the
 * same guesses for an ssh on a LAN as the measurement above. */
#define PLM_PRSH_DEFAULT_SEQ "0.01"
#define PLM_PRSH_DEFAULT_REM "0.05"

/** Values of `plm_prsh_model`: where seq and rem come from. */
enum plm_prsh_model_source {
    PLM_PRSH_MODEL_FIXED = 0, /**< plm_prsh_seq and plm_prsh_rem as set */
    PLM_PRSH_MODEL_AUTO = 1,  /**< the HNP's estimate from earlier runs
                                   (~/.hnp/launch-model), updated by each */
};

/** `plm_prsh_tree`, `plm_prsh_seq`, `plm_prsh_rem`, `plm_prsh_model`;
 *  owned like the degree. The runtime acts on the model (it owns the
 *  measurements) when the module's launch_model asks it to. */
extern int plm_prsh_tree;
extern double plm_prsh_seq;
extern double plm_prsh_rem;
extern int plm_prsh_model;

/** The module the component offers (plm_prsh_module.c). */
extern const hnp_plm_module_t plm_prsh_module;

#endif /* PLM_PRSH_H */
