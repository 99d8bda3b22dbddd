/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waiting for libpmix, with a deadline. libpmix answers the server's calls
 * (register a namespace or a client, deregister them) from its progress
 * thread; while that thread is held up (a connection it reads with a
 * blocking recv, a lock of its own), a wait without a deadline would hold
 * the daemon's event loop, its heartbeat and the job with it. So a wait
 * ends after pmi_pmix_call_timeout seconds: the call is reported failed,
 * the server is marked stuck (the daemon then does not wait for libpmix
 * at its end either), and the shared object is freed by whichever of the
 * waiter and the late callback lets go last.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

struct pmi_pmix_sync {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int holders;          /* the waiter, and the callback to come */
    bool done;
    pmix_status_t status;
};

pmi_pmix_sync_t *pmi_pmix_sync_create(void)
{
    pmi_pmix_sync_t *s = calloc(1, sizeof(*s));
    pthread_condattr_t attr;

    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &attr);
    pthread_condattr_destroy(&attr);
    s->holders = 2;
    s->status = PMIX_SUCCESS;
    return s;
}

/* One holder lets go; the last frees. */
static void sync_release(pmi_pmix_sync_t *s)
{
    pthread_mutex_lock(&s->lock);
    int left = --s->holders;
    pthread_mutex_unlock(&s->lock);
    if (left > 0)
        return;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s);
}

void pmi_pmix_sync_cb(pmix_status_t status, void *cbdata)
{
    pmi_pmix_sync_t *s = cbdata;

    pthread_mutex_lock(&s->lock);
    s->status = status;
    s->done = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    sync_release(s);
}

static struct timespec deadline_in(double seconds)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    time_t whole = (time_t)seconds;
    long nsec = t.tv_nsec + (long)((seconds - (double)whole) * 1e9);
    t.tv_sec += whole + nsec / 1000000000L;
    t.tv_nsec = nsec % 1000000000L;
    return t;
}

pmix_status_t pmi_pmix_sync_wait(pmi_pmix_sync_t *s, pmix_status_t rc)
{
    if (rc != PMIX_SUCCESS) {
        /* No callback will come: both holds go now. */
        sync_release(s);
        sync_release(s);
        return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    }
    if (pmi_pmix_server.stuck) {
        /* libpmix missed a deadline already: do not wait again. */
        sync_release(s);
        return PMIX_ERR_TIMEOUT;
    }
    struct timespec until = deadline_in(pmi_pmix_params.call_timeout);
    int err = 0;
    pthread_mutex_lock(&s->lock);
    while (!s->done && err != ETIMEDOUT)
        err = pthread_cond_timedwait(&s->cond, &s->lock, &until);
    rc = s->done ? s->status : PMIX_ERR_TIMEOUT;
    pthread_mutex_unlock(&s->lock);
    sync_release(s);
    if (rc == PMIX_ERR_TIMEOUT)
        pmi_pmix_server.stuck = true;
    return rc;
}

const char *pmi_pmix_status_string(pmix_status_t status)
{
    return status == PMIX_ERR_TIMEOUT
               ? "libpmix did not answer in time (pmi_pmix_call_timeout)"
               : PMIx_Error_string(status);
}
