/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A daemon that leaves at the job's end says so (HNP_TAG_LEAVING) to every
 * daemon it holds a connection with, before it closes them. The shutdown
 * travels down two trees (routing and spawn) and reaches the daemons in no
 * fixed order: a daemon may see a neighbour in the other tree close before
 * its own copy of the shutdown has come. Without the word it would take
 * that close for a death, report it to the HNP, which would ask the dead
 * daemon's spawn parent (gone too, by then) to kill it: warnings after a
 * clean run. The word travels on the connection that then closes, so it
 * is read before the close is seen.
 */
#include "config.h"

#include <stdlib.h>

#include "rte.h"

static void on_leaving(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                       const void *data, size_t len, void *cbdata)
{
    (void)tag;
    (void)data;
    (void)len;
    (void)cbdata;
    if (src == 0 || src >= rte->nprocs)
        return;
    if (rte->left == NULL &&
        (rte->left = calloc((rte->nprocs + 7) / 8, 1)) == NULL)
        return; /* a close then is reported, as before */
    rte->left[src / 8] |= (uint8_t)(1u << (src % 8));
}

int hnp_rte_accept_leaving(hnp_rte_t *rte)
{
    return hnp_rte_recv(rte, HNP_TAG_LEAVING, on_leaving, NULL);
}

void hnp_rte_say_leaving(hnp_rte_t *rte)
{
    if (rte->oob == NULL)
        return;
    for (hnp_vpid_t v = 1; v < rte->nprocs; v++)
        if (v != rte->self && hnp_oob_connected(rte->oob, v))
            (void)hnp_rte_send_direct(rte, v, HNP_TAG_LEAVING, NULL, 0);
}

bool hnp_rte_peer_left(const hnp_rte_t *rte, hnp_vpid_t vpid)
{
    return rte->left != NULL && vpid < rte->nprocs &&
           (rte->left[vpid / 8] & (1u << (vpid % 8))) != 0;
}
