/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Node lists grow geometrically (runtime/hosts/hostfile.c).
 *
 * A list that reallocates once a node is quadratic wherever realloc copies
 * (valgrind, ASan, a fragmented heap): a hostfile of 200,000 names took
 * more than five minutes under valgrind. The test counts the reallocations
 * rather than timing anything: realloc is wrapped at link time
 * (-Wl,--wrap=realloc), which catches the calls of the sources compiled
 * into this program and none of libc's own (getline's buffer).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "hosts/hostlist.h"

void *__real_realloc(void *ptr, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static unsigned long reallocs;

void *__wrap_realloc(void *ptr, size_t size)
{
    reallocs++;
    return __real_realloc(ptr, size);
}

/* Doubling from any start makes at most one reallocation a bit of @p n,
 * and a parse uses two arrays (its own, then the caller's). */
static unsigned long logarithmic_bound(size_t n)
{
    unsigned long bits = 0;

    for (; n > 0; n >>= 1)
        bits++;
    return 2 * bits + 2;
}

static void expect_node(const hnp_nodelist_t *l, size_t i, const char *name,
                        uint32_t slots)
{
    if (i >= l->count)
        fail_msg("node %zu missing (only %zu)", i, l->count);
    if (strcmp(l->nodes[i].name, name) != 0 || l->nodes[i].slots != slots ||
        !l->nodes[i].slots_given)
        fail_msg("node %zu is %s slots=%u, want %s slots=%u", i,
                 l->nodes[i].name, l->nodes[i].slots, name, slots);
}

/* A hostfile of @p lines hosts "nI slots=2", I from 0, then "n0" again
 * (one slot more); the caller unlinks and frees the path. */
static char *write_large_hostfile(size_t lines)
{
    const char *dir = getenv("TMPDIR");
    char *path;

    if (asprintf(&path, "%s/hnp-growth-XXXXXX", dir ? dir : "/tmp") < 0)
        fail();
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f, "# generated: %zu hosts\n", lines);
    for (size_t i = 0; i < lines; i++)
        fprintf(f, "n%zu slots=2\n", i);
    fprintf(f, "n0 # a name listed again is one slot more\n");
    assert_int_equal(fclose(f), 0);
    return path;
}

static void test_large_hostfile(void **state)
{
    const size_t lines = 200000;
    hnp_nodelist_t l = { NULL, 0, 0 };
    char err[512] = "";
    char *path = write_large_hostfile(lines);
    (void)state;

    reallocs = 0;
    int rc = hnp_nodelist_parse_hostfile(&l, path, err, sizeof(err));
    unsigned long used = reallocs;
    unlink(path);
    free(path);
    if (rc != HNP_SUCCESS)
        fail_msg("large hostfile: %d %s", rc, err);
    assert_int_equal(l.count, lines);
    expect_node(&l, 0, "n0", 3);
    expect_node(&l, 1, "n1", 2);
    expect_node(&l, lines - 1, "n199999", 2);
    if (used > logarithmic_bound(lines))
        fail_msg("%zu hosts took %lu reallocations, want at most %lu",
                 lines, used, logarithmic_bound(lines));

    /* Merged into a list that already holds nodes: the same. */
    path = write_large_hostfile(lines);
    reallocs = 0;
    rc = hnp_nodelist_parse_hostfile(&l, path, err, sizeof(err));
    used = reallocs;
    unlink(path);
    free(path);
    assert_int_equal(rc, HNP_SUCCESS);
    assert_int_equal(l.count, lines);
    expect_node(&l, 0, "n0", 6);
    expect_node(&l, lines - 1, "n199999", 4);
    if (used > logarithmic_bound(lines))
        fail_msg("%zu hosts again took %lu reallocations, want at most %lu",
                 lines, used, logarithmic_bound(lines));
    hnp_nodelist_free(&l);
    assert_int_equal(l.capacity, 0);
}

static void test_large_host_list(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    char err[512] = "";
    (void)state;

    reallocs = 0;
    int rc = hnp_nodelist_parse_hosts(&l, "x,n[1-100000]:2", err,
                                      sizeof(err));
    if (rc != HNP_SUCCESS)
        fail_msg("--host: %d %s", rc, err);
    assert_int_equal(l.count, 100001);
    expect_node(&l, 100000, "n100000", 2);
    if (reallocs > logarithmic_bound(l.count))
        fail_msg("--host of %zu hosts took %lu reallocations", l.count,
                 reallocs);
    hnp_nodelist_free(&l);
}

/* One add at a time, as a batch allocation is read. */
static void test_many_adds(void **state)
{
    const size_t n = 4096;
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    reallocs = 0;
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "a%zu", i);
        assert_int_equal(hnp_nodelist_add(&l, name, 1, true), HNP_SUCCESS);
    }
    assert_int_equal(l.count, n);
    expect_node(&l, n - 1, "a4095", 1);
    if (reallocs > logarithmic_bound(n))
        fail_msg("%zu adds took %lu reallocations", n, reallocs);
    hnp_nodelist_free(&l);
}

/* An array the list did not grow itself (capacity 0) is never written past
 * its end: the first add reallocates it. */
static void test_foreign_array(void **state)
{
    hnp_nodelist_t l = { calloc(2, sizeof(hnp_node_t)), 2, 0 };
    (void)state;

    assert_non_null(l.nodes);
    l.nodes[0] = (hnp_node_t){ .name = strdup("p"), .slots = 1,
                               .slots_given = true };
    l.nodes[1] = (hnp_node_t){ .name = strdup("q"), .slots = 1,
                               .slots_given = true };
    reallocs = 0;
    assert_int_equal(hnp_nodelist_add(&l, "r", 1, true), HNP_SUCCESS);
    assert_int_equal(reallocs, 1);
    assert_true(l.capacity >= 3);
    expect_node(&l, 0, "p", 1);
    expect_node(&l, 2, "r", 1);
    hnp_nodelist_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_hostfile),
        cmocka_unit_test(test_large_host_list),
        cmocka_unit_test(test_many_adds),
        cmocka_unit_test(test_foreign_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
