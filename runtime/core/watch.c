/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptor watches of hnp_rte.h: a component's own descriptor on the
 * event loop. A libevent event never fires inside event_add(), only from
 * the loop, which is what the header promises; and event_free() of an
 * event from inside its own callback is safe, so a callback may destroy
 * its watch.
 */
#include "config.h"

#include <event2/event.h>
#include <stdlib.h>

#include "rte.h"

struct hnp_rte_fd_watch {
    struct event *ev;
    hnp_rte_t *rte;
    hnp_rte_fd_fn fn;
    void *cbdata;
};

static void fd_ready(evutil_socket_t fd, short what, void *arg)
{
    hnp_rte_fd_watch_t *w = arg;
    unsigned ready = 0;

    if (what & EV_READ)
        ready |= HNP_RTE_FD_READ;
    if (what & EV_WRITE)
        ready |= HNP_RTE_FD_WRITE;
    w->fn(w->rte, (int)fd, ready, w->cbdata);
}

hnp_rte_fd_watch_t *hnp_rte_fd_watch_create(hnp_rte_t *rte, int fd,
                                            unsigned events, hnp_rte_fd_fn fn,
                                            void *cbdata)
{
    short what = EV_PERSIST;
    hnp_rte_fd_watch_t *w;

    if (rte == NULL || fd < 0 || fn == NULL || events == 0 ||
        (events & ~(unsigned)(HNP_RTE_FD_READ | HNP_RTE_FD_WRITE)) != 0)
        return NULL;
    if (events & HNP_RTE_FD_READ)
        what |= EV_READ;
    if (events & HNP_RTE_FD_WRITE)
        what |= EV_WRITE;
    if ((w = calloc(1, sizeof(*w))) == NULL)
        return NULL;
    *w = (hnp_rte_fd_watch_t){ .rte = rte, .fn = fn, .cbdata = cbdata };
    w->ev = event_new(rte->base, fd, what, fd_ready, w);
    if (w->ev == NULL || event_add(w->ev, NULL) != 0) {
        hnp_rte_fd_watch_destroy(w);
        return NULL;
    }
    return w;
}

void hnp_rte_fd_watch_destroy(hnp_rte_fd_watch_t *watch)
{
    if (watch == NULL)
        return;
    if (watch->ev != NULL)
        event_free(watch->ev);
    free(watch);
}
