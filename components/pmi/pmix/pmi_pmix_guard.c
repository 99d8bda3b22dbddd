/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who may stay connected to the PMIx server. libpmix 4.2 listens on TCP
 * only (127.0.0.1), where every user of the node can connect, and reads a
 * connection's hello with a blocking recv on its own progress thread: a
 * stranger that connects and says nothing holds the whole server, every
 * rank's PMIx_Init and fence with it. libpmix offers a host no hook at
 * accept (the server module's `listener` is not used by 4.2), so the
 * daemon watches the listening socket itself and, for each connection
 * libpmix accepted, asks the kernel who holds the other end:
 * /proc/net/tcp and tcp6 give the uid and the inode of the connecting
 * socket, and /proc/PID/fd which processes hold it. A connection whose
 * other end is not held by a process of one of the node's ranks' process
 * groups (each rank leads its own), or not by this user, is shut down
 * from here: libpmix sees its end and drops it.
 *
 * What this does not do: tell which rank of the job a connection is (a
 * process of the job may claim another rank, as it may ptrace it), or
 * stop a stranger's first bytes from reaching libpmix before the check
 * (a few milliseconds); the job's name, derived from the run's secret,
 * is what keeps a stranger from naming a rank in them.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

/* After the listening socket turns readable: libpmix accepts, then the
 * sweep looks (again a little later, for what came in between). */
#define GUARD_FIRST_SWEEP_S 0.02
#define GUARD_SECOND_SWEEP_S 0.2
/* A connection whose other end is missing from this many sweeps in a
 * row is shut down: that end is in no process of this node. */
#define GUARD_MAX_MISSES 10
/* A connection shut down and still open this long after is abandoned. */
#define GUARD_ABANDONED_S 3.0

/* ------------------------------------------------------- /proc/net/tcp */

int pmi_pmix_tcp_line_parse(const char *line, pmi_pmix_tcp_entry_t *e)
{
    char local[33], remote[33];
    unsigned lport, rport, state;
    unsigned long uid;
    unsigned long long inode;

    if (sscanf(line, " %*u: %32[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %x %*x:%*x "
               "%*x:%*x %*x %lu %*d %llu", local, &lport, remote, &rport,
               &state, &uid, &inode) != 7 || lport > 65535 || rport > 65535)
        return HNP_ERR_BAD_PARAM;
    memset(e, 0, sizeof(*e));
    snprintf(e->local, sizeof(e->local), "%s", local);
    snprintf(e->remote, sizeof(e->remote), "%s", remote);
    e->local_port = (uint16_t)lport;
    e->remote_port = (uint16_t)rport;
    e->state = state;
    e->uid = (uid_t)uid;
    e->inode = (uint64_t)inode;
    return HNP_SUCCESS;
}

/* Every entry of /proc/net/tcp and tcp6 with @p port at either end (and
 * the listening ones), into a growing array. */
static size_t tcp_entries(uint16_t port, pmi_pmix_tcp_entry_t **out)
{
    static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
    pmi_pmix_tcp_entry_t e, *all = NULL;
    size_t n = 0, cap = 0;
    char line[512];

    for (size_t f = 0; f < 2; f++) {
        FILE *fp = fopen(files[f], "re");
        if (fp == NULL)
            continue;
        while (fgets(line, sizeof(line), fp) != NULL) {
            if (pmi_pmix_tcp_line_parse(line, &e) != HNP_SUCCESS ||
                (port != 0 && e.local_port != port && e.remote_port != port))
                continue;
            if (n == cap) {
                size_t grown = cap > 0 ? 2 * cap : 32;
                pmi_pmix_tcp_entry_t *p = realloc(all, grown * sizeof(*p));
                if (p == NULL)
                    break;
                all = p;
                cap = grown;
            }
            all[n++] = e;
        }
        fclose(fp);
    }
    *out = all;
    return n;
}

/* The descriptor of this process that is socket @p inode, or -1. */
static int own_fd_of(uint64_t inode)
{
    char want[48], link[48];
    DIR *dir = opendir("/proc/self/fd");
    int found = -1;

    if (dir == NULL)
        return -1;
    snprintf(want, sizeof(want), "socket:[%" PRIu64 "]", inode);
    for (struct dirent *de; found < 0 && (de = readdir(dir)) != NULL;) {
        ssize_t len = readlinkat(dirfd(dir), de->d_name, link,
                                 sizeof(link) - 1);
        if (len > 0) {
            link[len] = '\0';
            if (strcmp(link, want) == 0)
                found = atoi(de->d_name);
        }
    }
    closedir(dir);
    return found;
}

/* ------------------------------------------------------- the job's ranks */

/* @p pid's process group, or -1. */
static pid_t pgid_of(long pid)
{
    char path[64], buf[512];
    FILE *fp;

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if ((fp = fopen(path, "re")) == NULL)
        return -1;
    size_t len = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[len] = '\0';
    /* after "(comm)", which may hold anything: state ppid pgrp */
    char *close_paren = strrchr(buf, ')');
    int pgid = -1;
    if (close_paren == NULL ||
        sscanf(close_paren + 1, " %*c %*d %d", &pgid) != 1)
        return -1;
    return (pid_t)pgid;
}

static bool is_rank_group(pid_t pgid)
{
    for (pmi_pmix_job_t *pj = pmi_pmix_server.jobs; pj != NULL; pj = pj->next)
        for (uint32_t i = 0; pj->pids != NULL && i < pj->job->nprocs; i++)
            if (pj->pids[i] > 0 && pj->pids[i] == pgid)
                return true;
    return false;
}

/* The sockets held by the processes of the ranks' groups: gathered once
 * a sweep, when a connection needs them. */
typedef struct job_sockets {
    bool gathered;
    uint64_t *inodes;
    size_t n, cap;
} job_sockets_t;

static void sockets_add(job_sockets_t *js, uint64_t inode)
{
    if (js->n == js->cap) {
        size_t cap = js->cap > 0 ? 2 * js->cap : 64;
        uint64_t *grown = realloc(js->inodes, cap * sizeof(*grown));
        if (grown == NULL)
            return; /* not seen: the connection gets another look */
        js->inodes = grown;
        js->cap = cap;
    }
    js->inodes[js->n++] = inode;
}

static void sockets_of(job_sockets_t *js, long pid)
{
    char path[64], link[48];
    unsigned long long inode;
    DIR *dir;

    snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
    if ((dir = opendir(path)) == NULL)
        return;
    for (struct dirent *de; (de = readdir(dir)) != NULL;) {
        ssize_t len = readlinkat(dirfd(dir), de->d_name, link,
                                 sizeof(link) - 1);
        if (len <= 0)
            continue;
        link[len] = '\0';
        if (sscanf(link, "socket:[%llu]", &inode) == 1)
            sockets_add(js, (uint64_t)inode);
    }
    closedir(dir);
}

static void sockets_gather(job_sockets_t *js)
{
    DIR *proc = opendir("/proc");

    js->gathered = true;
    if (proc == NULL)
        return;
    for (struct dirent *de; (de = readdir(proc)) != NULL;) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        long pid = strtol(de->d_name, NULL, 10);
        if (is_rank_group(pgid_of(pid)))
            sockets_of(js, pid);
    }
    closedir(proc);
}

/* A process in a rank's group holds socket @p inode. */
static bool held_by_the_job(job_sockets_t *js, uint64_t inode)
{
    if (!js->gathered)
        sockets_gather(js);
    for (size_t i = 0; i < js->n; i++)
        if (js->inodes[i] == inode)
            return true;
    return false;
}

/* ------------------------------------------------------------ the sweep */

#define TCP_ESTABLISHED 0x01
#define TCP_LISTEN 0x0A

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

/* The client end of server-side connection @p s, or NULL. */
static const pmi_pmix_tcp_entry_t *
client_end(const pmi_pmix_tcp_entry_t *all, size_t n,
           const pmi_pmix_tcp_entry_t *s)
{
    for (size_t i = 0; i < n; i++)
        if (all[i].local_port == s->remote_port &&
            all[i].remote_port == s->local_port &&
            strcmp(all[i].local, s->remote) == 0 &&
            strcmp(all[i].remote, s->local) == 0)
            return &all[i];
    return NULL;
}

/* Shut down socket @p inode, held by libpmix at descriptor @p fd when it
 * was looked up. libpmix's thread may have closed that descriptor since
 * and the number gone to another socket (the daemon's own connections):
 * a copy is taken and its inode checked before anything is done. */
static bool shut_down(int fd, uint64_t inode)
{
    struct stat st;
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    bool done = false;

    if (copy < 0)
        return false;
    if (fstat(copy, &st) == 0 && S_ISSOCK(st.st_mode) &&
        (uint64_t)st.st_ino == inode)
        done = shutdown(copy, SHUT_RDWR) == 0;
    close(copy);
    return done;
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void refuse(pmi_pmix_guard_t *g, const pmi_pmix_tcp_entry_t *s,
                   const pmi_pmix_tcp_entry_t *c, int fd)
{
    if (!shut_down(fd, s->inode))
        return; /* closed by libpmix meanwhile */
    g->refused++;
    if (g->nshut < PMI_PMIX_GUARD_PENDING) {
        g->shut[g->nshut] = s->inode;
        g->shut_at[g->nshut++] = now_s();
    }
    if (c == NULL)
        HNP_WARN(pmi_pmix_log(), "pmix: closed a connection to the PMIx "
                 "server whose other end is gone");
    else
        HNP_WARN(pmi_pmix_log(), "pmix: refused a connection to the PMIx "
                 "server from uid %lu, port %u: not a process of this "
                 "node's ranks", (unsigned long)c->uid,
                 (unsigned)s->remote_port);
}

/* The other end of @p inode was not found this time: true when it has
 * been missing long enough to give up on it. */
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
}

/* Decide about the server end @p s of an accepted connection. */
static void check_connection(pmi_pmix_guard_t *g, job_sockets_t *js,
                             const pmi_pmix_tcp_entry_t *all, size_t n,
                             const pmi_pmix_tcp_entry_t *s, int fd)
{
    const pmi_pmix_tcp_entry_t *c = client_end(all, n, s);

    /* Another user's socket: the kernel says so, no need to look further. */
    if (c != NULL && c->uid != geteuid()) {
        settled(g, s->inode);
        remember(g, s->inode);
        refuse(g, s, c, fd);
        return;
    }
    if (c != NULL && c->inode != 0 && held_by_the_job(js, c->inode)) {
        settled(g, s->inode);
        remember(g, s->inode);
        return;
    }
    /* Not seen (yet) in a rank's group: the listing may have skipped it,
     * or the process is still being set up; it gets a few more looks. */
    if (missed(g, s->inode)) {
        remember(g, s->inode);
        refuse(g, s, c, fd);
    }
}

void pmi_pmix_guard_park_tool(pmi_pmix_guard_t *g)
{
    __atomic_add_fetch(&g->parked_tools, 1, __ATOMIC_RELAXED);
}

/* A connection shut down long ago whose descriptor libpmix still holds is
 * a parked tool's (a client's, libpmix closes at once): closed here, one
 * for each tool parked, so that a flood of tools cannot use up the
 * daemon's descriptors. */
static void close_abandoned(pmi_pmix_guard_t *g)
{
    double now = now_s();

    for (size_t i = 0; i < g->nshut;) {
        int fd = now - g->shut_at[i] >= GUARD_ABANDONED_S
                     ? own_fd_of(g->shut[i]) : -2;
        if (fd == -2) {
            i++;
            continue;
        }
        if (fd >= 0 &&
            __atomic_load_n(&g->parked_tools, __ATOMIC_RELAXED) > 0 &&
            shut_down(fd, g->shut[i])) {
            __atomic_sub_fetch(&g->parked_tools, 1, __ATOMIC_RELAXED);
            close(fd);
        }
        g->shut[i] = g->shut[--g->nshut];
        g->shut_at[i] = g->shut_at[g->nshut];
    }
}

void pmi_pmix_guard_sweep(pmi_pmix_guard_t *g)
{
    close_abandoned(g);

    pmi_pmix_tcp_entry_t *all = NULL;
    job_sockets_t js = { 0 };
    size_t n = tcp_entries(g->port, &all);

    for (size_t i = 0; i < n; i++) {
        const pmi_pmix_tcp_entry_t *s = &all[i];
        /* the server's end of an accepted connection */
        if (s->state != TCP_ESTABLISHED || s->local_port != g->port ||
            s->inode == 0 || known(g, s->inode))
            continue;
        int fd = own_fd_of(s->inode);
        if (fd >= 0)
            check_connection(g, &js, all, n, s, fd);
    }
    free(all);
    free(js.inodes);
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

/* The listening sockets of this process now, by inode. */
size_t pmi_pmix_guard_listeners(uint64_t *inodes, size_t max)
{
    pmi_pmix_tcp_entry_t *all = NULL;
    size_t n = tcp_entries(0, &all), count = 0;

    for (size_t i = 0; i < n && count < max; i++)
        if (all[i].state == TCP_LISTEN && own_fd_of(all[i].inode) >= 0)
            inodes[count++] = all[i].inode;
    free(all);
    return count;
}

int pmi_pmix_guard_start(pmi_pmix_guard_t *g, hnp_rte_t *rte,
                         const uint64_t *before, size_t nbefore, char *err,
                         size_t errlen)
{
    pmi_pmix_tcp_entry_t *all = NULL;
    size_t n = tcp_entries(0, &all);

    g->rte = rte;
    g->listen_fd = -1;
    for (size_t i = 0; i < n && g->listen_fd < 0; i++) {
        bool old = false;
        for (size_t b = 0; b < nbefore; b++)
            old = old || before[b] == all[i].inode;
        if (all[i].state != TCP_LISTEN || old)
            continue;
        int fd = own_fd_of(all[i].inode);
        if (fd >= 0) {
            g->listen_fd = fd;
            g->port = all[i].local_port;
        }
    }
    free(all);
    if (g->listen_fd < 0) {
        snprintf(err, errlen, "pmix: cannot find the PMIx server's listening "
                 "socket among this daemon's (/proc/net/tcp): connections "
                 "to it could not be checked");
        return HNP_ERR_NOT_FOUND;
    }
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
