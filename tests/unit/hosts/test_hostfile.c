/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of node lists from hostfiles (runtime/hosts/hostfile.c), and
 * of --host filtering a hostfile's nodes.
 *
 * Error cases check the sentence as well as the code: a user with a typo in
 * a 4000-line hostfile needs the file, the line and the bad text.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "hosts/hostlist.h"
#include "hosts_fixture.h"

/* ----------------------------------------------------------- hostfiles */

static void test_hostfile(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    parse_hostfile_ok(&l, "# the test cluster\n"
                          "\n"
                          "node1 slots=4\n"
                          "node[2-3] slots=2   # two racks\n"
                          "   node4\n"
                          "\t\n"
                          "node1 max_slots=8\n"
                          "node5#no blank before the comment\n"
                          "node6 slots = 3\n"
                          "node7\tslots= 5\r\n"
                          "node8 max_slots=0 slots =1\n"
                          "r[1, 3] slots=2\n");
    assert_int_equal(l.count, 10);
    expect_node(&l, 0, "node1", 5, true);
    expect_node(&l, 1, "node2", 2, true);
    expect_node(&l, 2, "node3", 2, true);
    expect_node(&l, 3, "node4", 0, false);
    expect_node(&l, 4, "node5", 0, false);
    expect_node(&l, 5, "node6", 3, true);
    expect_node(&l, 6, "node7", 5, true);
    expect_node(&l, 7, "node8", 1, true);
    expect_node(&l, 8, "r1", 2, true);
    expect_node(&l, 9, "r3", 2, true);

    /* A second file adds to the same list. */
    parse_hostfile_ok(&l, "node4 slots=1\nnode9\n");
    assert_int_equal(l.count, 11);
    expect_node(&l, 3, "node4", 2, true);
    expect_node(&l, 10, "node9", 0, false);
    assert_true(find_node(&l, "node9")->slots == 0);
    hnp_nodelist_free(&l);

    /* A large file stays fast and ordered. */
    size_t size = 20000 * 32;
    char *big = malloc(size), *at = big;
    for (int i = 0; i < 20000; i++)
        at += sprintf(at, "host%05d slots=%d\n", i, 1 + i % 4);
    at += sprintf(at, "host00007\n");
    parse_hostfile_ok(&l, big);
    free(big);
    assert_int_equal(l.count, 20000);
    expect_node(&l, 7, "host00007", 5, true);
    expect_node(&l, 19999, "host19999", 4, true);
    hnp_nodelist_free(&l);
}

static void test_hostfile_errors(void **state)
{
    (void)state;
    expect_hostfile_error("node1 slots=x\n", 1,
                          "bad slot count \"slots=x\"");
    expect_hostfile_error("a\nb\n\nnode1 slots=0\n", 4,
                          "bad slot count \"slots=0\"");
    expect_hostfile_error("node1 cpu=4\n", 1, "unknown keyword \"cpu=4\"");
    expect_hostfile_error("node1 slots\n", 1, "\"slots\" is not KEY=VALUE");
    expect_hostfile_error("node1 node2\n", 1, "\"node2\" is not KEY=VALUE");
    expect_hostfile_error("node1 slots=1 slots=2\n", 1, "slots given twice");
    expect_hostfile_error("node1 max_slots=many\n", 1,
                          "bad \"max_slots=many\"");
    expect_hostfile_error("ok\n  slots=4\n", 2,
                          "no host name before \"slots=4\"");
    expect_hostfile_error("n1:x\n", 1, "\"n1:x\": expected HOST:N, N a "
                          "number of slots from 1 to 4294967295");
    expect_hostfile_error("a\nn1:0\n", 2, "\"n1:0\": expected HOST:N");
    expect_hostfile_error(":4\n", 1, "\":4\": expected HOST:N");
    expect_hostfile_error("n1:4 slots=2\n", 1, "slots given twice");
    expect_hostfile_error("n1\nn1:2\n", 2, "n1 is listed before");
    expect_hostfile_error("# c\nn[1-3 slots=2\n", 2,
                          "host expression \"n[1-3 slots=2\": '[' without");
    expect_hostfile_error("n[3-1]\n", 1, "range '3-1' is reversed");
    expect_hostfile_error("a slots=4294967295\na\n", 2,
                          "more than 4294967295 slots");
    expect_hostfile_error("a\nb\na slots=2\n", 3, "a is listed before: "
                          "list a node once per slot, or once with slots=N");
    expect_hostfile_error("n[1-4] slots=2\nn3 slots=1\n", 2,
                          "n3 is listed before");
    expect_hostfile_error("n[1-600000]\nn[1-600000] # again\n", 2,
                          "more than 1000000 host names in all");
    expect_hostfile_error("", 0, "names no hosts");
    expect_hostfile_error("# only\n\n   # comments\n", 0, "names no hosts");
}

/* A NUL byte would end a line's text early ("no\0de2" read as "no"): the
 * line is refused, naming file, line and column. */
static void test_hostfile_nul(void **state)
{
    static const char content[] = "node1\nno\0de2\n";
    hnp_nodelist_t l = { NULL, 0, 0 };
    char err[512] = "", where[600];
    char *path = write_hostfile("");
    FILE *f = fopen(path, "w");

    (void)state;
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, sizeof(content) - 1, f),
                     sizeof(content) - 1);
    fclose(f);
    int rc = hnp_nodelist_parse_hostfile(&l, path, err, sizeof(err));
    snprintf(where, sizeof(where), "%s:2: a NUL byte at column 3", path);
    unlink(path);
    free(path);
    assert_int_equal(rc, HNP_ERR_BAD_PARAM);
    if (strstr(err, where) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err, where);
    assert_int_equal(l.count, 0);
}

/* MPICH's machinefile: HOST:N gives N slots, as HOST slots=N does. */
static void test_hostfile_mpich(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    parse_hostfile_ok(&l, "n1:4\nn[2-3]:2 # two\n[fe80::1]:3\nfe80::2\n"
                          "n4 max_slots=8\nn5:1 max_slots=2\n");
    assert_int_equal(l.count, 7);
    expect_node(&l, 0, "n1", 4, true);
    expect_node(&l, 1, "n2", 2, true);
    expect_node(&l, 2, "n3", 2, true);
    expect_node(&l, 3, "fe80::1", 3, true);
    expect_node(&l, 4, "fe80::2", 0, false);
    expect_node(&l, 5, "n4", 0, false);
    expect_node(&l, 6, "n5", 1, true);
    hnp_nodelist_free(&l);
}

/* A PBS nodefile lists each node once per slot; a count on the first
 * line takes one slot more a later line (Open MPI 4.1 does the same). */
static void test_hostfile_nodefile(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    parse_hostfile_ok(&l, "n1\nn1\nn2\nn1\nn2\nn3\n");
    assert_int_equal(l.count, 3);
    expect_node(&l, 0, "n1", 3, true);
    expect_node(&l, 1, "n2", 2, true);
    expect_node(&l, 2, "n3", 0, false);
    hnp_nodelist_free(&l);

    parse_hostfile_ok(&l, "a slots=2\na\na\n");
    expect_node(&l, 0, "a", 4, true);
    hnp_nodelist_free(&l);

    parse_hostfile_ok(&l, "fe80::1 slots=4\n[fe80::2] slots=2\n::1\n::1\n"
                          "[fe80::3]\n");
    assert_int_equal(l.count, 4);
    expect_node(&l, 0, "fe80::1", 4, true);
    expect_node(&l, 1, "fe80::2", 2, true);
    expect_node(&l, 2, "::1", 2, true);
    expect_node(&l, 3, "fe80::3", 0, false);
    hnp_nodelist_free(&l);
}

/* --host with --hostfile: the hostfile's nodes that --host names, in
 * --host's order; --host's counts where it gives them. */
static void test_filter(void **state)
{
    hnp_nodelist_t pool = { NULL, 0, 0 }, wanted = { NULL, 0, 0 };
    char err[512] = "";
    (void)state;

    parse_hostfile_ok(&pool, "a slots=4\nb slots=2\nc\nfe80::1 slots=8\n");
    parse_hosts_ok(&wanted, "c,[fe80::1],a:2,b,b");
    assert_int_equal(hnp_nodelist_filter(&pool, &wanted, "hostfile H", err,
                                         sizeof(err)), HNP_SUCCESS);
    assert_int_equal(pool.count, 4);
    expect_node(&pool, 0, "c", 0, false);
    expect_node(&pool, 1, "fe80::1", 8, true);
    expect_node(&pool, 2, "a", 2, true);
    expect_node(&pool, 3, "b", 2, true);
    hnp_nodelist_free(&wanted);

    parse_hosts_ok(&wanted, "a,d,e");
    assert_int_equal(hnp_nodelist_filter(&pool, &wanted, "hostfile H", err,
                                         sizeof(err)), HNP_ERR_NOT_FOUND);
    if (strstr(err, "--host names d, which hostfile H does not list") == NULL)
        fail_msg("message \"%s\"", err);
    assert_int_equal(pool.count, 4);
    expect_node(&pool, 2, "a", 2, true);
    hnp_nodelist_free(&wanted);
    hnp_nodelist_free(&pool);
}

static void test_hostfile_missing(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    char err[512];
    (void)state;

    assert_int_equal(hnp_nodelist_parse_hostfile(&l, "/nonexistent/hosts",
                                                 err, sizeof(err)),
                     HNP_ERR_NOT_FOUND);
    assert_string_equal(err, "cannot open hostfile /nonexistent/hosts: "
                             "No such file or directory");
    assert_int_equal(l.count, 0);

    /* A directory opens but cannot be read. */
    assert_int_equal(hnp_nodelist_parse_hostfile(&l, "/", err, sizeof(err)),
                     HNP_ERR_IO);
    assert_non_null(strstr(err, "hostfile /"));
    assert_int_equal(l.count, 0);
    assert_int_equal(hnp_nodelist_parse_hostfile(&l, NULL, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostfile),
        cmocka_unit_test(test_hostfile_errors),
        cmocka_unit_test(test_hostfile_nul),
        cmocka_unit_test(test_hostfile_mpich),
        cmocka_unit_test(test_hostfile_nodefile),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_hostfile_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
