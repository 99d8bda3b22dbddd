/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Watching phase 1 from the HNP: which daemons have joined and when. On a
 * terminal, a one-line progress display; after plm_base_launch_warn
 * seconds, a line naming the nodes still missing and where in the spawn
 * tree they hang; for --timing, the slowest daemons.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "job.h"

#define PROGRESS_PERIOD 0.25
#define MISSING_LISTED 8

static void progress_clear(hnp_job_t *job)
{
    if (job->progress_shown)
        fprintf(stderr, "\r\033[K");
    job->progress_shown = false;
}

static void progress_tick(hnp_rte_t *rte, void *cbdata)
{
    hnp_job_t *job = cbdata;

    hnp_rte_timer_destroy(job->progress_timer);
    job->progress_timer = NULL;
    if (job->ending || job->known == job->ndaemons) {
        progress_clear(job);
        return;
    }
    fprintf(stderr, "\rhnp: %u of %u daemons up (%.1f s)\033[K", job->known,
            job->ndaemons, hnp_job_now(job));
    job->progress_shown = true;
    job->progress_timer = hnp_rte_timer_create(rte, PROGRESS_PERIOD,
                                               progress_tick, job);
}

/* A missing daemon and what its spawn parent is doing. */
static int describe_missing(const hnp_job_t *job, hnp_vpid_t v, bool first,
                            char *buf, size_t len)
{
    hnp_rte_t *rte = job->rte;
    hnp_vpid_t p = hnp_tree_parent(&rte->spawn_tree, v);

    if (p == 0)
        return snprintf(buf, len, "%s %s (started by the HNP)",
                        first ? "" : ",", hnp_rte_node_name(rte, v));
    return snprintf(buf, len, "%s %s (parent %s %s)", first ? "" : ",",
                    hnp_rte_node_name(rte, v),
                    hnp_rte_node_name(rte, p),
                    job->up_at[p] > 0 ? "is up" : "is missing too");
}

static void launch_warn(hnp_rte_t *rte, void *cbdata)
{
    hnp_job_t *job = cbdata;
    char line[2048];
    size_t used;
    uint32_t listed = 0;

    hnp_rte_timer_destroy(job->warn_timer);
    job->warn_timer = NULL;
    if (job->ending || job->known == job->ndaemons)
        return;
    used = (size_t)snprintf(line, sizeof(line), "after %.0f s, %u of %u "
                            "daemons have not joined:", hnp_job_now(job),
                            job->ndaemons - job->known, job->ndaemons);
    for (hnp_vpid_t v = 1; v < rte->nfirst && listed < MISSING_LISTED &&
                           used < sizeof(line); v++)
        if (job->up_at[v] == 0) {
            used += (size_t)describe_missing(job, v, listed == 0, line + used,
                                             sizeof(line) - used);
            listed++;
        }
    progress_clear(job);
    HNP_WARN(rte->log, "%s%s", line, job->ndaemons - job->known > listed
             ? " ..." : "");
}

static void daemon_up(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    hnp_job_t *job = rte->role.ctx;

    if (vpid >= rte->nfirst || job->up_at[vpid] > 0)
        return;
    job->up_at[vpid] = hnp_job_now(job);
    if (++job->known < job->ndaemons)
        return;
    hnp_job_mark(job, HNP_MARK_DAEMONS_UP);
    hnp_job_model_record(job);
    hnp_rte_timer_destroy(job->launch_timer);
    job->launch_timer = NULL;
    progress_clear(job);
}

int hnp_job_progress_start(hnp_job_t *job)
{
    hnp_rte_t *rte = job->rte;

    job->up_at = calloc(rte->nfirst, sizeof(double)); /* the first launch's */
    if (job->up_at == NULL)
        return HNP_ERR_NOMEM;
    rte->role.daemon_up = daemon_up;
    if (isatty(STDERR_FILENO))
        job->progress_timer = hnp_rte_timer_create(rte, PROGRESS_PERIOD,
                                                   progress_tick, job);
    if (rte->core->launch_warn > 0)
        job->warn_timer = hnp_rte_timer_create(rte, rte->core->launch_warn,
                                               launch_warn, job);
    return HNP_SUCCESS;
}

void hnp_job_progress_stop(hnp_job_t *job)
{
    progress_clear(job);
    hnp_rte_timer_destroy(job->progress_timer);
    hnp_rte_timer_destroy(job->warn_timer);
    job->progress_timer = job->warn_timer = NULL;
}

void hnp_job_progress_release(hnp_job_t *job)
{
    hnp_job_progress_stop(job);
    free(job->up_at);
    job->up_at = NULL;
}

static int latest_first(const void *a, const void *b, void *ctx)
{
    const double *up = ctx;
    double x = up[*(const hnp_vpid_t *)a], y = up[*(const hnp_vpid_t *)b];

    return x < y ? 1 : x > y ? -1 : 0;
}

void hnp_job_print_slowest(const hnp_job_t *job)
{
    hnp_vpid_t *order = malloc(job->ndaemons * sizeof(*order));

    if (order == NULL || job->up_at == NULL) {
        free(order);
        return;
    }
    for (uint32_t i = 0; i < job->ndaemons; i++)
        order[i] = i + 1;
    qsort_r(order, job->ndaemons, sizeof(*order), latest_first, job->up_at);
    fprintf(stderr, "hnp:   %-36s", "slowest daemons to join (s)");
    for (uint32_t i = 0; i < job->ndaemons && i < 3; i++)
        fprintf(stderr, " %s %.3f", hnp_rte_node_name(job->rte, order[i]),
                job->up_at[order[i]]);
    fprintf(stderr, "\n");
    free(order);
}
