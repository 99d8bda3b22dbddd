/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the nodes a spawn's host keys need daemons on
 * (runtime/hosts/spawnhosts.c): which nodes, with which slots, and the
 * refusal of a node outside the allocation that the key cannot add.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "hosts/hostlist.h"
#include "hosts/spawnhosts.h"
#include "hosts_fixture.h"

/* The nodes running a daemon: a list of names, and how often asked. */
typedef struct daemons {
    const char *const *names;
    unsigned asked;
} daemons_t;

static bool runs_daemon(const char *name, void *ctx)
{
    daemons_t *d = ctx;

    d->asked++;
    for (size_t i = 0; d->names[i] != NULL; i++)
        if (strcmp(d->names[i], name) == 0)
            return true;
    return false;
}

static const char *const ON_N1[] = { "n1", NULL };

static const hnp_spawnhosts_key_t HOST = { "PMIX_HOST", "", false, false };
static const hnp_spawnhosts_key_t HOSTFILE = { "PMIX_HOSTFILE", "hf", false,
                                               true };
static const hnp_spawnhosts_key_t ADD_HOST = { "PMIX_ADD_HOST", "", true,
                                               true };

/* Run with @p named (as --host) against the allocation "n1:2,n2:4,n3". */
static int needs(const char *named_text, const hnp_spawnhosts_key_t *key,
                 hnp_nodelist_t *out, char *err, size_t errlen)
{
    hnp_nodelist_t named = { NULL, 0, 0 }, alloc = { NULL, 0, 0 };
    daemons_t d = { ON_N1, 0 };
    int rc;

    parse_hosts_ok(&named, named_text);
    parse_hosts_ok(&alloc, "n1:2,n2:4,n3");
    rc = hnp_spawnhosts_without_daemon(&named, key, &alloc, "the allocation",
                                       runs_daemon, &d, out, err, errlen);
    assert_true(d.asked > 0);
    hnp_nodelist_free(&named);
    hnp_nodelist_free(&alloc);
    return rc;
}

/* PMIX_HOST: the allocation's nodes without a daemon, with the
 * allocation's slots (its own count is a filter, not the node's). */
static void test_host_takes_allocation_slots(void **state)
{
    hnp_nodelist_t out = { NULL, 0, 0 };
    char err[256] = "";

    (void)state;
    assert_int_equal(needs("n1,n2:1,n3", &HOST, &out, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(out.count, 2);
    expect_node(&out, 0, "n2", 4, true);
    expect_node(&out, 1, "n3", 1, true); /* no count anywhere: 1 */
    hnp_nodelist_free(&out);
}

/* A node named twice, or already in the list, is asked for once. */
static void test_each_node_once(void **state)
{
    hnp_nodelist_t out = { NULL, 0, 0 };
    char err[256] = "";

    (void)state;
    assert_int_equal(hnp_nodelist_add(&out, "n3", 1, true), HNP_SUCCESS);
    assert_int_equal(needs("n2,n3", &HOST, &out, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(needs("n2", &ADD_HOST, &out, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(out.count, 2);
    expect_node(&out, 0, "n3", 1, true);
    expect_node(&out, 1, "n2", 4, true);
    hnp_nodelist_free(&out);
}

/* A hostfile's slots= and an added node's count are the node's. */
static void test_own_slots(void **state)
{
    hnp_nodelist_t out = { NULL, 0, 0 };
    char err[256] = "";

    (void)state;
    assert_int_equal(needs("n2:3", &HOSTFILE, &out, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(needs("n9:5,n8", &ADD_HOST, &out, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(out.count, 3);
    expect_node(&out, 0, "n2", 3, true);
    expect_node(&out, 1, "n9", 5, true);
    expect_node(&out, 2, "n8", 1, true);
    hnp_nodelist_free(&out);
}

/* A node outside the allocation: added by PMIX_ADD_HOST, refused by
 * PMIX_HOST and PMIX_HOSTFILE naming the node and the key, the list left
 * as it was. A node outside it that runs a daemon (added before) is
 * no refusal. */
static void test_outside_the_allocation(void **state)
{
    hnp_nodelist_t out = { NULL, 0, 0 };
    hnp_spawnhosts_key_t host = HOST;
    char err[256] = "";

    (void)state;
    host.text = "n2,n7";
    assert_int_equal(needs("n2,n7", &host, &out, err, sizeof(err)),
                     HNP_ERR_NOT_FOUND);
    assert_int_equal(out.count, 0);
    assert_non_null(strstr(err, "host n7 is not in the allocation "
                                "(PMIX_HOST n2,n7;"));
    err[0] = '\0';
    assert_int_equal(needs("n7", &HOSTFILE, &out, err, sizeof(err)),
                     HNP_ERR_NOT_FOUND);
    assert_non_null(strstr(err, "host n7 is not in the allocation "
                                "(PMIX_HOSTFILE hf;"));
    assert_int_equal(out.count, 0);
    assert_int_equal(needs("n7", &ADD_HOST, &out, err, sizeof(err)),
                     HNP_SUCCESS);
    expect_node(&out, 0, "n7", 1, true);
    hnp_nodelist_free(&out);
}

static void test_daemon_outside_allocation(void **state)
{
    hnp_nodelist_t named = { NULL, 0, 0 }, alloc = { NULL, 0, 0 };
    hnp_nodelist_t out = { NULL, 0, 0 };
    static const char *const ON_N9[] = { "n1", "n9", NULL };
    daemons_t d = { ON_N9, 0 };
    char err[256] = "";

    (void)state;
    parse_hosts_ok(&named, "n9");
    parse_hosts_ok(&alloc, "n1");
    assert_int_equal(hnp_spawnhosts_without_daemon(&named, &HOST, &alloc,
                                                   "the allocation",
                                                   runs_daemon, &d, &out,
                                                   err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(out.count, 0);
    hnp_nodelist_free(&named);
    hnp_nodelist_free(&alloc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_takes_allocation_slots),
        cmocka_unit_test(test_each_node_once),
        cmocka_unit_test(test_own_slots),
        cmocka_unit_test(test_outside_the_allocation),
        cmocka_unit_test(test_daemon_outside_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
