/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nodes a spawn's host keys name that run no daemon yet: the daemons
 * a running runtime must start before the spawn goes on. Open MPI passes
 * four keys: PMIX_HOST and PMIX_HOSTFILE pick among the nodes of the
 * allocation, PMIX_ADD_HOST and PMIX_ADD_HOSTFILE may name new nodes,
 * which join it (as mpirun and PRRTE take them). Pure: the runtime says
 * which nodes run a daemon through a callback.
 */
#ifndef HNP_SPAWNHOSTS_H
#define HNP_SPAWNHOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "hostlist.h"

/** How a key's nodes are taken. */
typedef struct hnp_spawnhosts_key {
    const char *key;   /**< "PMIX_HOST", ...: errors name it */
    const char *text;  /**< its value (a host list, a hostfile's path) */
    bool adds;         /**< it may name nodes outside the allocation */
    bool own_slots;    /**< its slot counts, where given, are the node's */
} hnp_spawnhosts_key_t;

/** Whether node @p name runs a daemon of the runtime. */
typedef bool (*hnp_spawnhosts_daemon_fn)(const char *name, void *ctx);

/**
 * Into @p out, each node of @p named (what @p key names) that runs no
 * daemon and is not in @p out yet, with its slots: @p named's count when
 * the key gives its own and names one, else @p alloc's for that node,
 * else 1. A node outside @p alloc that the key cannot add is
 * HNP_ERR_NOT_FOUND, @p err naming the node, @p where ("the allocation")
 * and the key; @p out then keeps what it had.
 */
int hnp_spawnhosts_without_daemon(const hnp_nodelist_t *named,
                                  const hnp_spawnhosts_key_t *key,
                                  const hnp_nodelist_t *alloc,
                                  const char *where,
                                  hnp_spawnhosts_daemon_fn runs_daemon,
                                  void *ctx, hnp_nodelist_t *out, char *err,
                                  size_t errlen);

#endif /* HNP_SPAWNHOSTS_H */
