/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's descriptors, checked before it starts a rank. Each rank
 * costs the daemon what odls holds for it until it is reaped (its output
 * pipes and its exec report, HNP_ODLS_FDS_PER_PROC), the write end of its
 * stdin pipe when it reads hnp's stdin, and its connection to each pmi
 * server of the job; starting one holds a few more for a moment (the pmi
 * ends it inherits). Measured: 410 open with 100 ranks of one pmi. The
 * HNP plans its own descriptors before launch (fdplan.h); only a node's
 * daemon knows its node's limit, so it checks its share when the launch
 * tells it its ranks, raising the soft limit to the hard one first, and
 * refuses with the figures instead of failing half-way ("cannot create a
 * pipe" at rank 4,996 of 10,000).
 */
#include "config.h"

#include <stdio.h>

#include "daemon.h"
#include "hnp_errors.h"
#include "procs/fdlimit.h"
#include "procs/odls.h"

/* Held while one rank is being started. */
#define HNPD_FD_STARTING 8
/* Besides its ranks and its neighbours' connections: the event loop's,
 * the log, the listeners, a simultaneous connect's duplicate. */
#define HNPD_FD_RESERVE 16
/* What is open when /proc cannot say. */
#define HNPD_FD_OPEN_GUESS 32

/* Fewer connections awaiting a handshake than this would turn the
 * node's own neighbours calling at once into dropped connections (as in
 * the HNP's plan, fdplan.h). */
#define HNPD_FD_MIN_HANDSHAKES 8

static void refuse(const hnpd_job_t *j, const char *per_rank_text, uint64_t need,
                   uint32_t soft, uint32_t hard, uint64_t handshakes,
                   char *err, size_t errlen)
{
    hnp_err_set(err, errlen, "%u ranks on this node need about %llu "
                "descriptors in its daemon, more than its limit of %u "
                "(ulimit -n; the hard limit is %u): %s, %llu for "
                "connections awaiting a handshake (at the fewest), %d while "
                "a rank starts and %d in reserve. Raise the limit on the "
                "node, or place fewer ranks on it", j->nlocal,
                (unsigned long long)need, soft, hard, per_rank_text,
                (unsigned long long)handshakes, HNPD_FD_STARTING,
                HNPD_FD_RESERVE);
}

int hnpd_fds_check(hnpd_job_t *j, bool merged, char *err, size_t errlen)
{
    hnpd_t *d = j->daemon;
    hnp_rte_t *rte = d->rte;
    uint32_t soft = 0, hard = 0, stdin_ranks = 0;
    uint32_t per_rank = HNP_ODLS_FDS_PER_PROC - (merged ? 1u : 0u) +
                        (uint32_t)d->pmi_inited;
    uint64_t handshakes = rte->max_handshakes > 0 ? rte->max_handshakes
                                                  : rte->core->max_handshakes;
    char ranks[256];

    if (j->nlocal == 0 || hnp_fd_limit_raise(&soft, &hard) != HNP_SUCCESS)
        return HNP_SUCCESS;
    for (uint32_t i = 0; i < j->nlocal; i++)
        stdin_ranks += hnpd_stdin_wanted(j, j->procs[i].rank);
    /* Its tree neighbours: connections that may come after the launch
     * (both parents, the routing and spawn children). */
    uint64_t neighbours = 2 + hnp_rte_spawn_children(rte, NULL, 0) +
                          (rte->routed != NULL ? hnp_rte_route_children(rte, NULL, 0) : 0);
    uint64_t wanted = (uint64_t)j->nlocal * per_rank + stdin_ranks +
                      neighbours + HNPD_FD_STARTING + HNPD_FD_RESERVE;
    /* Nothing open from soft - wanted - handshakes on (the limit is the
     * hard one, above which nothing can be open): what is open fits
     * below, and the count is not needed. */
    if (soft == hard && wanted + handshakes < soft &&
        hnp_fd_none_open((uint32_t)(soft - wanted - handshakes), soft))
        return HNP_SUCCESS;
    int open = hnp_fd_count_open();
    uint64_t opened = open >= 0 ? (uint64_t)open : HNPD_FD_OPEN_GUESS;
    uint64_t rest = opened + wanted;
    if (rest + handshakes <= soft)
        return HNP_SUCCESS;
    /* As the HNP's plan does: first fewer connections in their handshake
     * (strangers' share), down to a floor. */
    if (rest + HNPD_FD_MIN_HANDSHAKES <= soft) {
        rte->max_handshakes = (unsigned)(soft - rest);
        if (rte->oob != NULL)
            hnp_oob_set_max_handshakes(rte->oob, rte->max_handshakes);
        return HNP_SUCCESS;
    }
    snprintf(ranks, sizeof(ranks), "%u a rank (%s output, its exec report, "
             "%zu pmi connection(s)), %u stdin pipe(s), %llu open already, "
             "%llu for its neighbours in the trees", per_rank,
             merged ? "merged" : "stdout and stderr", d->pmi_inited,
             stdin_ranks, (unsigned long long)opened,
             (unsigned long long)neighbours);
    refuse(j, ranks, rest + HNPD_FD_MIN_HANDSHAKES, soft, hard,
           HNPD_FD_MIN_HANDSHAKES, err, errlen);
    return HNP_ERR_BAD_PARAM;
}
