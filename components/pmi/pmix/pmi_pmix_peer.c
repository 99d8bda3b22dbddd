/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the kernel knows of a TCP connection's other end (the guard's
 * facts, pmi_pmix_guard.c): this process's sockets, by descriptor; the
 * owner and the inode of the peer socket of a local connection, asked of
 * the kernel's socket diagnostics (NETLINK_SOCK_DIAG, the exact socket of
 * the connection's four addresses: no listing of every socket of the
 * node); and the sockets that the processes of the ranks' groups hold.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

/* ------------------------------------------------ this process's sockets */

int pmi_pmix_own_sockets(pmi_pmix_socket_fn fn, void *cbdata)
{
    DIR *dir = opendir("/proc/self/fd");

    if (dir == NULL)
        return HNP_ERR_IO;
    int self = dirfd(dir);
    for (struct dirent *de; (de = readdir(dir)) != NULL;) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        int fd = atoi(de->d_name);
        if (fd == self)
            continue;
        /* A copy: libpmix's thread may close fd and the number be reused
         * meanwhile; what the copy is, it stays until closed here. */
        int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        struct stat st;
        if (copy < 0)
            continue;
        if (fstat(copy, &st) == 0 && S_ISSOCK(st.st_mode))
            fn(fd, copy, (uint64_t)st.st_ino, cbdata);
        close(copy);
    }
    closedir(dir);
    return HNP_SUCCESS;
}

/* The port of @p addr (AF_INET or AF_INET6), 0 for another family. */
uint16_t pmi_pmix_port_of(const struct sockaddr_storage *addr)
{
    if (addr->ss_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)addr)->sin_port);
    if (addr->ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
    return 0;
}

/* ------------------------------------------------- the kernel's answer */

/* The address of @p a in inet_diag's form. */
static void diag_addr(const struct sockaddr_storage *a, __be32 out[4],
                      __be16 *port)
{
    memset(out, 0, 4 * sizeof(out[0]));
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)a;
        memcpy(out, &in->sin_addr, sizeof(in->sin_addr));
        *port = in->sin_port;
    } else {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)a;
        memcpy(out, &in6->sin6_addr, sizeof(in6->sin6_addr));
        *port = in6->sin6_port;
    }
}

int pmi_pmix_diag_answer(const void *buf, size_t len, uid_t *uid,
                         uint64_t *inode)
{
    const struct nlmsghdr *h = buf;

    if (len < sizeof(*h) || h->nlmsg_len < sizeof(*h) || h->nlmsg_len > len)
        return HNP_ERR_BAD_PARAM;
    if (h->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *e = NLMSG_DATA(h);
        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
            return HNP_ERR_BAD_PARAM;
        return e->error == -ENOENT ? HNP_ERR_NOT_FOUND : HNP_ERR_IO;
    }
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
        h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
        return HNP_ERR_BAD_PARAM;
    const struct inet_diag_msg *m = NLMSG_DATA(h);
    /* no inode: closed, held by no process (time-wait) */
    if (m->idiag_inode == 0)
        return HNP_ERR_NOT_FOUND;
    *uid = (uid_t)m->idiag_uid;
    *inode = (uint64_t)m->idiag_inode;
    return HNP_SUCCESS;
}

int pmi_pmix_peer_lookup(const struct sockaddr_storage *peer,
                         const struct sockaddr_storage *self, uid_t *uid,
                         uint64_t *inode)
{
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 req;
    } q;
    union {
        struct nlmsghdr align;
        char bytes[1024];
    } answer;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    int rc = HNP_ERR_IO;

    if (peer->ss_family != self->ss_family ||
        (peer->ss_family != AF_INET && peer->ss_family != AF_INET6))
        return HNP_ERR_BAD_PARAM;
    memset(&q, 0, sizeof(q));
    q.nlh.nlmsg_len = sizeof(q);
    q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    q.nlh.nlmsg_flags = NLM_F_REQUEST;
    q.req.sdiag_family = (uint8_t)peer->ss_family;
    q.req.sdiag_protocol = IPPROTO_TCP;
    q.req.idiag_states = ~0u;
    /* the peer's socket: its source is the peer, its destination us */
    diag_addr(peer, q.req.id.idiag_src, &q.req.id.idiag_sport);
    diag_addr(self, q.req.id.idiag_dst, &q.req.id.idiag_dport);
    q.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    q.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return HNP_ERR_IO;
    if (sendto(nl, &q, sizeof(q), 0, (struct sockaddr *)&kernel,
               sizeof(kernel)) == (ssize_t)sizeof(q)) {
        ssize_t n;
        do
            n = recv(nl, answer.bytes, sizeof(answer.bytes), 0);
        while (n < 0 && errno == EINTR);
        if (n > 0)
            rc = pmi_pmix_diag_answer(answer.bytes, (size_t)n, uid, inode);
    }
    close(nl);
    return rc;
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

static void sockets_add(pmi_pmix_job_sockets_t *js, uint64_t inode)
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

static void sockets_of(pmi_pmix_job_sockets_t *js, long pid)
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

static void sockets_gather(pmi_pmix_job_sockets_t *js)
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

/* The ranks' own sockets: the daemon knows their pids, and the process
 * that connects is nearly always the rank itself (an MPI program). */
static void rank_sockets_gather(pmi_pmix_job_sockets_t *js)
{
    js->ranks_gathered = true;
    for (pmi_pmix_job_t *pj = pmi_pmix_server.jobs; pj != NULL; pj = pj->next)
        for (uint32_t i = 0; pj->pids != NULL && i < pj->job->nprocs; i++)
            if (pj->pids[i] > 0)
                sockets_of(js, (long)pj->pids[i]);
}

static bool sockets_hold(const pmi_pmix_job_sockets_t *js, uint64_t inode)
{
    for (size_t i = 0; i < js->n; i++)
        if (js->inodes[i] == inode)
            return true;
    return false;
}

/* The scan of every process (/proc) only for a socket that no rank holds
 * itself (a rank's child: a script's program): on a node shared with many
 * processes it was most of what checking a connection cost. */
bool pmi_pmix_held_by_the_job(pmi_pmix_job_sockets_t *js, uint64_t inode)
{
    if (!js->ranks_gathered)
        rank_sockets_gather(js);
    if (sockets_hold(js, inode))
        return true;
    if (js->gathered)
        return false;
    sockets_gather(js);
    return sockets_hold(js, inode);
}
