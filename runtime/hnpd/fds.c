/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's descriptors, checked before it starts a rank. Each rank
 * costs the daemon its output pipes (stdout and stderr, one when merged),
 * the write end of its stdin pipe when it reads hnp's stdin, and its
 * connection to each pmi server of the job; starting one holds a few
 * more for a moment (its exec report, the pmi ends it inherits). The
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

/* Held while one rank is being started. */
#define HNPD_FD_STARTING 8
/* Connections to neighbours that come after the launch, the log, the
 * event loop's: what the daemon holds besides its ranks. */
#define HNPD_FD_RESERVE 64
/* What is open when /proc cannot say. */
#define HNPD_FD_OPEN_GUESS 32

int hnpd_fds_check(hnpd_t *d, bool merged, char *err, size_t errlen)
{
    uint32_t soft = 0, hard = 0, stdin_ranks = 0;
    uint32_t per_rank = (merged ? 1u : 2u) + (uint32_t)d->pmi_inited;
    int open = hnp_fd_count_open();
    uint64_t handshakes = d->rte->max_handshakes > 0 ? d->rte->max_handshakes
                                                     : d->rte->core->max_handshakes;

    if (d->nlocal == 0 || hnp_fd_limit_raise(&soft, &hard) != HNP_SUCCESS)
        return HNP_SUCCESS;
    for (uint32_t i = 0; i < d->nlocal; i++)
        stdin_ranks += hnpd_stdin_wanted(d, d->procs[i].rank);
    uint64_t opened = open >= 0 ? (uint64_t)open : HNPD_FD_OPEN_GUESS;
    uint64_t need = opened + (uint64_t)d->nlocal * per_rank + stdin_ranks +
                    HNPD_FD_STARTING + HNPD_FD_RESERVE + handshakes;
    if (need <= soft)
        return HNP_SUCCESS;
    hnp_err_set(err, errlen, "%u ranks on this node need about %llu "
                "descriptors in its daemon, more than its limit of %u "
                "(ulimit -n; the hard limit is %u): %u a rank (%s output, "
                "%zu pmi connection(s)), %u stdin pipe(s), %llu open "
                "already, %llu for connections awaiting a handshake, %d "
                "while a rank starts and %d in reserve. Raise the limit on "
                "the node, or place fewer ranks on it", d->nlocal,
                (unsigned long long)need, soft, hard, per_rank,
                merged ? "merged" : "stdout and stderr", d->pmi_inited,
                stdin_ranks, (unsigned long long)opened,
                (unsigned long long)handshakes, HNPD_FD_STARTING,
                HNPD_FD_RESERVE);
    return HNP_ERR_BAD_PARAM;
}
