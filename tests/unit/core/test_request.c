/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of requests to the daemon that hosts a rank (hnp_rte.h,
 * hnp_rte_serve/request/reply) on real runtime contexts over loopback:
 * daemon 1 runs ranks 0 and 1, daemon 2 ranks 2 and 3. Answers from
 * another daemon and from oneself, never inside hnp_rte_request();
 * requests held until their service is posted, then delivered from the
 * loop in arrival order; a rank the serving daemon does not host; and
 * failures: at the job's end on either side, and when the serving daemon
 * is lost. Two jobs held at once, with other maps: a request goes to the
 * host of its own job's rank, the service learns which job it is for; a
 * request for a job not begun there yet waits for its begin, one for a
 * job that ended there is refused.
 */
#include "world.h"

#include <stdlib.h>
#include <string.h>

#define SERVICE HNP_TAG_PMI_FIRST

static const uint32_t node_of[4] = { 0, 0, 1, 1 };

typedef struct answer {
    unsigned calls;
    int status;
    char text[64];
} answer_t;

static bool calling; /* a test is inside hnp_rte_request() or _serve() */

static void on_answer(hnp_rte_t *rte, int status, const void *data,
                      size_t len, void *cbdata)
{
    answer_t *a = cbdata;

    (void)rte;
    assert_false(calling);
    a->calls++;
    a->status = status;
    snprintf(a->text, sizeof(a->text), "%.*s", (int)len,
             len > 0 ? (const char *)data : "");
}

/* What the service saw, and a request it keeps unanswered. */
typedef struct served {
    unsigned count;
    hnp_vpid_t src;
    uint32_t jobid;
    char log[128];
    hnp_rte_request_t *kept;
} served_t;

/* Answers "<rank>:<data>", except "keep", which it keeps. */
static void echo(hnp_rte_t *rte, hnp_rte_request_t *req, hnp_vpid_t src,
                 uint32_t jobid, uint32_t rank, const void *data, size_t len,
                 void *cbdata)
{
    served_t *s = cbdata;
    char out[64];
    int n;

    (void)rte;
    assert_false(calling);
    s->count++;
    s->src = src;
    s->jobid = jobid;
    n = snprintf(out, sizeof(out), "%u:%.*s", rank, (int)len,
                 (const char *)data);
    strncat(s->log, out, sizeof(s->log) - strlen(s->log) - 1);
    strncat(s->log, " ", sizeof(s->log) - strlen(s->log) - 1);
    if (len == 4 && memcmp(data, "keep", 4) == 0) {
        s->kept = req;
        return;
    }
    hnp_rte_reply(req, HNP_SUCCESS, out, (size_t)n);
}

static int ask_job(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                   const char *text, answer_t *a)
{
    calling = true;
    int rc = hnp_rte_request(rte, SERVICE, jobid, rank, text, strlen(text),
                             on_answer, a);
    calling = false;
    return rc;
}

static int ask(hnp_rte_t *rte, uint32_t rank, const char *text, answer_t *a)
{
    calling = true;
    int rc = hnp_rte_request(rte, SERVICE, 1, rank, text, strlen(text),
                             on_answer, a);
    calling = false;
    return rc;
}

static void serve(hnp_rte_t *rte, served_t *s)
{
    calling = true;
    int rc = hnp_rte_serve(rte, SERVICE, echo, s);
    calling = false;
    assert_int_equal(rc, HNP_SUCCESS);
}

static int setup(void **state)
{
    world_t *w;

    world_setup(state);
    w = *state;
    for (hnp_vpid_t v = 1; v < WORLD_PROCS; v++)
        assert_int_equal(hnp_rte_job_begin(w->rte[v], 1, 4, node_of, 2, 2),
                         HNP_SUCCESS);
    return 0;
}

static void test_answered_by_another_daemon(void **state)
{
    world_t *w = *state;
    served_t s = { 0 };
    answer_t a = { 0 };

    serve(w->rte[1], &s);
    assert_int_equal(ask(w->rte[2], 1, "key", &a), HNP_SUCCESS);
    assert_int_equal(a.calls, 0);
    WORLD_RUN_UNTIL(w, a.calls == 1, 5);
    assert_int_equal(a.status, HNP_SUCCESS);
    assert_string_equal(a.text, "1:key");
    assert_int_equal(s.src, 2);
    world_settle(w);
    assert_int_equal(a.calls, 1);
}

static void test_answered_by_this_daemon(void **state)
{
    world_t *w = *state;
    served_t s = { 0 };
    answer_t a = { 0 };

    serve(w->rte[2], &s);
    assert_int_equal(ask(w->rte[2], 3, "mine", &a), HNP_SUCCESS);
    assert_int_equal(s.count, 0);
    assert_int_equal(a.calls, 0);
    WORLD_RUN_UNTIL(w, a.calls == 1, 5);
    assert_int_equal(a.status, HNP_SUCCESS);
    assert_string_equal(a.text, "3:mine");
    assert_int_equal(s.src, 2);
}

static void test_held_until_served(void **state)
{
    world_t *w = *state;
    served_t s = { 0 };
    answer_t a = { 0 }, b = { 0 }, c = { 0 };

    assert_int_equal(ask(w->rte[2], 0, "first", &a), HNP_SUCCESS);
    assert_int_equal(ask(w->rte[2], 1, "second", &b), HNP_SUCCESS);
    assert_int_equal(ask(w->rte[2], 0, "third", &c), HNP_SUCCESS);
    world_settle(w);
    assert_int_equal(a.calls + b.calls + c.calls, 0);
    serve(w->rte[1], &s); /* nothing inside the call (echo checks) */
    assert_int_equal(s.count, 0);
    WORLD_RUN_UNTIL(w, a.calls + b.calls + c.calls == 3, 5);
    assert_string_equal(s.log, "0:first 1:second 0:third ");
    assert_string_equal(a.text, "0:first");
    assert_string_equal(b.text, "1:second");
    assert_string_equal(c.text, "0:third");
}

/* Daemon 2 believes rank 2 runs on node 0: daemon 1 says it does not. */
static void test_rank_not_hosted_there(void **state)
{
    world_t *w = *state;
    static const uint32_t wrong[4] = { 0, 0, 0, 1 };
    served_t s = { 0 };
    answer_t a = { 0 };

    serve(w->rte[1], &s);
    hnp_rte_job_end(w->rte[2], 1);
    assert_int_equal(hnp_rte_job_begin(w->rte[2], 1, 4, wrong, 1, 2),
                     HNP_SUCCESS);
    assert_int_equal(ask(w->rte[2], 2, "x", &a), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, a.calls == 1, 5);
    assert_int_equal(a.status, HNP_ERR_BAD_PARAM);
    assert_int_equal(s.count, 0);
}

/* The requester's job ends: its request fails there and then; the
 * service's late answer is dropped, on both sides. */
static void test_pending_fails_at_job_end(void **state)
{
    world_t *w = *state;
    served_t s = { 0 };
    answer_t a = { 0 };

    serve(w->rte[1], &s);
    assert_int_equal(ask(w->rte[2], 0, "keep", &a), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, s.kept != NULL, 5);
    hnp_rte_job_end(w->rte[2], 1);
    assert_int_equal(a.calls, 1);
    assert_int_equal(a.status, HNP_ERR_UNREACHABLE);
    hnp_rte_reply(s.kept, HNP_SUCCESS, "late", 4); /* the job goes on here */
    hnp_rte_job_end(w->rte[1], 1);
    world_settle(w);
    assert_int_equal(a.calls, 1);
    assert_int_equal(ask(w->rte[2], 0, "x", &a), HNP_ERR_BAD_PARAM);
}

/* The service still holds a request when its own job ends: answering it
 * afterwards is safe and sends nothing. */
static void test_answer_after_the_servers_job_end(void **state)
{
    world_t *w = *state;
    served_t s = { 0 };
    answer_t a = { 0 };

    serve(w->rte[1], &s);
    assert_int_equal(ask(w->rte[2], 1, "keep", &a), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, s.kept != NULL, 5);
    hnp_rte_job_end(w->rte[1], 1);
    hnp_rte_reply(s.kept, HNP_SUCCESS, "late", 4);
    world_settle(w);
    assert_int_equal(a.calls, 0);
    hnp_rte_job_end(w->rte[2], 1);
    assert_int_equal(a.calls, 1);
    assert_int_equal(a.status, HNP_ERR_UNREACHABLE);
}

/* Requests held for a service nobody posted are refused at the job's end. */
static void test_held_refused_at_the_servers_job_end(void **state)
{
    world_t *w = *state;
    answer_t a = { 0 };

    assert_int_equal(ask(w->rte[2], 0, "never", &a), HNP_SUCCESS);
    world_settle(w);
    assert_int_equal(a.calls, 0);
    hnp_rte_job_end(w->rte[1], 1);
    WORLD_RUN_UNTIL(w, a.calls == 1, 5);
    assert_int_equal(a.status, HNP_ERR_UNREACHABLE);
}

static void test_fails_when_the_daemon_is_lost(void **state)
{
    world_t *w = *state;
    served_t s = { 0 };
    answer_t a = { 0 };

    serve(w->rte[1], &s);
    assert_int_equal(ask(w->rte[2], 0, "keep", &a), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, s.kept != NULL, 5);
    hnp_rte_job_end(w->rte[1], 1);
    hnp_rte_reply(s.kept, HNP_SUCCESS, NULL, 0); /* dropped: frees it */
    world_stop(w, 1);
    WORLD_RUN_UNTIL(w, a.calls == 1, 5);
    assert_int_equal(a.status, HNP_ERR_UNREACHABLE);
    world_settle(w);
    assert_int_equal(a.calls, 1);
}

static void test_refusals(void **state)
{
    world_t *w = *state;
    served_t s = { 0 };
    answer_t a = { 0 };

    assert_int_equal(ask(w->rte[2], 4, "x", &a), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_request(w->rte[2], 5, 1, 0, "x", 1, on_answer, &a),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_request(w->rte[2], SERVICE, 1, 0, "x", 1,
                                     NULL, &a),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_request(w->rte[2], SERVICE, 1, 0, NULL, 1,
                                     on_answer, &a),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_serve(w->rte[1], 99, echo, &s),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_rte_serve(w->rte[1], 1000, echo, &s),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(ask(w->rte[0], 0, "x", &a), HNP_ERR_BAD_PARAM); /* HNP */
    world_settle(w);
    assert_int_equal(a.calls, 0);
}

/* Job 2 runs its ranks the other way round (0 and 1 on daemon 2): the
 * same rank of two jobs is asked of two daemons, each service told the
 * job; job 1 ending on daemon 1 leaves job 2's requests alone. */
static void test_two_jobs_each_its_hosts(void **state)
{
    world_t *w = *state;
    static const uint32_t reversed[4] = { 1, 1, 0, 0 };
    served_t s1 = { 0 }, s2 = { 0 };
    answer_t a = { 0 }, b = { 0 }, c = { 0 };

    for (hnp_vpid_t v = 1; v < WORLD_PROCS; v++)
        assert_int_equal(hnp_rte_job_begin(w->rte[v], 2, 4, reversed, 2, 2),
                         HNP_SUCCESS);
    serve(w->rte[1], &s1);
    serve(w->rte[2], &s2);
    assert_int_equal(ask_job(w->rte[1], 1, 0, "one", &a), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, a.calls == 1, 5);
    assert_int_equal(s1.count, 1);
    assert_int_equal(s1.jobid, 1);
    assert_int_equal(ask_job(w->rte[1], 2, 0, "two", &b), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, b.calls == 1, 5);
    assert_int_equal(b.status, HNP_SUCCESS);
    assert_string_equal(b.text, "0:two");
    assert_int_equal(s2.count, 1);
    assert_int_equal(s2.jobid, 2);
    assert_int_equal(s2.src, 1);
    /* job 1 ends on daemon 1: a request of daemon 2 for it is refused
     * there, one for job 2 is served */
    hnp_rte_job_end(w->rte[1], 1);
    assert_int_equal(ask_job(w->rte[2], 1, 0, "gone", &c), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, c.calls == 1, 5);
    assert_int_equal(c.status, HNP_ERR_NOT_FOUND);
    assert_int_equal(s1.count, 1);
    memset(&c, 0, sizeof(c));
    assert_int_equal(ask_job(w->rte[2], 2, 3, "on", &c), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, c.calls == 1, 5);
    assert_int_equal(c.status, HNP_SUCCESS);
    assert_string_equal(c.text, "3:on");
    assert_int_equal(s1.jobid, 2);
}

/* A request for a job whose launch has not reached the serving daemon
 * waits for the job's begin there. */
static void test_held_until_its_job_begins(void **state)
{
    world_t *w = *state;
    served_t s = { 0 };
    answer_t a = { 0 };

    serve(w->rte[1], &s);
    assert_int_equal(hnp_rte_job_begin(w->rte[2], 3, 4, node_of, 2, 2),
                     HNP_SUCCESS);
    assert_int_equal(ask_job(w->rte[2], 3, 1, "early", &a), HNP_SUCCESS);
    world_settle(w);
    assert_int_equal(a.calls, 0);
    assert_int_equal(s.count, 0);
    assert_int_equal(hnp_rte_job_begin(w->rte[1], 3, 4, node_of, 2, 2),
                     HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, a.calls == 1, 5);
    assert_int_equal(a.status, HNP_SUCCESS);
    assert_string_equal(a.text, "1:early");
    assert_int_equal(s.jobid, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_two_jobs_each_its_hosts, setup,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_held_until_its_job_begins, setup,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_answered_by_another_daemon,
                                        setup, world_teardown),
        cmocka_unit_test_setup_teardown(test_answered_by_this_daemon, setup,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_held_until_served, setup,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_rank_not_hosted_there, setup,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_pending_fails_at_job_end, setup,
                                        world_teardown),
        cmocka_unit_test_setup_teardown(test_answer_after_the_servers_job_end,
                                        setup, world_teardown),
        cmocka_unit_test_setup_teardown(
            test_held_refused_at_the_servers_job_end, setup, world_teardown),
        cmocka_unit_test_setup_teardown(test_fails_when_the_daemon_is_lost,
                                        setup, world_teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, world_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
