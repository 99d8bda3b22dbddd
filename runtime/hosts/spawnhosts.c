/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nodes a spawn needs daemons on (spawnhosts.h).
 */
#include "config.h"

#include "hnp_errors.h"
#include "spawnhosts.h"

/* The slots a node @p key names gets on its new daemon. */
static uint32_t slots_of(const hnp_node_t *named, const hnp_node_t *allocated,
                         const hnp_spawnhosts_key_t *key)
{
    if (key->own_slots && named->slots_given && named->slots > 0)
        return named->slots;
    if (allocated != NULL && allocated->slots > 0)
        return allocated->slots;
    return 1;
}

/* The first node of @p named outside @p alloc that the key cannot add. */
static const hnp_node_t *outside(const hnp_nodelist_t *named,
                                 const hnp_spawnhosts_key_t *key,
                                 const hnp_nodelist_t *alloc,
                                 hnp_spawnhosts_daemon_fn runs_daemon,
                                 void *ctx)
{
    for (size_t i = 0; !key->adds && i < named->count; i++) {
        const hnp_node_t *node = &named->nodes[i];
        if (!runs_daemon(node->name, ctx) &&
            hnp_nodelist_find(alloc, node->name) == NULL)
            return node;
    }
    return NULL;
}

int hnp_spawnhosts_without_daemon(const hnp_nodelist_t *named,
                                  const hnp_spawnhosts_key_t *key,
                                  const hnp_nodelist_t *alloc,
                                  const char *where,
                                  hnp_spawnhosts_daemon_fn runs_daemon,
                                  void *ctx, hnp_nodelist_t *out, char *err,
                                  size_t errlen)
{
    const hnp_node_t *refused = outside(named, key, alloc, runs_daemon, ctx);

    if (refused != NULL) {
        hnp_err_set(err, errlen, "host %s is not in %s (%s %s; "
                    "PMIX_ADD_HOST or PMIX_ADD_HOSTFILE adds a node)",
                    refused->name, where, key->key, key->text);
        return HNP_ERR_NOT_FOUND;
    }
    for (size_t i = 0; i < named->count; i++) {
        const hnp_node_t *node = &named->nodes[i];
        if (runs_daemon(node->name, ctx) ||
            hnp_nodelist_find(out, node->name) != NULL)
            continue;
        if (hnp_nodelist_add(out, node->name,
                             slots_of(node,
                                      hnp_nodelist_find(alloc, node->name),
                                      key),
                             true) != HNP_SUCCESS) {
            hnp_err_set(err, errlen, "out of memory");
            return HNP_ERR_NOMEM;
        }
    }
    return HNP_SUCCESS;
}
