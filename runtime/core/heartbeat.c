/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Heartbeats between routing neighbours. A daemon that dies closes its
 * connections and is noticed at once; one whose node hangs or drops off the
 * network closes nothing. So every process tells its routing parent and
 * children it is alive every interval, and a neighbour that has been heard
 * from once (any message counts) and then stays silent for `misses`
 * intervals is declared gone. A neighbour never heard from is still being
 * launched: the launch timeout watches that.
 *
 * Only the time this process was running counts: when a beat comes much
 * later than it was due (the process was stopped, or its loop held), the
 * neighbours' silence is as much this process's own, and every count
 * starts again. While the job is stopped (job control, held by
 * hnp_rte_heartbeat_hold()) nobody is declared gone.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rte.h"

struct hnp_rte_heartbeat {
    double interval;
    unsigned misses;
    hnp_vpid_t *neighbours; /* routing parent first (if any), then children */
    double *last_heard;     /* [nprocs], by vpid; 0: not heard from yet */
    uint32_t count;
    hnp_rte_timer_t *timer;
    double last_beat;       /* when the previous beat ran */
    bool held;
};

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hnp_rte_heartbeat_heard(hnp_rte_t *rte, hnp_vpid_t from)
{
    struct hnp_rte_heartbeat *hb = rte->heartbeat;

    if (hb != NULL && from < rte->nprocs)
        hb->last_heard[from] = now_seconds();
}

/* The message itself says nothing: hnp_rte_heartbeat_heard() saw it. */
static void on_heartbeat(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                         const void *data, size_t len, void *cbdata)
{
    (void)rte;
    (void)src;
    (void)tag;
    (void)data;
    (void)len;
    (void)cbdata;
}

/* Every neighbour heard from so far counts its silence from @p now. */
static void restart_counts(struct hnp_rte_heartbeat *hb, double now)
{
    for (uint32_t i = 0; i < hb->count; i++)
        if (hb->last_heard[hb->neighbours[i]] > 0)
            hb->last_heard[hb->neighbours[i]] = now;
}

void hnp_rte_heartbeat_hold(hnp_rte_t *rte, bool hold)
{
    struct hnp_rte_heartbeat *hb = rte->heartbeat;

    if (hb == NULL || hb->held == hold)
        return;
    hb->held = hold;
    if (!hold)
        restart_counts(hb, now_seconds());
}

static void beat(hnp_rte_t *rte, void *cbdata)
{
    struct hnp_rte_heartbeat *hb = cbdata;
    double now = now_seconds(), limit = hb->interval * hb->misses;

    hnp_rte_timer_destroy(hb->timer);
    hb->timer = NULL;
    /* Due one interval after the last: a beat a whole interval late
     * means this process did not run, and silence proves nothing. */
    if (now - hb->last_beat > 2 * hb->interval) {
        HNP_VERBOSE(rte->log, 2, "heartbeat %.1f s late (this process was "
                    "stopped or busy): neighbours' silence counted afresh",
                    now - hb->last_beat - hb->interval);
        restart_counts(hb, now);
    }
    hb->last_beat = now;
    for (uint32_t i = 0; i < hb->count; i++) {
        hnp_vpid_t v = hb->neighbours[i];
        if (hnp_oob_connected(rte->oob, v))
            hnp_rte_send_direct(rte, v, HNP_TAG_HEARTBEAT, NULL, 0);
        if (hb->held || hnp_rte_peer_left(rte, v))
            continue;
        if (hb->last_heard[v] > 0 && now - hb->last_heard[v] > limit) {
            double silent_for = now - hb->last_heard[v];
            hb->last_heard[v] = 0; /* report once */
            hnp_rte_neighbour_silent(rte, v, silent_for);
        }
    }
    if (!rte->closing)
        hb->timer = hnp_rte_timer_create(rte, hb->interval, beat, hb);
}

int hnp_rte_heartbeat_start(hnp_rte_t *rte, double interval, unsigned misses)
{
    struct hnp_rte_heartbeat *hb;
    uint32_t kids;
    hnp_vpid_t parent;

    if (interval <= 0 || rte->heartbeat != NULL)
        return HNP_SUCCESS;
    hb = calloc(1, sizeof(*hb));
    kids = hnp_rte_route_children(rte, NULL, 0);
    parent = rte->is_hnp ? HNP_VPID_INVALID : hnp_rte_route_parent(rte);
    if (hb == NULL ||
        (hb->neighbours = calloc(kids + 1, sizeof(hnp_vpid_t))) == NULL ||
        (hb->last_heard = calloc(rte->nprocs, sizeof(double))) == NULL) {
        free(hb ? hb->neighbours : NULL);
        free(hb);
        return HNP_ERR_NOMEM;
    }
    if (parent != HNP_VPID_INVALID)
        hb->neighbours[hb->count++] = parent;
    hb->count += hnp_rte_route_children(rte, hb->neighbours + hb->count, kids);
    hb->interval = interval;
    hb->misses = misses > 0 ? misses : 1;
    hb->last_beat = now_seconds();
    rte->heartbeat = hb;
    hnp_rte_recv(rte, HNP_TAG_HEARTBEAT, on_heartbeat, hb);
    hb->timer = hnp_rte_timer_create(rte, interval, beat, hb);
    return HNP_SUCCESS;
}

/* The routing parent of a vertex does not depend on the tree's size (the
 * routed components promise it): growing adds routing children alone, and
 * they count as not heard from until they speak. */
int hnp_rte_heartbeat_grow(hnp_rte_t *rte, uint32_t nprocs)
{
    struct hnp_rte_heartbeat *hb = rte->heartbeat;
    uint32_t kids, count = 0;
    hnp_vpid_t *neighbours;
    double *heard;

    if (hb == NULL)
        return HNP_SUCCESS;
    kids = rte->routed->children(rte->self, nprocs, NULL, 0);
    neighbours = calloc(kids + 1, sizeof(*neighbours));
    heard = neighbours != NULL
                ? realloc(hb->last_heard, nprocs * sizeof(*heard))
                : NULL;
    if (heard == NULL) {
        free(neighbours);
        return HNP_ERR_NOMEM; /* a longer last_heard is harmless */
    }
    hb->last_heard = heard;
    memset(heard + rte->nprocs, 0, (nprocs - rte->nprocs) * sizeof(*heard));
    if (!rte->is_hnp)
        neighbours[count++] = hnp_rte_route_parent(rte);
    count += rte->routed->children(rte->self, nprocs, neighbours + count,
                                   kids);
    free(hb->neighbours);
    hb->neighbours = neighbours;
    hb->count = count;
    return HNP_SUCCESS;
}

bool hnp_rte_heartbeat_watches(const hnp_rte_t *rte, hnp_vpid_t vpid)
{
    const struct hnp_rte_heartbeat *hb = rte->heartbeat;

    for (uint32_t i = 0; hb != NULL && i < hb->count; i++)
        if (hb->neighbours[i] == vpid)
            return true;
    return false;
}

void hnp_rte_heartbeat_stop(hnp_rte_t *rte)
{
    struct hnp_rte_heartbeat *hb = rte->heartbeat;

    if (hb == NULL)
        return;
    hnp_rte_timer_destroy(hb->timer);
    free(hb->neighbours);
    free(hb->last_heard);
    free(hb);
    rte->heartbeat = NULL;
}
