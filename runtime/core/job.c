/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An application job as the runtime services of hnp_rte.h ("application
 * jobs") see it: a daemon holds its job between hnp_rte_job_begin() and
 * hnp_rte_job_end(), with every rank's node and the wire-up states of its
 * own ranks; the all-gathers of the pmi components over the selected
 * exchange; and MPI_Abort. The requests live in request.c.
 *
 * All-gather ids: 0 is the contact exchange of phase 2; all-gather seq of
 * series s (1..65535) is s * 65536 + seq + 1, seq < 65535. A process with
 * nothing to give (the HNP, a daemon without ranks) joins each one it
 * hears of with an empty contribution; series interleave, so it keeps,
 * per series, how far it has joined.
 */
#include "config.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "rte.h"
#include "wire/control.h"
#include "wire/pmi_abort.h"

#define SERIES_SPAN 65536u
#define SERIES_LAST 65535u

struct hnp_rte_job {
    uint32_t jobid;
    uint32_t nprocs;
    uint32_t nlocal;
    uint32_t *node_of; /* [nprocs] */
    uint8_t *state;    /* [nprocs] HNP_RTE_PROC_* bits, this node's ranks */
};

/* How far this process went in one series of all-gathers. */
struct hnp_rte_series {
    uint32_t series;
    uint32_t seen;   /* the highest seq heard of, plus one */
    uint32_t joined; /* the highest seq joined, plus one */
};

/* ------------------------------------------------------------ all-gathers */

/* A call to the exchange, made from the event loop so that nothing it
 * calls back runs inside hnp_rte_allgather(). */
typedef struct hnp_rte_gather {
    struct hnp_rte_gather *next; /* rte->gathers, until it runs */
    struct event *ev;
    hnp_rte_t *rte;
    uint32_t id;
    bool empty_join;
    size_t len;
    hnp_exchange_callbacks_t cb;
    uint8_t data[];
} gather_t;

static void ignore_entry(void *cbdata, hnp_vpid_t vpid, const void *data,
                         size_t len)
{
    (void)cbdata;
    (void)vpid;
    (void)data;
    (void)len;
}

static void ignore_completion(void *cbdata, int status)
{
    (void)cbdata;
    (void)status;
}

static void gather_now(evutil_socket_t fd, short what, void *arg)
{
    gather_t *g = arg;
    int rc;

    (void)fd;
    (void)what;
    for (gather_t **link = &g->rte->gathers; *link != NULL;
         link = &(*link)->next)
        if (*link == g) {
            *link = g->next;
            break;
        }
    event_free(g->ev);
    rc = g->rte->exchange->allgather(g->rte, g->id, g->data, g->len, &g->cb);
    if (rc != HNP_SUCCESS && g->empty_join)
        hnp_rte_fail(g->rte, 1, "node %s: cannot take part in all-gather %u: "
                     "%s", hnp_rte_node_name(g->rte, g->rte->self), g->id,
                     hnp_strerror(rc));
    else if (rc != HNP_SUCCESS)
        g->cb.complete(g->cb.cbdata, rc);
    free(g);
}

static int gather_later(hnp_rte_t *rte, uint32_t id, const void *data,
                        size_t len, const hnp_exchange_callbacks_t *cb)
{
    gather_t *g = malloc(sizeof(*g) + len);

    if (g == NULL)
        return HNP_ERR_NOMEM;
    g->rte = rte;
    g->id = id;
    g->len = len;
    g->empty_join = cb == NULL;
    if (cb != NULL)
        g->cb = *cb;
    else
        g->cb = (hnp_exchange_callbacks_t){ ignore_entry, ignore_completion,
                                            NULL };
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

static struct hnp_rte_series *series_get(hnp_rte_t *rte, uint32_t series)
{
    struct hnp_rte_series *grown;

    for (size_t i = 0; i < rte->nseries; i++)
        if (rte->series[i].series == series)
            return &rte->series[i];
    grown = realloc(rte->series, (rte->nseries + 1) * sizeof(*grown));
    if (grown == NULL)
        return NULL;
    rte->series = grown;
    grown[rte->nseries] = (struct hnp_rte_series){ .series = series };
    return &grown[rte->nseries++];
}

/* This process gives nothing to the applications' all-gathers. */
static bool joins_empty(const hnp_rte_t *rte)
{
    return rte->is_hnp || (rte->job != NULL && rte->job->nlocal == 0);
}

/* Join with nothing the last seq of @p s heard of, unless this process
 * has joined it, or one after it, already. A series goes in order: the
 * seqs before it were joined, or need nobody any more. */
static void join_seen(hnp_rte_t *rte, struct hnp_rte_series *s)
{
    uint32_t seq, id;

    if (s->seen <= s->joined)
        return;
    seq = s->seen - 1;
    id = s->series * SERIES_SPAN + seq + 1;
    s->joined = s->seen;
    HNP_VERBOSE(rte->log, 2, "joining all-gather %u (series %u, seq %u) with "
                "nothing", id, s->series, seq);
    if (gather_later(rte, id, NULL, 0, NULL) != HNP_SUCCESS)
        hnp_rte_fail(rte, 1, "out of memory joining all-gather %u", id);
}

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
        hnp_rte_fail(rte, 1, "cannot announce all-gather %u", id);
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
    struct hnp_rte_series *s;
    uint32_t seq = id % SERIES_SPAN;

    /* 0: the contact exchange, which everyone joins by itself */
    if (id == 0 || seq == 0)
        return;
    /* A daemon with ranks joins by itself; one that does not know its job
     * yet remembers the id for hnp_rte_job_begin(). */
    if (!joins_empty(rte) && rte->job != NULL)
        return;
    s = series_get(rte, id / SERIES_SPAN);
    if (s == NULL) {
        hnp_rte_fail(rte, 1, "out of memory holding all-gather %u", id);
        return;
    }
    if (seq > s->seen) {
        s->seen = seq;
        if (rte->is_hnp && rte->announce_collectives)
            announce(rte, id);
    }
    if (joins_empty(rte))
        join_seen(rte, s);
}

size_t hnp_rte_allgather_max(const hnp_rte_t *rte)
{
    /* a contribution, with the others', must fit in one message */
    return rte->oob != NULL ? hnp_oob_max_frame(rte->oob) / 2 : 0;
}

int hnp_rte_allgather(hnp_rte_t *rte, uint32_t series, uint32_t seq,
                      const void *data, size_t len,
                      const hnp_exchange_callbacks_t *cb)
{
    struct hnp_rte_series *s;
    int rc;

    if (rte == NULL || rte->job == NULL || cb == NULL ||
        cb->learned == NULL || cb->complete == NULL || series == 0 ||
        series > SERIES_LAST || seq >= SERIES_SPAN - 1 ||
        (len > 0 && data == NULL))
        return HNP_ERR_BAD_PARAM;
    if (len > hnp_rte_allgather_max(rte))
        return HNP_ERR_TRUNCATED;
    if ((s = series_get(rte, series)) == NULL)
        return HNP_ERR_NOMEM;
    rc = gather_later(rte, series * SERIES_SPAN + seq + 1, data, len, cb);
    if (rc == HNP_SUCCESS && seq >= s->joined)
        s->joined = seq + 1;
    return rc;
}

/* ------------------------------------------------------------ the job */

static void job_free(struct hnp_rte_job *job)
{
    if (job == NULL)
        return;
    free(job->node_of);
    free(job->state);
    free(job);
}

int hnp_rte_job_begin(hnp_rte_t *rte, uint32_t jobid, uint32_t nprocs,
                      const uint32_t *node_of, uint32_t nlocal)
{
    struct hnp_rte_job *job;
    int rc;

    if (rte->job != NULL || rte->is_hnp || nprocs == 0 || node_of == NULL ||
        nlocal > nprocs)
        return HNP_ERR_BAD_PARAM;
    job = calloc(1, sizeof(*job));
    if (job == NULL ||
        (job->node_of = malloc(nprocs * sizeof(*job->node_of))) == NULL ||
        (job->state = calloc(nprocs, sizeof(*job->state))) == NULL) {
        job_free(job);
        return HNP_ERR_NOMEM;
    }
    memcpy(job->node_of, node_of, nprocs * sizeof(*job->node_of));
    job->jobid = jobid;
    job->nprocs = nprocs;
    job->nlocal = nlocal;
    rte->job = job;
    rte->job_serial++;
    rc = hnp_rte_requests_job_begin(rte);
    if (rc != HNP_SUCCESS) {
        rte->job = NULL;
        job_free(job);
        return rc;
    }
    /* what was heard of before the launch, for a daemon without ranks */
    for (size_t i = 0; nlocal == 0 && i < rte->nseries; i++)
        join_seen(rte, &rte->series[i]);
    HNP_VERBOSE(rte->log, 1, "job %u begins here: %u ranks, %u on this node",
                jobid, nprocs, nlocal);
    return HNP_SUCCESS;
}

void hnp_rte_job_end(hnp_rte_t *rte)
{
    struct hnp_rte_job *job = rte->job;

    if (job == NULL)
        return;
    HNP_VERBOSE(rte->log, 1, "job %u ends here", job->jobid);
    /* gone first: what the failed requests' callbacks ask is refused */
    rte->job = NULL;
    hnp_rte_requests_job_end(rte);
    job_free(job);
    /* the next job's series start again from seq 0 */
    free(rte->series);
    rte->series = NULL;
    rte->nseries = 0;
}

void hnp_rte_collectives_forget(hnp_rte_t *rte)
{
    free(rte->series);
    rte->series = NULL;
    rte->nseries = 0;
}

void hnp_rte_job_destroy(hnp_rte_t *rte)
{
    hnp_rte_job_end(rte);
    while (rte->gathers != NULL) {
        gather_t *g = rte->gathers;
        rte->gathers = g->next;
        event_free(g->ev);
        free(g);
    }
    free(rte->series);
    rte->series = NULL;
    rte->nseries = 0;
}

uint32_t hnp_rte_job_id(const hnp_rte_t *rte)
{
    return rte->job != NULL ? rte->job->jobid : 0;
}

hnp_vpid_t hnp_rte_job_host(const hnp_rte_t *rte, uint32_t rank)
{
    if (rte->job == NULL || rank >= rte->job->nprocs)
        return HNP_VPID_INVALID;
    return rte->job->node_of[rank] + 1;
}

/* ------------------------------------------------------------ ranks */

void hnp_rte_abort_job(hnp_rte_t *rte, uint32_t rank, int code,
                       const char *msg)
{
    /* the job this daemon holds (0, which the HNP drops: none any more) */
    hnp_wire_pmi_abort_t req = { .jobid = hnp_rte_job_id(rte),
                                 .rank = rank, .code = code,
                                 .words = (char *)(msg != NULL ? msg : "") };
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    /* The HNP says which rank on which node, and exits with the code. */
    if (hnp_wire_pmi_abort_pack(&buf, &req) != HNP_SUCCESS ||
        hnp_rte_send(rte, 0, HNP_TAG_PMI_ABORT, buf.data, buf.len) !=
            HNP_SUCCESS)
        hnp_rte_fail(rte, code != 0 ? code : 1, "rank %u on node %s called "
                     "abort with exit code %d%s%s", rank,
                     hnp_rte_node_name(rte, rte->self), code,
                     req.words[0] != '\0' ? ": " : "", req.words);
    hnp_buffer_release(&buf);
}

void hnp_rte_proc_state(hnp_rte_t *rte, uint32_t rank,
                        hnp_rte_proc_state_t state)
{
    if (hnp_rte_job_host(rte, rank) != rte->self) {
        HNP_VERBOSE(rte->log, 1, "wire-up state %d of rank %u ignored: not "
                    "a rank of this node's job", (int)state, rank);
        return;
    }
    rte->job->state[rank] |= (uint8_t)state;
}

bool hnp_rte_proc_unfinalized(const hnp_rte_t *rte, uint32_t rank)
{
    uint8_t state;

    if (rte->job == NULL || rank >= rte->job->nprocs)
        return false;
    state = rte->job->state[rank];
    return (state & HNP_RTE_PROC_CONNECTED) != 0 &&
           (state & HNP_RTE_PROC_FINALIZED) == 0;
}
