/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests of hnp_rte.h to the daemon that hosts a rank (the direct modex
 * of PMIx, for one): hnp_rte_request() sends HNP_TAG_REQUEST along the
 * routing topology to daemon node_of[rank] + 1 (to itself through the
 * loop, as any message to oneself), whose hnp_rte_serve() handler answers
 * with hnp_rte_reply(); HNP_TAG_REPLY goes back to the requester.
 *
 * A request names its job: the serving daemon looks up that job's
 * hosts, a request for a job whose launch has not reached it yet waits
 * for it (launches reach a daemon in the order of their ids), one for a
 * job that has ended here is answered HNP_ERR_NOT_FOUND.
 *
 * Every callback runs from the event loop: answers as they arrive,
 * requests held for a service (or their job's launch) once it is posted,
 * failures when the way to the serving daemon is lost. At a job's end,
 * its requests still waiting fail at once and those held for a service
 * are refused; an answer a service gives after that is dropped.
 */
#include "config.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "job.h"
#include "wire/request.h"

/* A request of this daemon's, waiting for its answer. */
typedef struct pending {
    struct pending *next;
    uint32_t id;
    uint32_t jobid;
    hnp_vpid_t target;
    int failed; /* HNP_SUCCESS while waiting, else the error to report */
    hnp_rte_reply_fn fn;
    void *cbdata;
} pending_t;

/* A request to this daemon, held for its service or handed to it. */
struct hnp_rte_request {
    struct hnp_rte_request *next; /* while held */
    hnp_rte_t *rte;
    uint32_t jobid;
    uint32_t serial;              /* its job's here, once handed over */
    hnp_vpid_t src;
    uint32_t id;
    uint32_t service;
    uint32_t rank;
    size_t len;
    uint8_t data[];
};

typedef struct service {
    struct service *next;
    uint32_t tag;
    hnp_rte_serve_fn fn;
    void *cbdata;
} service_t;

struct hnp_rte_requests {
    service_t *services;
    pending_t *pending;       /* newest first */
    hnp_rte_request_t *held;  /* in arrival order */
    uint32_t next_id;         /* unique over this daemon's life */
    uint32_t last_jobid;      /* the highest job id begun here */
    bool listening;
    struct event *due;        /* runs what became ready (requests_due) */
    bool scheduled;
};

/* ------------------------------------------------------------ answers */

static void send_reply(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t id,
                       int status, const void *data, size_t len)
{
    hnp_wire_reply_t m = { .id = id, .status = status, .data = data,
                           .len = len };
    hnp_buffer_t buf;
    int rc;

    hnp_buffer_init(&buf);
    rc = hnp_wire_reply_pack(&buf, &m);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send(rte, dest, HNP_TAG_REPLY, buf.data, buf.len);
    hnp_buffer_release(&buf);
    /* The requester must not wait for an answer that cannot go: tell it
     * why (an answer too large for one message, for one). */
    if (rc != HNP_SUCCESS && len > 0) {
        send_reply(rte, dest, id, rc, NULL, 0);
        return;
    }
    if (rc != HNP_SUCCESS)
        HNP_VERBOSE(rte->log, 1, "cannot answer request %u of vpid %u: %s",
                    id, dest, hnp_strerror(rc));
}

void hnp_rte_reply(hnp_rte_request_t *req, int status, const void *data,
                   size_t len)
{
    hnp_rte_t *rte;

    if (req == NULL)
        return;
    rte = req->rte;
    const hnp_rte_job_t *job = hnp_rte_job_find(rte, req->jobid);
    if (job != NULL && req->serial == job->serial)
        send_reply(rte, req->src, req->id, status, data, len);
    else
        HNP_VERBOSE(rte->log, 2, "answer to request %u of vpid %u dropped: "
                    "its job has ended", req->id, req->src);
    free(req);
}

/* ------------------------------------------------------------ the loop */

static service_t *find_service(const struct hnp_rte_requests *r, uint32_t tag)
{
    service_t *sv = r->services;

    while (sv != NULL && sv->tag != tag)
        sv = sv->next;
    return sv;
}

static void schedule(hnp_rte_t *rte)
{
    if (rte->requests->scheduled)
        return;
    rte->requests->scheduled = true;
    event_active(rte->requests->due, EV_TIMEOUT, 0);
}

/* The first pending request that failed, taken off the list. */
static pending_t *take_failed(struct hnp_rte_requests *r)
{
    for (pending_t **p = &r->pending; *p != NULL; p = &(*p)->next)
        if ((*p)->failed != HNP_SUCCESS) {
            pending_t *found = *p;
            *p = found->next;
            return found;
        }
    return NULL;
}

/* The first held request whose service is posted and whose job is held
 * now, taken off. */
static hnp_rte_request_t *take_servable(hnp_rte_t *rte)
{
    struct hnp_rte_requests *r = rte->requests;

    for (hnp_rte_request_t **q = &r->held; *q != NULL; q = &(*q)->next)
        if (find_service(r, (*q)->service) != NULL &&
            hnp_rte_job_find(rte, (*q)->jobid) != NULL) {
            hnp_rte_request_t *found = *q;
            *q = found->next;
            found->next = NULL;
            return found;
        }
    return NULL;
}

static void hand_over(hnp_rte_t *rte, hnp_rte_request_t *req)
{
    service_t *sv = find_service(rte->requests, req->service);
    const hnp_rte_job_t *job = hnp_rte_job_find(rte, req->jobid);

    if (hnp_rte_job_host(rte, req->jobid, req->rank) != rte->self) {
        HNP_VERBOSE(rte->log, 1, "request %u of vpid %u refused: rank %u of "
                    "job %u is not on this node", req->id, req->src,
                    req->rank, req->jobid);
        send_reply(rte, req->src, req->id, HNP_ERR_BAD_PARAM, NULL, 0);
        free(req);
        return;
    }
    req->serial = job->serial;
    sv->fn(rte, req, req->src, req->jobid, req->rank, req->data, req->len,
           sv->cbdata);
}

/* What became ready since: failures to report, held requests whose
 * service is posted. A callback may change either list: each search
 * starts over. */
static void requests_due(evutil_socket_t fd, short what, void *arg)
{
    hnp_rte_t *rte = arg;
    struct hnp_rte_requests *r = rte->requests;
    pending_t *p;
    hnp_rte_request_t *req;

    (void)fd;
    (void)what;
    r->scheduled = false;
    while ((p = take_failed(r)) != NULL) {
        p->fn(rte, p->failed, NULL, 0, p->cbdata);
        free(p);
    }
    while ((req = take_servable(rte)) != NULL)
        hand_over(rte, req);
}

/* ------------------------------------------------------------ serving */

static bool held_for(const struct hnp_rte_requests *r, uint32_t service,
                     uint32_t jobid)
{
    for (const hnp_rte_request_t *q = r->held; q != NULL; q = q->next)
        if (q->service == service && (jobid == 0 || q->jobid == jobid))
            return true;
    return false;
}

static void hold(hnp_rte_t *rte, hnp_rte_request_t *req)
{
    hnp_rte_request_t **tail = &rte->requests->held;

    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = req;
}

static void on_request(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                       const void *data, size_t len, void *cbdata)
{
    struct hnp_rte_requests *r = rte->requests;
    const hnp_rte_job_t *job;
    hnp_wire_request_t m;
    hnp_rte_request_t *req;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "request",
                        hnp_wire_request_unpack, data, len, &m))
        return;
    job = hnp_rte_job_find(rte, m.jobid);
    if (job == NULL && m.jobid <= r->last_jobid) {
        HNP_VERBOSE(rte->log, 1, "request %u of vpid %u refused: job %u has "
                    "ended here", m.id, src, m.jobid);
        send_reply(rte, src, m.id, HNP_ERR_NOT_FOUND, NULL, 0);
        return;
    }
    if ((req = malloc(sizeof(*req) + m.len)) == NULL) {
        send_reply(rte, src, m.id, HNP_ERR_NOMEM, NULL, 0);
        return;
    }
    *req = (hnp_rte_request_t){ .rte = rte, .jobid = m.jobid, .src = src,
                                .id = m.id, .service = m.service,
                                .rank = m.rank, .len = m.len };
    if (m.len > 0)
        memcpy(req->data, m.data, m.len);
    /* Behind those of its service and job that wait still, in arrival
     * order; until its job's launch reaches this daemon. */
    if (job != NULL && find_service(r, m.service) != NULL &&
        !held_for(r, m.service, m.jobid)) {
        hand_over(rte, req);
        return;
    }
    hold(rte, req);
    if (job != NULL && find_service(r, m.service) != NULL)
        schedule(rte);
}

int hnp_rte_serve(hnp_rte_t *rte, uint32_t service, hnp_rte_serve_fn fn,
                  void *cbdata)
{
    struct hnp_rte_requests *r;
    service_t **sv;

    if (rte == NULL || service < HNP_TAG_PLM_FIRST ||
        service > HNP_TAG_USER_LAST)
        return HNP_ERR_BAD_PARAM;
    r = rte->requests;
    for (sv = &r->services; *sv != NULL && (*sv)->tag != service;
         sv = &(*sv)->next)
        ;
    if (fn == NULL) {
        service_t *gone = *sv;
        if (gone != NULL) {
            *sv = gone->next;
            free(gone);
        }
        return HNP_SUCCESS;
    }
    if (*sv == NULL && (*sv = calloc(1, sizeof(**sv))) == NULL)
        return HNP_ERR_NOMEM;
    (*sv)->tag = service;
    (*sv)->fn = fn;
    (*sv)->cbdata = cbdata;
    if (held_for(r, service, 0))
        schedule(rte);
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ asking */

static pending_t *take_waiting(struct hnp_rte_requests *r, uint32_t id)
{
    for (pending_t **p = &r->pending; *p != NULL; p = &(*p)->next)
        if ((*p)->id == id && (*p)->failed == HNP_SUCCESS) {
            pending_t *found = *p;
            *p = found->next;
            return found;
        }
    return NULL;
}

static void on_reply(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                     const void *data, size_t len, void *cbdata)
{
    hnp_wire_reply_t m;
    pending_t *p;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "answer",
                        hnp_wire_reply_unpack, data, len, &m))
        return;
    if ((p = take_waiting(rte->requests, m.id)) == NULL) {
        HNP_VERBOSE(rte->log, 2, "answer %u from vpid %u: nobody waits for "
                    "it", m.id, src);
        return;
    }
    p->fn(rte, m.status, m.data, m.len, p->cbdata);
    free(p);
}

int hnp_rte_request(hnp_rte_t *rte, uint32_t service, uint32_t jobid,
                    uint32_t rank, const void *data, size_t len,
                    hnp_rte_reply_fn fn, void *cbdata)
{
    struct hnp_rte_requests *r;
    hnp_vpid_t target;
    hnp_wire_request_t m = { .jobid = jobid, .service = service,
                             .rank = rank, .data = data, .len = len };
    hnp_buffer_t buf;
    pending_t *p;
    int rc;

    if (rte == NULL || fn == NULL || service < HNP_TAG_PLM_FIRST ||
        service > HNP_TAG_USER_LAST || (len > 0 && data == NULL) ||
        (target = hnp_rte_job_host(rte, jobid, rank)) == HNP_VPID_INVALID)
        return HNP_ERR_BAD_PARAM;
    r = rte->requests;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return HNP_ERR_NOMEM;
    m.id = ++r->next_id;
    hnp_buffer_init(&buf);
    rc = hnp_wire_request_pack(&buf, &m);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send(rte, target, HNP_TAG_REQUEST, buf.data, buf.len);
    hnp_buffer_release(&buf);
    if (rc != HNP_SUCCESS) {
        free(p);
        return rc;
    }
    *p = (pending_t){ .next = r->pending, .id = m.id, .jobid = jobid,
                      .target = target, .fn = fn, .cbdata = cbdata };
    r->pending = p;
    return HNP_SUCCESS;
}

void hnp_rte_requests_lost(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    bool any = false;

    if (rte->requests == NULL)
        return;
    for (pending_t *p = rte->requests->pending; p != NULL; p = p->next) {
        if (p->failed != HNP_SUCCESS || p->target == rte->self ||
            (p->target != vpid && hnp_rte_next_hop(rte, p->target) != vpid))
            continue;
        HNP_VERBOSE(rte->log, 1, "request %u to vpid %u fails: vpid %u is "
                    "lost", p->id, p->target, vpid);
        p->failed = HNP_ERR_UNREACHABLE;
        any = true;
    }
    if (any)
        schedule(rte);
}

/* ------------------------------------------------------------ the job */

int hnp_rte_requests_job_begin(hnp_rte_t *rte, uint32_t jobid)
{
    struct hnp_rte_requests *r = rte->requests;
    int rc = HNP_SUCCESS;

    if (!r->listening) {
        rc = hnp_rte_recv(rte, HNP_TAG_REQUEST, on_request, NULL);
        if (rc == HNP_SUCCESS)
            rc = hnp_rte_recv(rte, HNP_TAG_REPLY, on_reply, NULL);
        if (rc != HNP_SUCCESS) {
            hnp_rte_recv(rte, HNP_TAG_REQUEST, NULL, NULL);
            return rc;
        }
        r->listening = true;
    }
    if (jobid > r->last_jobid)
        r->last_jobid = jobid;
    /* requests that came before its launch */
    if (r->held != NULL)
        schedule(rte);
    return rc;
}

/* The first of @p job's pending requests, taken off. */
static pending_t *take_of_job(struct hnp_rte_requests *r, uint32_t jobid)
{
    for (pending_t **p = &r->pending; *p != NULL; p = &(*p)->next)
        if ((*p)->jobid == jobid) {
            pending_t *found = *p;
            *p = found->next;
            return found;
        }
    return NULL;
}

static hnp_rte_request_t *take_held_of_job(struct hnp_rte_requests *r,
                                           uint32_t jobid)
{
    for (hnp_rte_request_t **q = &r->held; *q != NULL; q = &(*q)->next)
        if ((*q)->jobid == jobid) {
            hnp_rte_request_t *found = *q;
            *q = found->next;
            return found;
        }
    return NULL;
}

void hnp_rte_requests_job_end(hnp_rte_t *rte, const hnp_rte_job_t *job)
{
    struct hnp_rte_requests *r = rte->requests;
    hnp_rte_request_t *req;
    pending_t *p;

    /* the job is gone: what the callbacks ask of it now is refused */
    while ((p = take_of_job(r, job->jobid)) != NULL) {
        p->fn(rte, p->failed != HNP_SUCCESS ? p->failed : HNP_ERR_UNREACHABLE,
              NULL, 0, p->cbdata);
        free(p);
    }
    while ((req = take_held_of_job(r, job->jobid)) != NULL) {
        send_reply(rte, req->src, req->id, HNP_ERR_UNREACHABLE, NULL, 0);
        free(req);
    }
}

int hnp_rte_requests_create(hnp_rte_t *rte)
{
    struct hnp_rte_requests *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return HNP_ERR_NOMEM;
    r->due = event_new(rte->base, -1, 0, requests_due, rte);
    if (r->due == NULL) {
        free(r);
        return HNP_ERR_NOMEM;
    }
    rte->requests = r;
    return HNP_SUCCESS;
}

void hnp_rte_requests_destroy(hnp_rte_t *rte)
{
    struct hnp_rte_requests *r = rte->requests;

    if (r == NULL)
        return;
    while (r->services != NULL) {
        service_t *sv = r->services;
        r->services = sv->next;
        free(sv);
    }
    while (r->pending != NULL) {
        pending_t *p = r->pending;
        r->pending = p->next;
        free(p);
    }
    while (r->held != NULL) {
        hnp_rte_request_t *req = r->held;
        r->held = req->next;
        free(req);
    }
    event_free(r->due);
    free(r);
    rte->requests = NULL;
}
