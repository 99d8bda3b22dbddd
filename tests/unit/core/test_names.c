/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the name service (MPI_Publish_name): the HNP's table
 * (names_table.c) alone: scopes, duplicates, lookups, unpublish, a job's
 * end and persistence, families; then the service (names.c) on real
 * runtime contexts over loopback (world.c): daemon 1 runs ranks 0 and 1
 * of job 1, daemon 2 ranks 0 and 1 of job 2. A publish from one daemon
 * seen from the other, a second publish refused, an unknown name not
 * found, a lookup that waits answered by the publish that comes later,
 * one that times out, one answered by its job's end, the names of an
 * ended job gone (unless persistent), and the session scope.
 */
#include "world.h"

#include <stdlib.h>
#include <string.h>

#include "names.h"

/* ------------------------------------------------------------ the table */

static hnp_names_put_t put(const char *key, const char *value)
{
    return (hnp_names_put_t){ key, value, strlen(value) };
}

static const char *value_of(const hnp_names_t *t, uint32_t family,
                            const char *key)
{
    hnp_names_entry_t e;

    return hnp_names_lookup(t, family, &key, 1, &e) == 1 ? e.value : NULL;
}

static void test_table_scopes(void **state)
{
    hnp_names_t *t;
    hnp_names_put_t p = put("svc", "port-a"), q = put("svc", "port-b");
    hnp_names_put_t s = put("svc", "session-port");
    hnp_names_put_t two[2] = { put("x", "1"), put("x", "2") };

    (void)state;
    assert_int_equal(hnp_names_create(&t), HNP_SUCCESS);
    assert_int_equal(hnp_names_publish(t, 1, 1, 0, &p, 1, false),
                     HNP_SUCCESS);
    /* the same name again in the same family: refused, the first stays */
    assert_int_equal(hnp_names_publish(t, 1, 1, 1, &q, 1, false),
                     HNP_ERR_EXISTS);
    assert_string_equal(value_of(t, 1, "svc"), "port-a");
    /* another family has a scope of its own */
    assert_null(value_of(t, 2, "svc"));
    assert_int_equal(hnp_names_publish(t, 2, 2, 0, &q, 1, false),
                     HNP_SUCCESS);
    assert_string_equal(value_of(t, 2, "svc"), "port-b");
    /* the session's names: seen by every family, its own first */
    assert_int_equal(hnp_names_publish(t, 0, 3, 0, &s, 1, false),
                     HNP_SUCCESS);
    assert_string_equal(value_of(t, 1, "svc"), "port-a");
    assert_string_equal(value_of(t, 3, "svc"), "session-port");
    assert_string_equal(value_of(t, 0, "svc"), "session-port");
    /* all or nothing: a key twice in one publish */
    assert_int_equal(hnp_names_publish(t, 1, 1, 0, two, 2, false),
                     HNP_ERR_EXISTS);
    assert_null(value_of(t, 1, "x"));
    assert_int_equal(hnp_names_count(t), 3);
    hnp_names_destroy(t);
}

static void test_table_lookup_many(void **state)
{
    hnp_names_t *t;
    hnp_names_put_t p[2] = { put("a", "1"), put("b", "22") };
    const char *keys[3] = { "a", "nothing", "b" };
    hnp_names_entry_t e[3];

    (void)state;
    assert_int_equal(hnp_names_create(&t), HNP_SUCCESS);
    assert_int_equal(hnp_names_publish(t, 4, 4, 7, p, 2, false), HNP_SUCCESS);
    assert_int_equal(hnp_names_lookup(t, 4, keys, 3, e), 2);
    assert_string_equal(e[0].value, "1");
    assert_int_equal(e[0].jobid, 4);
    assert_int_equal(e[0].rank, 7);
    assert_null(e[1].key);
    assert_int_equal(e[2].len, 2);
    hnp_names_destroy(t);
}

static void test_table_unpublish(void **state)
{
    hnp_names_t *t;
    hnp_names_put_t p[3] = { put("a", "1"), put("b", "2"), put("c", "3") };
    const char *a = "a", *nothing[2] = { "b", "zz" };

    (void)state;
    assert_int_equal(hnp_names_create(&t), HNP_SUCCESS);
    assert_int_equal(hnp_names_publish(t, 1, 1, 0, p, 2, false), HNP_SUCCESS);
    assert_int_equal(hnp_names_publish(t, 1, 1, 1, &p[2], 1, false),
                     HNP_SUCCESS);
    assert_int_equal(hnp_names_unpublish(t, 1, 1, 0, &a, 1), HNP_SUCCESS);
    assert_null(value_of(t, 1, "a"));
    assert_int_equal(hnp_names_unpublish(t, 1, 1, 0, &a, 1),
                     HNP_ERR_NOT_FOUND);
    /* one missing: the others still go */
    assert_int_equal(hnp_names_unpublish(t, 1, 1, 0, nothing, 2),
                     HNP_ERR_NOT_FOUND);
    assert_null(value_of(t, 1, "b"));
    /* another family cannot reach them */
    assert_int_equal(hnp_names_unpublish(t, 2, 2, 0, (const char *[]){ "c" },
                                         1), HNP_ERR_NOT_FOUND);
    /* no key: all the rank published */
    assert_int_equal(hnp_names_unpublish(t, 1, 1, 1, NULL, 0), HNP_SUCCESS);
    assert_int_equal(hnp_names_unpublish(t, 1, 1, 1, NULL, 0),
                     HNP_ERR_NOT_FOUND);
    assert_int_equal(hnp_names_count(t), 0);
    hnp_names_destroy(t);
}

static void test_table_job_end(void **state)
{
    hnp_names_t *t;
    hnp_names_put_t gone = put("gone", "1"), kept = put("kept", "2");
    hnp_names_put_t other = put("other", "3");

    (void)state;
    assert_int_equal(hnp_names_create(&t), HNP_SUCCESS);
    assert_int_equal(hnp_names_publish(t, 5, 5, 0, &gone, 1, false),
                     HNP_SUCCESS);
    assert_int_equal(hnp_names_publish(t, 5, 5, 0, &kept, 1, true),
                     HNP_SUCCESS);
    assert_int_equal(hnp_names_publish(t, 6, 6, 0, &other, 1, false),
                     HNP_SUCCESS);
    hnp_names_job_end(t, 5);
    assert_null(value_of(t, 5, "gone"));
    assert_string_equal(value_of(t, 5, "kept"), "2");
    assert_string_equal(value_of(t, 6, "other"), "3");
    hnp_names_destroy(t);
}

static void test_table_family(void **state)
{
    hnp_names_t *t;
    hnp_names_put_t p = put("parent-port", "pp");

    (void)state;
    assert_int_equal(hnp_names_create(&t), HNP_SUCCESS);
    /* job 8 spawned by 7, 9 by 8: one family, named by 7 */
    assert_int_equal(hnp_names_set_family(t, 8, 7), HNP_SUCCESS);
    assert_int_equal(hnp_names_set_family(t, 9, 8), HNP_SUCCESS);
    assert_int_equal(hnp_names_family(t, 9), 7);
    assert_int_equal(hnp_names_family(t, 10), 10);
    assert_int_equal(hnp_names_set_family(t, 7, 7), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_names_publish(t, hnp_names_family(t, 7), 7, 0, &p,
                                       1, false), HNP_SUCCESS);
    assert_string_equal(value_of(t, hnp_names_family(t, 9), "parent-port"),
                        "pp");
    assert_null(value_of(t, hnp_names_family(t, 10), "parent-port"));
    hnp_names_job_end(t, 9);
    assert_int_equal(hnp_names_family(t, 9), 9);
    hnp_names_destroy(t);
}

/* ------------------------------------------------------------ the service */

static const uint32_t node_of[2] = { 0, 1 }; /* rank 0 on daemon 1, 1 on 2 */

typedef struct answer {
    unsigned calls;
    int status;
    char value[64];
    uint32_t jobid, rank;
    char job_name[64];
} answer_t;

static void on_answer(hnp_rte_t *rte, int status, const hnp_rte_name_t *names,
                      size_t count, void *cbdata)
{
    answer_t *a = cbdata;

    (void)rte;
    a->calls++;
    a->status = status;
    a->value[0] = '\0';
    if (count > 0) {
        snprintf(a->value, sizeof(a->value), "%.*s", (int)names[0].len,
                 (const char *)names[0].value);
        a->jobid = names[0].jobid;
        a->rank = names[0].rank;
        snprintf(a->job_name, sizeof(a->job_name), "%s",
                 names[0].job_name != NULL ? names[0].job_name : "");
    }
}

static int begin_jobs(void **state)
{
    int rc = world_setup(state);
    world_t *w = *state;

    if (rc != 0)
        return rc;
    for (uint32_t job = 1; job <= 2; job++)
        for (hnp_vpid_t d = 1; d <= 2; d++)
            if (hnp_rte_job_begin(w->rte[d], job, 2, node_of,
                                  1, 1) != HNP_SUCCESS)
                return -1;
    return 0;
}

static int publish(world_t *w, hnp_vpid_t d, uint32_t job, uint32_t rank,
                   const char *key, const char *value, unsigned flags,
                   answer_t *a)
{
    hnp_rte_name_t n = { .key = key, .value = value, .len = strlen(value) };

    return hnp_rte_name_publish(w->rte[d], job, rank, &n, 1, flags,
                                on_answer, a);
}

static int lookup(world_t *w, hnp_vpid_t d, uint32_t job, uint32_t rank,
                  const char *key, unsigned flags, double timeout,
                  answer_t *a)
{
    return hnp_rte_name_lookup(w->rte[d], job, rank, &key, 1, flags, timeout,
                               on_answer, a);
}

static void test_service_publish_lookup(void **state)
{
    world_t *w = *state;
    answer_t pub = { 0 }, again = { 0 }, look = { 0 }, none = { 0 };
    answer_t unpub = { 0 }, after = { 0 };
    const char *key = "svc";

    assert_int_equal(publish(w, 1, 1, 0, "svc", "port-0", 0, &pub),
                     HNP_SUCCESS);
    assert_int_equal(pub.calls, 0); /* never inside the call */
    WORLD_RUN_UNTIL(w, pub.calls == 1, 10);
    assert_int_equal(pub.status, HNP_SUCCESS);
    assert_int_equal(publish(w, 2, 1, 1, "svc", "port-1", 0, &again),
                     HNP_SUCCESS);
    assert_int_equal(lookup(w, 2, 1, 1, "svc", 0, 0, &look), HNP_SUCCESS);
    assert_int_equal(lookup(w, 2, 1, 1, "nothing", 0, 0, &none),
                     HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, again.calls && look.calls && none.calls, 10);
    assert_int_equal(again.status, HNP_ERR_EXISTS);
    assert_int_equal(look.status, HNP_SUCCESS);
    assert_string_equal(look.value, "port-0");
    assert_int_equal(look.jobid, 1);
    assert_int_equal(look.rank, 0);
    assert_true(strlen(look.job_name) > 0);
    assert_int_equal(none.status, HNP_ERR_NOT_FOUND);
    /* job 2 is another family: it does not see job 1's name */
    memset(&look, 0, sizeof(look));
    assert_int_equal(lookup(w, 1, 2, 0, "svc", 0, 0, &look), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, look.calls == 1, 10);
    assert_int_equal(look.status, HNP_ERR_NOT_FOUND);
    assert_int_equal(hnp_rte_name_unpublish(w->rte[2], 1, 1, &key, 1, 0,
                                            on_answer, &unpub), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, unpub.calls == 1, 10);
    assert_int_equal(unpub.status, HNP_SUCCESS);
    assert_int_equal(lookup(w, 1, 1, 0, "svc", 0, 0, &after), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, after.calls == 1, 10);
    assert_int_equal(after.status, HNP_ERR_NOT_FOUND);
    /* a rank of a job this daemon does not run is refused at once */
    assert_int_equal(lookup(w, 1, 1, 1, "svc", 0, 0, &after),
                     HNP_ERR_BAD_PARAM);
}

static void test_service_wait(void **state)
{
    world_t *w = *state;
    answer_t waits = { 0 }, times_out = { 0 }, ends = { 0 }, pub = { 0 };

    /* PMIX_WAIT: answered when the name comes */
    assert_int_equal(lookup(w, 2, 1, 1, "later", HNP_RTE_NAME_WAIT, 0,
                            &waits), HNP_SUCCESS);
    assert_int_equal(lookup(w, 2, 1, 1, "never", HNP_RTE_NAME_WAIT, 0.2,
                            &times_out), HNP_SUCCESS);
    assert_int_equal(lookup(w, 1, 2, 0, "never", HNP_RTE_NAME_WAIT, 0,
                            &ends), HNP_SUCCESS);
    world_settle(w);
    assert_int_equal(waits.calls, 0);
    assert_int_equal(ends.calls, 0);
    WORLD_RUN_UNTIL(w, times_out.calls == 1, 10);
    assert_int_equal(times_out.status, HNP_ERR_NOT_FOUND);
    assert_int_equal(publish(w, 1, 1, 0, "later", "port-later", 0, &pub),
                     HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, waits.calls == 1 && pub.calls == 1, 10);
    assert_int_equal(waits.status, HNP_SUCCESS);
    assert_string_equal(waits.value, "port-later");
    /* job 2 ends at the HNP: its waiting lookup is answered */
    hnp_rte_names_job_end(w->rte[0], 2);
    WORLD_RUN_UNTIL(w, ends.calls == 1, 10);
    assert_int_equal(ends.status, HNP_ERR_NOT_FOUND);
}

static void test_service_job_end(void **state)
{
    world_t *w = *state;
    answer_t a = { 0 }, b = { 0 }, pending = { 0 }, gone = { 0 };
    answer_t kept = { 0 };

    assert_int_equal(publish(w, 1, 1, 0, "dies", "x", 0, &a), HNP_SUCCESS);
    assert_int_equal(publish(w, 1, 1, 0, "stays", "y",
                             HNP_RTE_NAME_PERSIST | HNP_RTE_NAME_SESSION, &b),
                     HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, a.calls == 1 && b.calls == 1, 10);
    assert_int_equal(a.status, HNP_SUCCESS);
    assert_int_equal(b.status, HNP_SUCCESS);
    /* a daemon's request still waiting fails at its job's end there */
    assert_int_equal(lookup(w, 2, 1, 1, "none", HNP_RTE_NAME_WAIT, 0,
                            &pending), HNP_SUCCESS);
    hnp_rte_job_end(w->rte[2], 1);
    assert_int_equal(pending.calls, 1);
    assert_int_equal(pending.status, HNP_ERR_UNREACHABLE);
    hnp_rte_names_job_end(w->rte[0], 1);
    /* job 2 (another family) sees the session's persistent name only */
    assert_int_equal(lookup(w, 2, 2, 1, "dies", 0, 0, &gone), HNP_SUCCESS);
    assert_int_equal(lookup(w, 2, 2, 1, "stays", 0, 0, &kept), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, gone.calls == 1 && kept.calls == 1, 10);
    assert_int_equal(gone.status, HNP_ERR_NOT_FOUND);
    assert_int_equal(kept.status, HNP_SUCCESS);
    assert_string_equal(kept.value, "y");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_scopes),
        cmocka_unit_test(test_table_lookup_many),
        cmocka_unit_test(test_table_unpublish),
        cmocka_unit_test(test_table_job_end),
        cmocka_unit_test(test_table_family),
        cmocka_unit_test_setup_teardown(test_service_publish_lookup,
                                        begin_jobs, world_teardown),
        cmocka_unit_test_setup_teardown(test_service_wait, begin_jobs,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_service_job_end, begin_jobs,
                                        world_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
