/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A daemon the job gave up on (stopped, hung: it no longer answers, yet
 * its connections stay open) must not stay on its node with its
 * processes. Only the process that started it can reach it: its spawn
 * parent kills it through the launcher (its agent, or a new one that runs
 * kill on its node, by the pid it joined with). The HNP does so for its
 * own children and asks the spawn parent of any other (HNP_TAG_KILL_DAEMON,
 * wire/control.h). A stopped process dies of SIGKILL too, and the daemon's
 * sentinel then ends the node's processes.
 */
#include "config.h"

#include "hnp_buffer.h"
#include "rte.h"
#include "wire/control.h"

static void kill_own_child(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    if (rte->launcher == NULL ||
        hnp_launcher_kill_daemon(rte->launcher, vpid) != HNP_SUCCESS)
        HNP_VERBOSE(rte->log, 1, "cannot kill the daemon on node %s (vpid %u): "
                 "nothing of its start is known here",
                 hnp_rte_node_name(rte, vpid), vpid);
}

void hnp_rte_kill_daemon(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    hnp_wire_kill_daemon_t req = { .vpid = vpid };
    hnp_vpid_t parent;
    hnp_buffer_t buf;

    if (vpid == 0 || vpid >= rte->nprocs || vpid == rte->self)
        return;
    parent = hnp_tree_parent(&rte->spawn_tree, vpid);
    HNP_VERBOSE(rte->log, 1, "killing the daemon on node %s (vpid %u) "
                "through vpid %u", hnp_rte_node_name(rte, vpid), vpid,
                parent);
    if (parent == rte->self) {
        kill_own_child(rte, vpid);
        return;
    }
    if (!rte->is_hnp || parent == HNP_VPID_INVALID)
        return;
    hnp_buffer_init(&buf);
    if (hnp_wire_kill_daemon_pack(&buf, &req) != HNP_SUCCESS ||
        hnp_rte_send_direct(rte, parent, HNP_TAG_KILL_DAEMON, buf.data,
                            buf.len) != HNP_SUCCESS)
        HNP_WARN(rte->log, "cannot ask vpid %u to kill the daemon on node %s "
                 "(vpid %u)", parent, hnp_rte_node_name(rte, vpid), vpid);
    hnp_buffer_release(&buf);
}

/* The HNP asks: kill that child of ours. */
static void on_kill_daemon(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                           const void *data, size_t len, void *cbdata)
{
    hnp_wire_kill_daemon_t req;
    hnp_reader_t rd;

    (void)tag;
    (void)cbdata;
    hnp_reader_init(&rd, data, len);
    if (src != 0 || hnp_wire_kill_daemon_unpack(&rd, &req) != HNP_SUCCESS ||
        req.vpid >= rte->nprocs ||
        hnp_tree_parent(&rte->spawn_tree, req.vpid) != rte->self) {
        HNP_WARN(rte->log, "unexpected request from vpid %u to kill a daemon "
                 "ignored", src);
        return;
    }
    kill_own_child(rte, req.vpid);
}

int hnp_rte_accept_kill_requests(hnp_rte_t *rte)
{
    return hnp_rte_recv(rte, HNP_TAG_KILL_DAEMON, on_kill_daemon, NULL);
}
