/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_plm.h
 * @brief The `plm` framework: phase 1, one daemon onto every node.
 *
 * The HNP calls launch_daemons() once. A module starts the daemons it is
 * responsible for through the runtime's launch services (command line,
 * environment, secret and agent error capture are shared runtime code) and
 * describes the spawn tree it builds, so that the runtime can hand every
 * connecting child the list of its subtree and the exchange can flood along
 * it (Algorithms 1 and 2 of Bosilca, Herault, Rezmerita and Dongarra, "On
 * Scalability for MPI Runtime Systems"):
 *
 *  - a flat launcher (rsh, slurm) spawns every daemon from the HNP: its
 *    spawn tree is flat, and daemons never call spawn_subtree();
 *  - a tree launcher (prsh) spawns only the HNP's children; each daemon,
 *    once it has received its subtree from its parent, calls
 *    spawn_subtree() to start its own children.
 *
 * The core never asks a launcher's name: what it needs to know is said
 * here, by the capability flags and the optional hooks. A launcher that
 * starts daemons with a command of its own (a batch system's: srun, a
 * tm-style spawn) says how the job secret reaches them (@c secret) and
 * tells each daemon who it is from that command's environment
 * (daemon_identity); when it can also start daemons on more nodes of its
 * allocation while the job runs (a spawn that needs them), it says so by
 * launch_added.
 *
 * The runtime context is opaque here; components reach it through the
 * runtime services header.
 */
#ifndef HNP_PLM_H
#define HNP_PLM_H

#include <stdbool.h>
#include <stddef.h>

#include "hnp_mca.h"
#include "hnp_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2.0: hnp_tree_t, which spawn_tree fills, grew the explicit kind.
 * 3.0: the caller owns the tree spawn_tree fills, and releases it; init
 *      and spawn_tree may be NULL.
 * 4.0: capability flags, the secret's way to the daemons, and the hooks
 *      launch_model and daemon_identity.
 * 4.1: HNP_PLM_CAP_ALLOCATION_ORDER and the hook explain_failure, in what
 *      was room to grow: a 4.0 component still loads.
 * 5.0: spawn_tree hands a copy of the routing tree, never the tree itself
 *      (hnp_tree.h's one ownership rule), and must be deterministic.
 * 5.1: the hook launch_added, in what was room to grow: a 5.0 component
 *      still loads (and its daemons are never added to a running job,
 *      when it has a daemon_identity). */
#define HNP_PLM_INTERFACE_VERSION HNP_MCA_VERSION(5, 1, 0)

struct hnp_rte;

/** Capability flags, in hnp_plm_module_t::capabilities. */
enum {
    /** Daemons start daemons: spawn_subtree is set, and a daemon with
     *  children in the spawn tree calls it. Without the flag every daemon
     *  is started from the HNP. */
    HNP_PLM_CAP_SPAWNS_TREE = 1u << 0,
    /** The spawn tree follows the launch model: launch_model is set, and
     *  the HNP calibrates the model when the hook asks it to. */
    HNP_PLM_CAP_LAUNCH_MODEL = 1u << 1,
    /** The launcher numbers the daemons in the order allocated_nodes gives
     *  the nodes (as srun numbers a step's nodes, whatever order they were
     *  asked in): the HNP gives the daemons' vpids in that order. The
     *  ranks stay on the nodes they were mapped to. */
    HNP_PLM_CAP_ALLOCATION_ORDER = 1u << 2,
};

/**
 * How the job secret reaches a daemon started through the launcher's own
 * command (hnp_rte_spawn_daemon_with()). Never on a command line, never in
 * an environment variable: both can be read by other users.
 */
typedef enum hnp_plm_secret {
    /** One line of hex on the command's stdin, which the command hands to
     *  the daemon (as the remote-shell agent and `srun --input=all` do). */
    HNP_PLM_SECRET_STDIN = 0,
    /** A file of mode 0600 in a directory of mode 0700 that the launching
     *  process creates (O_EXCL, O_NOFOLLOW) under plm_base_secret_dir; the
     *  daemon is given its path, reads it and removes it. For a command
     *  that gives the daemon no stdin (a tm-style spawn). The launcher
     *  removes a file no daemon read once the launch has failed or ended;
     *  the directory must be visible where the daemons run. */
    HNP_PLM_SECRET_FILE = 1,
} hnp_plm_secret_t;

/**
 * The launch model ("An optimal bootstrapping strategy") that a tree
 * launcher builds its tree for, and by which hnp --plan ranks the trees: a
 * launching process spends @c seq seconds between starting two agents, and
 * a daemon can start its own children @c rem seconds after its agent
 * started.
 */
typedef struct hnp_plm_launch_model {
    double seq;
    double rem;
    /** The parameters that hold seq and rem (their full names): where the
     *  HNP writes its estimate when it calibrates, as a value from the
     *  user's file, so that a value the user set anywhere else still wins
     *  and every daemon receives it. */
    const char *seq_param;
    const char *rem_param;
    /** The user asked for the estimate from earlier runs, and the tree
     *  depends on it: the HNP applies the estimate before building the
     *  tree and updates it from this launch. */
    bool calibrate;
    /** The user asked for the estimate, whatever the tree: hnp --plan
     *  ranks the trees with it (a launch whose tree does not depend on it
     *  neither applies nor updates it). Implied by @c calibrate. */
    bool estimate;
} hnp_plm_launch_model_t;

typedef struct hnp_plm_module {
    /** HNP_PLM_CAP_* flags. The base rejects a module whose flags promise a
     *  hook it lacks. */
    uint32_t capabilities;
    /** How the secret travels with hnp_rte_spawn_daemon_with(). */
    hnp_plm_secret_t secret;
    /** Prepare this process (HNP or daemon) for launching. May be NULL. */
    int (*init)(struct hnp_rte *rte);
    /**
     * The spawn tree over the runtime's @p nprocs processes (0 is the HNP).
     * @p routing is the routing topology's spanning tree, for launchers
     * that spawn along it. Called in the HNP and in every daemon, each of
     * which computes its own spawn children and parent from its own copy
     * of the tree: it must be deterministic, the same tree everywhere for
     * the same @p nprocs, @p routing and parameters (the HNP forwards every
     * value that is not a default), and ask no one. The tree is the
     * caller's (hnp_tree.h's one ownership rule): to spawn along @p routing,
     * hand a hnp_tree_copy() of it. May be NULL: the flat tree, every
     * daemon a child of the HNP.
     */
    int (*spawn_tree)(struct hnp_rte *rte, uint32_t nprocs,
                      const hnp_tree_t *routing, hnp_tree_t *out);
    /** HNP only: start phase 1. Returns once the launches are under way. */
    int (*launch_daemons)(struct hnp_rte *rte);
    /**
     * Daemon only, with HNP_PLM_CAP_SPAWNS_TREE: this daemon has received
     * from its parent the list of its subtree; start its direct children.
     */
    int (*spawn_subtree)(struct hnp_rte *rte);
    /** Stop launches in progress and release resources. May be NULL. */
    void (*finalize)(struct hnp_rte *rte);
    /**
     * May be NULL. HNP only: the nodes of the allocation this
     * launcher runs in (a batch system's), in the order the batch system
     * numbers them, by calling @p add for each with its slots (0: unknown).
     * HNP_ERR_NOT_AVAILABLE when there is none.
     */
    int (*allocated_nodes)(struct hnp_rte *rte,
                           void (*add)(void *ctx, const char *node,
                                       uint32_t slots),
                           void *ctx);
    /**
     * HNP only, with HNP_PLM_CAP_LAUNCH_MODEL (may be set without it, for
     * hnp --plan alone): the launch model as this launcher's parameters
     * give it now.
     */
    int (*launch_model)(struct hnp_rte *rte, hnp_plm_launch_model_t *out);
    /**
     * May be NULL. Daemon only, for a launcher whose command starts daemons
     * that are not told who they are (hnp_rte_daemon_command(),
     * hnp_rte_spawn_daemon_with()): the daemon loads this component alone
     * and asks it, before the runtime exists and before the HNP's
     * parameters arrive, for its vpid (1..N: daemon r runs on the r-th node
     * the launcher was given) and its node's name (copied into @p node, at
     * most @p len bytes with the NUL), from the environment the command
     * gave it: `SLURM_NODEID` under srun, a task number elsewhere. Such a
     * daemon stays the command's task for the job (it does not detach).
     * HNP_ERR_NOT_FOUND, with @p err saying what is missing, when the
     * environment does not say.
     */
    int (*daemon_identity)(hnp_vpid_t *vpid, char *node, size_t len,
                           char *err, size_t errlen);
    /**
     * Optional, in the HNP, when the job fails: what the launcher's system
     * knows of the failure (Slurm: the nodes of the allocation it reports
     * down), as one sentence that names the nodes, into @p buf. When the
     * system ends every node's processes for the loss of one, the first
     * death the HNP hears of is seldom the cause. HNP_ERR_NOT_FOUND when
     * it knows nothing. May block a few seconds.
     */
    int (*explain_failure)(struct hnp_rte *rte, char *buf, size_t len);
    /**
     * May be NULL. HNP only, for a launcher with a daemon_identity: start,
     * with one more command of its own, the @p count daemons added to the
     * running job, vpids @p first .. @p first + @p count - 1 on the nodes
     * hnp_rte_node_name() names (in the order allocated_nodes gives them
     * under HNP_PLM_CAP_ALLOCATION_ORDER). The command runs
     * hnp_rte_added_daemon_command(), whose daemons add @p first - 1 to the
     * vpid daemon_identity gives them (1 on the command's first node),
     * through hnp_rte_spawn_added_command(): its failure, or its daemons
     * not calling back within plm_base_launch_timeout, fails the spawn
     * that needed them, not the job. Without the hook such a launcher's
     * job gets no daemon once it runs.
     */
    int (*launch_added)(struct hnp_rte *rte, hnp_vpid_t first,
                        uint32_t count);
    void *reserved[2]; /**< room to grow; NULL */
} hnp_plm_module_t;

#ifdef __cplusplus
}
#endif

#endif /* HNP_PLM_H */
