/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The all-gathers of the application jobs (hnp_rte_allgather()) over the
 * selected exchange, each job's in series of its own (job.h).
 *
 * Every process of the runtime takes part in each one: a daemon with
 * ranks of the job through its pmi components, the HNP and a daemon
 * without ranks of the job with an empty contribution, once, when they
 * hear of it. A daemon may hear of a job's all-gather before that job's
 * launch reaches it, or after its end: what it heard is kept by series
 * (not by "the job held now": a daemon holds many), given to the job at
 * its begin, and after its end kept a while, so that a late message of
 * an ended job's all-gather is joined with nothing (the others are not
 * left waiting, and the exchange frees it) and never taken for another
 * job's.
 *
 * The callbacks of a job's all-gather reach its component only while
 * that job lives here: at the job's end, those not complete yet complete
 * with HNP_ERR_UNREACHABLE, and what the exchange says of them after is
 * dropped.
 */
#include "config.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "job.h"
#include "wire/control.h"

/* A call to the exchange, made from the event loop so that nothing it
 * calls back runs inside hnp_rte_allgather(); then, for a contribution
 * of a component's, what relays the exchange's callbacks to it while its
 * job lives. */
typedef struct hnp_rte_gather {
    struct hnp_rte_gather *next; /* rte->gathers, until it completes */
    struct event *ev;            /* NULL once the exchange has it */
    hnp_rte_t *rte;
    uint32_t id;
    uint32_t jobid;              /* 0: an empty contribution */
    uint32_t owner;              /* an empty one's job here, 0: unknown */
    uint32_t serial;             /* its job's (hnp_rte_job_t::serial) */
    bool ended;                  /* of a job that ended: errors are no one's */
    size_t len;
    hnp_exchange_callbacks_t cb;
    uint8_t data[];
} gather_t;

uint32_t hnp_rte_job_series(uint32_t jobid, uint32_t nseries, uint32_t i)
{
    return (uint32_t)((((uint64_t)jobid - 1) * nseries + i) %
                      HNP_RTE_SERIES_LAST) + 1;
}

static void gather_unlink(gather_t *g)
{
    for (gather_t **link = &g->rte->gathers; *link != NULL;
         link = &(*link)->next)
        if (*link == g) {
            *link = g->next;
            return;
        }
}

static bool job_lives(const gather_t *g)
{
    const hnp_rte_job_t *job = hnp_rte_job_find(g->rte, g->jobid);

    return job != NULL && job->serial == g->serial;
}

static void relay_learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                          size_t len)
{
    gather_t *g = cbdata;

    if (g->jobid != 0 && job_lives(g))
        g->cb.learned(g->cb.cbdata, vpid, data, len);
}

static void relay_complete(void *cbdata, int status)
{
    gather_t *g = cbdata;

    HNP_VERBOSE(g->rte->log, 3, "all-gather %u of job %u complete here: %s",
                g->id, g->jobid != 0 ? g->jobid : g->owner,
                hnp_strerror(status));
    if (g->jobid != 0 && job_lives(g))
        g->cb.complete(g->cb.cbdata, status);
    else if (g->jobid != 0)
        HNP_VERBOSE(g->rte->log, 2, "all-gather %u of job %u completed after "
                    "the job's end here", g->id, g->jobid);
    gather_unlink(g);
    free(g);
}

static void gather_now(evutil_socket_t fd, short what, void *arg)
{
    gather_t *g = arg;
    hnp_rte_t *rte = g->rte;
    hnp_exchange_callbacks_t relay = { relay_learned, relay_complete, g };
    int rc;

    (void)fd;
    (void)what;
    event_free(g->ev);
    g->ev = NULL;
    rc = rte->exchange->allgather(rte, g->id, g->data, g->len, &relay);
    if (rc == HNP_SUCCESS)
        return; /* relay_complete frees it */
    if (g->jobid != 0 && job_lives(g))
        g->cb.complete(g->cb.cbdata, rc);
    else if (g->ended || g->jobid != 0)
        HNP_VERBOSE(rte->log, 1, "all-gather %u of an ended job: %s", g->id,
                    hnp_strerror(rc));
    else
        hnp_rte_fail_job(rte, g->owner != 0 ? g->owner : hnp_rte_job_only(rte),
                         1, "node %s: cannot take part in all-gather %u: %s",
                         hnp_rte_node_name(rte, rte->self), g->id,
                         hnp_strerror(rc));
    gather_unlink(g);
    free(g);
}

static int gather_later(hnp_rte_t *rte, uint32_t id, const hnp_rte_job_t *job,
                        bool ended, const void *data, size_t len,
                        const hnp_exchange_callbacks_t *cb)
{
    gather_t *g = calloc(1, sizeof(*g) + len);

    if (g == NULL)
        return HNP_ERR_NOMEM;
    g->rte = rte;
    g->id = id;
    g->owner = job != NULL ? job->jobid : 0;
    g->ended = ended;
    g->len = len;
    if (cb != NULL) {
        g->cb = *cb;
        g->jobid = job->jobid;
        g->serial = job->serial;
    }
    if (len > 0)
        memcpy(g->data, data, len);
    if ((g->ev = event_new(rte->base, -1, 0, gather_now, g)) == NULL) {
        free(g);
        return HNP_ERR_NOMEM;
    }
    g->next = rte->gathers;
    rte->gathers = g;
    event_active(g->ev, EV_TIMEOUT, 0);
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ series */

static hnp_rte_series_t *job_series(const hnp_rte_job_t *job, uint32_t series)
{
    for (uint32_t i = 0; i < job->nseries; i++)
        if (job->series[i].series == series)
            return &job->series[i];
    return NULL;
}

hnp_rte_job_t *hnp_rte_series_owner(const hnp_rte_t *rte, uint32_t series)
{
    for (hnp_rte_job_t *job = rte->jobs; job != NULL; job = job->next)
        if (job_series(job, series) != NULL)
            return job;
    return NULL;
}

/* The record of a series no live job here owns, made if need be. */
static hnp_rte_series_t *loose_get(hnp_rte_t *rte, uint32_t series, bool make)
{
    hnp_rte_series_t *grown;

    for (size_t i = 0; i < rte->nseries; i++)
        if (rte->series[i].series == series)
            return &rte->series[i];
    if (!make)
        return NULL;
    grown = realloc(rte->series, (rte->nseries + 1) * sizeof(*grown));
    if (grown == NULL)
        return NULL;
    rte->series = grown;
    grown[rte->nseries] = (hnp_rte_series_t){ .series = series,
                                              .born = rte->job_serial };
    return &grown[rte->nseries++];
}

static void loose_drop(hnp_rte_t *rte, hnp_rte_series_t *s)
{
    *s = rte->series[--rte->nseries];
    if (rte->nseries == 0) {
        free(rte->series);
        rte->series = NULL;
    }
}

/* What is older than HNP_RTE_SERIES_KEEP jobs goes: in the HNP, which
 * holds the running jobs' series here too, only the ended jobs'. */
static void loose_prune(hnp_rte_t *rte)
{
    for (size_t i = rte->nseries; i-- > 0;)
        if ((!rte->is_hnp || rte->series[i].ended) &&
            rte->job_serial - rte->series[i].born > HNP_RTE_SERIES_KEEP)
            loose_drop(rte, &rte->series[i]);
}

/* Join with nothing the last seq of @p s heard of, unless this process
 * has joined it, or one after it, already. A series goes in order: the
 * seqs before it were joined, or need nobody any more. */
static void join_seen(hnp_rte_t *rte, const hnp_rte_job_t *job,
                      hnp_rte_series_t *s)
{
    uint32_t seq, id;

    if (s->seen <= s->joined)
        return;
    seq = s->seen - 1;
    id = s->series * HNP_RTE_SERIES_SPAN + seq + 1;
    s->joined = s->seen;
    HNP_VERBOSE(rte->log, 2, "joining all-gather %u (series %u, seq %u) with "
                "nothing", id, s->series, seq);
    if (gather_later(rte, id, job, s->ended, NULL, 0, NULL) != HNP_SUCCESS)
        hnp_rte_fail_job(rte, job != NULL ? job->jobid : 0, 1, "out of "
                         "memory joining all-gather %u", id);
}

void hnp_rte_collectives_adopt(hnp_rte_t *rte, hnp_rte_job_t *job)
{
    for (uint32_t i = 0; i < job->nseries; i++) {
        hnp_rte_series_t *s = loose_get(rte, job->series[i].series, false);
        if (s == NULL)
            continue;
        /* an ended job's, of the same series: not this job's */
        if (!s->ended)
            job->series[i].seen = s->seen;
        loose_drop(rte, s);
        if (job->nlocal == 0)
            join_seen(rte, job, &job->series[i]);
    }
    loose_prune(rte);
}

/* Keep @p s (of a job that ended) as a loose record, ended now. */
static void keep_ended(hnp_rte_t *rte, const hnp_rte_series_t *s)
{
    hnp_rte_series_t *kept = loose_get(rte, s->series, true);

    if (kept == NULL)
        return; /* then a late message joins it again: logged, no more */
    *kept = *s;
    kept->ended = true;
    kept->born = rte->job_serial;
}

/* The job's all-gathers that have not completed here complete now, with
 * an error, so that their callers let go of what they hold; a
 * contribution not handed to the exchange yet still goes (the others
 * wait for it), and what the exchange says of it after goes nowhere. */
static void fail_unfinished(hnp_rte_t *rte, const hnp_rte_job_t *job)
{
    for (gather_t *g = rte->gathers; g != NULL; g = g->next) {
        if (g->jobid != job->jobid || g->serial != job->serial || g->ended)
            continue;
        g->ended = true;
        g->cb.complete(g->cb.cbdata, HNP_ERR_UNREACHABLE);
    }
}

void hnp_rte_collectives_job_end(hnp_rte_t *rte, hnp_rte_job_t *job)
{
    fail_unfinished(rte, job);
    for (uint32_t i = 0; i < job->nseries; i++) {
        hnp_rte_series_t *s = &job->series[i];
        /* the others may wait for this daemon, whose ranks are gone */
        s->ended = true;
        join_seen(rte, job, s);
        /* kept even if nothing was heard of it: a job may end here (its
         * ranks here gone) while its ranks elsewhere still gather */
        keep_ended(rte, s);
    }
}

void hnp_rte_collectives_forget(hnp_rte_t *rte, uint32_t jobid,
                                uint32_t nseries)
{
    rte->job_serial++;
    for (uint32_t i = 0; i < nseries; i++) {
        hnp_rte_series_t *s =
            loose_get(rte, hnp_rte_job_series(jobid, nseries, i), false);
        if (s != NULL) {
            s->ended = true;
            s->born = rte->job_serial;
        }
    }
    loose_prune(rte);
}

void hnp_rte_collectives_destroy(hnp_rte_t *rte)
{
    while (rte->gathers != NULL) {
        gather_t *g = rte->gathers;
        rte->gathers = g->next;
        if (g->ev != NULL)
            event_free(g->ev);
        free(g);
    }
    free(rte->series);
    rte->series = NULL;
    rte->nseries = 0;
}

/* ------------------------------------------------------------ hearing */

/* The HNP of a job that leaves daemons without ranks: they hear of the
 * job's all-gathers from it (HNP_TAG_COLLECTIVE), once each. */
static void announce(hnp_rte_t *rte, uint32_t id)
{
    hnp_wire_collective_t m = { .id = id };
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    if (hnp_wire_collective_pack(&buf, &m) != HNP_SUCCESS ||
        hnp_rte_xcast(rte, HNP_TAG_COLLECTIVE, buf.data, buf.len) !=
            HNP_SUCCESS)
        HNP_WARN(rte->log, "cannot announce all-gather %u", id);
    hnp_buffer_release(&buf);
}

static void on_collective(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                          const void *data, size_t len, void *cbdata)
{
    hnp_wire_collective_t m;
    hnp_reader_t rd;

    (void)tag;
    (void)cbdata;
    hnp_reader_init(&rd, data, len);
    if (hnp_wire_collective_unpack(&rd, &m) != HNP_SUCCESS) {
        HNP_WARN(rte->log, "malformed all-gather notice from vpid %u", src);
        return;
    }
    hnp_rte_collective_seen(rte, m.id);
}

int hnp_rte_collectives_listen(hnp_rte_t *rte)
{
    return hnp_rte_recv(rte, HNP_TAG_COLLECTIVE, on_collective, NULL);
}

void hnp_rte_collective_seen(hnp_rte_t *rte, uint32_t id)
{
    uint32_t seq = id % HNP_RTE_SERIES_SPAN;
    uint32_t series = id / HNP_RTE_SERIES_SPAN;
    hnp_rte_job_t *job;
    hnp_rte_series_t *s;

    /* 0: the contact exchange, which everyone joins by itself */
    if (id == 0 || seq == 0)
        return;
    job = rte->is_hnp ? NULL : hnp_rte_series_owner(rte, series);
    s = job != NULL ? job_series(job, series) : loose_get(rte, series, true);
    if (s == NULL) {
        hnp_rte_fail_job(rte, hnp_rte_job_only(rte), 1, "out of memory "
                         "holding all-gather %u", id);
        return;
    }
    if (seq > s->seen) {
        s->seen = seq;
        if (rte->is_hnp && rte->announce_collectives && !s->ended)
            announce(rte, id);
    }
    /* A daemon with ranks of the job joins by itself; one that does not
     * hold the job yet waits for its launch (hnp_rte_collectives_adopt);
     * the HNP, a daemon without ranks of it, and one whose job ended
     * join with nothing. */
    if (rte->is_hnp || (job != NULL && job->nlocal == 0) ||
        (job == NULL && s->ended))
        join_seen(rte, job, s);
}

size_t hnp_rte_allgather_max(const hnp_rte_t *rte)
{
    /* a contribution, with the others', must fit in one message */
    return rte->oob != NULL ? hnp_oob_max_frame(rte->oob) / 2 : 0;
}

int hnp_rte_allgather(hnp_rte_t *rte, uint32_t jobid, uint32_t series,
                      uint32_t seq, const void *data, size_t len,
                      const hnp_exchange_callbacks_t *cb)
{
    hnp_rte_job_t *job;
    hnp_rte_series_t *s;
    uint32_t id;
    int rc;

    if (rte == NULL || (job = hnp_rte_job_find(rte, jobid)) == NULL ||
        (s = job_series(job, series)) == NULL || cb == NULL ||
        cb->learned == NULL || cb->complete == NULL ||
        seq >= HNP_RTE_SERIES_SPAN - 1 || (len > 0 && data == NULL))
        return HNP_ERR_BAD_PARAM;
    if (len > hnp_rte_allgather_max(rte))
        return HNP_ERR_TRUNCATED;
    id = series * HNP_RTE_SERIES_SPAN + seq + 1;
    HNP_VERBOSE(rte->log, 3, "job %u joins all-gather %u (series %u, seq %u) "
                "with %zu bytes", jobid, id, series, seq, len);
    rc = gather_later(rte, id, job, false, data, len, cb);
    if (rc == HNP_SUCCESS && seq >= s->joined)
        s->joined = seq + 1;
    return rc;
}
