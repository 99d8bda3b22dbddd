/* SPDX-License-Identifier: BSD-3-Clause */
/* The simulated job of the flood exchange's unit tests (flood_sim.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "flood_sim.h"

/* ------------------------------------------------------------ helpers */

static uint32_t sim_random(sim_t *sim, uint32_t bound)
{
    sim->rng ^= sim->rng << 13;
    sim->rng ^= sim->rng >> 7;
    sim->rng ^= sim->rng << 17;
    return (uint32_t)(sim->rng % bound);
}

/* The contribution of @p v to all-gather @p id, in sim->scratch. Varied
 * blobs include empty ones; every blob differs from every other. */
const uint8_t *blob_of(sim_t *sim, hnp_vpid_t v, uint32_t id,
                              size_t *len)
{
    uint8_t *b = sim->scratch;

    if (sim->blobs == BLOB_URI) {
        *len = (size_t)snprintf((char *)b, 64, "tcp://10.%u.%u.1:%u", id,
                                v / 200, 40000 + v) + 1;
        return b;
    }
    if (sim->blobs == BLOB_LARGE)
        *len = v % 4 == 1 ? HUGE_BLOB : LARGE_BLOB;
    else
        *len = (v * 7 + id * 13) % 41;
    for (size_t i = 0; i < *len; i++)
        b[i] = (uint8_t)(i < 4 ? v >> (8 * i) : v * 31 + id * 17 + i * 7);
    if (*len > 4)
        b[4] = (uint8_t)id;
    return b;
}

static void grow(void **array, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return;
    *cap = *cap > 0 ? *cap * 2 : 64;
    *array = realloc(*array, *cap * size);
    assert_non_null(*array);
}

static bool is_edge(const sim_t *sim, hnp_vpid_t a, hnp_vpid_t b)
{
    return hnp_tree_parent(&sim->tree, a) == b ||
           hnp_tree_parent(&sim->tree, b) == a;
}

/* How often entry @p v of all-gather @p id crossed the edge above @p edge. */
static uint8_t *crossings_of(sim_t *sim, uint32_t id, hnp_vpid_t edge,
                             hnp_vpid_t v)
{
    return &sim->crossings[((size_t)id * sim->cap + edge) * sim->cap + v];
}

/* Each entry of a message, over the edge it crosses. */
static void count_crossings(sim_t *sim, hnp_vpid_t src, hnp_vpid_t dst,
                            const void *data, size_t len, uint32_t *id)
{
    hnp_vpid_t edge = hnp_tree_parent(&sim->tree, dst) == src ? dst : src;
    hnp_reader_t rd;

    hnp_reader_init(&rd, data, len);
    *id = hnp_unpack_u32(&rd);
    uint32_t flags = hnp_unpack_u32(&rd);
    uint32_t count = hnp_unpack_u32(&rd);
    /* the member count goes down the tree only, and says the truth */
    uint32_t members = flags == FLOOD_FLAG_MEMBERS ? hnp_unpack_u32(&rd) : 0;
    CHECK(*id < sim->nids && (flags & ~FLOOD_FLAG_MEMBERS) == 0 && count > 0 &&
              (members == 0 || (edge == dst && members == sim->members[*id])),
          "%s: bad message header from %u to %u", sim->what, src, dst);
    for (uint32_t i = 0; i < count; i++) {
        hnp_vpid_t v = hnp_unpack_u32(&rd);
        hnp_unpack_blob(&rd, NULL);
        CHECK(hnp_reader_status(&rd) == HNP_SUCCESS && v < sim->n,
              "%s: malformed message from %u", sim->what, src);
        (*crossings_of(sim, *id, edge, v))++;
    }
    CHECK(hnp_reader_remaining(&rd) == 0, "%s: trailing bytes", sim->what);
    CHECK(count == 1 || len <= FLOOD_MAX_MESSAGE,
          "%s: %u entries in a message of %zu bytes", sim->what, count, len);
}

/* ------------------------------------------- the faked runtime services */

hnp_vpid_t hnp_rte_my_vpid(const hnp_rte_t *rte) { return rte->self; }

/* In the simulation every process joins each id itself. */
void hnp_rte_collective_seen(hnp_rte_t *rte, uint32_t id)
{
    (void)rte;
    (void)id;
}
uint32_t hnp_rte_num_procs(const hnp_rte_t *rte)
{
    return rte->lagging ? rte->sim->prev_n : rte->sim->n;
}
bool hnp_rte_is_hnp(const hnp_rte_t *rte) { return rte->self == 0; }
const hnp_tree_t *hnp_rte_spawn_tree(const hnp_rte_t *rte)
{
    return rte->lagging ? &rte->sim->prev_tree : &rte->sim->tree;
}

int hnp_rte_recv(hnp_rte_t *rte, uint32_t tag, hnp_rte_recv_fn fn,
                 void *cbdata)
{
    assert_int_equal(tag, HNP_TAG_EXCHANGE_FIRST + 10);
    rte->handler = fn;
    rte->handler_data = cbdata;
    return HNP_SUCCESS;
}

int hnp_rte_send_direct(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t tag,
                        const void *data, size_t len)
{
    sim_t *sim = rte->sim;
    uint32_t id;

    if (rte->fail_sends)
        return HNP_ERR_UNREACHABLE;
    CHECK(rte->flushing, "%s: vpid %u sent outside a flush", sim->what,
          rte->self);
    CHECK(tag == FLOOD_TAG_ENTRIES && dest < sim->n &&
              is_edge(sim, rte->self, dest),
          "%s: vpid %u sent to %u, not a neighbour", sim->what, rte->self,
          dest);
    count_crossings(sim, rte->self, dest, data, len, &id);
    grow((void **)&sim->flight, &sim->capflight, sim->nflight + 1,
         sizeof(*sim->flight));
    sim_msg_t *m = &sim->flight[sim->nflight++];
    m->src = rte->self;
    m->dst = dest;
    m->len = len;
    m->data = malloc(len);
    assert_non_null(m->data);
    memcpy(m->data, data, len);
    rte->msgs_sent++;
    rte->bytes_sent += len;
    rte->flush_msgs++;
    if (hnp_tree_parent(&sim->tree, rte->self) == dest)
        rte->up_msgs[id]++;
    return HNP_SUCCESS;
}

hnp_rte_timer_t *hnp_rte_timer_create(hnp_rte_t *rte, double seconds,
                                      hnp_rte_timer_fn fn, void *cbdata)
{
    sim_t *sim = rte->sim;
    hnp_rte_timer_t *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    t->rte = rte;
    t->fn = fn;
    t->cbdata = cbdata;
    sim->last_delay = seconds;
    grow((void **)&sim->timers, &sim->captimers, sim->ntimers + 1,
         sizeof(*sim->timers));
    sim->timers[sim->ntimers++] = t;
    return t;
}

void hnp_rte_timer_destroy(hnp_rte_timer_t *timer)
{
    sim_t *sim;

    if (timer == NULL)
        return;
    sim = timer->rte->sim;
    for (uint32_t i = 0; i < sim->ntimers; i++)
        if (sim->timers[i] == timer) {
            sim->timers[i] = sim->timers[--sim->ntimers];
            break;
        }
    free(timer);
}

/* ------------------------------------------------------------ callbacks */

void on_learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                       size_t len)
{
    tally_t *t = cbdata;
    sim_t *sim = t->proc->sim;
    size_t want_len;

    CHECK(!t->proc->in_allgather, "%s: learned() inside allgather", sim->what);
    CHECK(vpid < sim->n && t->completions == 0,
          "%s: vpid %u learned %u after completion", sim->what, t->proc->self,
          vpid);
    const uint8_t *want = blob_of(sim, vpid, t->id, &want_len);
    CHECK(len == want_len && (len == 0 || memcmp(data, want, len) == 0),
          "%s: vpid %u learned a wrong entry for %u", sim->what, t->proc->self,
          vpid);
    t->learned[vpid]++;
}

void on_complete(void *cbdata, int status)
{
    tally_t *t = cbdata;

    CHECK(!t->proc->in_allgather, "%s: complete() inside allgather",
          t->proc->sim->what);
    t->completions++;
    t->status = status;
}

/* ------------------------------------------------------------ the cluster */

static void proc_start(sim_t *sim, hnp_vpid_t v)
{
    hnp_rte_t *p = &sim->procs[v];

    p->sim = sim;
    p->self = v;
    for (uint32_t id = 0; id < MAX_IDS; id++) {
        p->tally[id] = (tally_t){ .proc = p, .id = id };
        p->tally[id].learned = calloc(sim->cap, 1);
        assert_non_null(p->tally[id].learned);
    }
    assert_int_equal(flood_state_create(p, 0.0, &p->st), HNP_SUCCESS);
    assert_non_null(p->handler);
}

sim_t *sim_create_cap(hnp_tree_t tree, uint32_t cap, uint32_t nids,
                      enum blob_kind blobs, uint64_t seed)
{
    sim_t *sim = calloc(1, sizeof(*sim));

    assert_non_null(sim);
    assert_true(cap >= tree.n);
    sim->n = tree.n;
    sim->cap = cap;
    sim->nids = nids;
    for (uint32_t id = 0; id < MAX_IDS; id++)
        sim->members[id] = tree.n;
    sim->blobs = blobs;
    sim->tree = tree;
    sim->rng = seed * 0x9e3779b97f4a7c15ull + 1;
    snprintf(sim->what, sizeof(sim->what), "tree kind %d k=%u n=%u seed %llu",
             tree.kind, tree.arity, tree.n, (unsigned long long)seed);
    sim->procs = calloc(cap, sizeof(*sim->procs));
    sim->crossings = calloc((size_t)MAX_IDS * cap * cap, 1);
    assert_true(sim->procs != NULL && sim->crossings != NULL);
    for (hnp_vpid_t v = 0; v < tree.n; v++)
        proc_start(sim, v);
    return sim;
}

sim_t *sim_create(hnp_tree_t tree, uint32_t nids, enum blob_kind blobs,
                  uint64_t seed)
{
    return sim_create_cap(tree, tree.n, nids, blobs, seed);
}

void sim_grow(sim_t *sim, uint32_t n, uint32_t nfailed)
{
    hnp_tree_t grown;
    uint32_t from = sim->n;

    assert_true(n > from && n <= sim->cap && nfailed <= n - from);
    assert_int_equal(hnp_tree_extend(&sim->tree, n, &grown), HNP_SUCCESS);
    hnp_tree_release(&sim->prev_tree);
    sim->prev_tree = sim->tree;
    sim->prev_n = from;
    sim->tree = grown;
    sim->n = n;
    for (hnp_vpid_t v = from; v < n; v++) {
        if (v < n - nfailed) {
            proc_start(sim, v);
            continue;
        }
        sim->procs[v] = (hnp_rte_t){ .sim = sim, .self = v };
        for (uint32_t id = 0; id < MAX_IDS; id++) /* never joins */
            sim->procs[v].joined[id] = true;
    }
}

void sim_destroy(sim_t *sim)
{
    for (hnp_vpid_t v = 0; v < sim->n; v++) {
        flood_state_destroy(sim->procs[v].st);
        for (uint32_t id = 0; id < MAX_IDS; id++)
            free(sim->procs[v].tally[id].learned);
    }
    hnp_tree_release(&sim->tree);
    hnp_tree_release(&sim->prev_tree);
    assert_int_equal(sim->ntimers, 0);
    for (uint32_t i = 0; i < sim->nflight; i++)
        free(sim->flight[i].data);
    free(sim->flight);
    free(sim->timers);
    free(sim->crossings);
    free(sim->procs);
    free(sim);
}

void sim_join(sim_t *sim, hnp_vpid_t v, uint32_t id)
{
    hnp_rte_t *p = &sim->procs[v];
    hnp_exchange_callbacks_t cb = { on_learned, on_complete, &p->tally[id] };
    size_t len;
    const uint8_t *blob = blob_of(sim, v, id, &len);

    p->in_allgather = true;
    int rc = flood_state_allgather(p->st, id, blob, len, &cb);
    p->in_allgather = false;
    CHECK(rc == HNP_SUCCESS, "%s: allgather on %u: %d", sim->what, v, rc);
    p->joined[id] = true;
}

void sim_deliver(sim_t *sim, uint32_t i)
{
    sim_msg_t m = sim->flight[i];
    hnp_rte_t *dst = &sim->procs[m.dst];

    sim->flight[i] = sim->flight[--sim->nflight];
    dst->handler(dst, m.src, FLOOD_TAG_ENTRIES, m.data, m.len,
                 dst->handler_data);
    free(m.data);
}

/* One event-loop turn's end on the timer's process. With small blobs a
 * flush sends each neighbour at most one message per all-gather. */
void sim_fire(sim_t *sim, uint32_t i)
{
    hnp_rte_timer_t *t = sim->timers[i];
    hnp_rte_t *p = t->rte;

    p->flushing = true;
    p->flush_msgs = 0;
    t->fn(p, t->cbdata); /* destroys t */
    p->flushing = false;
    CHECK(sim->blobs == BLOB_LARGE ||
              p->flush_msgs <= p->st->nlinks * sim->nids,
          "%s: vpid %u sent %u messages in one flush to %u neighbours",
          sim->what, p->self, p->flush_msgs, p->st->nlinks);
}

/* Everything at random: who contributes when, which message arrives next
 * (no order between any two), when a process's loop turn ends. */
void sim_run_random(sim_t *sim)
{
    uint32_t unjoined = 0;
    uint32_t *pending = malloc(sim->n * sim->nids * sizeof(*pending));
    /* A flood that forwards entries again and again must fail, not run
     * forever: far more steps than any correct run takes. */
    uint64_t steps = 0, limit = 64ull * sim->n * sim->n * sim->nids + 10000;

    assert_non_null(pending);
    for (uint32_t i = 0; i < sim->n * sim->nids; i++)
        if (!sim->procs[i / sim->nids].joined[i % sim->nids])
            pending[unjoined++] = i;
    while (unjoined + sim->nflight + sim->ntimers > 0) {
        assert_true(++steps <= limit);
        uint32_t pick = sim_random(sim, unjoined + sim->nflight + sim->ntimers);
        if (pick < unjoined) {
            uint32_t job = pending[pick];
            pending[pick] = pending[--unjoined];
            sim_join(sim, job / sim->nids, job % sim->nids);
        } else if (pick < unjoined + sim->nflight) {
            sim_deliver(sim, pick - unjoined);
        } else {
            sim_fire(sim, pick - unjoined - sim->nflight);
        }
    }
    free(pending);
}

void sim_settle(sim_t *sim, bool spare_root)
{
    for (uint64_t steps = 0;; steps++) {
        uint32_t moving = 0, pick;
        assert_true(steps <= 64ull * sim->n * sim->n * sim->nids + 10000);
        for (uint32_t i = 0; i < sim->nflight; i++)
            moving += !spare_root || sim->flight[i].dst != 0;
        if (moving + sim->ntimers == 0)
            return;
        pick = sim_random(sim, moving + sim->ntimers);
        if (pick >= moving) {
            sim_fire(sim, pick - moving);
            continue;
        }
        for (uint32_t i = 0;; i++)
            if ((!spare_root || sim->flight[i].dst != 0) && pick-- == 0) {
                sim_deliver(sim, i);
                break;
            }
    }
}

/* Synchronous rounds: the processes due contribute, every message in
 * flight arrives (in order), then every loop turn ends, or with a batch
 * delay only every flush_every rounds. All-gather 0 only. */
void sim_run_rounds(sim_t *sim, const uint32_t *join_round)
{
    uint32_t last = 0;

    for (hnp_vpid_t v = 0; v < sim->n; v++)
        last = join_round[v] > last ? join_round[v] : last;
    for (uint32_t round = 0; round <= last || sim->nflight + sim->ntimers > 0;
         round++) {
        /* Entries move at least one hop every flush: many times more
         * rounds than that, after the last join, means they go round in
         * circles. */
        assert_true(round <= last + (4 * sim->n + 100) *
                                        (sim->flush_every > 1 ? sim->flush_every : 1));
        for (hnp_vpid_t v = 0; v < sim->n; v++)
            if (join_round[v] == round)
                sim_join(sim, v, 0);
        sim_msg_t *batch = sim->flight;
        uint32_t count = sim->nflight;
        sim->flight = NULL;
        sim->nflight = sim->capflight = 0;
        for (uint32_t i = 0; i < count; i++) {
            hnp_rte_t *dst = &sim->procs[batch[i].dst];
            dst->handler(dst, batch[i].src, FLOOD_TAG_ENTRIES, batch[i].data,
                         batch[i].len, dst->handler_data);
            free(batch[i].data);
        }
        free(batch);
        if (sim->flush_every <= 1 || round % sim->flush_every == 0)
            while (sim->ntimers > 0)
                sim_fire(sim, 0);
    }
}

/* Every process learnt every entry once and completed once; every entry
 * crossed every edge exactly once; each process wrote to its parent once. */
void sim_check(sim_t *sim)
{
    const char *w = sim->what;

    for (hnp_vpid_t v = 0; v < sim->n; v++) {
        hnp_rte_t *p = &sim->procs[v];
        CHECK(flood_state_active(p->st) == 0, "%s: vpid %u holds state", w, v);
        for (uint32_t id = 0; id < sim->nids; id++) {
            CHECK(p->tally[id].completions == 1 && p->tally[id].status == 0,
                  "%s: vpid %u id %u: %d completions, status %d", w, v, id,
                  p->tally[id].completions, p->tally[id].status);
            for (hnp_vpid_t u = 0; u < sim->n; u++)
                CHECK(p->tally[id].learned[u] == 1,
                      "%s: vpid %u id %u learned %u %u times", w, v, id, u,
                      p->tally[id].learned[u]);
            CHECK(v == 0 || sim->blobs == BLOB_LARGE || p->up_msgs[id] == 1,
                  "%s: vpid %u sent %u messages up", w, v, p->up_msgs[id]);
        }
    }
    for (uint32_t id = 0; id < sim->nids; id++)
        for (hnp_vpid_t edge = 1; edge < sim->n; edge++)
            for (hnp_vpid_t v = 0; v < sim->n; v++) {
                uint8_t crossed = *crossings_of(sim, id, edge, v);
                CHECK(crossed == 1, "%s: id %u: entry %u crossed the edge "
                      "above %u %u times", w, id, v, edge, crossed);
            }
}

hnp_tree_t tree_of(int kind, uint32_t n)
{
    static const uint32_t arity[] = { 0, 2, 3, 8 };

    return kind < 4 ? hnp_tree_kary(n, arity[kind]) : hnp_tree_binomial(n);
}

/* The order of phase 1: a process contributes once its children joined;
 * children join one round after their parent did. */
void phase1_rounds(const hnp_tree_t *t, uint32_t *join_round)
{
    for (hnp_vpid_t v = 0; v < t->n; v++) {
        uint32_t d = hnp_tree_depth(t, v);
        join_round[v] = hnp_tree_children(t, v, NULL, 0) > 0 ? d + 1 : d;
    }
}
