/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the gather_scatter exchange in a runtime that grows
 * (daemons added while it runs, the exchange's grow hook): an all-gather
 * begun before keeps its processes and completes without the added ones,
 * whose late part is dropped; one begun after waits for them too and
 * sends them the table; a daemon takes a table of more processes than it
 * knows yet. The component's sources are compiled in and the runtime's
 * services are faked here: one program plays the HNP or a daemon.
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

#include "hnp_buffer.h"
#include "hnp_exchange.h"
#include "hnp_rte.h"
#include "exchange/gather_scatter/exchange_gather_scatter.h"

#define GS exchange_gather_scatter_module

#define MAX_PROCS 8

/* ------------------------------------------------------------ the fake */

static struct {
    hnp_vpid_t self;
    uint32_t nprocs;
    hnp_rte_recv_fn handler[2]; /* contribution, table */
    unsigned tables_to[MAX_PROCS]; /* the HNP's tables sent to each vpid */
} fake;

hnp_vpid_t hnp_rte_my_vpid(const hnp_rte_t *rte)
{
    (void)rte;
    return fake.self;
}

uint32_t hnp_rte_num_procs(const hnp_rte_t *rte)
{
    (void)rte;
    return fake.nprocs;
}

bool hnp_rte_is_hnp(const hnp_rte_t *rte)
{
    (void)rte;
    return fake.self == 0;
}

int hnp_rte_recv(hnp_rte_t *rte, uint32_t tag, hnp_rte_recv_fn fn,
                 void *cbdata)
{
    (void)rte;
    (void)cbdata;
    fake.handler[tag - GATHER_SCATTER_TAG_CONTRIBUTION] = fn;
    return HNP_SUCCESS;
}

int hnp_rte_send_direct(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t tag,
                        const void *data, size_t len)
{
    (void)rte;
    (void)data;
    (void)len;
    assert_true(dest < MAX_PROCS);
    if (tag == GATHER_SCATTER_TAG_TABLE)
        fake.tables_to[dest]++;
    else /* a daemon's part */
        assert_int_equal(dest, 0);
    return HNP_SUCCESS;
}

void hnp_rte_collective_seen(hnp_rte_t *rte, uint32_t id)
{
    (void)rte;
    (void)id;
}

/* ------------------------------------------------------------ the test's */

typedef struct result {
    unsigned learned[MAX_PROCS];
    bool complete;
    int status;
} result_t;

static void learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                    size_t len)
{
    result_t *r = cbdata;

    (void)data;
    (void)len;
    assert_true(vpid < MAX_PROCS);
    r->learned[vpid]++;
}

static void complete(void *cbdata, int status)
{
    result_t *r = cbdata;

    r->complete = true;
    r->status = status;
}

/* Daemon @p src's part of all-gather @p id reaches the HNP. */
static void contribute(hnp_vpid_t src, uint32_t id)
{
    hnp_buffer_t buf;
    char part[8];

    snprintf(part, sizeof(part), "v%u", src);
    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, id);
    hnp_pack_blob(&buf, part, strlen(part));
    fake.handler[0](NULL, src, GATHER_SCATTER_TAG_CONTRIBUTION, buf.data,
                    buf.len, NULL);
    hnp_buffer_release(&buf);
}

static int start(hnp_vpid_t self, uint32_t nprocs)
{
    memset(&fake, 0, sizeof(fake));
    fake.self = self;
    fake.nprocs = nprocs;
    return GS.init(NULL);
}

static int stop(void **state)
{
    (void)state;
    GS.finalize(NULL);
    return 0;
}

/* ------------------------------------------------------------ tests */

static void test_begun_before_keeps_its_processes(void **state)
{
    hnp_exchange_callbacks_t cb;
    result_t r = { 0 };

    (void)state;
    assert_int_equal(start(0, 3), HNP_SUCCESS);
    cb = (hnp_exchange_callbacks_t){ learned, complete, &r };
    contribute(1, 7); /* all-gather 7 begins among 0..2 */
    fake.nprocs = 5;
    assert_int_equal(GS.grow(NULL, 5), HNP_SUCCESS);
    contribute(3, 7); /* an added daemon: not one of 7's */
    assert_int_equal(GS.allgather(NULL, 7, "h", 1, &cb), HNP_SUCCESS);
    assert_false(r.complete);
    contribute(2, 7);
    assert_true(r.complete);
    assert_int_equal(r.status, HNP_SUCCESS);
    for (hnp_vpid_t v = 0; v < 3; v++)
        assert_int_equal(r.learned[v], 1);
    assert_int_equal(r.learned[3], 0);
    assert_int_equal(fake.tables_to[1], 1);
    assert_int_equal(fake.tables_to[2], 1);
    assert_int_equal(fake.tables_to[3], 0);
    assert_int_equal(fake.tables_to[4], 0);
}

static void test_begun_after_waits_for_added(void **state)
{
    hnp_exchange_callbacks_t cb;
    result_t r = { 0 };

    (void)state;
    assert_int_equal(start(0, 3), HNP_SUCCESS);
    fake.nprocs = 5;
    assert_int_equal(GS.grow(NULL, 5), HNP_SUCCESS);
    cb = (hnp_exchange_callbacks_t){ learned, complete, &r };
    assert_int_equal(GS.allgather(NULL, 8, "h", 1, &cb), HNP_SUCCESS);
    for (hnp_vpid_t v = 1; v < 4; v++)
        contribute(v, 8);
    assert_false(r.complete);
    contribute(4, 8);
    assert_true(r.complete);
    for (hnp_vpid_t v = 0; v < 5; v++)
        assert_int_equal(r.learned[v], 1);
    for (hnp_vpid_t v = 1; v < 5; v++)
        assert_int_equal(fake.tables_to[v], 1);
    assert_int_equal(GS.grow(NULL, 4), HNP_ERR_BAD_PARAM); /* never shrinks */
}

/* The HNP's table of all-gather @p id, of @p n entries, reaches this
 * daemon. */
static void table_arrives(uint32_t id, uint32_t n)
{
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, id);
    hnp_pack_u32(&buf, n);
    for (uint32_t v = 0; v < n; v++)
        hnp_pack_blob(&buf, "x", 1);
    fake.handler[1](NULL, 0, GATHER_SCATTER_TAG_TABLE, buf.data, buf.len,
                    NULL);
    hnp_buffer_release(&buf);
}

/* The HNP grew and began one among 5; this daemon still knows 3 and
 * learns those. Once it knows 5, one the HNP began among 3, before it
 * grew, completes too; one of fewer than the runtime ever had does not. */
static void test_daemon_takes_tables_across_growth(void **state)
{
    hnp_exchange_callbacks_t cb;
    result_t r = { 0 }, before = { 0 }, bad = { 0 };

    (void)state;
    assert_int_equal(start(2, 3), HNP_SUCCESS);
    cb = (hnp_exchange_callbacks_t){ learned, complete, &r };
    assert_int_equal(GS.allgather(NULL, 9, "d", 1, &cb), HNP_SUCCESS);
    table_arrives(9, 5);
    assert_true(r.complete);
    assert_int_equal(r.status, HNP_SUCCESS);
    for (hnp_vpid_t v = 0; v < 3; v++)
        assert_int_equal(r.learned[v], 1);
    assert_int_equal(r.learned[3] + r.learned[4], 0); /* unknown to it */

    fake.nprocs = 5;
    assert_int_equal(GS.grow(NULL, 5), HNP_SUCCESS);
    cb = (hnp_exchange_callbacks_t){ learned, complete, &before };
    assert_int_equal(GS.allgather(NULL, 10, "d", 1, &cb), HNP_SUCCESS);
    table_arrives(10, 3);
    assert_true(before.complete);
    cb = (hnp_exchange_callbacks_t){ learned, complete, &bad };
    assert_int_equal(GS.allgather(NULL, 11, "d", 1, &cb), HNP_SUCCESS);
    table_arrives(11, 2);
    assert_false(bad.complete);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_begun_before_keeps_its_processes, stop),
        cmocka_unit_test_teardown(test_begun_after_waits_for_added, stop),
        cmocka_unit_test_teardown(test_daemon_takes_tables_across_growth,
                                  stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
