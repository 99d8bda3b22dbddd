/* SPDX-License-Identifier: BSD-3-Clause */
/* The HNP's descriptors, planned before launch (see fdplan.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fdplan.h"

static uint64_t total_for(const hnp_fd_need_t *need, uint64_t agents,
                          uint64_t handshakes)
{
    uint64_t t = (uint64_t)need->open + need->connections + need->outputs +
                 handshakes + HNP_FD_RESERVE;

    if (agents > 0)
        t += agents * HNP_FD_PER_AGENT + HNP_FD_AGENT_START;
    return t;
}

static uint32_t at_most(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void hnp_fd_plan(const hnp_fd_need_t *need, hnp_fd_plan_t *plan)
{
    uint64_t agents = need->agents;
    uint64_t hs = need->handshakes;
    uint64_t limit = need->limit;
    uint64_t floor_hs = hs < HNP_FD_MIN_HANDSHAKES ? hs : HNP_FD_MIN_HANDSHAKES;

    /* First the strangers' share, down to a floor... */
    if (total_for(need, agents, hs) > limit) {
        uint64_t rest = total_for(need, agents, 0);
        hs = limit > rest + floor_hs ? limit - rest : floor_hs;
    }
    /* ...then fewer agents at once, down to one. */
    if (agents > 1 && total_for(need, agents, hs) > limit) {
        uint64_t rest = total_for(need, 0, hs) + HNP_FD_AGENT_START;
        agents = limit > rest + HNP_FD_PER_AGENT
                     ? (limit - rest) / HNP_FD_PER_AGENT
                     : 1;
        if (agents > need->agents)
            agents = need->agents;
    }
    plan->agents = at_most(agents);
    plan->handshakes = at_most(hs);
    plan->total = at_most(total_for(need, agents, hs));
    plan->fits = plan->total <= need->limit;
}

void hnp_fd_plan_describe(const hnp_fd_need_t *need,
                          const hnp_fd_plan_t *plan, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%u descriptors at most, of a limit of %u: "
                     "%u connections to daemons, %u agent(s) at once "
                     "(%u), %u connections awaiting a handshake",
                     plan->total, need->limit, need->connections,
                     plan->agents,
                     plan->agents > 0 ? plan->agents * HNP_FD_PER_AGENT +
                                            HNP_FD_AGENT_START
                                      : 0,
                     plan->handshakes);
    if (n < 0 || (size_t)n >= len)
        return;
    if (need->outputs > 0)
        n += snprintf(buf + n, len - (size_t)n, ", %u output files",
                      need->outputs);
    if (n < 0 || (size_t)n >= len)
        return;
    snprintf(buf + n, len - (size_t)n, ", %u open already, %u in reserve",
             need->open, HNP_FD_RESERVE);
}

uint32_t hnp_fd_tree_connections(const hnp_tree_t *spawn,
                                 const hnp_tree_t *routing)
{
    uint32_t n = spawn->n;
    uint32_t count = 0;

    for (hnp_vpid_t v = 1; v < n; v++)
        count += hnp_tree_parent(spawn, v) == 0 ||
                 hnp_tree_parent(routing, v) == 0;
    return count;
}
