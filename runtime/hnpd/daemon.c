/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's life: call back to the spawn parent, receive the job's size,
 * parameters and subtree (Algorithm 1), spawn its own children if the plm
 * says so, take part in the contact exchange (phase 2), and leave when told
 * to or when its route to the HNP is gone.
 */
#include "config.h"

#include <event2/event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "hnp_buffer.h"
#include "daemon.h"
#include "wire/control.h"
#include "wire/failure.h"
#include "wire/join.h"
#include "wire/welcome.h"
#include "procs/fdlimit.h"

/* The daemon's own CPU from this process's @p usage: plus what the first
 * process had used before the fork that detaches from the agent, less
 * what the agent had used before exec'ing hnpd. */
static uint64_t own_cpu_us(const hnpd_t *d, uint64_t usage)
{
    uint64_t total = d->prefork_cpu_us + usage;

    return total > d->before_exec_us ? total - d->before_exec_us : 0;
}

/* Its connection to its parent is up: the start-up as the launch targets
 * count it, exec to connected, before the welcome is applied. */
static void role_peer_up(hnp_rte_t *rte, hnp_vpid_t peer)
{
    hnpd_t *d = rte->role.ctx;
    uint64_t cpu_us, rss_kb;

    if (peer != d->parent || d->stats.connected_cpu_us != 0)
        return;
    hnp_daemon_stats_usage(&cpu_us, &rss_kb);
    d->stats.connected_cpu_us = own_cpu_us(d, cpu_us);
}

/* Once the daemon is part of the job it lets go of the agent's stdio
 * (its log and stderr go to the HNP from now on, or to its log file).
 * Detached, the first process is told to exit, so that the remote shell
 * ends, and this one leaves the session. Attached, the remote shell lives
 * on with the daemon, which from now on no longer dies with the process
 * that started it: a lost parent is noticed on the wire and reported, as
 * on a real node. Under a batch system's command (srun) nothing changes:
 * it keeps its tasks, and forwards their stderr itself. */
static void leave_agent(hnpd_t *d)
{
    if (d->detach_fd >= 0) {
        if (write(d->detach_fd, "k", 1) != 1)
            HNP_WARN(d->rte->log, "cannot tell the agent's process to exit");
        close(d->detach_fd);
        d->detach_fd = -1;
        setsid();
    } else if (d->attached) {
        prctl(PR_SET_PDEATHSIG, 0);
    } else {
        return;
    }
    hnpd_relay_leave_agent(d);
}

/* This daemon holds every contact: the HNP counts it (phase 2's end),
 * once the pmi components are loaded where they are wanted before the
 * first job (pmi_base_preload). */
static void contacts_complete(hnp_rte_t *rte)
{
    hnpd_t *d = rte->role.ctx;
    char err[512] = "";

    if (rte->core->pmi_preload &&
        hnpd_pmi_preload(d, err, sizeof(err)) != HNP_SUCCESS) {
        hnp_rte_fail(rte, 1, "node %s: loading the pmi components: %s",
                     d->node, err);
        return;
    }
    hnp_rte_send(rte, 0, HNP_TAG_PHASE2_DONE, NULL, 0);
}

/* The names of this daemon's subtree, by vpid: what its own spawning
 * needs. @p names[nprocs] borrows them from @p w. */
static int place_subtree(const hnp_wire_welcome_t *w, char **names)
{
    for (uint32_t i = 0; i < w->nsubtree; i++) {
        hnp_vpid_t v = w->subtree[i].vpid;
        if (names[v] != NULL)
            return HNP_ERR_BAD_PARAM;
        names[v] = w->subtree[i].name;
    }
    return HNP_SUCCESS;
}

/* The daemon uses the components the HNP chose, and loads no other; of
 * pmi, exactly those active in the HNP (none: the framework stays shut). */
static int take_the_hnps_choices(hnpd_t *d,
                                 char *const chosen[HNP_WIRE_WELCOME_NCOMPONENTS],
                                 char *err, size_t errlen)
{
    static const char *const frameworks[3] = { "plm", "routed", "exchange" };
    hnp_params_t *params = hnp_mca_params(d->setup->mca);
    int rc = HNP_SUCCESS;

    /* A daemon that asked a plm who it is uses that one. */
    if (d->rte->plm != NULL && strcmp(chosen[0], d->rte->selected[0]) != 0) {
        hnp_err_set(err, errlen, "started by plm %s, but the HNP chose %s",
                    d->rte->selected[0], chosen[0]);
        return HNP_ERR_BAD_PARAM;
    }
    for (int i = 0; i < 3 && rc == HNP_SUCCESS; i++)
        rc = hnp_param_set(params, frameworks[i], chosen[i],
                           HNP_PARAM_SRC_FORWARDED, "the HNP's choice", err,
                           errlen);
    const char *pmi = chosen[HNP_WIRE_WELCOME_PMI];
    if (rc == HNP_SUCCESS && pmi[0] != '\0')
        rc = hnp_param_set(params, "pmi", pmi, HNP_PARAM_SRC_FORWARDED,
                           "the HNP's choice", err, errlen);
    if (rc == HNP_SUCCESS && (d->pmi_wanted = strdup(pmi)) == NULL)
        rc = HNP_ERR_NOMEM;
    /* those to start before the first job's launch, passed on as well */
    if (rc == HNP_SUCCESS &&
        (d->pmi_early = strdup(chosen[HNP_WIRE_WELCOME_PMI_EARLY])) == NULL)
        rc = HNP_ERR_NOMEM;
    if (rc != HNP_SUCCESS)
        return rc;
    d->rte->pmi_wanted = d->pmi_wanted;
    d->rte->pmi_early = d->pmi_early;
    hnp_mca_load_selected_only(d->setup->mca, true);
    return HNP_SUCCESS;
}

static int apply_log_output(hnpd_t *d, char *err, size_t errlen)
{
    char suffix[300];

    snprintf(suffix, sizeof(suffix), ".%s", d->node);
    return hnp_mca_apply_log_output(d->setup->mca, suffix, err, errlen);
}

static int apply_welcome(hnpd_t *d, hnp_wire_welcome_t *w, char *err,
                         size_t errlen)
{
    hnp_rte_t *rte = d->rte;
    char **names = NULL;
    int rc = HNP_ERR_BAD_PARAM;

    if (w->nprocs <= rte->self ||
        (names = calloc(w->nprocs, sizeof(*names))) == NULL)
        goto out;
    /* The HNP's contact first: whatever fails from here on is told to it. */
    rte->hnp_uri = w->hnp_uri;
    w->hnp_uri = NULL;
    if ((rc = hnp_rte_set_uri(rte, 0, rte->hnp_uri)) != HNP_SUCCESS)
        goto out;
    if ((rc = place_subtree(w, names)) != HNP_SUCCESS)
        goto out;
    /* A daemon placed by someone else (srun) checks it is where the HNP
     * thinks it is. */
    if (names[rte->self] != NULL && strcmp(names[rte->self], d->node) != 0) {
        hnp_err_set(err, errlen, "daemon vpid %u runs on node %s, but the HNP "
                    "mapped it to %s", rte->self, d->node, names[rte->self]);
        rc = HNP_ERR_BAD_PARAM;
        goto out;
    }
    rc = hnp_params_unpack(hnp_mca_params(d->setup->mca), w->params,
                           w->params_len, HNP_PARAM_SRC_FORWARDED, err, errlen);
    /* The log as the HNP's log_output says, which start-up could not know:
     * a file each daemon, named after its node. */
    if (rc == HNP_SUCCESS)
        rc = apply_log_output(d, err, errlen);
    if (rc == HNP_SUCCESS)
        hnpd_relay_begin(d);
    /* The OOB started before the HNP's values came. */
    if (rc == HNP_SUCCESS)
        hnp_oob_set_max_frame(rte->oob, rte->core->max_frame);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_set_welcome_params(rte, w->params, w->params_len);
    if (rc == HNP_SUCCESS)
        rc = take_the_hnps_choices(d, w->components, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_setup_register_frameworks(d->setup, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_set_procs(rte, w->nprocs, names);
    if (rc == HNP_SUCCESS)
        rte->nfirst = w->nfirst;
out:
    free(names);
    return rc;
}

static int take_welcome(hnpd_t *d, const void *data, size_t len, char *err,
                        size_t errlen)
{
    hnp_wire_welcome_t w;
    hnp_reader_t rd;
    int rc;

    hnp_reader_init(&rd, data, len);
    rc = hnp_wire_welcome_unpack(&rd, &w);
    if (rc == HNP_SUCCESS)
        rc = apply_welcome(d, &w, err, errlen);
    hnp_wire_welcome_clear(&w);
    if (rc != HNP_SUCCESS && err[0] == '\0')
        hnp_err_set(err, errlen, "malformed welcome from the parent");
    return rc;
}

static int join_the_job(hnpd_t *d, char *err, size_t errlen)
{
    hnp_rte_t *rte = d->rte;
    int rc = hnp_rte_select_components(rte, err, errlen);

    if (rc == HNP_SUCCESS && (rc = hnp_rte_build_trees(rte)) != HNP_SUCCESS)
        hnp_err_set(err, errlen, "cannot build the spawn and routing trees");
    if (rc == HNP_SUCCESS && (rc = rte->exchange->init(rte)) != HNP_SUCCESS)
        hnp_err_set(err, errlen, "the exchange component failed to start");
    if (rc == HNP_SUCCESS && rte->plm->init != NULL &&
        (rc = rte->plm->init(rte)) != HNP_SUCCESS)
        hnp_err_set(err, errlen, "the plm component failed to start");
    return rc;
}

/* Tell the HNP, which knows every node's name, that daemon @p vpid was
 * lost; straight to it, as the routing tree is broken. False if it cannot
 * be told. */
static bool report_lost(hnpd_t *d, hnp_vpid_t vpid, const char *why)
{
    hnp_wire_peer_lost_t lost = { .vpid = vpid, .why = (char *)why };
    hnp_buffer_t buf;
    bool told;

    hnp_buffer_init(&buf);
    told = hnp_wire_peer_lost_pack(&buf, &lost) == HNP_SUCCESS &&
           hnp_rte_send_direct(d->rte, 0, HNP_TAG_PEER_LOST, buf.data,
                               buf.len) == HNP_SUCCESS;
    hnp_buffer_release(&buf);
    return told;
}

/* A daemon below or beside this one was lost: the HNP must hear of it, or
 * this daemon, unable to reach it, leaves too. */
static void report_lost_or_leave(hnpd_t *d, hnp_vpid_t vpid, const char *why)
{
    if (!report_lost(d, vpid, why))
        hnpd_lost_route(d, "cannot tell the HNP that a daemon was lost");
}

static void neighbour_lost(hnp_rte_t *rte, hnp_vpid_t vpid, const char *why)
{
    hnpd_t *d = rte->role.ctx;

    /* The parent on the way to the HNP: this daemon is cut off as well. */
    if (vpid == hnp_rte_route_parent(rte)) {
        report_lost(d, vpid, why);
        hnpd_lost_route(d, "its routing parent stopped responding");
    } else {
        report_lost_or_leave(d, vpid, why);
    }
}

static void join_failure_unanswered(hnp_rte_t *rte, void *cbdata)
{
    hnpd_t *d = cbdata;

    (void)rte;
    hnp_rte_timer_destroy(d->exit_timer);
    d->exit_timer = NULL;
    hnpd_lost_route(d, "no shutdown came after the failure to join");
}

/* Said to the HNP itself: its parent would only see it gone (a component
 * missing on this node, say, would go unexplained). And this daemon stays
 * until the shutdown that follows reaches it: leaving at once, its parent
 * would see its connection close and its agent fail, and could tell the
 * HNP so, over another connection, before this report arrived; the job
 * would then end blaming a daemon that died, without the reason. */
static void fail_to_join(hnpd_t *d, const char *err)
{
    hnp_rte_t *rte = d->rte;

    if (rte->hnp_uri != NULL)
        hnp_rte_fail(rte, 1, "the daemon on node %s (vpid %u) could not "
                     "join the job: %s", d->node, rte->self, err);
    /* Without the HNP's contact, or with the shutdown already come, there
     * is nothing to wait for. */
    if (rte->hnp_uri == NULL || d->ending) {
        hnpd_lost_route(d, err);
        return;
    }
    HNP_ERROR_LOG(rte->log, "node %s: %s; waiting for the HNP to end the job",
                  d->node, err);
    d->join_failed = true;
    d->ending = true; /* takes part in nothing from now on */
    d->exit_status = 1;
    d->exit_timer = hnp_rte_timer_create(rte, rte->core->kill_grace + 8.0,
                                         join_failure_unanswered, d);
}

static void on_welcome(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                       const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    char err[1024] = "";

    (void)tag;
    if (d->welcomed || src != d->parent)
        return;
    d->welcomed = true;
    if (take_welcome(d, data, len, err, sizeof(err)) != HNP_SUCCESS ||
        join_the_job(d, err, sizeof(err)) != HNP_SUCCESS) {
        fail_to_join(d, err);
        return;
    }
    /* exec to joined */
    uint64_t cpu_us, rss_kb;
    hnp_daemon_stats_usage(&cpu_us, &rss_kb);
    d->stats.startup_cpu_us = own_cpu_us(d, cpu_us);
    d->stats.startup_rss_kb = rss_kb;
    leave_agent(d);
    hnp_rte_set_ready(rte);
    hnp_rte_report_up(rte);
    hnp_rte_heartbeat_start(rte, rte->core->heartbeat_interval,
                            rte->core->heartbeat_misses);
    hnp_rte_accept_joins(rte);
    hnp_rte_accept_growth(rte);
    /* one added to the running runtime is sent the contacts instead of
     * taking part in phase 2 (runtime/core/adding.c) */
    if (rte->self >= rte->nfirst)
        return;
    if (hnp_rte_spawn_children(rte, NULL, 0) == 0)
        hnp_rte_spawn_complete(rte);
    else if (!(rte->plm->capabilities & HNP_PLM_CAP_SPAWNS_TREE) ||
             rte->plm->spawn_subtree(rte) != HNP_SUCCESS)
        hnp_rte_fail(rte, 1, "node %s: cannot spawn the daemons of its "
                     "subtree", d->node);
}

/* Its own daemons joined and were welcomed (the launch's critical path,
 * which nothing here holds up), its contact is on its way: the pmi
 * set-up now, while the launch message is. */
static void exchange_started(hnp_rte_t *rte)
{
    hnpd_pmi_start_early(rte->role.ctx);
}

/* ------------------------------------------------------------ the end */

/* Whether a routing or spawn child of this daemon still holds a
 * connection: a daemon leaves after its children, so that when the HNP's
 * neighbours are gone, every daemon is. */
static bool any_connected(hnp_rte_t *rte, const hnp_vpid_t *kids, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (hnp_oob_connected(rte->oob, kids[i]))
            return true;
    return false;
}

static bool children_connected(hnp_rte_t *rte)
{
    uint32_t nroute = rte->routed != NULL ? hnp_rte_route_children(rte, NULL, 0) : 0;
    uint32_t nspawn = hnp_rte_spawn_children(rte, NULL, 0);
    uint32_t most = nroute > nspawn ? nroute : nspawn;
    hnp_vpid_t *kids = malloc((most > 0 ? most : 1) * sizeof(*kids));
    bool any;

    /* Without memory, assume they are: leaving early would orphan them,
     * and the next check (or the exit timer) comes soon. */
    if (kids == NULL)
        return true;
    any = (nroute > 0 &&
           any_connected(rte, kids, hnp_rte_route_children(rte, kids, nroute))) ||
          (nspawn > 0 &&
           any_connected(rte, kids, hnp_rte_spawn_children(rte, kids, nspawn)));
    free(kids);
    return any;
}

static void recheck_exit(hnp_rte_t *rte, void *cbdata)
{
    hnpd_t *d = cbdata;

    (void)rte;
    hnp_rte_timer_destroy(d->drain_timer);
    d->drain_timer = NULL;
    hnpd_maybe_exit(d);
}

void hnpd_maybe_exit(hnpd_t *d)
{
    hnp_rte_t *rte = d->rte;

    if (!d->ending || d->drain_timer != NULL)
        return;
    if ((d->odls != NULL && hnp_odls_num_alive(d->odls) > 0) ||
        children_connected(rte))
        return;
    /* What is queued (output, exit reports) must reach the parent first;
     * not what waits for a contact that will not come now (a job that ended
     * before phase 2 completed), which would hold the daemon until its exit
     * timer. */
    if (!d->said_leaving) {
        /* Neighbours in the other tree may not have the shutdown yet:
         * told first, they do not take our close for a death. */
        d->said_leaving = true;
        hnp_rte_say_leaving(rte);
    }
    if (hnp_oob_queued_deliverable(rte->oob) > 0) {
        d->drain_timer = hnp_rte_timer_create(rte, 0.02, recheck_exit, d);
        return;
    }
    d->clean_end = true;
    hnp_rte_stop_loop(rte);
}

static void exit_timed_out(hnp_rte_t *rte, void *cbdata)
{
    hnpd_t *d = cbdata;

    hnp_rte_timer_destroy(d->exit_timer);
    d->exit_timer = NULL;
    HNP_WARN(rte->log, "node %s: leaving before everything ended", d->node);
    hnp_rte_stop_loop(rte);
}

/* What this daemon cost, for the HNP's --timing report. */
static void send_stats(hnpd_t *d)
{
    hnp_buffer_t buf;
    uint64_t cpu_us;

    d->stats.max_connections = hnp_oob_max_connections(d->rte->oob);
    hnp_daemon_stats_usage(&cpu_us, &d->stats.peak_rss_kb);
    d->stats.total_cpu_us = own_cpu_us(d, cpu_us);
    d->stats.handshake_cpu_us = hnp_oob_handshake_cpu_us(d->rte->oob);
    d->stats.handshakes = hnp_oob_handshakes(d->rte->oob);
    hnp_buffer_init(&buf);
    if (hnp_wire_stats_pack(&buf, &d->stats) == HNP_SUCCESS)
        hnp_rte_send(d->rte, 0, HNP_TAG_STATS, buf.data, buf.len);
    hnp_buffer_release(&buf);
}

/* A daemon that spawns (a tree launcher) may still have agents starting
 * its children: stopped, so that no daemon comes up after its parent has
 * gone, with nobody left to welcome it. */
static void cancel_launches(hnp_rte_t *rte)
{
    if (rte->launcher != NULL)
        hnp_launcher_cancel_all(rte->launcher);
}

/* Leave once what is queued has gone (a last report to the HNP), or after
 * a second at most: the connections it waits for may be dead. */
static void leave_when_drained(hnp_rte_t *rte, void *cbdata)
{
    hnpd_t *d = cbdata;

    hnp_rte_timer_destroy(d->drain_timer);
    d->drain_timer = NULL;
    if (hnp_oob_queued_deliverable(rte->oob) > 0 && ++d->leave_polls < 50) {
        d->drain_timer = hnp_rte_timer_create(rte, 0.02, leave_when_drained, d);
        return;
    }
    hnp_rte_stop_loop(rte);
}

static void on_shutdown(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                        const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    hnp_wire_shutdown_t req;
    hnp_reader_t rd;

    (void)src;
    (void)tag;
    /* Malformed, it still ends the job: after the grace period (an unpack
     * that fails leaves now false). */
    hnp_reader_init(&rd, data, len);
    (void)hnp_wire_shutdown_unpack(&rd, &req);
    if (d->join_failed) {
        /* What it waited for: nothing of its own to end. */
        d->join_failed = false;
        hnp_rte_timer_destroy(d->exit_timer);
        d->exit_timer = NULL;
        rte->closing = true;
        leave_when_drained(rte, d);
        return;
    }
    if (d->ending) {
        if (req.now && d->odls != NULL)
            hnp_odls_kill_all(d->odls, 0);
        return;
    }
    d->ending = true;
    for (hnpd_job_t *j = d->jobs; j != NULL; j = j->next)
        hnpd_state_release(j); /* stacks no longer wanted: gdb goes */
    send_stats(d);
    rte->closing = true;
    cancel_launches(rte);
    /* Before phase 2 completes, a spawn child may be out of reach of the
     * routing tree: its spawn parent tells it too. */
    hnp_rte_send_spawn_children(rte, HNP_TAG_SHUTDOWN, data, len);
    if (d->odls != NULL)
        hnp_odls_kill_all(d->odls, req.now ? 0 : rte->core->kill_grace);
    d->exit_timer = hnp_rte_timer_create(rte, rte->core->kill_grace + 8.0,
                                         exit_timed_out, d);
    hnpd_maybe_exit(d);
}

void hnpd_lost_route(hnpd_t *d, const char *why)
{
    HNP_ERROR_LOG(d->rte->log, "node %s: %s; killing this node's processes "
                  "and leaving", d->node, why);
    cancel_launches(d->rte);
    if (d->odls != NULL)
        hnp_odls_destroy(d->odls);
    d->odls = NULL;
    d->exit_status = 1;
    d->ending = true;
    d->rte->closing = true;
    hnp_rte_timer_destroy(d->drain_timer);
    d->drain_timer = NULL;
    leave_when_drained(d->rte, d);
}

/* Nothing is queued any more (written, or dropped with a peer that went
 * down): a wait for that ends now, not at the next check of the timer
 * (20 ms), which hundreds of daemons leaving at the end of a job would
 * each add. The timers stay for what the OOB cannot tell: a queue that
 * never drains, or frames for a peer whose contact never came. */
static void role_drained(hnp_rte_t *rte)
{
    hnpd_t *d = rte->role.ctx;

    if (d->drain_timer == NULL)
        return;
    if (d->exit_status != 0) /* leaving without its route */
        leave_when_drained(rte, d);
    else
        recheck_exit(rte, d);
}

static bool is_upstream(const hnpd_t *d, hnp_vpid_t peer)
{
    if (peer == 0 || peer == d->parent)
        return true;
    return d->rte->routed != NULL && peer == hnp_rte_route_parent(d->rte);
}

static bool role_above(hnp_rte_t *rte, hnp_vpid_t peer)
{
    return is_upstream(rte->role.ctx, peer);
}

static void role_peer_down(hnp_rte_t *rte, hnp_vpid_t peer, size_t unsent)
{
    hnpd_t *d = rte->role.ctx;
    char why[256];

    (void)unsent;
    if (is_upstream(d, peer)) {
        /* Say which daemon died before leaving: otherwise the HNP would
         * first hear of this daemon's own departure and blame it. */
        if (peer != 0 && !d->ending)
            report_lost(d, peer, "died (its connection closed)");
        snprintf(why, sizeof(why), "lost the connection to vpid %u on the way "
                 "to the HNP", peer);
        hnpd_lost_route(d, why);
        return;
    }
    if (d->ending || hnp_rte_peer_left(rte, peer)) {
        hnpd_maybe_exit(d);
        return;
    }
    report_lost_or_leave(d, peer, "died (its connection closed)");
}

/* A quarter of the descriptors at most for connections still in their
 * handshake (strangers, perhaps): the rest are for the node's neighbours,
 * the agents of its children and its processes. */
static void limit_handshakes(hnp_rte_t *rte)
{
    uint32_t soft = 0;

    if (hnp_fd_limit_raise(&soft, NULL) == HNP_SUCCESS &&
        soft / 4 < rte->core->max_handshakes)
        rte->max_handshakes = soft / 4 > 8 ? soft / 4 : 8;
}

int hnpd_start(hnpd_t *d, const char *parent_uri, char *err, size_t errlen)
{
    hnp_rte_t *rte = d->rte;
    hnp_wire_join_t join;
    hnp_buffer_t buf;
    int rc;

    rte->role.ctx = d;
    rte->role.peer_up = role_peer_up;
    rte->role.above = role_above;
    rte->role.peer_down = role_peer_down;
    rte->role.drained = role_drained;
    rte->role.contacts_complete = contacts_complete;
    rte->role.exchange_started = exchange_started;
    rte->role.neighbour_lost = neighbour_lost;
    hnp_rte_recv(rte, HNP_TAG_WELCOME, on_welcome, d);
    hnp_rte_recv(rte, HNP_TAG_SHUTDOWN, on_shutdown, d);
    hnp_rte_accept_leaving(rte);
    hnpd_register_proc_handlers(d);
    limit_handshakes(rte);
    rc = hnp_rte_start_oob(rte, 0, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_set_uri(rte, d->parent, parent_uri);
    if (rc != HNP_SUCCESS) {
        if (err[0] == '\0')
            hnp_err_set(err, errlen, "bad parent URI \"%s\"", parent_uri);
        return rc;
    }
    join.uri = (char *)hnp_rte_my_uri(rte);
    join.pid = (uint32_t)getpid(); /* the child of the detaching fork */
    hnp_buffer_init(&buf);
    rc = hnp_wire_join_pack(&buf, &join);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send_direct(rte, d->parent, HNP_TAG_JOIN, buf.data, buf.len);
    hnp_buffer_release(&buf);
    return rc;
}
