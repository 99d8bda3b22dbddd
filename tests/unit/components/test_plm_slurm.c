/* SPDX-License-Identifier: BSD-3-Clause */
/* plm slurm: reading Slurm's description of an allocation, and a
 * daemon's identity from its srun task's environment. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* Set or unset (NULL) the two variables srun gives its tasks. */
static void srun_task(const char *nodeid, const char *nodename)
{
    if (nodeid != NULL)
        setenv("SLURM_NODEID", nodeid, 1);
    else
        unsetenv("SLURM_NODEID");
    if (nodename != NULL)
        setenv("SLURMD_NODENAME", nodename, 1);
    else
        unsetenv("SLURMD_NODENAME");
}

/* Node 0 of the step is daemon 1; the module says so, and that the secret
 * reaches the daemons on srun's stdin. */
static void test_daemon_identity(void **state)
{
    hnp_vpid_t vpid = 0;
    char node[64], err[256] = "";

    (void)state;
    assert_ptr_equal(plm_slurm_module.daemon_identity,
                     plm_slurm_daemon_identity);
    assert_int_equal(plm_slurm_module.secret, HNP_PLM_SECRET_STDIN);
    assert_int_equal(plm_slurm_module.capabilities,
                     HNP_PLM_CAP_ALLOCATION_ORDER);
    /* a spawn's daemons on nodes without one: one more srun step */
    assert_non_null(plm_slurm_module.launch_added);
    srun_task("0", "node1");
    assert_int_equal(plm_slurm_daemon_identity(&vpid, node, sizeof(node), err,
                                               sizeof(err)), HNP_SUCCESS);
    assert_int_equal(vpid, 1);
    assert_string_equal(node, "node1");
    srun_task("41", "c042");
    assert_int_equal(plm_slurm_daemon_identity(&vpid, node, sizeof(node), err,
                                               sizeof(err)), HNP_SUCCESS);
    assert_int_equal(vpid, 42);
    assert_string_equal(node, "c042");
}

static void test_daemon_identity_errors(void **state)
{
    static const struct { const char *id, *name, *says; } cases[] = {
        { NULL, "node1", "SLURM_NODEID is unset" },
        { "3", NULL, "SLURMD_NODENAME is unset" },
        { "", "node1", "SLURM_NODEID is \"\"" },
        { "x1", "node1", "SLURM_NODEID is \"x1\"" },
        { "1x", "node1", "SLURM_NODEID is \"1x\"" },
        { "4294967295", "node1", "SLURM_NODEID is \"4294967295\"" },
        { "2", "", "SLURMD_NODENAME is \"\"" },
    };
    hnp_vpid_t vpid = 7;
    char node[8], err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        err[0] = '\0';
        srun_task(cases[i].id, cases[i].name);
        assert_int_equal(plm_slurm_daemon_identity(&vpid, node, sizeof(node),
                                                   err, sizeof(err)),
                         HNP_ERR_NOT_FOUND);
        assert_non_null(strstr(err, "not a task of srun"));
        assert_non_null(strstr(err, cases[i].says));
        assert_int_equal(vpid, 7);
    }
    srun_task("2", "a-node-name-too-long");
    assert_int_equal(plm_slurm_daemon_identity(&vpid, node, sizeof(node), err,
                                               sizeof(err)),
                     HNP_ERR_TRUNCATED);
    assert_int_equal(vpid, 7);
    srun_task(NULL, NULL);
}

/* sinfo's lines about the allocation's failed nodes become one list that
 * names each node once (a node in two partitions comes twice). */
static void test_describe_down(void **state)
{
    char buf[256];
    size_t n = 99;
    (void)state;

    assert_int_equal(plm_slurm_describe_down("node3 down hnp-test\n", buf,
                                             sizeof(buf), &n), HNP_SUCCESS);
    assert_string_equal(buf, "node3 (down: hnp-test)");
    assert_int_equal(n, 1);
    assert_int_equal(plm_slurm_describe_down(
                         "node3 down* Not responding\nnode3 down* Not "
                         "responding\nnode7 drained\n", buf, sizeof(buf), &n),
                     HNP_SUCCESS);
    assert_string_equal(buf, "node3 (down*: Not responding), node7 (drained)");
    assert_int_equal(n, 2);
    assert_int_equal(plm_slurm_describe_down("", buf, sizeof(buf), &n),
                     HNP_ERR_NOT_FOUND);
    assert_int_equal(n, 0);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tasks_per_node),
        cmocka_unit_test(test_tasks_per_node_errors),
        cmocka_unit_test(test_daemon_identity),
        cmocka_unit_test(test_daemon_identity_errors),
        cmocka_unit_test(test_describe_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
