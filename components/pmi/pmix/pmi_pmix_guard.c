/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who may stay connected to the PMIx server. libpmix 4.2 listens on TCP
 * only (127.0.0.1), where every user of the node can connect, takes the
 * uid a client sends as true, and reads a connection's hello with a
 * blocking recv on its one progress thread. It offers a host no hook at
 * accept (the server module's `listener` is not used by 4.2), so the
 * daemon watches the listening socket itself and, for each connection
 * libpmix accepted, asks the kernel who holds the other end
 * (pmi_pmix_peer.c): a connection from another user, or whose other end
 * no process of the node's ranks' process groups holds (each rank leads
 * its own), is shut down from here; libpmix sees its end and drops it.
 *
 * What this does not do: tell which rank of the job a connection is (a
 * process of the job may claim another rank, as it may ptrace it), or
 * keep a stranger's first bytes from reaching libpmix before the check (a
 * few milliseconds): the job's name, derived from the run's secret, is
 * what keeps a stranger from naming a rank in them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

/* After the listening socket turns readable: libpmix accepts, then the
 * sweep looks (again a little later, for what came in between). */
#define GUARD_FIRST_SWEEP_S 0.02
#define GUARD_SECOND_SWEEP_S 0.2
/* A connection whose other end no rank's process holds after this many
 * sweeps is shut down (the rank may be between its fork and its exec). */
#define GUARD_MAX_MISSES 10
/* A connection shut down and still open this long after is abandoned. */
#define GUARD_ABANDONED_S 3.0

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool known(const pmi_pmix_guard_t *g, uint64_t inode)
{
    for (size_t i = 0; i < g->nchecked; i++)
        if (g->checked[i] == inode)
            return true;
    return false;
}

static void remember(pmi_pmix_guard_t *g, uint64_t inode)
{
    if (g->nchecked == PMI_PMIX_GUARD_CHECKED)
        g->nchecked = 0; /* forget the oldest: at worst checked again */
    g->checked[g->nchecked++] = inode;
}

/* Not decided this time: true once it has waited long enough. */
static bool missed(pmi_pmix_guard_t *g, uint64_t inode)
{
    size_t i = 0;

    while (i < g->npending && g->pending[i] != inode)
        i++;
    if (i == g->npending) {
        if (g->npending == PMI_PMIX_GUARD_PENDING)
            return true; /* too many unexplained: no room to wait */
        g->pending[g->npending] = inode;
        g->misses[g->npending++] = 0;
    }
    if (++g->misses[i] < GUARD_MAX_MISSES)
        return false;
    g->pending[i] = g->pending[--g->npending];
    g->misses[i] = g->misses[g->npending];
    return true;
}

static void settled(pmi_pmix_guard_t *g, uint64_t inode)
{
    for (size_t i = 0; i < g->npending; i++)
        if (g->pending[i] == inode) {
            g->pending[i] = g->pending[--g->npending];
            g->misses[i] = g->misses[g->npending];
            return;
        }
    remember(g, inode);
}

static void refuse(pmi_pmix_guard_t *g, int copy, uint64_t inode, uid_t uid,
                   uint16_t port)
{
    if (shutdown(copy, SHUT_RDWR) != 0)
        return;
    g->refused++;
    if (g->nshut < PMI_PMIX_GUARD_PENDING) {
        g->shut[g->nshut] = inode;
        g->shut_at[g->nshut++] = now_s();
    }
    HNP_WARN(pmi_pmix_log(), "pmix: refused a connection to the PMIx server "
             "from uid %lu, port %u: not a process of this node's ranks",
             (unsigned long)uid, (unsigned)port);
}

typedef struct sweep {
    pmi_pmix_guard_t *g;
    pmi_pmix_job_sockets_t js;
} sweep_t;

/* A parked tool's connection (shut down long ago, libpmix never closes
 * it): closed, one for each tool parked, so that a flood of tools cannot
 * use up the daemon's descriptors. */
static bool close_abandoned(pmi_pmix_guard_t *g, int fd, uint64_t inode)
{
    for (size_t i = 0; i < g->nshut; i++) {
        if (g->shut[i] != inode || now_s() - g->shut_at[i] < GUARD_ABANDONED_S)
            continue;
        g->shut[i] = g->shut[--g->nshut];
        g->shut_at[i] = g->shut_at[g->nshut];
        if (__atomic_load_n(&g->parked_tools, __ATOMIC_RELAXED) == 0)
            return true;
        __atomic_sub_fetch(&g->parked_tools, 1, __ATOMIC_RELAXED);
        close(fd);
        return true;
    }
    return false;
}

/* One socket of this process: if it is a connection libpmix accepted and
 * was not decided yet, decide. */
static void check_socket(int fd, int copy, uint64_t inode, void *cbdata)
{
    sweep_t *sw = cbdata;
    pmi_pmix_guard_t *g = sw->g;
    struct sockaddr_storage self, peer;
    socklen_t self_len = sizeof(self), peer_len = sizeof(peer);
    uid_t uid;
    uint64_t peer_inode;

    if (getsockname(copy, (struct sockaddr *)&self, &self_len) != 0 ||
        pmi_pmix_port_of(&self) != g->port || fd == g->listen_fd ||
        getpeername(copy, (struct sockaddr *)&peer, &peer_len) != 0 ||
        close_abandoned(g, fd, inode) || known(g, inode))
        return;
    int rc = pmi_pmix_peer_lookup(&peer, &self, &uid, &peer_inode);
    if (rc == HNP_ERR_NOT_FOUND)
        return; /* the other end is gone: libpmix sees the end itself */
    if (rc == HNP_SUCCESS && uid != geteuid()) {
        settled(g, inode);
        refuse(g, copy, inode, uid, pmi_pmix_port_of(&peer));
    } else if (rc == HNP_SUCCESS &&
               pmi_pmix_held_by_the_job(&sw->js, peer_inode)) {
        settled(g, inode);
    } else if (missed(g, inode)) {
        remember(g, inode);
        refuse(g, copy, inode, rc == HNP_SUCCESS ? uid : (uid_t)-1,
               pmi_pmix_port_of(&peer));
    }
}

void pmi_pmix_guard_sweep(pmi_pmix_guard_t *g)
{
    sweep_t sw = { .g = g };

    pmi_pmix_own_sockets(check_socket, &sw);
    free(sw.js.inodes);
}

void pmi_pmix_guard_park_tool(pmi_pmix_guard_t *g)
{
    __atomic_add_fetch(&g->parked_tools, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------ the listening socket */

static void guard_arm(pmi_pmix_guard_t *g);

static void second_sweep(hnp_rte_t *rte, void *cbdata)
{
    pmi_pmix_guard_t *g = cbdata;

    hnp_rte_timer_destroy(g->later);
    g->later = NULL;
    pmi_pmix_guard_sweep(g);
    /* some are still undecided, or to be closed: look again */
    if (g->npending > 0 || g->nshut > 0)
        g->later = hnp_rte_timer_create(rte, GUARD_SECOND_SWEEP_S,
                                        second_sweep, g);
}

static void first_sweep(hnp_rte_t *rte, void *cbdata)
{
    pmi_pmix_guard_t *g = cbdata;

    hnp_rte_timer_destroy(g->soon);
    g->soon = NULL;
    pmi_pmix_guard_sweep(g);
    guard_arm(g);
    if (g->later == NULL)
        g->later = hnp_rte_timer_create(rte, GUARD_SECOND_SWEEP_S,
                                        second_sweep, g);
}

/* A connection waits to be accepted: libpmix's thread takes it; the
 * watch rests until the sweep, so as not to spin on the readiness. */
static void listener_ready(hnp_rte_t *rte, int fd, unsigned ready,
                           void *cbdata)
{
    pmi_pmix_guard_t *g = cbdata;

    (void)fd;
    (void)ready;
    hnp_rte_fd_watch_destroy(g->watch);
    g->watch = NULL;
    if (g->soon == NULL)
        g->soon = hnp_rte_timer_create(rte, GUARD_FIRST_SWEEP_S, first_sweep,
                                       g);
}

static void guard_arm(pmi_pmix_guard_t *g)
{
    if (g->watch == NULL && g->listen_fd >= 0)
        g->watch = hnp_rte_fd_watch_create(g->rte, g->listen_fd,
                                           HNP_RTE_FD_READ, listener_ready, g);
}

typedef struct listeners {
    uint64_t *inodes;
    size_t n, max;
    int found_fd;            /* a new one (guard_start), or -1 */
    uint16_t found_port;
} listeners_t;

static void note_listener(int fd, int copy, uint64_t inode, void *cbdata)
{
    listeners_t *l = cbdata;
    struct sockaddr_storage self;
    socklen_t len = sizeof(self);
    int listening = 0;
    socklen_t optlen = sizeof(listening);

    if (getsockopt(copy, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) != 0 ||
        !listening ||
        getsockname(copy, (struct sockaddr *)&self, &len) != 0 ||
        pmi_pmix_port_of(&self) == 0)
        return;
    if (l->found_fd == -2) { /* counting */
        if (l->n < l->max)
            l->inodes[l->n++] = inode;
        return;
    }
    for (size_t i = 0; i < l->n; i++)
        if (l->inodes[i] == inode)
            return;
    if (l->found_fd < 0) {
        l->found_fd = fd;
        l->found_port = pmi_pmix_port_of(&self);
    }
}

size_t pmi_pmix_guard_listeners(uint64_t *inodes, size_t max)
{
    listeners_t l = { .inodes = inodes, .max = max, .found_fd = -2 };

    pmi_pmix_own_sockets(note_listener, &l);
    return l.n;
}

int pmi_pmix_guard_start(pmi_pmix_guard_t *g, hnp_rte_t *rte,
                         const uint64_t *before, size_t nbefore, char *err,
                         size_t errlen)
{
    listeners_t l = { .inodes = (uint64_t *)before, .n = nbefore,
                      .max = nbefore, .found_fd = -1 };

    g->rte = rte;
    g->listen_fd = -1;
    pmi_pmix_own_sockets(note_listener, &l);
    if (l.found_fd < 0) {
        snprintf(err, errlen, "pmix: cannot find the PMIx server's listening "
                 "socket among this daemon's: connections to it could not "
                 "be checked");
        return HNP_ERR_NOT_FOUND;
    }
    g->listen_fd = l.found_fd;
    g->port = l.found_port;
    guard_arm(g);
    return g->watch != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

void pmi_pmix_guard_stop(pmi_pmix_guard_t *g)
{
    hnp_rte_fd_watch_destroy(g->watch);
    hnp_rte_timer_destroy(g->soon);
    hnp_rte_timer_destroy(g->later);
    g->watch = NULL;
    g->soon = g->later = NULL;
    g->listen_fd = -1;
}
