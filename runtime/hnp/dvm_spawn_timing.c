/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --timing of the spawns (dvm_server.h): when the parent job was run with
 * --timing, each job its ranks spawn gets a line on the parent's stderr
 * with the moments the HNP sees: the request received (seconds since the
 * parent job started), its children started (every daemon reported its
 * processes running, the answer to the request), and the children
 * connected to another job of the family (the first collective across
 * the jobs that includes every child: MPI_Comm_spawn's PMIx_Connect when
 * it spans daemons; a connect that one daemon's PMIx server makes alone
 * never reaches the HNP, and shows as "-"). The line is written once the
 * children are connected, or when their job ends.
 */
#include "config.h"

#include <stdio.h>
#include <time.h>

#include "dvm_server.h"

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) +
           (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

void dvm_spawn_timing_asked(dvm_conn_t *c, const struct timespec *asked,
                            uint32_t parent_rank)
{
    hnp_job_t *parent = dvm_family_job(c->dvm, c->parent_jobid);

    c->timing.asked = *asked;
    c->timing.parent_rank = parent_rank;
    c->timing.wanted = parent != NULL && parent->args != NULL &&
                       parent->args->timing;
    if (c->timing.wanted) /* the parent's clock, at the request */
        c->timing.asked_in_parent = hnp_job_now(parent) -
                                    seconds_since(asked);
}

static void say(dvm_conn_t *c)
{
    hnp_job_t *parent = dvm_family_job(c->dvm, c->parent_jobid);
    const hnp_job_t *job = hnp_dvm_job_of(c->job);
    char started[32] = "-", connected[32] = "-";
    uint32_t used = 0;
    int fd;

    if (!c->timing.wanted || c->timing.said || parent == NULL)
        return;
    c->timing.said = true;
    for (uint32_t n = 0; job->map.local_size != NULL &&
                         n < job->map.nnodes; n++)
        used += job->map.local_size[n] > 0;
    if (c->timing.started > 0)
        snprintf(started, sizeof(started), "%.3f s", c->timing.started);
    if (c->timing.connected > 0)
        snprintf(connected, sizeof(connected), "%.3f s",
                 c->timing.connected);
    fd = hnp_job_stdio(parent, 2);
    dprintf(fd, "hnp: timing of the spawn of job %u by rank %u of job %u, "
            "%u processes on %u nodes: request received at %.3f s; since "
            "then, children started %s, connected %s\n", job->jobid,
            c->timing.parent_rank, c->parent_jobid, job->map.nprocs, used,
            c->timing.asked_in_parent, started, connected);
}

void dvm_spawn_timing_started(dvm_conn_t *c)
{
    if (c->timing.wanted && c->timing.started == 0)
        c->timing.started = seconds_since(&c->timing.asked);
}

/* Whether @p members (sorted) name every rank of @p job and another job:
 * by the wildcard, or rank by rank as Open MPI's connect names them. */
static bool connects(const hnp_wire_member_t *members, uint32_t nmembers,
                     const hnp_job_t *job)
{
    bool all = false, other = false;
    uint32_t ranks = 0;

    for (uint32_t i = 0; i < nmembers; i++) {
        if (members[i].jobid != job->jobid)
            other = true;
        else if (members[i].rank == HNP_WIRE_ALL_RANKS)
            all = true;
        else if (i == 0 || members[i - 1].jobid != job->jobid ||
                 members[i - 1].rank != members[i].rank)
            ranks++;
    }
    return other && (all || ranks == job->map.nprocs);
}

void dvm_spawn_timing_gathered(hnp_dvm_t *dvm,
                               const hnp_wire_member_t *members,
                               uint32_t nmembers)
{
    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next) {
        if (!c->running || c->parent_jobid == 0 || !c->timing.wanted ||
            c->timing.connected > 0 ||
            !connects(members, nmembers, hnp_dvm_job_of(c->job)))
            continue;
        c->timing.connected = seconds_since(&c->timing.asked);
        say(c);
    }
}

void dvm_spawn_timing_ended(dvm_conn_t *c)
{
    say(c);
}
