/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OOB object: configuration, listeners, the public entry points of
 * oob.h, and the deferred teardown that lets user callbacks call anything.
 *
 * Listening: one non-blocking socket per selected address, each on an
 * ephemeral port. The backlog is at least OOB_MIN_BACKLOG and the caller
 * raises it to the job's size, because daemons that all call back at once
 * (paper 002, section V: the connection storm at the HNP) otherwise overflow
 * the accept queue and wait seconds for TCP to retry their dropped SYNs.
 * The accept callback drains the queue in bursts for the same reason.
 *
 * The queue asked of the kernel is never below OOB_LISTEN_QUEUE, whatever
 * the job's size: strangers that reconnect as fast as the guard drops them
 * (guard.c) would otherwise keep a small queue full, and a daemon's SYN
 * would be dropped and retried until its connect timed out. Queued
 * connections cost no descriptor, and the kernel clamps the figure to
 * net.core.somaxconn without a word; only the job's own need is checked
 * against that clamp (backlog_check).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "hnp_errors.h"
#include "internal.h"

#define ACCEPT_BURST 256
#define ACCEPT_PAUSE_MS 100
#define OOB_LISTEN_QUEUE 4096
#define SOMAXCONN_FILE "/proc/sys/net/core/somaxconn"

/* ---------------------------------------------------------- teardown */

static void reap_dead(hnp_oob_t *oob)
{
    while (oob->dead != NULL) {
        oob_conn_t *c = oob->dead;
        oob->dead = c->next;
        oob_conn_free(c);
    }
}

static void oob_free(hnp_oob_t *oob)
{
    while (oob->live != NULL)
        oob_conn_close(oob->live);
    reap_dead(oob);
    oob_guard_flush(oob);
    for (size_t i = 0; i < oob->nlisteners; i++) {
        event_free(oob->listen_evs[i]);
        close(oob->listen_fds[i]);
    }
    if (oob->accept_resume != NULL)
        event_free(oob->accept_resume);
    oob_peers_free(oob);
    free(oob->listen_evs);
    free(oob->listen_fds);
    free(oob->ifaddrs);
    free(oob->uri);
    /* The secret should not outlive its owner in freed memory. */
    sodium_memzero(oob->secret, sizeof(oob->secret));
    free(oob);
}

void oob_hold(hnp_oob_t *oob)
{
    oob->busy++;
}

void oob_release(hnp_oob_t *oob)
{
    if (--oob->busy > 0)
        return;
    if (oob->destroy_requested)
        oob_free(oob);
    else
        reap_dead(oob);
}

void hnp_oob_destroy(hnp_oob_t *oob)
{
    if (oob == NULL)
        return;
    HNP_VERBOSE(oob->log, 1, "closing %u connection(s) and %zu listener(s)",
                oob->nconns, oob->nlisteners);
    if (oob->busy > 0)
        oob->destroy_requested = true; /* freed when the callback returns */
    else
        oob_free(oob);
}

void oob_set_handshake_timeout(hnp_oob_t *oob, double seconds)
{
    oob->handshake_timeout = seconds;
}

/* ---------------------------------------------------------- accepting */

static void accept_pause_for(hnp_oob_t *oob, double seconds)
{
    struct timeval tv;

    tv.tv_sec = (time_t)seconds;
    tv.tv_usec = (suseconds_t)((seconds - (double)tv.tv_sec) * 1e6);
    for (size_t i = 0; i < oob->nlisteners; i++)
        event_del(oob->listen_evs[i]);
    event_add(oob->accept_resume, &tv);
}

static void accept_pause(hnp_oob_t *oob, int err)
{
    char reason[128];

    /* Out of descriptors: the connection stays queued in the kernel and the
     * listener would fire again at once. Pause instead of spinning. */
    snprintf(reason, sizeof(reason), "accept: %s; not accepting for %d ms",
             strerror(err), ACCEPT_PAUSE_MS);
    oob_guard_warn(oob, NULL, reason);
    accept_pause_for(oob, ACCEPT_PAUSE_MS / 1e3);
}

static void accept_resume_cb(evutil_socket_t fd, short what, void *arg)
{
    hnp_oob_t *oob = arg;

    (void)fd;
    (void)what;
    for (size_t i = 0; i < oob->nlisteners; i++)
        event_add(oob->listen_evs[i], NULL);
}

/* Whether accept() would find a connection: making room for one that is
 * not there would drop a waiting connection for nothing. */
static bool connection_pending(int fd)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };

    return poll(&pfd, 1, 0) == 1;
}

static void accept_burst(hnp_oob_t *oob, int fd)
{
    oob->accept_round++;
    for (int i = 0; i < ACCEPT_BURST && !oob->destroy_requested; i++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        double wait = 0;
        if (!connection_pending(fd))
            break;
        if (!oob_guard_room(oob, &wait)) {
            /* Every waiting slot is taken by a connection too young to
             * drop: what is queued waits in the kernel meanwhile. */
            accept_pause_for(oob, wait);
            break;
        }
        int cfd = accept4(fd, (struct sockaddr *)&ss, &len,
                          SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd >= 0) {
            oob_conn_accepted(oob, cfd, (struct sockaddr *)&ss);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            accept_pause(oob, errno);
        break;
    }
}

static void accept_cb(evutil_socket_t fd, short what, void *arg)
{
    hnp_oob_t *oob = arg;

    (void)what;
    oob_hold(oob);
    accept_burst(oob, fd);
    oob_release(oob);
}

/* Called before connecting: when both sides want to talk at once, the
 * peer's connection (and hello) is often waiting here already, and taking
 * it first avoids the duplicate instead of retiring it later. */
void oob_accept_waiting(hnp_oob_t *oob)
{
    if (evtimer_pending(oob->accept_resume, NULL))
        return; /* out of descriptors: accept_resume_cb retries */
    for (size_t i = 0; i < oob->nlisteners && !oob->destroy_requested; i++)
        accept_burst(oob, oob->listen_fds[i]);
}

/* ---------------------------------------------------------- listening */

/* The kernel silently clamps the backlog to net.core.somaxconn; say so,
 * since the clamp brings back the SYN drops the backlog was raised for.
 * The minimum backlog (a daemon's) is below any kernel's default, so
 * only a raised one is checked: every daemon would read /proc for it. */
static void backlog_check(const hnp_oob_t *oob)
{
    FILE *fp;
    int somaxconn = 0;

    if (oob->backlog <= OOB_MIN_BACKLOG)
        return;
    fp = fopen(SOMAXCONN_FILE, "re");
    if (fp == NULL)
        return;
    if (fscanf(fp, "%d", &somaxconn) == 1 && somaxconn < oob->backlog)
        HNP_WARN(oob->log, "listen backlog %d is above net.core.somaxconn=%d: "
                 "the kernel clamps it, and daemons calling back at once may "
                 "see their connections dropped and retried seconds later",
                 oob->backlog, somaxconn);
    fclose(fp);
}

static int listener_open(hnp_oob_t *oob, const oob_ifaddr_t *ifa, int *fdp,
                         char *err, size_t errlen)
{
    oob_endpoint_t ep;
    char where[OOB_ENDPOINT_STRLEN];
    int one = 1;

    oob_ifaddr_endpoint(ifa, &ep);
    int fd = socket(ifa->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto failed;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0)
        goto failed;
    /* Each IPv6 address gets its own socket; no v4-mapped duplicates. */
    if (ifa->family == AF_INET6 &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0)
        goto failed;
    if (bind(fd, (struct sockaddr *)&ep.sa, ep.len) != 0 ||
        listen(fd, oob->backlog > OOB_LISTEN_QUEUE ? oob->backlog
                                                   : OOB_LISTEN_QUEUE) != 0)
        goto failed;
    *fdp = fd;
    return HNP_SUCCESS;
failed:
    hnp_err_set(err, errlen, "cannot listen on %s (interface %s): %s",
                oob_endpoint_str((struct sockaddr *)&ep.sa, where,
                                 sizeof(where)),
                ifa->name, strerror(errno));
    if (fd >= 0)
        close(fd);
    return HNP_ERR_IO;
}

static int listener_add(hnp_oob_t *oob, int fd)
{
    struct event *ev =
        event_new(oob->base, fd, EV_READ | EV_PERSIST, accept_cb, oob);

    if (ev == NULL || event_add(ev, NULL) != 0) {
        if (ev != NULL)
            event_free(ev);
        close(fd);
        return HNP_ERR_NOMEM;
    }
    oob->listen_fds[oob->nlisteners] = fd;
    oob->listen_evs[oob->nlisteners++] = ev;
    return HNP_SUCCESS;
}

/* An address that cannot be bound (an IPv6 address still in duplicate
 * address detection, say) is skipped with a warning; none at all is an
 * error. */
static int listeners_open(hnp_oob_t *oob, char *err, size_t errlen)
{
    char why[256] = "";
    int rc = HNP_SUCCESS;

    oob->listen_fds = calloc(oob->nifaddrs, sizeof(*oob->listen_fds));
    oob->listen_evs = calloc(oob->nifaddrs, sizeof(*oob->listen_evs));
    oob->accept_resume = evtimer_new(oob->base, accept_resume_cb, oob);
    if (oob->listen_fds == NULL || oob->listen_evs == NULL ||
        oob->accept_resume == NULL) {
        hnp_err_set(err, errlen, "out of memory opening listeners");
        return HNP_ERR_NOMEM;
    }
    for (size_t i = 0; i < oob->nifaddrs && rc != HNP_ERR_NOMEM; i++) {
        int fd = -1;
        rc = listener_open(oob, &oob->ifaddrs[i], &fd, why, sizeof(why));
        if (rc == HNP_SUCCESS)
            rc = listener_add(oob, fd);
        else
            HNP_WARN(oob->log, "%s", why);
    }
    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory opening listeners");
    else if (oob->nlisteners == 0)
        hnp_err_set(err, errlen, "no address to listen on: %s", why);
    if (rc == HNP_ERR_NOMEM || oob->nlisteners == 0)
        return rc == HNP_ERR_NOMEM ? rc : HNP_ERR_IO;
    backlog_check(oob);
    return HNP_SUCCESS;
}

static int uri_build(hnp_oob_t *oob)
{
    size_t cap = oob->nlisteners * (OOB_URI_ENTRY_LEN + 1) + 1;
    char *uri = calloc(1, cap);
    size_t used = 0;

    if (uri == NULL)
        return HNP_ERR_NOMEM;
    for (size_t i = 0; i < oob->nlisteners; i++) {
        oob_endpoint_t ep;
        ep.len = sizeof(ep.sa);
        if (getsockname(oob->listen_fds[i], (struct sockaddr *)&ep.sa,
                        &ep.len) != 0) {
            free(uri);
            return HNP_ERR_IO;
        }
        if (i > 0)
            uri[used++] = ',';
        oob_endpoint_uri(&ep, uri + used, cap - used);
        used += strlen(uri + used);
    }
    oob->uri = uri;
    return HNP_SUCCESS;
}

/* ---------------------------------------------------------- creation */

static int oob_configure(hnp_oob_t *oob, struct event_base *base,
                         hnp_vpid_t self, const uint8_t *secret,
                         const hnp_oob_config_t *config,
                         const hnp_oob_callbacks_t *callbacks)
{
    oob->base = base;
    oob->log = hnp_log_stream("oob");
    oob->self = self;
    memcpy(oob->secret, secret, HNP_SECRET_LEN);
    hnp_oob_set_max_frame(oob, config->max_frame);
    oob->backlog = config->backlog > OOB_MIN_BACKLOG ? config->backlog
                                                      : OOB_MIN_BACKLOG;
    oob->connect_timeout = config->connect_timeout > 0
                               ? config->connect_timeout
                               : OOB_DEFAULT_CONNECT_TIMEOUT;
    oob->handshake_timeout = config->handshake_timeout > 0
                                 ? config->handshake_timeout
                                 : HNP_OOB_HANDSHAKE_TIMEOUT_DEFAULT;
    hnp_oob_set_max_handshakes(oob, config->max_handshakes);
    oob_ratelimit_init(&oob->warn_limit, 1.0);
    oob->nprocs = config->nprocs;
    oob->test_stall = config->test_stall > 0 ? config->test_stall : 0;
    if (callbacks != NULL)
        oob->cb = *callbacks;
    return oob->nprocs == 0 || self < oob->nprocs ? HNP_SUCCESS
                                                  : HNP_ERR_BAD_PARAM;
}

int hnp_oob_create(hnp_oob_t **out, struct event_base *base, hnp_vpid_t self,
                   const uint8_t secret[HNP_SECRET_LEN],
                   const hnp_oob_config_t *config,
                   const hnp_oob_callbacks_t *callbacks, char *err,
                   size_t errlen)
{
    hnp_oob_t *oob = NULL;
    int rc;

    if (out == NULL || base == NULL || secret == NULL || config == NULL) {
        hnp_err_set(err, errlen, "hnp_oob_create: missing argument");
        return HNP_ERR_BAD_PARAM;
    }
    *out = NULL;
    oob = calloc(1, sizeof(*oob));
    if (oob == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    rc = oob_configure(oob, base, self, secret, config, callbacks);
    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "vpid %u is not below nprocs %u", self,
                    config->nprocs);
        goto cleanup;
    }
    rc = oob_handshake_init(oob);
    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "libsodium failed to initialise");
        goto cleanup;
    }
    rc = oob_addr_select(config->if_include, config->if_exclude, oob->log,
                         &oob->ifaddrs, &oob->nifaddrs, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = listeners_open(oob, err, errlen);
    if (rc == HNP_SUCCESS && (rc = uri_build(oob)) != HNP_SUCCESS)
        hnp_err_set(err, errlen, "cannot build the URI: %s", hnp_strerror(rc));
    if (rc != HNP_SUCCESS)
        goto cleanup;
    HNP_VERBOSE(oob->log, 1, "vpid %u listening at %s (backlog %d)", self,
                oob->uri, oob->backlog);
    *out = oob;
    oob = NULL;
cleanup:
    if (oob != NULL)
        oob_free(oob);
    return rc;
}

/* ---------------------------------------------------------- the API */

static bool vpid_valid(const hnp_oob_t *oob, hnp_vpid_t vpid)
{
    return oob->nprocs == 0 || vpid < oob->nprocs;
}

const char *hnp_oob_uri(const hnp_oob_t *oob)
{
    return oob->uri;
}

int hnp_oob_set_uri(hnp_oob_t *oob, hnp_vpid_t peer, const char *uri)
{
    oob_endpoint_t *eps = NULL;
    size_t n = 0;
    char *copy = NULL;
    char why[256] = "";
    int rc;

    if (uri == NULL || !vpid_valid(oob, peer))
        return HNP_ERR_BAD_PARAM;
    rc = oob_uri_parse(uri, &eps, &n, why, sizeof(why));
    if (rc != HNP_SUCCESS) {
        HNP_WARN(oob->log, "ignoring the URI of peer %u: %s", peer, why);
        goto cleanup;
    }
    oob_peer_t *p = oob_peer_get(oob, peer);
    copy = strdup(uri);
    if (p == NULL || copy == NULL) {
        rc = HNP_ERR_NOMEM;
        goto cleanup;
    }
    free(p->uri);
    p->uri = copy;
    copy = NULL;
    free(p->addrs);
    p->addrs = eps;
    p->naddrs = n;
    eps = NULL;
    if (evbuffer_get_length(p->queue) > 0)
        oob_peer_kick(p);
cleanup:
    free(copy);
    free(eps);
    return rc;
}

void hnp_oob_set_max_handshakes(hnp_oob_t *oob, uint32_t max)
{
    oob->max_waiting = max > 0 ? max : OOB_DEFAULT_MAX_HANDSHAKES;
}

const char *hnp_oob_peer_uri(const hnp_oob_t *oob, hnp_vpid_t peer)
{
    const oob_peer_t *p = oob_peer_find(oob, peer);

    return p != NULL ? p->uri : NULL;
}

void hnp_oob_set_nprocs(hnp_oob_t *oob, uint32_t nprocs)
{
    oob->nprocs = nprocs;
}

int hnp_oob_send(hnp_oob_t *oob, hnp_vpid_t peer,
                 const hnp_frame_header_t *hdr, const void *body)
{
    if (hdr == NULL || (hdr->len > 0 && body == NULL) || peer == oob->self ||
        !vpid_valid(oob, peer))
        return HNP_ERR_BAD_PARAM;
    if (hdr->len > oob->max_frame) {
        HNP_WARN(oob->log, "refusing to send %u bytes to peer %u: the largest "
                 "frame is %zu bytes", hdr->len, peer, oob->max_frame);
        return HNP_ERR_BAD_PARAM;
    }
    oob_peer_t *p = oob_peer_get(oob, peer);
    if (p == NULL)
        return HNP_ERR_NOMEM;
    int rc = oob_peer_enqueue(p, hdr, body);
    if (rc != HNP_SUCCESS)
        return rc;
    if (p->sender != NULL)
        oob_conn_want_write(p->sender);
    else
        oob_peer_kick(p);
    return HNP_SUCCESS;
}

bool hnp_oob_connected(const hnp_oob_t *oob, hnp_vpid_t peer)
{
    const oob_peer_t *p = oob_peer_find(oob, peer);
    return p != NULL && p->nopen > 0;
}

bool hnp_oob_knows(const hnp_oob_t *oob, hnp_vpid_t peer)
{
    const oob_peer_t *p = oob_peer_find(oob, peer);
    return p != NULL && p->uri != NULL;
}

uint32_t hnp_oob_num_connections(const hnp_oob_t *oob)
{
    return oob->nconns;
}

uint32_t hnp_oob_num_peer_connections(const hnp_oob_t *oob)
{
    return oob->nconns - oob->nwaiting;
}

uint32_t hnp_oob_max_connections(const hnp_oob_t *oob)
{
    return oob->maxconns;
}

uint64_t hnp_oob_handshake_cpu_us(const hnp_oob_t *oob)
{
    return oob->handshake_cpu_ns / 1000u;
}

uint32_t hnp_oob_handshakes(const hnp_oob_t *oob)
{
    return oob->handshakes;
}

size_t hnp_oob_queued_bytes(const hnp_oob_t *oob)
{
    return oob->queued_bytes;
}

size_t hnp_oob_queued_deliverable(const hnp_oob_t *oob)
{
    size_t n = 0;

    for (size_t i = 0; i < oob->nbuckets; i++)
        for (const oob_peer_t *p = oob->buckets[i]; p != NULL; p = p->hash_next)
            if (p->nopen > 0 || p->connecting != NULL || p->uri != NULL)
                n += evbuffer_get_length(p->queue);
    return n;
}

size_t hnp_oob_max_frame(const hnp_oob_t *oob)
{
    return oob->max_frame;
}

void hnp_oob_set_max_frame(hnp_oob_t *oob, size_t max_frame)
{
    oob->max_frame = max_frame > 0 ? max_frame : OOB_DEFAULT_MAX_FRAME;
}

void hnp_oob_close_peer(hnp_oob_t *oob, hnp_vpid_t peer)
{
    oob_peer_t *p = oob_peer_find(oob, peer);

    if (p == NULL)
        return;
    p->closing = true;
    oob_peer_kick(p);
}
