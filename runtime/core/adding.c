/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Daemons added to a running runtime (a spawn onto a node of the
 * allocation that has none): the HNP's side and the daemons'.
 *
 *  1. The HNP grows (grow.c) and broadcasts the new size and the added
 *     daemons' nodes (HNP_TAG_GROW). Every daemon grows; the routing
 *     parent of an added daemon says so (HNP_TAG_GROWN), and the HNP
 *     waits for those: an added daemon's first connection to its parent
 *     must not come before the parent takes its vpid.
 *  2. The HNP starts them through the launcher, as the first daemons
 *     (they are its spawn children: hnp_tree_extend), or, for a launcher
 *     that starts daemons with a command of its own (srun), through its
 *     launch_added hook: one more command for all of them. Each joins, is
 *     welcomed with the first launch's size (it builds the same trees)
 *     and skips phase 2: the HNP sends it every contact
 *     (HNP_TAG_CONTACTS), then broadcasts the added daemons' contacts,
 *     and the all-gathers that begin from then on count them
 *     (hnp_rte_grow_collectives).
 *  3. A daemon that cannot be started, or has not joined within
 *     plm_base_launch_timeout (then it is killed; the launcher's command
 *     is stopped when none of its daemons joined, else it ends with the
 *     job), fails the growth alone: its vpid stays, never counted by the
 *     all-gathers, and no more daemons are added to this runtime
 *     (growth_broken).
 *
 * One growth at a time: the requests that need daemons meanwhile wait
 * in line and take their turns once it ends (growth_queue.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "rte.h"
#include "wire/roster.h"

struct hnp_rte_growth {
    hnp_vpid_t first;        /* the added vpids: first..first + count - 1 */
    uint32_t count;
    hnp_vpid_t *parents;     /* routing parents that must say GROWN */
    uint32_t nparents;
    uint32_t grown;          /* of them, those that did */
    uint32_t joined;         /* added daemons up */
    bool *up;                /* [count]: that one is */
    bool started;            /* the launcher has them */
    bool by_command;         /* through the plm's launch_added */
    hnp_rte_timer_t *timer;  /* plm_base_launch_timeout */
    hnp_rte_added_fn done;
    void *ctx;
};

/* ------------------------------------------------------------ messages */

/* @p count entries from @p first: their nodes, and with @p uris their
 * contacts as the HNP holds them. */
static int send_roster(hnp_rte_t *rte, hnp_vpid_t to, uint32_t tag,
                       hnp_vpid_t first, uint32_t count, bool uris)
{
    hnp_wire_roster_t m = { .nprocs = rte->nprocs, .count = count };
    hnp_buffer_t buf;
    int rc;

    m.entries = calloc(count > 0 ? count : 1, sizeof(*m.entries));
    if (m.entries == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < count; i++) {
        const char *uri = uris ? hnp_oob_peer_uri(rte->oob, first + i) : "";
        m.entries[i].vpid = first + i;
        m.entries[i].node = rte->node_names[first + i];
        m.entries[i].uri = (char *)(uri != NULL ? uri : "");
    }
    hnp_buffer_init(&buf);
    rc = hnp_wire_roster_pack(&buf, &m);
    if (rc == HNP_SUCCESS && to == HNP_VPID_INVALID)
        rc = hnp_rte_xcast(rte, tag, buf.data, buf.len);
    else if (rc == HNP_SUCCESS)
        rc = hnp_rte_send_direct(rte, to, tag, buf.data, buf.len);
    hnp_buffer_release(&buf);
    free(m.entries);
    return rc;
}

/* ------------------------------------------------------------ the HNP */

static void growth_end(hnp_rte_t *rte, int status, const char *why)
{
    hnp_rte_growth_t *g = rte->growth;

    rte->growth = NULL;
    if (status != HNP_SUCCESS && rte->growth_broken == NULL)
        rte->growth_broken = strdup(why);
    hnp_rte_timer_destroy(g->timer);
    if (g->done != NULL) { /* its request goes before those in line */
        bool taken = rte->growth_turn_taken;
        rte->growth_turn_taken = true;
        g->done(rte, status, why, g->ctx);
        rte->growth_turn_taken = taken;
    }
    free(g->parents);
    free(g->up);
    free(g);
    hnp_rte_growth_next_turn(rte);
}

/* An agent that neither fails nor starts its daemon: the ones still
 * missing are killed, and the growth fails naming the first. */
static void added_timed_out(hnp_rte_t *rte, void *cbdata)
{
    hnp_rte_growth_t *g = cbdata;
    char why[512] = "";

    hnp_rte_timer_destroy(g->timer);
    g->timer = NULL;
    for (uint32_t i = 0; i < g->count; i++) {
        if (g->up[i])
            continue;
        if (why[0] == '\0')
            snprintf(why, sizeof(why), "the daemon for node %s (vpid %u) "
                     "did not call back within plm_base_launch_timeout "
                     "(%g s)", rte->node_names[g->first + i], g->first + i,
                     rte->core->launch_timeout);
        if (!g->by_command)
            hnp_rte_kill_daemon(rte, g->first + i);
    }
    /* a command whose daemons all hang (srun waiting for its step) */
    if (g->by_command && g->joined == 0 && rte->launcher != NULL)
        (void)hnp_launcher_stop_command(rte->launcher, g->first);
    growth_end(rte, HNP_ERR_TIMEOUT, why);
}

static void start_added(hnp_rte_t *rte)
{
    hnp_rte_growth_t *g = rte->growth;
    hnp_vpid_t *vpids = malloc(g->count * sizeof(*vpids));
    int rc;

    g->started = true;
    if (rte->core->launch_timeout > 0)
        g->timer = hnp_rte_timer_create(rte, rte->core->launch_timeout,
                                        added_timed_out, g);
    if (vpids == NULL) {
        growth_end(rte, HNP_ERR_NOMEM, "out of memory starting daemons");
        return;
    }
    for (uint32_t i = 0; i < g->count; i++)
        vpids[i] = g->first + i;
    g->by_command = rte->plm->launch_added != NULL;
    if (g->by_command)
        rc = rte->plm->launch_added(rte, g->first, g->count);
    else
        rc = hnp_rte_spawn_daemons(rte, vpids, g->count);
    free(vpids);
    /* a failure was told through hnp_rte_growth_failed() */
    if (rc != HNP_SUCCESS && rte->growth == g)
        growth_end(rte, rc, "the launcher refused the daemons");
}

static void on_grown(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                     const void *data, size_t len, void *cbdata)
{
    hnp_rte_growth_t *g = rte->growth;

    (void)tag;
    (void)data;
    (void)len;
    (void)cbdata;
    if (g == NULL || g->started)
        return;
    for (uint32_t i = 0; i < g->nparents; i++)
        if (g->parents[i] == src) {
            g->parents[i] = HNP_VPID_INVALID; /* counted once */
            if (++g->grown == g->nparents)
                start_added(rte);
            return;
        }
}

/* The running daemons that will be routing parents of added ones. */
static int note_parents(hnp_rte_t *rte, hnp_rte_growth_t *g)
{
    g->parents = calloc(g->count, sizeof(*g->parents));
    if (g->parents == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < g->count; i++) {
        hnp_vpid_t p = rte->routed->parent(g->first + i, rte->nprocs);
        bool seen = p == 0 || p >= g->first;
        for (uint32_t k = 0; !seen && k < g->nparents; k++)
            seen = g->parents[k] == p;
        if (!seen)
            g->parents[g->nparents++] = p;
    }
    return HNP_SUCCESS;
}

int hnp_rte_add_daemons(hnp_rte_t *rte, char *const *nodes, uint32_t count,
                        hnp_rte_added_fn done, void *ctx, char *err,
                        size_t errlen)
{
    hnp_rte_growth_t *g;
    int rc;

    if (hnp_rte_growth_busy(rte)) {
        hnp_err_set(err, errlen, "daemons are being started for another "
                    "request, or requests wait for their turn");
        return HNP_ERR_EXISTS;
    }
    if (rte->growth_broken != NULL) {
        hnp_err_set(err, errlen, "no more daemons can be started: %s",
                    rte->growth_broken);
        return HNP_ERR_NOT_AVAILABLE;
    }
    if (count == 0 || (g = calloc(1, sizeof(*g))) == NULL)
        return count == 0 ? HNP_ERR_BAD_PARAM : HNP_ERR_NOMEM;
    *g = (hnp_rte_growth_t){ .first = rte->nprocs, .count = count,
                             .done = done, .ctx = ctx,
                             .up = calloc(count, sizeof(bool)) };
    if (g->up == NULL) {
        free(g);
        return HNP_ERR_NOMEM;
    }
    rc = hnp_rte_grow(rte, rte->nprocs + count, nodes);
    if (rc == HNP_ERR_NOT_AVAILABLE)
        hnp_err_set(err, errlen, "exchange %s cannot take daemons added "
                    "while the runtime runs", rte->selected[2]);
    if (rc == HNP_SUCCESS && (rc = note_parents(rte, g)) == HNP_SUCCESS)
        rc = send_roster(rte, HNP_VPID_INVALID, HNP_TAG_GROW, g->first,
                         count, false);
    if (rc != HNP_SUCCESS) {
        if (err[0] == '\0')
            hnp_err_set(err, errlen, "cannot add daemons: %s",
                        hnp_strerror(rc));
        free(g->parents);
        free(g->up);
        free(g);
        return rc;
    }
    rte->growth = g;
    hnp_rte_recv(rte, HNP_TAG_GROWN, on_grown, NULL);
    HNP_VERBOSE(rte->log, 1, "adding %u daemons (vpids %u..%u); %u routing "
                "parents to hear from", count, g->first, g->first + count - 1,
                g->nparents);
    if (g->nparents == 0)
        start_added(rte);
    return HNP_SUCCESS;
}

void hnp_rte_growth_joined(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    hnp_rte_growth_t *g = rte->growth;
    int rc = HNP_SUCCESS;

    if (g == NULL || vpid < g->first || vpid >= g->first + g->count ||
        g->up[vpid - g->first])
        return;
    g->up[vpid - g->first] = true;
    if (++g->joined < g->count)
        return;
    /* each added daemon first learns every contact, then every daemon
     * learns theirs, then the all-gathers count them */
    for (uint32_t i = 0; rc == HNP_SUCCESS && i < g->count; i++)
        rc = send_roster(rte, g->first + i, HNP_TAG_CONTACTS, 1,
                         rte->nprocs - 1, true);
    if (rc == HNP_SUCCESS)
        rc = send_roster(rte, HNP_VPID_INVALID, HNP_TAG_CONTACTS, g->first,
                         g->count, true);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_grow_collectives(rte);
    growth_end(rte, rc, rc == HNP_SUCCESS ? NULL
                        : "cannot tell the daemons the added ones' contacts");
}

bool hnp_rte_growth_failed(hnp_rte_t *rte, hnp_vpid_t vpid, const char *why)
{
    hnp_rte_growth_t *g = rte->growth;

    if (g == NULL || vpid < g->first || vpid >= g->first + g->count)
        return vpid >= rte->nfirst; /* one of an earlier growth: told */
    growth_end(rte, HNP_ERR_UNREACHABLE, why);
    return true;
}

bool hnp_rte_growth_by_command(const hnp_rte_t *rte)
{
    return rte->growth != NULL && rte->growth->by_command;
}

void hnp_rte_growth_abandon(hnp_rte_t *rte, void *ctx)
{
    if (rte->growth != NULL && rte->growth->ctx == ctx)
        rte->growth->done = NULL;
}

void hnp_rte_growth_destroy(hnp_rte_t *rte)
{
    hnp_rte_growth_queue_destroy(rte);
    if (rte->growth != NULL) {
        hnp_rte_timer_destroy(rte->growth->timer);
        free(rte->growth->parents);
        free(rte->growth->up);
        free(rte->growth);
        rte->growth = NULL;
    }
    free(rte->growth_broken);
    rte->growth_broken = NULL;
}

/* ------------------------------------------------------------ a daemon */

static void on_grow(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                    const void *data, size_t len, void *cbdata)
{
    hnp_wire_roster_t m;
    char **names;
    bool parent = false;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "growth", hnp_wire_roster_unpack, data, len,
                        &m))
        return;
    /* an added daemon hears of its own growth too: it was born grown */
    if (m.nprocs <= rte->nprocs && m.count > 0 &&
        m.entries[m.count - 1].vpid < rte->nprocs) {
        hnp_wire_roster_clear(&m);
        return;
    }
    if (m.nprocs != rte->nprocs + m.count ||
        (names = calloc(m.count + 1, sizeof(*names))) == NULL) {
        HNP_WARN(rte->log, "growth to %u processes dropped: this daemon "
                 "holds %u", m.nprocs, rte->nprocs);
        hnp_wire_roster_clear(&m);
        return;
    }
    for (uint32_t i = 0; i < m.count; i++) {
        names[i] = m.entries[i].node;
        parent = parent ||
                 rte->routed->parent(m.entries[i].vpid, m.nprocs) == rte->self;
    }
    if (hnp_rte_grow(rte, m.nprocs, names) != HNP_SUCCESS)
        hnp_rte_fail(rte, 1, "node %s cannot take the daemons added to the "
                     "runtime", hnp_rte_node_name(rte, rte->self));
    else if (parent)
        hnp_rte_send(rte, 0, HNP_TAG_GROWN, NULL, 0);
    free(names);
    hnp_wire_roster_clear(&m);
}

static void on_contacts(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                        const void *data, size_t len, void *cbdata)
{
    hnp_wire_roster_t m;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "contacts", hnp_wire_roster_unpack, data,
                        len, &m))
        return;
    for (uint32_t i = 0; i < m.count; i++) {
        hnp_vpid_t v = m.entries[i].vpid;
        if (v != rte->self && v < rte->nprocs && m.entries[i].uri[0] != '\0')
            hnp_rte_set_uri(rte, v, m.entries[i].uri);
    }
    if (rte->nprocs > rte->nfirst)
        hnp_rte_grow_collectives(rte);
    hnp_wire_roster_clear(&m);
}

int hnp_rte_accept_growth(hnp_rte_t *rte)
{
    int rc = hnp_rte_recv(rte, HNP_TAG_GROW, on_grow, NULL);

    if (rc == HNP_SUCCESS)
        rc = hnp_rte_recv(rte, HNP_TAG_CONTACTS, on_contacts, NULL);
    return rc;
}
