/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpmix calls the server module from its own progress thread, where no
 * runtime state may be touched. Each call is copied into an item, queued
 * under a lock, and an eventfd wakes the daemon's event loop, which runs
 * the items in arrival order.
 *
 * The loop answers libpmix's upcalls by calling the callbacks libpmix
 * gave. libpmix 4.2 moves most of them onto its own thread before it
 * touches anything shared, but not all: the lookup's (lookup_cbfunc)
 * queues its reply on the client's connection where it is called, while
 * libpmix's thread may be sending that client another reply (a publish's)
 * from the same queue; one of the two is then lost, and the client waits
 * for ever. Such a callback is called on libpmix's thread instead
 * (pmi_pmix_hop()). libpmix has no call that only runs a function there;
 * the hop deregisters a client of a namespace never registered, which
 * libpmix does on its thread, finding nothing, and then calls back.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

static void queue_wake(hnp_rte_t *rte, int fd, unsigned ready, void *cbdata)
{
    uint64_t count;

    (void)rte;
    (void)ready;
    /* Non-blocking: an empty counter (drained already) is no error. */
    if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: reading the wake-up eventfd: %s",
                      strerror(errno));
    pmi_pmix_queue_drain(cbdata);
}

int pmi_pmix_queue_open(pmi_pmix_server_t *srv, char *err, size_t errlen)
{
    srv->head = srv->tail = NULL;
    srv->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (srv->wake_fd < 0) {
        snprintf(err, errlen, "pmix: eventfd: %s", strerror(errno));
        return HNP_ERR_IO;
    }
    srv->watch = hnp_rte_fd_watch_create(srv->rte, srv->wake_fd,
                                         HNP_RTE_FD_READ, queue_wake, srv);
    if (srv->watch == NULL) {
        snprintf(err, errlen, "pmix: cannot watch the wake-up eventfd");
        close(srv->wake_fd);
        srv->wake_fd = -1;
        return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

/* Once libpmix's thread is gone: what it queued last still runs, so that
 * every callback libpmix waits for is answered and every item freed. */
void pmi_pmix_queue_close(pmi_pmix_server_t *srv)
{
    int fd;

    hnp_rte_fd_watch_destroy(srv->watch);
    srv->watch = NULL;
    pmi_pmix_queue_drain(srv);
    /* Under the lock, as a post writes it. */
    pthread_mutex_lock(&srv->lock);
    fd = srv->wake_fd;
    srv->wake_fd = -1;
    pthread_mutex_unlock(&srv->lock);
    if (fd >= 0)
        close(fd);
}

void pmi_pmix_queue_post(pmi_pmix_server_t *srv, pmi_pmix_call_t *call,
                         pmi_pmix_call_fn run)
{
    const uint64_t one = 1;

    call->run = run;
    call->next = NULL;
    pthread_mutex_lock(&srv->lock);
    if (srv->tail != NULL)
        srv->tail->next = call;
    else
        srv->head = call;
    srv->tail = call;
    /* Written under the lock, so that the close cannot free the fd
     * between the enqueue and the write. The counter cannot overflow:
     * the loop reads it back to zero. */
    if (srv->wake_fd >= 0 && write(srv->wake_fd, &one, sizeof(one)) < 0)
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: waking the event loop: %s",
                      strerror(errno));
    pthread_mutex_unlock(&srv->lock);
}

void pmi_pmix_queue_drain(pmi_pmix_server_t *srv)
{
    for (;;) {
        pthread_mutex_lock(&srv->lock);
        pmi_pmix_call_t *call = srv->head;
        if (call != NULL) {
            srv->head = call->next;
            if (srv->head == NULL)
                srv->tail = NULL;
        }
        pthread_mutex_unlock(&srv->lock);
        if (call == NULL)
            return;
        call->run(call);
    }
}

/* A namespace no job has: hnp's are "hnp-..." (no dot). */
static const char hop_nspace[] = "hnp.thread-hop";

static void hop_arrived(pmix_status_t status, void *cbdata)
{
    pmi_pmix_hop_t *hop = cbdata;

    pthread_mutex_lock(&hop->srv->lock);
    pmi_pmix_link_remove(&hop->link);
    pthread_mutex_unlock(&hop->srv->lock);
    /* PMIX_ERR_INIT (at once, on the loop): no libpmix to answer. Any
     * other failure also comes at once: answered here as before, since an
     * answer lost is a client that waits for ever. */
    hop->fn(hop, status != PMIX_ERR_INIT);
}

void pmi_pmix_hop(pmi_pmix_server_t *srv, pmi_pmix_hop_t *hop,
                  pmi_pmix_hop_fn fn)
{
    pmix_proc_t nobody;

    hop->srv = srv;
    hop->fn = fn;
    pthread_mutex_lock(&srv->lock);
    pmi_pmix_link_add(&srv->hops, &hop->link);
    pthread_mutex_unlock(&srv->lock);
    PMIX_LOAD_PROCID(&nobody, hop_nspace, 0);
    PMIx_server_deregister_client(&nobody, hop_arrived, hop);
}

void pmi_pmix_hops_drop(pmi_pmix_server_t *srv)
{
    for (;;) {
        pthread_mutex_lock(&srv->lock);
        pmi_pmix_link_t *link = srv->hops;
        if (link != NULL)
            pmi_pmix_link_remove(link);
        pthread_mutex_unlock(&srv->lock);
        if (link == NULL)
            return;
        pmi_pmix_hop_t *hop = PMI_PMIX_ITEM(link, pmi_pmix_hop_t, link);
        hop->fn(hop, false);
    }
}
