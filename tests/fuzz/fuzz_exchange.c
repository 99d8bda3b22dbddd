/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: what the exchange components read from their peers, the
 * `flood` entries (exchange_flood_wire.c) and the `gather_scatter`
 * contributions and tables, inside one process of a job whose runtime
 * services are faked here: the peers' messages come from the input, what
 * the component sends is checked as it leaves, and timers fire between
 * messages as the event loop would.
 *
 * Input layout (make-corpus.sh writes seeds in it):
 *   byte 0    bit 0: the component (0 flood, 1 gather_scatter);
 *             bits 1-2: the spawn tree (flat, binary, ternary, binomial)
 *   byte 1    the job's size, 2 + byte % 31
 *   byte 2    this process's vpid, byte % size (0 is the HNP)
 *   byte 3    before which message this process joins all-gather 0
 *             (255: only when a message makes it hear of it)
 *   then      messages: the sender's vpid (byte % (size + 2): out of range
 *             too), a big-endian u16 length, that many bytes of body
 *
 * Besides the sanitizers, the target checks what the exchange promises its
 * caller and its peers: every vpid is learnt at most once per all-gather,
 * our own contribution as we gave it, nothing after completion, and a
 * successful completion only with every vpid learnt; flood sends only to
 * spawn-tree neighbours, never an entry back towards where it came from,
 * never one entry twice over one edge, and only well-formed messages,
 * the member count only down the tree;
 * gather_scatter's HNP sends each daemon the table of what it learnt.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "hnp_buffer.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "exchange/flood/exchange_flood.h"
#include "exchange/flood/exchange_flood_internal.h"
#include "exchange/gather_scatter/exchange_gather_scatter.h"

#define MAX_PROCS 32
#define MAX_IDS 8     /* all-gathers followed at once; more are not joined */
#define MAX_TIMERS 16
#define GS_TAG_CONTRIBUTION HNP_TAG_EXCHANGE_FIRST
#define GS_TAG_TABLE (HNP_TAG_EXCHANGE_FIRST + 1)

/* flood_state_create() takes the delay and the module's job priority reads
 * the threshold; the component's parameters are not registered here. */
double exchange_flood_batch_delay = 0.0;
unsigned exchange_flood_min_nodes = 0;

typedef struct tally {
    bool used;
    uint32_t id;
    bool joined, join_pending, completed;
    int status;
    uint8_t learned[MAX_PROCS];
    /* What learned() gave, to check what is sent later. */
    uint8_t *data[MAX_PROCS];
    size_t len[MAX_PROCS];
    uint8_t crossed[MAX_PROCS][MAX_PROCS]; /* flood: [neighbour][entry] */
} tally_t;

struct hnp_rte_timer {
    hnp_rte_timer_fn fn;
    void *cbdata;
};

struct hnp_rte {
    bool gs; /* gather_scatter, else flood */
    hnp_vpid_t self;
    uint32_t n;
    hnp_tree_t tree;
    uint32_t tag;
    hnp_rte_recv_fn handler;
    void *handler_data;
    hnp_rte_timer_t *timers[MAX_TIMERS];
    flood_state_t *flood;
    tally_t ids[MAX_IDS];
};

/* One process a run; libFuzzer runs inputs one after another. */
static struct hnp_rte proc;

/* ------------------------------------------------------------- helpers */

static tally_t *tally_of(uint32_t id, bool create)
{
    for (int i = 0; i < MAX_IDS; i++)
        if (proc.ids[i].used && proc.ids[i].id == id)
            return &proc.ids[i];
    for (int i = 0; create && i < MAX_IDS; i++)
        if (!proc.ids[i].used) {
            proc.ids[i].used = true;
            proc.ids[i].id = id;
            return &proc.ids[i];
        }
    return NULL;
}

/* Our contribution to all-gather @p id: a URI, as in the contact exchange,
 * with its NUL. */
static size_t contribution(uint32_t id, char *buf, size_t len)
{
    return (size_t)snprintf(buf, len, "tcp://127.0.%u.%u:%u", id % 256,
                            proc.self, 40000 + proc.self) + 1;
}

static bool same_as_learned(const tally_t *t, hnp_vpid_t v, const void *data,
                            size_t len)
{
    return !t->learned[v] ||
           (t->len[v] == len && (len == 0 || memcmp(t->data[v], data, len) == 0));
}

/* ------------------------------------------------------------ callbacks */

static void on_learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                       size_t len)
{
    tally_t *t = cbdata;
    char mine[64];

    FUZZ_CHECK(vpid < proc.n && !t->completed);
    FUZZ_CHECK(!t->learned[vpid]);
    /* flood refuses our own entry from anyone; a gather_scatter daemon
     * believes the HNP's table */
    if (vpid == proc.self && (!proc.gs || proc.self == 0)) {
        size_t mlen = contribution(t->id, mine, sizeof(mine));
        FUZZ_CHECK(len == mlen && memcmp(data, mine, len) == 0);
    }
    t->learned[vpid] = 1;
    t->data[vpid] = malloc(len > 0 ? len : 1);
    if (t->data[vpid] == NULL)
        abort();
    memcpy(t->data[vpid], data, len);
    t->len[vpid] = len;
}

static void on_complete(void *cbdata, int status)
{
    tally_t *t = cbdata;

    FUZZ_CHECK(!t->completed);
    t->completed = true;
    t->status = status;
    if (status == HNP_SUCCESS)
        for (uint32_t v = 0; v < proc.n; v++)
            FUZZ_CHECK(t->learned[v]);
}

static void join(tally_t *t)
{
    hnp_exchange_callbacks_t cb = { on_learned, on_complete, t };
    char mine[64];
    size_t len = contribution(t->id, mine, sizeof(mine));
    int rc;

    t->join_pending = false;
    if (t->joined)
        return;
    t->joined = true;
    if (proc.gs)
        rc = exchange_gather_scatter_module.allgather(&proc, t->id, mine, len,
                                                      &cb);
    else
        rc = flood_state_allgather(proc.flood, t->id, mine, len, &cb);
    /* Refused for an id it completed already (flood), never otherwise. */
    FUZZ_CHECK(rc == HNP_SUCCESS || (!proc.gs && rc == HNP_ERR_EXISTS));
}

/* ---------------------------------------------- the faked runtime services */

hnp_vpid_t hnp_rte_my_vpid(const hnp_rte_t *rte) { return rte->self; }
uint32_t hnp_rte_num_procs(const hnp_rte_t *rte) { return rte->n; }
bool hnp_rte_is_hnp(const hnp_rte_t *rte) { return rte->self == 0; }
const hnp_tree_t *hnp_rte_spawn_tree(const hnp_rte_t *rte)
{
    return &rte->tree;
}

/* The runtime joins an all-gather it hears of from the event loop. */
void hnp_rte_collective_seen(hnp_rte_t *rte, uint32_t id)
{
    tally_t *t = tally_of(id, true);

    (void)rte;
    if (t != NULL && !t->joined)
        t->join_pending = true;
}

int hnp_rte_recv(hnp_rte_t *rte, uint32_t tag, hnp_rte_recv_fn fn,
                 void *cbdata)
{
    rte->tag = tag;
    rte->handler = fn;
    rte->handler_data = cbdata;
    return HNP_SUCCESS;
}

hnp_rte_timer_t *hnp_rte_timer_create(hnp_rte_t *rte, double seconds,
                                      hnp_rte_timer_fn fn, void *cbdata)
{
    (void)seconds;
    for (int i = 0; i < MAX_TIMERS; i++)
        if (rte->timers[i] == NULL) {
            rte->timers[i] = calloc(1, sizeof(*rte->timers[i]));
            if (rte->timers[i] != NULL) {
                rte->timers[i]->fn = fn;
                rte->timers[i]->cbdata = cbdata;
            }
            return rte->timers[i];
        }
    FUZZ_CHECK(!"more timers than the component needs");
    return NULL;
}

void hnp_rte_timer_destroy(hnp_rte_timer_t *timer)
{
    for (int i = 0; timer != NULL && i < MAX_TIMERS; i++)
        if (proc.timers[i] == timer) {
            proc.timers[i] = NULL;
            free(timer);
            return;
        }
    FUZZ_CHECK(timer == NULL);
}

/* A flood message to @p dest: well formed, entries known, none of them
 * back towards where it came from or twice over this edge. */
static void check_flood_send(hnp_vpid_t dest, const void *data, size_t len)
{
    hnp_reader_t rd;

    FUZZ_CHECK(hnp_tree_parent(&proc.tree, proc.self) == dest ||
               hnp_tree_parent(&proc.tree, dest) == proc.self);
    hnp_reader_init(&rd, data, len);
    uint32_t id = hnp_unpack_u32(&rd);
    uint32_t flags = hnp_unpack_u32(&rd);
    uint32_t count = hnp_unpack_u32(&rd);
    /* the member count goes down only, and is the job's: it never grows */
    if (flags == FLOOD_FLAG_MEMBERS)
        FUZZ_CHECK(hnp_tree_parent(&proc.tree, dest) == proc.self &&
                   hnp_unpack_u32(&rd) == proc.n);
    FUZZ_CHECK(hnp_reader_status(&rd) == HNP_SUCCESS &&
               (flags & ~FLOOD_FLAG_MEMBERS) == 0 && count > 0 &&
               count <= proc.n);
    tally_t *t = tally_of(id, false);
    for (uint32_t i = 0; i < count; i++) {
        size_t blen = 0;
        hnp_vpid_t v = hnp_unpack_u32(&rd);
        const void *blob = hnp_unpack_blob(&rd, &blen);
        FUZZ_CHECK(hnp_reader_status(&rd) == HNP_SUCCESS && v < proc.n);
        FUZZ_CHECK(hnp_tree_next_hop(&proc.tree, proc.self, v) != dest);
        if (t != NULL) {
            FUZZ_CHECK(same_as_learned(t, v, blob, blen));
            FUZZ_CHECK(t->crossed[dest][v] == 0);
            t->crossed[dest][v] = 1;
        }
    }
    FUZZ_CHECK(hnp_reader_remaining(&rd) == 0);
}

/* A gather_scatter message: a daemon's contribution to the HNP, or the
 * HNP's table, which holds what it learnt. */
static void check_gs_send(hnp_vpid_t dest, uint32_t tag, const void *data,
                          size_t len)
{
    hnp_reader_t rd;

    hnp_reader_init(&rd, data, len);
    uint32_t id = hnp_unpack_u32(&rd);
    tally_t *t = tally_of(id, false);
    if (proc.self != 0) {
        FUZZ_CHECK(dest == 0 && tag == GS_TAG_CONTRIBUTION);
        hnp_unpack_blob(&rd, NULL);
    } else {
        FUZZ_CHECK(dest > 0 && dest < proc.n && tag == GS_TAG_TABLE);
        FUZZ_CHECK(hnp_unpack_u32(&rd) == proc.n && t != NULL);
        for (hnp_vpid_t v = 0; v < proc.n; v++) {
            size_t blen = 0;
            const void *blob = hnp_unpack_blob(&rd, &blen);
            FUZZ_CHECK(hnp_reader_status(&rd) == HNP_SUCCESS);
            FUZZ_CHECK(t->learned[v] && same_as_learned(t, v, blob, blen));
        }
    }
    FUZZ_CHECK(hnp_reader_status(&rd) == HNP_SUCCESS &&
               hnp_reader_remaining(&rd) == 0);
}

int hnp_rte_send_direct(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t tag,
                        const void *data, size_t len)
{
    FUZZ_CHECK(dest != rte->self);
    if (rte->gs) {
        check_gs_send(dest, tag, data, len);
    } else {
        FUZZ_CHECK(tag == FLOOD_TAG_ENTRIES);
        check_flood_send(dest, data, len);
    }
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ the loop */

/* The end of an event-loop turn: due joins, then the timers, until
 * nothing is left (a component that re-arms forever fails the bound). */
static void run_loop(void)
{
    for (int turn = 0; turn < 64; turn++) {
        bool busy = false;
        for (int i = 0; i < MAX_IDS; i++)
            if (proc.ids[i].used && proc.ids[i].join_pending) {
                join(&proc.ids[i]);
                busy = true;
            }
        for (int i = 0; i < MAX_TIMERS; i++)
            if (proc.timers[i] != NULL) {
                hnp_rte_timer_t *t = proc.timers[i];
                t->fn(&proc, t->cbdata); /* destroys the timer */
                FUZZ_CHECK(proc.timers[i] != t);
                busy = true;
            }
        if (!busy)
            return;
    }
    FUZZ_CHECK(!"the exchange keeps the loop busy");
}

static hnp_tree_t tree_of(unsigned kind, uint32_t n)
{
    switch (kind) {
    case 0:
        return hnp_tree_kary(n, 0);
    case 1:
        return hnp_tree_kary(n, 2);
    case 2:
        return hnp_tree_kary(n, 3);
    default:
        return hnp_tree_binomial(n);
    }
}

static bool start(const uint8_t *head)
{
    memset(&proc, 0, sizeof(proc));
    proc.gs = head[0] & 1;
    proc.n = 2 + head[1] % (MAX_PROCS - 1);
    proc.self = head[2] % proc.n;
    proc.tree = tree_of((head[0] >> 1) & 3, proc.n);
    hnp_log_set_handler(fuzz_discard_log, NULL);
    if (proc.gs)
        return exchange_gather_scatter_module.init(&proc) == HNP_SUCCESS;
    return flood_state_create(&proc, 0.0, &proc.flood) == HNP_SUCCESS;
}

static void finish(void)
{
    if (proc.gs)
        exchange_gather_scatter_module.finalize(&proc);
    else
        flood_state_destroy(proc.flood);
    for (int i = 0; i < MAX_TIMERS; i++)
        FUZZ_CHECK(proc.timers[i] == NULL);
    for (int i = 0; i < MAX_IDS; i++)
        for (uint32_t v = 0; v < MAX_PROCS; v++)
            free(proc.ids[i].data[v]);
    hnp_log_set_handler(NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned join_before;

    if (size < 4)
        return 0;
    FUZZ_CHECK(start(data));
    join_before = data[3];
    data += 4;
    size -= 4;
    for (unsigned msg = 0; size >= 3; msg++) {
        if (msg == join_before)
            hnp_rte_collective_seen(&proc, 0);
        run_loop();
        hnp_vpid_t src = data[0] % (proc.n + 2);
        size_t len = (size_t)data[1] << 8 | data[2];
        data += 3;
        size -= 3;
        len = len < size ? len : size;
        /* A copy of exactly its size: a read past its end shows. */
        uint8_t *body = malloc(len > 0 ? len : 1);
        if (body == NULL)
            abort();
        memcpy(body, data, len);
        proc.handler(&proc, src, proc.tag, body, len, proc.handler_data);
        free(body);
        data += len;
        size -= len;
    }
    run_loop();
    finish();
    return 0;
}
