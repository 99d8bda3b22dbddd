/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the `flood` exchange (Algorithm 2 of paper 002).
 *
 * The component's sources are compiled into this program and the runtime
 * services they call are faked (flood_sim.c), so that one program plays
 * every process of a job, each with its own flood state. Checked on flat,
 * k-ary and binomial trees of 1 to 70 processes, with deliveries in random
 * order: every process learns every entry once and completes once, every
 * entry crosses every tree edge exactly once, each process writes to its
 * parent once, and a flush sends a neighbour at most one message.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hnp_buffer.h"
#include "flood_sim.h"
#include "hnp_log.h"

extern const hnp_mca_component_t mca_exchange_flood_component;

/* ------------------------------------------------------------ the tests */

/* Warnings on the "exchange" stream, where the component reports what it
 * drops. */
static struct {
    int warnings;
    char message[512];
} captured;

static void capture_log(void *ctx, hnp_log_severity_t sev, const char *stream,
                        const char *message)
{
    (void)ctx;
    if (sev > HNP_LOG_WARN || strcmp(stream, "exchange") != 0)
        return;
    captured.warnings++;
    snprintf(captured.message, sizeof(captured.message), "%s", message);
}


static void test_every_tree_random_order(void **state)
{
    (void)state;
    for (int kind = 0; kind < 5; kind++)
        for (uint32_t n = 1; n <= 70; n++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                sim_t *sim = sim_create(tree_of(kind, n), seed == 3 ? 2 : 1,
                                        BLOB_VARIED, seed * 1000 + n);
                sim_run_random(sim);
                sim_check(sim);
                sim_destroy(sim);
            }
}

static void test_every_tree_in_rounds(void **state)
{
    uint32_t rounds[70];
    (void)state;
    for (int kind = 0; kind < 5; kind++)
        for (uint32_t n = 1; n <= 70; n++) {
            sim_t *sim = sim_create(tree_of(kind, n), 1, BLOB_URI, n);
            phase1_rounds(&sim->tree, rounds);
            sim_run_rounds(sim, rounds);
            sim_check(sim);
            sim_destroy(sim);
        }
}

/* Reports that reach the root in one turn cost it one message a child. */
static void test_flat_tree_batches(void **state)
{
    uint32_t rounds[64] = { 0 };
    (void)state;
    sim_t *sim = sim_create(hnp_tree_kary(64, 0), 1, BLOB_URI, 7);
    sim_run_rounds(sim, rounds);
    sim_check(sim);
    assert_int_equal(sim->procs[0].msgs_sent, 63);
    for (hnp_vpid_t v = 1; v < 64; v++)
        assert_int_equal(sim->procs[v].msgs_sent, 1);
    sim_destroy(sim);
}

/* Blobs too large for one message: batches are cut at FLOOD_MAX_MESSAGE
 * (the fake send checks it), an entry larger than that goes alone, and
 * still every entry crosses every edge once. */
static void test_large_blobs_are_cut(void **state)
{
    (void)state;
    for (int kind = 0; kind < 5; kind += 4) {
        sim_t *sim = sim_create(tree_of(kind, 9), 1, BLOB_LARGE, 5);
        sim_run_random(sim);
        sim_check(sim);
        /* The root owes each leaf 8 entries of 300 kB or more. */
        assert_true(sim->procs[0].msgs_sent > sim->procs[0].st->nlinks);
        sim_destroy(sim);
    }
}

/* Entries that arrive before the process contributes are reported after
 * allgather returns, at the end of that turn; never inside the call. */
static void test_callbacks_wait_for_allgather(void **state)
{
    (void)state;
    sim_t *sim = sim_create(hnp_tree_kary(3, 0), 1, BLOB_VARIED, 3);
    tally_t *root = &sim->procs[0].tally[0];

    sim_join(sim, 1, 0);
    sim_join(sim, 2, 0);
    while (sim->ntimers > 0)
        sim_fire(sim, 0);
    while (sim->nflight > 0)
        sim_deliver(sim, 0);
    assert_int_equal(flood_state_active(sim->procs[0].st), 1);
    sim_join(sim, 0, 0);
    assert_int_equal(root->learned[1] + root->learned[2], 0);
    assert_int_equal(sim->ntimers, 1);
    sim_run_random(sim);
    sim_check(sim);
    sim_destroy(sim);
}

static void test_single_process(void **state)
{
    (void)state;
    sim_t *sim = sim_create(hnp_tree_kary(1, 0), 2, BLOB_VARIED, 1);
    sim_run_random(sim);
    sim_check(sim);
    assert_int_equal(sim->procs[0].msgs_sent, 0);
    sim_destroy(sim);
}

static void test_allgather_arguments(void **state)
{
    (void)state;
    sim_t *sim = sim_create(hnp_tree_kary(1, 0), 1, BLOB_VARIED, 1);
    flood_state_t *st = sim->procs[0].st;
    hnp_exchange_callbacks_t cb = { on_learned, on_complete,
                                    &sim->procs[0].tally[0] };
    hnp_exchange_callbacks_t half = { on_learned, NULL, NULL };

    assert_int_equal(flood_state_allgather(st, 0, NULL, 3, &cb),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(flood_state_allgather(st, 0, "x", 1, NULL),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(flood_state_allgather(st, 0, "x", 1, &half),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(flood_state_active(st), 0);
    sim_join(sim, 0, 0);
    assert_int_equal(flood_state_allgather(st, 0, "x", 1, &cb), HNP_ERR_EXISTS);
    sim_run_random(sim);
    sim_check(sim);
    /* Once complete, the id is not started again by mistake. */
    assert_int_equal(flood_state_allgather(st, 0, "x", 1, &cb), HNP_ERR_EXISTS);
    sim_destroy(sim);
}

/* A send that fails ends the all-gather on that process with the error. */
static void test_send_failure_completes_with_error(void **state)
{
    (void)state;
    sim_t *sim = sim_create(hnp_tree_kary(3, 0), 1, BLOB_VARIED, 9);
    sim->procs[0].fail_sends = true;
    hnp_log_set_handler(capture_log, NULL);
    sim_run_random(sim);
    hnp_log_set_handler(NULL, NULL);
    assert_int_equal(sim->procs[0].tally[0].completions, 1);
    assert_int_equal(sim->procs[0].tally[0].status, HNP_ERR_UNREACHABLE);
    assert_int_equal(flood_state_active(sim->procs[0].st), 0);
    assert_int_equal(sim->procs[1].tally[0].completions, 0);
    sim_destroy(sim);
}

/* ------------------------------------------------ malformed messages */

typedef struct crafted {
    uint32_t id, flags, count;
    uint32_t members; /* sent with FLOOD_FLAG_MEMBERS */
    hnp_vpid_t vpids[4];
    const char *blobs[4];
    const char *trailer;
} crafted_t;

/* Hand @p msg from @p src straight to vpid 1's handler, expecting it to
 * be dropped with a warning that says @p why (or accepted: why NULL). */
static void inject(sim_t *sim, hnp_vpid_t src, const crafted_t *msg,
                   size_t cut, const char *why)
{
    hnp_rte_t *p = &sim->procs[1];
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, msg->id);
    hnp_pack_u32(&buf, msg->flags);
    hnp_pack_u32(&buf, msg->count);
    if ((msg->flags & FLOOD_FLAG_MEMBERS) != 0)
        hnp_pack_u32(&buf, msg->members);
    for (uint32_t i = 0; i < 4 && msg->blobs[i] != NULL; i++) {
        hnp_pack_u32(&buf, msg->vpids[i]);
        hnp_pack_blob(&buf, msg->blobs[i], strlen(msg->blobs[i]) + 1);
    }
    if (msg->trailer != NULL)
        hnp_pack_string(&buf, msg->trailer);
    captured.warnings = 0;
    captured.message[0] = '\0';
    p->handler(p, src, FLOOD_TAG_ENTRIES, buf.data, buf.len - cut,
               p->handler_data);
    hnp_buffer_release(&buf);
    if (why == NULL) {
        CHECK(captured.warnings == 0, "accepted message warned: %s",
              captured.message);
        return;
    }
    CHECK(captured.warnings == 1 && strstr(captured.message, why) != NULL,
          "expected a warning about '%s', got %d: %s", why, captured.warnings,
          captured.message);
}

/* The entries of vpids 3 and 4 in all-gather 0 (BLOB_URI). */
#define U3 "tcp://10.0.0.1:40003"
#define U4 "tcp://10.0.0.1:40004"

static const struct bad_case {
    hnp_vpid_t src;
    crafted_t msg;
    size_t cut; /* bytes cut off the end */
    const char *why;
} bad_cases[] = {
    { 3, { .count = 1, .vpids = { 3 }, .blobs = { U3 } }, 35, "truncated" },
    { 3, { .flags = 4, .count = 1, .vpids = { 3 }, .blobs = { U3 } }, 0,
      "unknown flags" },
    { 3, { .count = 0 }, 0, "0 entries" },
    { 3, { .count = 8, .vpids = { 3 }, .blobs = { U3 } }, 0, "8 entries" },
    { 3, { .count = 1, .vpids = { 7 }, .blobs = { U3 } }, 0, "out of range" },
    { 3, { .count = 1, .vpids = { 4 }, .blobs = { U4 } }, 0, "cannot come" },
    { 0, { .count = 1, .vpids = { 3 }, .blobs = { U3 } }, 0, "cannot come" },
    { 0, { .count = 1, .vpids = { 1 }, .blobs = { U3 } }, 0, "cannot come" },
    { 5, { .count = 1, .vpids = { 5 }, .blobs = { U3 } }, 0, "not a spawn" },
    { 3, { .count = 2, .vpids = { 3, 3 }, .blobs = { U3, U3 } }, 0, "twice" },
    { 3, { .count = 2, .vpids = { 3 }, .blobs = { U3 } }, 0, "at entry 1" },
    { 3, { .count = 1, .vpids = { 3 }, .blobs = { U3 }, .trailer = "junk" }, 0,
      "after the last" },
    { 3, { .count = 1, .vpids = { 3 }, .blobs = { U3 } }, 2, "at entry 0" },
    /* the member count: from the parent only, the runtime's at least */
    { 3, { .flags = 1, .members = 7, .count = 1, .vpids = { 3 },
           .blobs = { U3 } }, 0, "from a spawn child" },
    { 0, { .flags = 1, .members = 6, .count = 1, .vpids = { 0 },
           .blobs = { U3 } }, 0, "6 members, fewer than 7" },
    { 3, { .flags = 1, .members = 8, .count = 1, .vpids = { 3 },
           .blobs = { U3 } }, 0, "from a spawn child" },
    { 0, { .flags = 1, .members = 7, .count = 1 }, 4, "truncated header" },
};

/*
 * Vpid 1 of a binary tree of 7: parent 0, children 3 and 4, whose subtrees
 * are themselves. Every bad message is logged and changes nothing; then
 * the real run completes as if none had come.
 */
static void test_malformed_messages_dropped(void **state)
{
    (void)state;
    sim_t *sim = sim_create(hnp_tree_kary(7, 2), 1, BLOB_URI, 11);
    flood_state_t *st = sim->procs[1].st;
    const crafted_t *report3 = &bad_cases[0].msg;
    size_t len;

    assert_string_equal((const char *)blob_of(sim, 3, 0, &len), U3);
    assert_string_equal((const char *)blob_of(sim, 4, 0, &len), U4);
    hnp_log_set_handler(capture_log, NULL);
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
        inject(sim, bad_cases[i].src, &bad_cases[i].msg, bad_cases[i].cut,
               bad_cases[i].why);
    assert_int_equal(flood_state_active(st), 0);

    /* The real report of 3, early; a repeat is harmless, a conflict not. */
    inject(sim, 3, report3, 0, NULL);
    inject(sim, 3, report3, 0, NULL);
    inject(sim, 3, &(crafted_t){ .count = 1, .vpids = { 3 }, .blobs = { U4 } },
           0, "other contents");
    assert_int_equal(flood_state_active(st), 1);
    assert_int_equal(sim->nflight, 0);

    sim_run_random(sim);
    sim_check(sim);
    inject(sim, 3, report3, 0, "already complete");
    assert_int_equal(flood_state_active(st), 0);
    hnp_log_set_handler(NULL, NULL);
    sim_destroy(sim);
}

/* ------------------------------------------------------ the component */

static void test_component(void **state)
{
    const hnp_mca_component_t *c = &mca_exchange_flood_component;
    const void *module = NULL;
    hnp_param_info_t info;
    int priority = 0;
    (void)state;

    assert_int_equal(c->mca_abi_version, HNP_MCA_ABI_VERSION);
    assert_string_equal(c->framework, "exchange");
    assert_string_equal(c->name, "flood");
    assert_int_equal(c->interface_version, HNP_EXCHANGE_INTERFACE_VERSION);
    hnp_params_t *params = hnp_params_create();
    assert_non_null(params);
    assert_int_equal(c->register_params(c, params), HNP_SUCCESS);
    assert_int_equal(
        hnp_param_lookup(params, "exchange_flood_batch_delay", &info),
        HNP_SUCCESS);
    assert_int_equal(info.type, HNP_PARAM_DOUBLE);
    assert_string_equal(info.default_value, "0");
    assert_int_equal(c->query(c, &module, &priority), HNP_SUCCESS);
    assert_ptr_equal(module, &exchange_flood_module);
    /* Below gather_scatter's 20: flood runs when asked for by name. */
    assert_int_equal(priority, 10);
    assert_null(exchange_flood_module.child_joined);

    /* The delay reaches the flush timer; a negative one is refused. */
    assert_int_equal(hnp_param_set(params, "exchange_flood_batch_delay",
                                   "0.005", HNP_PARAM_SRC_CMDLINE, NULL, NULL,
                                   0),
                     HNP_SUCCESS);
    sim_t *sim = sim_create(hnp_tree_kary(1, 0), 1, BLOB_VARIED, 1);
    hnp_rte_t *p = &sim->procs[0];
    hnp_exchange_callbacks_t cb = { on_learned, on_complete, &p->tally[0] };
    flood_state_destroy(p->st);
    assert_int_equal(exchange_flood_module.init(p), HNP_SUCCESS);
    assert_int_equal(exchange_flood_module.allgather(p, 0, "", 0, &cb),
                     HNP_SUCCESS);
    assert_true(sim->last_delay == 0.005);
    exchange_flood_module.finalize(p);
    p->st = NULL;
    sim_destroy(sim);
    assert_int_equal(hnp_param_set(params, "exchange_flood_batch_delay", "-1",
                                   HNP_PARAM_SRC_CMDLINE, NULL, NULL, 0),
                     HNP_SUCCESS);
    hnp_log_set_handler(capture_log, NULL);
    assert_int_equal(c->query(c, &module, &priority), HNP_ERR_BAD_PARAM);
    hnp_log_set_handler(NULL, NULL);
    hnp_params_destroy(params);
}

/* ------------------------------------------------------------ the cost */

static void report_cost(const char *name, sim_t *sim)
{
    uint64_t msgs = 0, bytes = 0, max_msgs = 0, max_bytes = 0;

    for (hnp_vpid_t v = 1; v < sim->n; v++) {
        const hnp_rte_t *p = &sim->procs[v];
        msgs += p->msgs_sent;
        bytes += p->bytes_sent;
        max_msgs = p->msgs_sent > max_msgs ? p->msgs_sent : max_msgs;
        max_bytes = p->bytes_sent > max_bytes ? p->bytes_sent : max_bytes;
    }
    printf("# %-34s HNP %6llu msgs %9llu B | daemon max %4llu msgs %7llu B, "
           "mean %6.1f msgs %8.0f B\n", name,
           (unsigned long long)sim->procs[0].msgs_sent,
           (unsigned long long)sim->procs[0].bytes_sent,
           (unsigned long long)max_msgs, (unsigned long long)max_bytes,
           (double)msgs / (sim->n - 1), (double)bytes / (sim->n - 1));
}

static void run_cost(const char *name, hnp_tree_t tree,
                     const uint32_t *rounds, uint32_t flush_every)
{
    sim_t *sim = sim_create(tree, 1, BLOB_URI, 1);
    sim->flush_every = flush_every;
    sim_run_rounds(sim, rounds);
    sim_check(sim);
    report_cost(name, sim);
    sim_destroy(sim);
}

/* Messages and bytes each process sends for phase 2 with 256 daemons and
 * URI-sized entries, in synchronous rounds (printed to the test log). */
static void test_cost_256_daemons(void **state)
{
    enum { N = 257 };
    uint32_t rounds[N];
    (void)state;

    hnp_tree_t flat = hnp_tree_kary(N, 0), delta4 = hnp_tree_kary(N, 4);
    for (hnp_vpid_t v = 0; v < N; v++)
        rounds[v] = 0;
    run_cost("flat, all daemons at once", flat, rounds, 1);
    for (hnp_vpid_t v = 0; v < N; v++)
        rounds[v] = v == 0 ? N : v / 16; /* 16 agents a round */
    run_cost("flat, 16 daemons a round", flat, rounds, 1);
    for (hnp_vpid_t v = 0; v < N; v++)
        rounds[v] = v == 0 ? N : v; /* one a round: the worst case */
    run_cost("flat, one daemon a round", flat, rounds, 1);
    run_cost("flat, one a round, flush every 8", flat, rounds, 8);
    phase1_rounds(&delta4, rounds);
    run_cost("delta=4 tree, phase-1 order", delta4, rounds, 1);
    for (hnp_vpid_t v = 0; v < N; v++)
        rounds[v] = 0;
    run_cost("delta=4 tree, all at once", delta4, rounds, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_tree_random_order),
        cmocka_unit_test(test_every_tree_in_rounds),
        cmocka_unit_test(test_flat_tree_batches),
        cmocka_unit_test(test_large_blobs_are_cut),
        cmocka_unit_test(test_callbacks_wait_for_allgather),
        cmocka_unit_test(test_single_process),
        cmocka_unit_test(test_allgather_arguments),
        cmocka_unit_test(test_send_failure_completes_with_error),
        cmocka_unit_test(test_malformed_messages_dropped),
        cmocka_unit_test(test_component),
        cmocka_unit_test(test_cost_256_daemons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
