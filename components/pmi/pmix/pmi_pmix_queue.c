/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpmix calls the server module from its own progress thread, where no
 * runtime state may be touched. Each call is copied into an item, queued
 * under a lock, and an eventfd wakes the daemon's event loop, which runs
 * the items in arrival order. The loop may call libpmix's callbacks
 * itself: libpmix moves them onto its own thread.
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
