/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Phase 2 and what watches it, the same in the HNP and in a daemon: once
 * every spawn child of a process has joined, the process offers its own
 * contact to the selected exchange and records every contact the exchange
 * brings; a routing neighbour that falls silent is handed to the role with
 * one description. The role adds only what differs (the HNP sends the
 * launch as phase 2 starts; a daemon tells the HNP when its table is
 * complete).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rte.h"

static void contact_learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                            size_t len)
{
    hnp_rte_t *rte = cbdata;
    const char *uri = data;

    /* A contact the exchange cannot vouch for is dropped, not recorded:
     * an out-of-range vpid or a string without its end. */
    if (vpid >= rte->nprocs || len == 0 || uri[len - 1] != '\0')
        return;
    hnp_rte_set_uri(rte, vpid, uri);
}

static void contact_complete(void *cbdata, int status)
{
    hnp_rte_t *rte = cbdata;

    if (status != HNP_SUCCESS) {
        hnp_rte_fail(rte, 1, "node %s: the contact exchange failed",
                     hnp_rte_node_name(rte, rte->self));
        return;
    }
    if (rte->role.contacts_complete != NULL)
        rte->role.contacts_complete(rte);
}

void hnp_rte_spawn_complete(hnp_rte_t *rte)
{
    const char *uri = hnp_rte_my_uri(rte);
    hnp_exchange_callbacks_t cb = { contact_learned, contact_complete, rte };

    if (rte->exchange->allgather(rte, 0, uri, strlen(uri) + 1, &cb) != HNP_SUCCESS) {
        hnp_rte_fail(rte, 1, "node %s: cannot start the contact exchange",
                     hnp_rte_node_name(rte, rte->self));
        return;
    }
    if (rte->role.exchange_started != NULL)
        rte->role.exchange_started(rte);
}

void hnp_rte_neighbour_silent(hnp_rte_t *rte, hnp_vpid_t vpid, double seconds)
{
    char why[256];

    snprintf(why, sizeof(why), "stopped responding: no heartbeat for %.0f s "
             "(hung, or off the network)", seconds);
    hnp_rte_requests_lost(rte, vpid);
    if (rte->role.neighbour_lost != NULL)
        rte->role.neighbour_lost(rte, vpid, why);
}

int hnp_rte_describe_lost(const hnp_rte_t *rte, hnp_vpid_t vpid,
                          const char *why, char *out, size_t outlen)
{
    return snprintf(out, outlen, "the daemon on node %s (vpid %u) %s",
                    hnp_rte_node_name(rte, vpid), vpid, why);
}
