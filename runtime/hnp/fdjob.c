/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The descriptor plan of the job about to launch (fdplan.h): its figures
 * gathered from the trees, the selected exchange and the parameters, the
 * plan applied before launch, and the refusal when nothing fits.
 */
#include "config.h"

#include <stdio.h>

#include "exchange_base.h"
#include "fdplan.h"
#include "job.h"
#include "procs/fdlimit.h"

/* What open descriptors cost when /proc cannot say: stdio, the event
 * loop, its signal pipe, the child watcher's, a listener or two. */
#define FD_OPEN_GUESS 12

void hnp_fd_need_for_job(hnp_rte_t *rte, const hnp_job_map_t *map,
                         bool output_files, const hnp_tree_t *spawn,
                         const hnp_tree_t *routing, hnp_fd_need_t *need)
{
    uint32_t tree = hnp_fd_tree_connections(spawn, routing);
    uint32_t exch = hnp_exchange_base_hnp_connections(rte->exchange,
                                                      &rte->exchange_job);
    uint32_t spawned = hnp_tree_children(spawn, 0, NULL, 0);
    unsigned most = rte->core->rsh_num_concurrent;
    uint32_t soft = 0;
    int open = hnp_fd_count_open();

    (void)hnp_fd_limit_raise(&soft, NULL);
    need->limit = soft;
    need->open = open >= 0 ? (uint32_t)open : FD_OPEN_GUESS;
    need->connections = tree + exch < map->nnodes ? tree + exch : map->nnodes;
    need->agents = most == 0 || spawned < most ? spawned : most;
    need->handshakes = rte->core->max_handshakes;
    need->outputs = output_files ? 2 * map->nprocs : 0;
}

int hnp_job_plan_fds(hnp_job_t *job, char *err, size_t errlen)
{
    hnp_rte_t *rte = job->rte;
    hnp_fd_need_t need;
    hnp_fd_plan_t plan;
    char figures[512];

    hnp_fd_need_for_job(rte, &job->map, job->args->output_dir != NULL,
                        &rte->spawn_tree, &rte->routing_tree, &need);
    hnp_fd_plan(&need, &plan);
    hnp_fd_plan_describe(&need, &plan, figures, sizeof(figures));
    if (!plan.fits) {
        hnp_err_set(err, errlen, "refusing to launch: %u daemons (plm %s, "
                    "routed %s, exchange %s) need %s. Raise the limit "
                    "(ulimit -n), or choose components that keep fewer "
                    "connections at the HNP (a spawn tree and the flood "
                    "exchange); hnp --plan shows the figures",
                    job->map.nnodes, rte->selected[0], rte->selected[1],
                    rte->selected[2], figures);
        return HNP_ERR_BAD_PARAM;
    }
    HNP_VERBOSE(rte->log, 1, "descriptors: %s", figures);
    if (plan.agents < need.agents)
        rte->agents_in_flight = plan.agents;
    rte->max_handshakes = plan.handshakes;
    if (rte->oob != NULL)
        hnp_oob_set_max_handshakes(rte->oob, plan.handshakes);
    return HNP_SUCCESS;
}
