/* SPDX-License-Identifier: BSD-3-Clause */
/* plm slurm: reading Slurm's description of an allocation. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plm/slurm/plm_slurm.h"

static void test_tasks_per_node(void **state)
{
    uint32_t slots[6] = { 0 };

    (void)state;
    assert_int_equal(plm_slurm_tasks_per_node("2(x3),1,4(x2)", slots, 6),
                     HNP_SUCCESS);
    assert_int_equal(slots[0], 2);
    assert_int_equal(slots[2], 2);
    assert_int_equal(slots[3], 1);
    assert_int_equal(slots[4], 4);
    assert_int_equal(slots[5], 4);
    assert_int_equal(plm_slurm_tasks_per_node("8", slots, 1), HNP_SUCCESS);
    assert_int_equal(slots[0], 8);
}

static void test_tasks_per_node_errors(void **state)
{
    uint32_t slots[4] = { 0 };

    (void)state;
    assert_int_equal(plm_slurm_tasks_per_node("2(x3)", slots, 4), HNP_ERR_BAD_PARAM);
    assert_int_equal(plm_slurm_tasks_per_node("2(x3),1,1", slots, 4), HNP_ERR_BAD_PARAM);
    assert_int_equal(plm_slurm_tasks_per_node("2(x", slots, 4), HNP_ERR_BAD_PARAM);
    assert_int_equal(plm_slurm_tasks_per_node("a,b", slots, 2), HNP_ERR_BAD_PARAM);
    assert_int_equal(plm_slurm_tasks_per_node("1;2", slots, 2), HNP_ERR_BAD_PARAM);
    assert_int_equal(plm_slurm_tasks_per_node("2(x0)", slots, 0), HNP_ERR_BAD_PARAM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tasks_per_node),
        cmocka_unit_test(test_tasks_per_node_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
