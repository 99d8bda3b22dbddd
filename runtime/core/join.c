/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Phase 1 as every spawner sees it (Algorithm 1, "accept connection"): a
 * child that calls back gets the job's size, the parameters, the HNP's
 * contact, and the (vpid, node) list of its own subtree; once all of a
 * process's spawn children have joined, its part of phase 1 is done.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "rte.h"
#include "wire/join.h"
#include "wire/welcome.h"

/* The (vpid, node) list of @p child's subtree, the child first: what its
 * own spawning needs. The names are lent. */
static int list_subtree(hnp_rte_t *rte, hnp_vpid_t child,
                        hnp_wire_welcome_t *w)
{
    uint32_t n = hnp_tree_descendants(&rte->spawn_tree, child, NULL, 0);
    hnp_vpid_t *below = malloc((n + 1) * sizeof(*below));

    w->subtree = calloc(n + 1, sizeof(*w->subtree));
    if (below == NULL || w->subtree == NULL) {
        free(below);
        free(w->subtree);
        w->subtree = NULL;
        return HNP_ERR_NOMEM;
    }
    below[0] = child;
    hnp_tree_descendants(&rte->spawn_tree, child, below + 1, n);
    w->nsubtree = n + 1;
    for (uint32_t i = 0; i <= n; i++) {
        w->subtree[i].vpid = below[i];
        w->subtree[i].name = rte->node_names != NULL
                                 ? rte->node_names[below[i]] : NULL;
    }
    free(below);
    return HNP_SUCCESS;
}

int hnp_rte_set_welcome_params(hnp_rte_t *rte, const void *params, size_t len)
{
    void *copy = malloc(len > 0 ? len : 1);

    if (copy == NULL)
        return HNP_ERR_NOMEM;
    memcpy(copy, params, len);
    free(rte->welcome_params);
    rte->welcome_params = copy;
    rte->welcome_params_len = len;
    return HNP_SUCCESS;
}

static int send_welcome(hnp_rte_t *rte, hnp_vpid_t child)
{
    hnp_buffer_t buf;
    char pmi[HNP_PMI_MAX_ACTIVE * HNP_MCA_NAME_LEN];
    int rc;

    /* The HNP packs its parameters at the first join, when every choice
     * (the launch model's too) is made. */
    if (rte->welcome_params == NULL) {
        char *packed = NULL;
        rc = hnp_params_pack(hnp_mca_params(rte->setup->mca), &packed,
                             &rte->welcome_params_len);
        if (rc != HNP_SUCCESS)
            return rc;
        rte->welcome_params = packed;
    }
    hnp_wire_welcome_t w = {
        .nprocs = rte->nprocs,
        .nfirst = rte->nfirst,
        .hnp_uri = rte->hnp_uri,
        .params = rte->welcome_params,
        .params_len = rte->welcome_params_len,
        .components = { rte->selected[0], rte->selected[1], rte->selected[2],
                        pmi,
                        rte->pmi_early != NULL ? (char *)rte->pmi_early : "" },
    };
    /* A daemon passes on what it was told; the HNP, what it selected. */
    if (rte->pmi_wanted != NULL)
        snprintf(pmi, sizeof(pmi), "%s", rte->pmi_wanted);
    else
        hnp_pmi_base_names(&rte->pmi, pmi, sizeof(pmi));
    rc = list_subtree(rte, child, &w);
    if (rc != HNP_SUCCESS)
        return rc;
    hnp_buffer_init(&buf);
    rc = hnp_wire_welcome_pack(&buf, &w);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send_direct(rte, child, HNP_TAG_WELCOME, buf.data, buf.len);
    free(w.subtree); /* the rest is lent */
    hnp_buffer_release(&buf);
    return rc;
}

static void on_join(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                    const void *data, size_t len, void *cbdata)
{
    hnp_wire_join_t join;
    hnp_reader_t rd;

    (void)tag;
    (void)cbdata;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_join_unpack(&rd, &join) != HNP_SUCCESS ||
        hnp_tree_parent(&rte->spawn_tree, src) != rte->self) {
        HNP_WARN(rte->log, "unexpected join from vpid %u ignored", src);
        hnp_wire_join_clear(&join);
        return;
    }
    hnp_rte_set_uri(rte, src, join.uri);
    if (rte->launcher != NULL)
        hnp_launcher_set_daemon_pid(rte->launcher, src, (pid_t)join.pid);
    hnp_wire_join_clear(&join);
    if (send_welcome(rte, src) != HNP_SUCCESS) {
        hnp_rte_fail(rte, 1, "cannot welcome the daemon of node %s",
                     hnp_rte_node_name(rte, src));
        return;
    }
    /* A daemon added to the running runtime takes no part in phase 2:
     * it is sent the contacts once it is up (adding.c). */
    if (src >= rte->nfirst)
        return;
    if (rte->exchange->child_joined != NULL)
        rte->exchange->child_joined(rte, src);
    rte->spawn_joined++;
    HNP_VERBOSE(rte->log, 5, "spawn child %u joined (%u of %u)", src,
                rte->spawn_joined, hnp_rte_spawn_children(rte, NULL, 0));
    if (rte->spawn_joined == hnp_rte_spawn_children(rte, NULL, 0))
        hnp_rte_spawn_complete(rte);
}

static int send_up(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    hnp_vpid_t parent = hnp_tree_parent(&rte->spawn_tree, rte->self);
    hnp_wire_daemon_up_t up = { .vpid = vpid };
    hnp_buffer_t buf;
    int rc;

    hnp_buffer_init(&buf);
    rc = hnp_wire_daemon_up_pack(&buf, &up);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send_direct(rte, parent, HNP_TAG_DAEMON_UP, buf.data,
                                 buf.len);
    hnp_buffer_release(&buf);
    return rc;
}

/* The HNP learns of every daemon as soon as it has joined, over the
 * connections phase 1 already made: the launch timeout, the progress line
 * and --timing's slowest daemons need it long before phase 2 ends. */
static void on_daemon_up(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                         const void *data, size_t len, void *cbdata)
{
    hnp_wire_daemon_up_t up;
    hnp_reader_t rd;

    (void)tag;
    (void)cbdata;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_daemon_up_unpack(&rd, &up) != HNP_SUCCESS || up.vpid == 0 ||
        up.vpid >= rte->nprocs)
        return;
    hnp_vpid_t vpid = up.vpid;
    /* A spawn child's own report: it has applied its welcome and let go of
     * its agent's stdio, so its start can no longer fail. Until then an
     * exit is a launch failure, reported with what the daemon printed. */
    if (src == vpid && rte->launcher != NULL)
        hnp_launcher_joined(rte->launcher, vpid);
    if (!rte->is_hnp)
        send_up(rte, vpid);
    else if (vpid >= rte->nfirst)
        hnp_rte_growth_joined(rte, vpid);
    else if (rte->role.daemon_up != NULL)
        rte->role.daemon_up(rte, vpid);
}

int hnp_rte_report_up(hnp_rte_t *rte)
{
    return send_up(rte, rte->self);
}

int hnp_rte_accept_joins(hnp_rte_t *rte)
{
    rte->spawn_joined = 0;
    hnp_rte_recv(rte, HNP_TAG_DAEMON_UP, on_daemon_up, NULL);
    if (!rte->is_hnp) {
        hnp_rte_accept_kill_requests(rte);
        hnp_rte_spawn_notes_relay(rte);
    }
    return hnp_rte_recv(rte, HNP_TAG_JOIN, on_join, NULL);
}
