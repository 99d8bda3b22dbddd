/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HNP's descriptor plan (runtime/hnp/fdplan.c): the figures add up,
 * a tight limit first lowers the connections awaiting a handshake, then
 * the agents at once, and a job that cannot fit is said not to; the HNP's
 * connections from its two trees.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "hnp/fdplan.h"

static hnp_fd_need_t need_of(uint32_t limit, uint32_t connections)
{
    hnp_fd_need_t need = {
        .limit = limit, .open = 10, .connections = connections,
        .agents = 8, .handshakes = 128, .outputs = 0,
    };
    return need;
}

static void test_roomy_limit_keeps_everything(void **state)
{
    hnp_fd_need_t need = need_of(1024, 32);
    hnp_fd_plan_t plan;

    (void)state;
    hnp_fd_plan(&need, &plan);
    assert_true(plan.fits);
    assert_int_equal(plan.agents, 8);
    assert_int_equal(plan.handshakes, 128);
    assert_int_equal(plan.total, 10 + 32 + 128 + 8 * HNP_FD_PER_AGENT +
                                     HNP_FD_AGENT_START + HNP_FD_RESERVE);
}

static void test_tight_limit_lowers_handshakes_first(void **state)
{
    hnp_fd_need_t need = need_of(256, 200);
    hnp_fd_plan_t plan;

    (void)state;
    hnp_fd_plan(&need, &plan);
    assert_true(plan.fits);
    assert_int_equal(plan.agents, 8);
    assert_true(plan.handshakes >= HNP_FD_MIN_HANDSHAKES);
    assert_true(plan.handshakes < 128);
    assert_int_equal(plan.total, 256);
}

static void test_tighter_limit_runs_fewer_agents(void **state)
{
    hnp_fd_need_t need = need_of(256, 210);
    hnp_fd_plan_t plan;

    (void)state;
    hnp_fd_plan(&need, &plan);
    assert_true(plan.fits);
    assert_int_equal(plan.handshakes, HNP_FD_MIN_HANDSHAKES);
    assert_true(plan.agents >= 1 && plan.agents < 8);
    assert_true(plan.total <= 256);
}

static void test_impossible_job_does_not_fit(void **state)
{
    hnp_fd_need_t need = need_of(256, 512);
    hnp_fd_plan_t plan;
    char text[512];

    (void)state;
    hnp_fd_plan(&need, &plan);
    assert_false(plan.fits);
    assert_int_equal(plan.agents, 1);
    assert_int_equal(plan.handshakes, HNP_FD_MIN_HANDSHAKES);
    assert_true(plan.total > 256);
    hnp_fd_plan_describe(&need, &plan, text, sizeof(text));
    assert_non_null(strstr(text, "of a limit of 256: 512 connections to "
                                 "daemons, 1 agent(s) at once"));
    /* Output files count too. */
    need = need_of(1024, 32);
    need.outputs = 2 * 512;
    hnp_fd_plan(&need, &plan);
    assert_false(plan.fits);
    hnp_fd_plan_describe(&need, &plan, text, sizeof(text));
    assert_non_null(strstr(text, "1024 output files"));
}

static void test_no_agents_to_run(void **state)
{
    hnp_fd_need_t need = need_of(64, 0);
    hnp_fd_plan_t plan;

    (void)state;
    need.agents = 0;
    need.handshakes = 4; /* below the floor: kept as asked */
    hnp_fd_plan(&need, &plan);
    assert_true(plan.fits);
    assert_int_equal(plan.agents, 0);
    assert_int_equal(plan.handshakes, 4);
    assert_int_equal(plan.total, 10 + 4 + HNP_FD_RESERVE);
}

static void test_tree_connections(void **state)
{
    hnp_tree_t flat = hnp_tree_kary(513, 0);
    hnp_tree_t eight = hnp_tree_kary(513, 8);
    hnp_tree_t radix = hnp_tree_kary(513, 32);

    (void)state;
    /* Everyone is the HNP's child in a flat tree. */
    assert_int_equal(hnp_fd_tree_connections(&flat, &radix), 512);
    /* 8 spawn children, 32 routing children, the first 8 in both. */
    assert_int_equal(hnp_fd_tree_connections(&eight, &radix), 32);
    assert_int_equal(hnp_fd_tree_connections(&eight, &eight), 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roomy_limit_keeps_everything),
        cmocka_unit_test(test_tight_limit_lowers_handshakes_first),
        cmocka_unit_test(test_tighter_limit_runs_fewer_agents),
        cmocka_unit_test(test_impossible_job_does_not_fit),
        cmocka_unit_test(test_no_agents_to_run),
        cmocka_unit_test(test_tree_connections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
