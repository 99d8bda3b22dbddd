/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the `flood` exchange in a runtime that grows (daemons
 * added while it runs, the exchange's grow hook), on the simulated job of
 * flood_sim.c: the added daemons are the root's spawn children. An
 * all-gather the root began before the growth keeps its processes, and
 * the added daemons' late parts are dropped without a warning; one the
 * root begins after counts them, also when other daemons joined it
 * before the growth, and when they hear of the growth late or never (a
 * message that comes before the word of the growth waits for it); a
 * daemon added that never started is never waited for; the runtime may
 * grow twice. Deliveries and loop turns in random order, on flat, k-ary
 * and binomial trees.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hnp_buffer.h"
#include "flood_sim.h"
#include "hnp_log.h"

static int warnings;

static void count_warnings(void *ctx, hnp_log_severity_t sev,
                           const char *stream, const char *message)
{
    (void)ctx;
    (void)message;
    if (sev <= HNP_LOG_WARN && strcmp(stream, "exchange") == 0)
        warnings++;
}

/* The hook on process @p v, whose runtime now counts sim->n. */
static void hook(sim_t *sim, hnp_vpid_t v, uint32_t nprocs)
{
    CHECK(flood_state_grow(sim->procs[v].st, nprocs) == HNP_SUCCESS,
          "%s: grow hook on vpid %u", sim->what, v);
}

/* Every started process in [from, to) completed all-gather @p id once,
 * having learnt the entries of vpids 0..members-1 once and no other. */
static void check_members(sim_t *sim, uint32_t id, hnp_vpid_t from,
                          hnp_vpid_t to, uint32_t members)
{
    for (hnp_vpid_t v = from; v < to; v++) {
        const tally_t *t = &sim->procs[v].tally[id];
        if (sim->procs[v].st == NULL)
            continue;
        CHECK(t->completions == 1 && t->status == HNP_SUCCESS,
              "%s: vpid %u id %u: %d completions, status %d", sim->what, v,
              id, t->completions, t->status);
        for (hnp_vpid_t u = 0; u < sim->n; u++)
            CHECK(t->learned[u] == (u < members),
                  "%s: vpid %u id %u learned %u %u times (%u members)",
                  sim->what, v, id, u, t->learned[u], members);
    }
}

/* The processes in [from, to), not members of all-gather @p id, were
 * never told anything of it. */
static void check_left_out(sim_t *sim, uint32_t id, hnp_vpid_t from,
                           hnp_vpid_t to)
{
    for (hnp_vpid_t v = from; v < to; v++) {
        const tally_t *t = &sim->procs[v].tally[id];
        CHECK(t->completions == 0, "%s: vpid %u, added later, completed "
              "all-gather %u", sim->what, v, id);
        for (hnp_vpid_t u = 0; u < sim->n; u++)
            CHECK(t->learned[u] == 0 || u == v, "%s: vpid %u learned %u",
                  sim->what, v, u);
    }
}

/* With @p root the root, and every daemon with probability 1/2, joins
 * all-gather @p id. */
static void join_some(sim_t *sim, uint32_t id, bool root, uint64_t *bits)
{
    if (root)
        sim_join(sim, 0, id);
    for (hnp_vpid_t u = 1; u < sim->n; u++) {
        *bits = *bits * 6364136223846793005ull + 1442695040888963407ull;
        if ((*bits >> 33) % 2 == 0)
            sim_join(sim, u, id);
    }
}

typedef enum { HOOK_ALL, HOOK_ROOT_ONLY } hook_mode_t;

/*
 * All-gather 0 begins before 3 daemons are added, all-gather 1 after.
 * @p root_first: the root began 0 before the growth (it joined, so it
 * counts the first processes); otherwise daemons joined it and their
 * reports wait on the way to the root, which begins it after the growth,
 * among every process.
 */
static void run_growth(int kind, uint32_t n, uint64_t seed, bool root_first,
                       hook_mode_t mode)
{
    enum { ADDED = 3 };
    sim_t *sim = sim_create_cap(tree_of(kind, n), n + ADDED, 2, BLOB_VARIED,
                                seed);
    uint64_t bits = seed;

    snprintf(sim->what, sizeof(sim->what), "kind %d n=%u seed %llu%s%s",
             kind, n, (unsigned long long)seed,
             root_first ? ", root first" : ", root after",
             mode == HOOK_ROOT_ONLY ? ", hook at the root only" : "");
    join_some(sim, 0, root_first, &bits);
    sim_settle(sim, !root_first);
    sim_grow(sim, n + ADDED, 0);
    for (hnp_vpid_t v = 0; v < sim->n; v++)
        if (v == 0 || mode == HOOK_ALL)
            hook(sim, v, sim->n);
    sim->members[0] = root_first ? n : n + ADDED;
    sim->members[1] = n + ADDED;
    sim_run_random(sim); /* the rest join both, the added ones too */

    check_members(sim, 1, 0, sim->n, n + ADDED);
    if (root_first) {
        check_members(sim, 0, 0, n, n);
        check_left_out(sim, 0, n, sim->n);
    } else {
        check_members(sim, 0, 0, sim->n, n + ADDED);
    }
    for (hnp_vpid_t v = 0; v < n; v++)
        CHECK(flood_state_active(sim->procs[v].st) == 0,
              "%s: vpid %u holds an all-gather", sim->what, v);
    sim_destroy(sim);
}

static void test_begun_before_keeps_its_processes(void **state)
{
    (void)state;
    warnings = 0;
    hnp_log_set_handler(count_warnings, NULL);
    for (int kind = 0; kind < 5; kind++)
        for (uint32_t n = 1; n <= 20; n++)
            for (uint64_t seed = 1; seed <= 3; seed++)
                run_growth(kind, n, seed * 100 + n, true, HOOK_ALL);
    hnp_log_set_handler(NULL, NULL);
    assert_int_equal(warnings, 0); /* the late parts go without a word */
}

static void test_in_flight_counts_the_added(void **state)
{
    (void)state;
    warnings = 0;
    hnp_log_set_handler(count_warnings, NULL);
    for (int kind = 0; kind < 5; kind++)
        for (uint32_t n = 1; n <= 20; n++)
            for (uint64_t seed = 1; seed <= 3; seed++)
                run_growth(kind, n, seed * 100 + n, false, HOOK_ALL);
    hnp_log_set_handler(NULL, NULL);
    assert_int_equal(warnings, 0);
}

/* The daemons hear of the growth after the root's messages, or never:
 * the root's count is what they follow. */
static void test_daemons_hearing_late(void **state)
{
    (void)state;
    for (int kind = 0; kind < 5; kind++)
        for (uint32_t n = 2; n <= 20; n += 3) {
            run_growth(kind, n, 7 * n, false, HOOK_ROOT_ONLY);
            run_growth(kind, n, 7 * n + 1, true, HOOK_ROOT_ONLY);
        }
}

/* Two daemons added, the second never starts: the growth failed, no hook
 * is called, and the all-gathers after it count the first processes
 * only; the one that started and joins them anyway is left out. */
static void test_failed_growth_never_counted(void **state)
{
    (void)state;
    for (int kind = 0; kind < 5; kind++)
        for (uint32_t n = 1; n <= 12; n++) {
            sim_t *sim = sim_create_cap(tree_of(kind, n), n + 2, 2,
                                        BLOB_VARIED, n);
            sim_grow(sim, n + 2, 1);
            sim_run_random(sim);
            for (uint32_t id = 0; id < 2; id++) {
                check_members(sim, id, 0, n, n);
                check_left_out(sim, id, n, n + 1);
            }
            /* never fewer than before, never more than the runtime has */
            if (n > 1)
                assert_int_equal(flood_state_grow(sim->procs[0].st, n - 1),
                                 HNP_ERR_BAD_PARAM);
            assert_int_equal(flood_state_grow(sim->procs[0].st, n + 3),
                             HNP_ERR_BAD_PARAM);
            sim_destroy(sim);
        }
}

/* Two growths: all-gather 0 begun at the root between them, 1 after. */
static void test_grows_twice(void **state)
{
    (void)state;
    for (int kind = 0; kind < 5; kind++)
        for (uint32_t n = 1; n <= 12; n++) {
            sim_t *sim = sim_create_cap(tree_of(kind, n), n + 4, 2,
                                        BLOB_VARIED, n + 50);
            uint64_t bits = n;
            sim_grow(sim, n + 2, 0);
            for (hnp_vpid_t v = 0; v < sim->n; v++)
                hook(sim, v, sim->n);
            sim->members[0] = n + 2;
            join_some(sim, 0, true, &bits);
            sim_settle(sim, false);
            sim_grow(sim, n + 4, 0);
            for (hnp_vpid_t v = 0; v < sim->n; v++)
                hook(sim, v, sim->n);
            sim->members[1] = n + 4;
            sim_run_random(sim);
            check_members(sim, 0, 0, n + 2, n + 2);
            check_left_out(sim, 0, n + 2, n + 4);
            check_members(sim, 1, 0, n + 4, n + 4);
            sim_destroy(sim);
        }
}

/* Daemons that hear of the growth only after the root's first messages
 * of an all-gather among the grown runtime hold those messages, without a
 * word, and take them when the hook runs there. */
static void test_early_messages_held(void **state)
{
    (void)state;
    for (int kind = 0; kind < 5; kind++)
        for (uint32_t n = 2; n <= 14; n += 4) {
            sim_t *sim = sim_create_cap(tree_of(kind, n), n + 2, 1,
                                        BLOB_VARIED, n + 9);
            uint32_t held = 0;
            sim_grow(sim, n + 2, 0);
            for (hnp_vpid_t v = 1; v < n; v++)
                sim->procs[v].lagging = true;
            hook(sim, 0, n + 2);
            sim->members[0] = n + 2;
            warnings = 0;
            hnp_log_set_handler(count_warnings, NULL);
            for (hnp_vpid_t v = 0; v < sim->n; v++)
                sim_join(sim, v, 0);
            sim_settle(sim, false);
            for (hnp_vpid_t v = 1; v < n; v++) {
                CHECK(sim->procs[v].tally[0].completions == 0,
                      "%s: vpid %u completed before it heard of the growth",
                      sim->what, v);
                held += sim->procs[v].st->nheld;
            }
            assert_true(held > 0);
            for (hnp_vpid_t v = 1; v < n; v++) {
                sim->procs[v].lagging = false;
                hook(sim, v, n + 2);
            }
            sim_run_random(sim);
            hnp_log_set_handler(NULL, NULL);
            assert_int_equal(warnings, 0);
            check_members(sim, 0, 0, sim->n, n + 2);
            sim_destroy(sim);
        }
}

/* From its parent, a daemon takes one member count per all-gather. */
static void test_member_count_does_not_change(void **state)
{
    (void)state;
    sim_t *sim = sim_create_cap(hnp_tree_kary(3, 2), 4, 1, BLOB_URI, 1);
    hnp_rte_t *p = &sim->procs[1];
    hnp_buffer_t buf;

    sim_grow(sim, 4, 0);
    hnp_log_set_handler(count_warnings, NULL);
    for (uint32_t members = 3, i = 0; i < 2; i++, members++) {
        hnp_buffer_init(&buf);
        hnp_pack_u32(&buf, 0);
        hnp_pack_u32(&buf, FLOOD_FLAG_MEMBERS);
        hnp_pack_u32(&buf, 1);
        hnp_pack_u32(&buf, members);
        hnp_pack_u32(&buf, 2 + i); /* vpid 2's entry, then vpid 3's */
        hnp_pack_blob(&buf, "x", 2);
        warnings = 0;
        p->handler(p, 0, FLOOD_TAG_ENTRIES, buf.data, buf.len,
                   p->handler_data);
        hnp_buffer_release(&buf);
        assert_int_equal(warnings, i); /* the second is dropped */
    }
    hnp_log_set_handler(NULL, NULL);
    assert_int_equal(flood_state_active(p->st), 1);
    sim_destroy(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_begun_before_keeps_its_processes),
        cmocka_unit_test(test_in_flight_counts_the_added),
        cmocka_unit_test(test_daemons_hearing_late),
        cmocka_unit_test(test_failed_growth_never_counted),
        cmocka_unit_test(test_grows_twice),
        cmocka_unit_test(test_early_messages_held),
        cmocka_unit_test(test_member_count_does_not_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
