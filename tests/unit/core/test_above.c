/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What only comes down the trees (launch, signal, shutdown, a broadcast,
 * the welcome, stdin) is taken only from a direct peer the role says is
 * above: daemon 2 here has the HNP above it and nobody else; daemon 1 may
 * not command it, directly or inside a broadcast, and the HNP takes such
 * messages from nobody. Each refusal is a warning naming the peer.
 */
#include "world.h"

#include <string.h>

#include "hnp_errors.h"
#include "hnp_log.h"
#include "wire/xcast.h"

static unsigned signals[WORLD_PROCS];
static char warnings[4096];

static void on_signal(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata)
{
    (void)src;
    (void)tag;
    (void)data;
    (void)len;
    (void)cbdata;
    signals[hnp_rte_my_vpid(rte)]++;
}

static void capture(void *ctx, hnp_log_severity_t sev, const char *stream,
                    const char *message)
{
    (void)ctx;
    (void)stream;
    if (sev == HNP_LOG_WARN && strlen(warnings) + strlen(message) + 2 <
                                   sizeof(warnings)) {
        strcat(warnings, message);
        strcat(warnings, "\n");
    }
}

static bool hnp_only(hnp_rte_t *rte, hnp_vpid_t peer)
{
    (void)rte;
    return peer == 0;
}

static int setup(void **state)
{
    int rc = world_setup(state);
    world_t *w = *state;

    memset(signals, 0, sizeof(signals));
    warnings[0] = '\0';
    hnp_log_set_handler(capture, NULL);
    for (hnp_vpid_t v = 0; v < WORLD_PROCS; v++) {
        assert_int_equal(hnp_rte_recv(w->rte[v], HNP_TAG_SIGNAL, on_signal,
                                      NULL), HNP_SUCCESS);
        if (v != 0)
            w->rte[v]->role.above = hnp_only;
    }
    return rc;
}

static int teardown(void **state)
{
    hnp_log_set_handler(NULL, NULL);
    return world_teardown(state);
}

static void test_signal_only_from_above(void **state)
{
    world_t *w = *state;

    assert_int_equal(hnp_rte_send_direct(w->rte[1], 2, HNP_TAG_SIGNAL, "x", 1),
                     HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, strstr(warnings, "from vpid 1 dropped") != NULL, 10);
    world_settle(w);
    assert_int_equal(signals[2], 0);
    assert_int_equal(hnp_rte_send_direct(w->rte[0], 2, HNP_TAG_SIGNAL, "x", 1),
                     HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, signals[2] == 1, 10);
}

/* A broadcast from a peer that is not above is dropped whole: neither
 * delivered nor forwarded. */
static void test_broadcast_only_from_above(void **state)
{
    world_t *w = *state;
    hnp_buffer_t buf;
    hnp_wire_xcast_t x = { .tag = HNP_TAG_SIGNAL, .data = "x", .len = 1 };

    hnp_buffer_init(&buf);
    assert_int_equal(hnp_wire_xcast_pack(&buf, &x), HNP_SUCCESS);
    assert_int_equal(hnp_rte_send_direct(w->rte[1], 2, HNP_TAG_XCAST,
                                         buf.data, buf.len),
                     HNP_SUCCESS);
    /* The HNP has nobody above it. */
    assert_int_equal(hnp_rte_send_direct(w->rte[1], 0, HNP_TAG_XCAST,
                                         buf.data, buf.len),
                     HNP_SUCCESS);
    hnp_buffer_release(&buf);
    WORLD_RUN_UNTIL(w, strstr(warnings, "tag 3 from vpid 1 dropped") != NULL,
                    10);
    world_settle(w);
    assert_int_equal(signals[0], 0);
    assert_int_equal(signals[2], 0);
}

/* What is not a command passes between daemons as before. */
static void test_other_tags_from_anyone(void **state)
{
    world_t *w = *state;
    unsigned before = signals[2];

    assert_int_equal(hnp_rte_recv(w->rte[2], HNP_TAG_PLM_FIRST, on_signal,
                                  NULL), HNP_SUCCESS);
    assert_int_equal(hnp_rte_send_direct(w->rte[1], 2, HNP_TAG_PLM_FIRST,
                                         "y", 1), HNP_SUCCESS);
    WORLD_RUN_UNTIL(w, signals[2] == before + 1, 10);
    assert_null(strstr(warnings, "dropped"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_signal_only_from_above, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_broadcast_only_from_above, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_other_tags_from_anyone, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
