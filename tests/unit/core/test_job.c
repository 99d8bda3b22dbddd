/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the services of an application job (hnp_rte.h,
 * "application jobs") on three real runtime contexts (the HNP and two
 * daemons, on loopback): all-gathers numbered by series and seq over the
 * exchange, never calling back inside hnp_rte_allgather(), joined with
 * nothing, once, by the HNP and by a daemon without ranks however two
 * series interleave; the ranks' wire-up states; abort reaching the HNP.
 * Several jobs held at once: each job's all-gathers in its own series,
 * joined with nothing by the daemons without ranks of that job only;
 * one heard of before its job's launch, while the daemon holds another
 * job without ranks, is not joined with nothing; a job's end completes
 * its unfinished all-gathers with an error here and joins with nothing
 * those the others wait for.
 */
#include "world.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "wire/pmi_abort.h"

#define SPAN 65536u

static const uint32_t two_ranks_on_node0[2] = { 0, 0 };

/* What one hnp_rte_allgather() caller learnt. */
typedef struct result {
    unsigned learned;
    char from1[32];   /* vpid 1's contribution */
    size_t others;    /* bytes from every other vpid */
    bool complete;
    int status;
} result_t;

static bool gathering; /* a test is inside hnp_rte_allgather() */

static void on_learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                       size_t len)
{
    result_t *r = cbdata;

    assert_false(gathering);
    r->learned++;
    if (vpid == 1)
        snprintf(r->from1, sizeof(r->from1), "%.*s", (int)len,
                 (const char *)data);
    else
        r->others += len;
}

static void on_complete(void *cbdata, int status)
{
    result_t *r = cbdata;

    assert_false(gathering);
    assert_false(r->complete);
    r->complete = true;
    r->status = status;
}

static int gather_job(hnp_rte_t *rte, uint32_t jobid, uint32_t series,
                      uint32_t seq, const char *text, result_t *r)
{
    hnp_exchange_callbacks_t cb = { on_learned, on_complete, r };

    gathering = true;
    int rc = hnp_rte_allgather(rte, jobid, series, seq, text, strlen(text),
                               &cb);
    gathering = false;
    return rc;
}

/* Job 1 owns series 1..4 (begin()). */
static int gather(hnp_rte_t *rte, uint32_t series, uint32_t seq,
                  const char *text, result_t *r)
{
    return gather_job(rte, 1, series, seq, text, r);
}

/* All-gather @p id was joined once by every process, with nothing by the
 * HNP and daemon 2, and every contribution came back to vpid 1. */
static void expect_gathered(uint32_t id, const result_t *r, const char *text)
{
    fake_gather_t *g = fake_gather_find(id);

    assert_non_null(g);
    assert_true(g->done);
    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++)
        assert_int_equal(g->joins[v], 1);
    assert_int_equal(g->len[0], 0);
    assert_int_equal(g->len[2], 0);
    assert_true(r->complete);
    assert_int_equal(r->status, HNP_SUCCESS);
    assert_int_equal(r->learned, WORLD_PROCS);
    assert_string_equal(r->from1, text);
    assert_int_equal(r->others, 0);
}

/* Job @p jobid, 4 series: job 1 owns series 1..4, job 2 5..8. */
static void begin_job(world_t *w, hnp_vpid_t v, uint32_t jobid,
                      const uint32_t *node_of, uint32_t nlocal)
{
    assert_int_equal(hnp_rte_job_begin(w->rte[v], jobid, 2, node_of, nlocal,
                                       4),
                     HNP_SUCCESS);
}

static void begin(world_t *w, hnp_vpid_t v, uint32_t nlocal)
{
    begin_job(w, v, 1, two_ranks_on_node0, nlocal);
}

/* Series 2 goes first: a join that took ids for ever-growing would skip
 * seq 0 of series 1 and that fence would never end. */
static void test_two_series_interleaved(void **state)
{
    world_t *w = *state;
    result_t a0 = { 0 }, b0 = { 0 }, a1 = { 0 }, b1 = { 0 };

    begin(w, 1, 2);
    begin(w, 2, 0); /* no ranks: joins with nothing */
    assert_int_equal(gather(w->rte[1], 2, 0, "b0", &b0), HNP_SUCCESS);
    assert_int_equal(gather(w->rte[1], 1, 0, "a0", &a0), HNP_SUCCESS);
    assert_int_equal(fake_ngathers, 0); /* not inside the calls */
    WORLD_RUN_UNTIL(w, a0.complete && b0.complete, 5);
    assert_int_equal(gather(w->rte[1], 1, 1, "a1", &a1), HNP_SUCCESS);
    assert_int_equal(gather(w->rte[1], 2, 1, "b1", &b1), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, a1.complete && b1.complete, 5);
    world_settle(w); /* a second join of any would show now */
    expect_gathered(2 * SPAN + 0 + 1, &b0, "b0");
    expect_gathered(1 * SPAN + 0 + 1, &a0, "a0");
    expect_gathered(1 * SPAN + 1 + 1, &a1, "a1");
    expect_gathered(2 * SPAN + 1 + 1, &b1, "b1");
    assert_int_equal(fake_ngathers, 4);
}

/* A daemon without ranks that hears of an all-gather before it knows its
 * job joins it when the job begins. */
static void test_idle_daemon_joins_at_job_begin(void **state)
{
    world_t *w = *state;
    result_t r = { 0 };

    begin(w, 1, 2);
    assert_int_equal(gather(w->rte[1], 3, 0, "x", &r), HNP_SUCCESS);
    world_settle(w);
    assert_false(r.complete);
    assert_int_equal(fake_gather_find(3 * SPAN + 1)->joins[0], 1);
    assert_int_equal(fake_gather_find(3 * SPAN + 1)->joins[2], 0);
    begin(w, 2, 0);
    WORLD_RUN_UNTIL(w, r.complete, 5);
    expect_gathered(3 * SPAN + 1, &r, "x");
}

/* A daemon without ranks in two jobs in a row joins the all-gathers of
 * both. */
static void test_idle_daemon_joins_in_the_next_job(void **state)
{
    world_t *w = *state;
    result_t r = { 0 };

    begin(w, 1, 2);
    begin(w, 2, 0);
    assert_int_equal(gather(w->rte[1], 1, 0, "j1", &r), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, r.complete, 5);
    hnp_rte_job_end(w->rte[1], 1);
    hnp_rte_job_end(w->rte[2], 1);
    memset(&r, 0, sizeof(r));
    begin_job(w, 1, 2, two_ranks_on_node0, 2);
    begin_job(w, 2, 2, two_ranks_on_node0, 0);
    /* job 2's series 5 */
    assert_int_equal(gather_job(w->rte[1], 2, 5, 0, "j2", &r), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, r.complete, 5);
    expect_gathered(5 * SPAN + 1, &r, "j2");
}

static void test_allgather_refusals(void **state)
{
    world_t *w = *state;
    size_t max = hnp_rte_allgather_max(w->rte[1]);
    char *big = calloc(1, max + 1);
    result_t r = { 0 };
    hnp_exchange_callbacks_t cb = { on_learned, on_complete, &r };

    assert_non_null(big);
    assert_true(max >= 4096);
    /* outside a job, and in the HNP */
    assert_int_equal(gather(w->rte[1], 1, 0, "x", &r), HNP_ERR_BAD_PARAM);
    assert_int_equal(gather(w->rte[0], 1, 0, "x", &r), HNP_ERR_BAD_PARAM);
    begin(w, 1, 2);
    /* series 0 would be the contact exchange's id */
    assert_int_equal(gather(w->rte[1], 0, 0, "x", &r), HNP_ERR_BAD_PARAM);
    assert_int_equal(gather(w->rte[1], SPAN, 0, "x", &r), HNP_ERR_BAD_PARAM);
    assert_int_equal(gather(w->rte[1], 1, SPAN - 1, "x", &r),
                     HNP_ERR_BAD_PARAM);
    /* a series of no job's, or of another job's */
    assert_int_equal(gather(w->rte[1], 5, 0, "x", &r), HNP_ERR_BAD_PARAM);
    assert_int_equal(gather_job(w->rte[1], 2, 1, 0, "x", &r),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_allgather(w->rte[1], 1, 1, 0, NULL, 1, &cb),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_allgather(w->rte[1], 1, 1, 0, big, max + 1,
                                       &cb),
                     HNP_ERR_TRUNCATED);
    world_settle(w);
    assert_int_equal(fake_ngathers, 0);
    assert_false(r.complete);
    /* the last id there is: series 65535 is job 65535's, of one series */
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 65535, 2,
                                       two_ranks_on_node0, 2, 1),
                     HNP_SUCCESS);
    assert_int_equal(gather_job(w->rte[1], 65535, SPAN - 1, SPAN - 2, "x",
                                &r),
                     HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, fake_ngathers == 1, 5);
    assert_non_null(fake_gather_find(UINT32_MAX));
    /* it waits for daemon 2, which never holds the job: its end says so */
    hnp_rte_job_end(w->rte[1], 65535);
    assert_true(r.complete);
    assert_int_equal(r.status, HNP_ERR_UNREACHABLE);
    free(big);
}

/* ------------------------------------------------------------ jobs apart */

static const uint32_t two_ranks_on_node1[2] = { 1, 1 };
static const uint32_t one_rank_a_node[2] = { 0, 1 };

/* Job 1 runs on daemon 1, job 2 on daemon 2, both held by both: each
 * all-gather has its own job's contribution, and the daemon without
 * ranks of that job joins it with nothing, once. */
static void test_two_jobs_gather_apart(void **state)
{
    world_t *w = *state;
    result_t r1 = { 0 }, r2 = { 0 };
    fake_gather_t *g;

    begin(w, 1, 2);
    begin(w, 2, 0);
    begin_job(w, 1, 2, two_ranks_on_node1, 0);
    begin_job(w, 2, 2, two_ranks_on_node1, 2);
    assert_int_equal(gather_job(w->rte[2], 2, 5, 0, "job2", &r2),
                     HNP_SUCCESS);
    assert_int_equal(gather(w->rte[1], 1, 0, "job1", &r1), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, r1.complete && r2.complete, 5);
    world_settle(w);
    expect_gathered(1 * SPAN + 1, &r1, "job1");
    g = fake_gather_find(5 * SPAN + 1);
    assert_non_null(g);
    assert_true(g->done);
    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++)
        assert_int_equal(g->joins[v], 1);
    assert_int_equal(g->len[1], 0);
    assert_int_equal(g->len[2], 4);
    assert_string_equal(r2.from1, "");
    assert_int_equal(r2.others, 4);
    assert_int_equal(fake_ngathers, 2);
}

/* Daemon 2 holds job 1 without ranks when it hears of job 2's first
 * all-gather, before job 2's launch reaches it: it must not join it with
 * nothing (its ranks of job 2 would lose their contribution, and its own
 * join later be refused: the fence never completes), but wait for job
 * 2's begin, where its component joins with its ranks' data. */
static void test_heard_before_launch_while_holding_another(void **state)
{
    world_t *w = *state;
    result_t a = { 0 }, b = { 0 };
    fake_gather_t *g;

    begin(w, 1, 2);
    begin(w, 2, 0);
    begin_job(w, 1, 2, one_rank_a_node, 1);
    assert_int_equal(gather_job(w->rte[1], 2, 5, 0, "a", &a), HNP_SUCCESS);
    world_settle(w);
    g = fake_gather_find(5 * SPAN + 1);
    assert_non_null(g);
    assert_int_equal(g->joins[2], 0);
    assert_false(a.complete);
    begin_job(w, 2, 2, one_rank_a_node, 1);
    world_settle(w);
    assert_int_equal(g->joins[2], 0);
    assert_int_equal(gather_job(w->rte[2], 2, 5, 0, "bb", &b), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, a.complete && b.complete, 5);
    assert_int_equal(a.status, HNP_SUCCESS);
    assert_int_equal(b.status, HNP_SUCCESS);
    assert_int_equal(g->joins[2], 1);
    assert_int_equal(g->len[2], 2);
    assert_int_equal(a.others, 2);
    assert_string_equal(b.from1, "a");
}

/* A job ends on a daemon in the middle of an all-gather: the caller
 * there hears of it at once (an error), and nothing after; on the daemon
 * whose ranks never joined, the job's end joins it with nothing, so
 * that it completes for the others and the exchange lets it go. */
static void test_job_end_ends_its_all_gathers(void **state)
{
    world_t *w = *state;
    result_t a = { 0 }, b = { 0 };
    fake_gather_t *g;

    begin_job(w, 1, 1, one_rank_a_node, 1);
    begin_job(w, 2, 1, one_rank_a_node, 1);
    assert_int_equal(gather(w->rte[1], 1, 0, "x", &a), HNP_SUCCESS);
    world_settle(w);
    assert_false(a.complete);
    hnp_rte_job_end(w->rte[2], 1); /* its rank there died before the fence */
    WORLD_RUN_UNTIL(w, a.complete, 5);
    assert_int_equal(a.status, HNP_SUCCESS);
    g = fake_gather_find(1 * SPAN + 1);
    assert_true(g->done);
    assert_int_equal(g->joins[2], 1);
    assert_int_equal(g->len[2], 0);
    /* and the other way: the caller's job ends first */
    begin_job(w, 1, 2, one_rank_a_node, 1);
    begin_job(w, 2, 2, one_rank_a_node, 1);
    assert_int_equal(gather_job(w->rte[1], 2, 5, 0, "y", &b), HNP_SUCCESS);
    world_settle(w);
    hnp_rte_job_end(w->rte[1], 2);
    assert_true(b.complete);
    assert_int_equal(b.status, HNP_ERR_UNREACHABLE);
    hnp_rte_job_end(w->rte[2], 2);
    WORLD_RUN_UNTIL(w, fake_gather_find(5 * SPAN + 1)->done, 5);
    world_settle(w); /* on_complete fails a second call */
    hnp_rte_job_end(w->rte[1], 1);
}

/* ------------------------------------------------------------ states */

static void test_unfinalized_is_connected_without_finalize(void **state)
{
    world_t *w = *state;
    static const uint32_t node_of[4] = { 0, 0, 0, 1 };
    hnp_rte_t *rte = w->rte[1];

    assert_false(hnp_rte_proc_unfinalized(rte, 1, 0)); /* no job */
    assert_int_equal(hnp_rte_job_begin(rte, 1, 4, node_of, 3, 2),
                     HNP_SUCCESS);
    assert_int_equal(hnp_rte_job_begin(rte, 2, 4, node_of, 3, 2),
                     HNP_SUCCESS);
    assert_false(hnp_rte_proc_unfinalized(rte, 1, 0));
    hnp_rte_proc_state(rte, 1, 0, HNP_RTE_PROC_CONNECTED);
    hnp_rte_proc_state(rte, 1, 1, HNP_RTE_PROC_CONNECTED);
    hnp_rte_proc_state(rte, 1, 1, HNP_RTE_PROC_FINALIZED);
    hnp_rte_proc_state(rte, 1, 2, HNP_RTE_PROC_FINALIZED);
    hnp_rte_proc_state(rte, 1, 3, HNP_RTE_PROC_CONNECTED); /* node 1's */
    hnp_rte_proc_state(rte, 1, 9, HNP_RTE_PROC_CONNECTED); /* not in it */
    hnp_rte_proc_state(rte, 7, 2, HNP_RTE_PROC_CONNECTED); /* no such job */
    assert_true(hnp_rte_proc_unfinalized(rte, 1, 0));
    assert_false(hnp_rte_proc_unfinalized(rte, 1, 1));
    assert_false(hnp_rte_proc_unfinalized(rte, 1, 2));
    assert_false(hnp_rte_proc_unfinalized(rte, 1, 3));
    assert_false(hnp_rte_proc_unfinalized(rte, 1, 9));
    /* job 2's ranks are its own */
    assert_false(hnp_rte_proc_unfinalized(rte, 2, 0));
    hnp_rte_proc_state(rte, 2, 2, HNP_RTE_PROC_CONNECTED);
    assert_true(hnp_rte_proc_unfinalized(rte, 2, 2));
    assert_false(hnp_rte_proc_unfinalized(rte, 1, 2));
    hnp_rte_job_end(rte, 1);
    assert_false(hnp_rte_proc_unfinalized(rte, 1, 0));
    assert_true(hnp_rte_proc_unfinalized(rte, 2, 2));
    /* the next job starts clean */
    assert_int_equal(hnp_rte_job_begin(rte, 3, 4, node_of, 3, 2),
                     HNP_SUCCESS);
    assert_false(hnp_rte_proc_unfinalized(rte, 3, 0));
}

static void test_job_begin_refusals(void **state)
{
    world_t *w = *state;

    assert_int_equal(hnp_rte_job_begin(w->rte[0], 1, 2, two_ranks_on_node0,
                                       0, 4),
                     HNP_ERR_BAD_PARAM); /* the HNP */
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 1, 0, two_ranks_on_node0,
                                       0, 4),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 1, 2, NULL, 0, 4),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 1, 2, two_ranks_on_node0,
                                       3, 4),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 0, 2, two_ranks_on_node0,
                                       2, 4),
                     HNP_ERR_BAD_PARAM); /* job 0 is the runtime */
    begin(w, 1, 2);
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 1, 2, two_ranks_on_node0,
                                       2, 4),
                     HNP_ERR_BAD_PARAM); /* held already */
    /* job 65536's series 1..4 are job 1's, which lives */
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 65536, 2,
                                       two_ranks_on_node0, 2, 4),
                     HNP_ERR_EXISTS);
    /* several at once */
    begin_job(w, 1, 2, two_ranks_on_node0, 2);
    begin_job(w, 1, 3, two_ranks_on_node0, 2);
    hnp_rte_job_end(w->rte[1], 1);
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 65536, 2,
                                       two_ranks_on_node0, 2, 4),
                     HNP_SUCCESS);
}

/* ------------------------------------------------------------ abort */

typedef struct aborted {
    unsigned count;
    hnp_vpid_t src;
    uint32_t jobid;
    uint32_t rank;
    int code;
    char words[64];
} aborted_t;

static void on_abort(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                     const void *data, size_t len, void *cbdata)
{
    aborted_t *a = cbdata;
    hnp_wire_pmi_abort_t m;
    hnp_reader_t rd;

    (void)rte;
    (void)tag;
    hnp_reader_init(&rd, data, len);
    assert_int_equal(hnp_wire_pmi_abort_unpack(&rd, &m), HNP_SUCCESS);
    a->count++;
    a->src = src;
    a->jobid = m.jobid;
    a->rank = m.rank;
    a->code = m.code;
    snprintf(a->words, sizeof(a->words), "%s", m.words);
    hnp_wire_pmi_abort_clear(&m);
}

static void test_abort_reaches_the_hnp(void **state)
{
    world_t *w = *state;
    static const uint32_t node_of[4] = { 0, 0, 0, 1 };
    aborted_t a = { 0 };

    for (hnp_vpid_t v = 1; v < WORLD_PROCS; v++) {
        assert_int_equal(hnp_rte_job_begin(w->rte[v], 4, 4, node_of,
                                           v == 1 ? 3 : 1, 2),
                         HNP_SUCCESS);
        assert_int_equal(hnp_rte_job_begin(w->rte[v], 5, 4, node_of,
                                           v == 1 ? 3 : 1, 2),
                         HNP_SUCCESS);
    }
    assert_int_equal(hnp_rte_recv(w->rte[0], HNP_TAG_PMI_ABORT, on_abort, &a),
                     HNP_SUCCESS);
    hnp_rte_abort_job(w->rte[2], 5, 3, 7, "giving up");
    WORLD_RUN_UNTIL(w, a.count == 1, 5);
    assert_int_equal(a.src, 2);
    assert_int_equal(a.jobid, 5);
    assert_int_equal(a.rank, 3);
    assert_int_equal(a.code, 7);
    assert_string_equal(a.words, "giving up");
    hnp_rte_abort_job(w->rte[1], 4, 0, 1, NULL);
    WORLD_RUN_UNTIL(w, a.count == 2, 5);
    assert_int_equal(a.src, 1);
    assert_int_equal(a.jobid, 4);
    assert_string_equal(a.words, "");
    /* a rank of another node, a job not held: nothing */
    hnp_rte_abort_job(w->rte[1], 4, 3, 1, NULL);
    hnp_rte_abort_job(w->rte[1], 6, 0, 1, NULL);
    world_settle(w);
    assert_int_equal(a.count, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_two_series_interleaved,
                                        world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(test_idle_daemon_joins_at_job_begin,
                                        world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(
            test_idle_daemon_joins_in_the_next_job, world_setup,
            world_teardown),
        cmocka_unit_test_setup_teardown(test_allgather_refusals, world_setup,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_two_jobs_gather_apart,
                                        world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(
            test_heard_before_launch_while_holding_another, world_setup,
            world_teardown),
        cmocka_unit_test_setup_teardown(test_job_end_ends_its_all_gathers,
                                        world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(
            test_unfinalized_is_connected_without_finalize, world_setup,
            world_teardown),
        cmocka_unit_test_setup_teardown(test_job_begin_refusals, world_setup,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_abort_reaches_the_hnp,
                                        world_setup, world_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
