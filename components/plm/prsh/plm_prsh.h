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
 * The default δ, measured (see the table in the commit that introduced
 * it): 256 simulated nodes whose agent costs 10 ms of the launching node's
 * time and 50 ms of remote start-up, as an ssh does on a LAN.
 */
#define PLM_PRSH_DEFAULT_DEGREE 8

/**
 * The value of `plm_prsh_spawning_degree`. Owned by the component, which
 * binds it to the parameter at registration; the module reads it when it
 * builds the spawn tree, after the HNP's forwarded value is in place.
 */
extern unsigned int plm_prsh_spawning_degree;

/** The module the component offers (plm_prsh_module.c). */
extern const hnp_plm_module_t plm_prsh_module;

#endif /* PLM_PRSH_H */
