/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the runtime messages (runtime/wire/<message>.c).
 *
 * Every message goes through the same checks, driven by a table of codecs:
 * a round trip of non-trivial values (empty strings, extreme integers,
 * several entries) that must read back equal and consume the whole
 * message; every truncation of it, which must fail and leave the struct
 * zeroed with nothing allocated; and every allocation the unpack makes,
 * failed in turn, with the same demands. Inputs are exact-size heap copies,
 * so an over-read shows under valgrind or AddressSanitizer. Golden byte
 * strings pin the layout each message had before it moved here, and the
 * cases that only some messages have (counts no message could hold, a
 * launch without a program, a subtree outside the job) follow.
 *
 * The checks themselves are in codec_check.c, which wraps the allocator
 * to count the live blocks of the code under test and fail any one
 * allocation.
 */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec_check.h"
#include "message_codecs.h"
#include "hnp_buffer.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "control.h"
#include "dvm.h"
#include "failure.h"
#include "iof.h"
#include "join.h"
#include "launch.h"
#include "name.h"
#include "pmi_abort.h"
#include "spawn.h"
#include "gather.h"
#include "proc_exit.h"
#include "report.h"
#include "request.h"
#include "state.h"
#include "stats.h"
#include "stdin.h"
#include "roster.h"
#include "welcome.h"
#include "xcast.h"

/* ------------------------------------------------------------ phase 1 */

static void test_join(void **state)
{
    hnp_wire_join_t uri = { .uri = "tcp://10.0.0.7:40123", .pid = 4242 };
    hnp_wire_join_t empty = { .uri = "", .pid = UINT32_MAX };
    hnp_wire_join_t null = { .uri = NULL };
    static const uint8_t golden[] = { U32(3), 't', 'c', 'p', U32(77) };
    hnp_wire_join_t three = { .uri = "tcp", .pid = 77 };

    (void)state;
    check_message(&join_codec, &uri);
    check_message(&join_codec, &empty);
    check_message(&join_codec, &null);
    check_golden(&join_codec, &three, golden, sizeof(golden));
}

static void test_daemon_up(void **state)
{
    hnp_wire_daemon_up_t up = { .vpid = 17 };
    hnp_wire_daemon_up_t max = { .vpid = UINT32_MAX };
    static const uint8_t golden[] = { U32(0x01020304) };
    hnp_wire_daemon_up_t g = { .vpid = 0x01020304 };

    (void)state;
    check_message(&daemon_up_codec, &up);
    check_message(&daemon_up_codec, &max);
    check_golden(&daemon_up_codec, &g, golden, sizeof(golden));
}

static void test_welcome(void **state)
{
    static const char params[] = { 'p', '\0', 'q', '\0', 0x7f };
    hnp_wire_welcome_node_t nodes[] = {
        { 3, "node003" }, { 7, "" }, { 8, "node008.cluster" }, { 9, NULL },
    };
    hnp_wire_welcome_t full = {
        .nprocs = 10, .nfirst = 6, .hnp_uri = "tcp://head:1", .params = params,
        .params_len = sizeof(params),
        .components = { "prsh", "radix", "flood", "simple,pmix", "pmix" },
        .nsubtree = 4, .subtree = nodes,
    };
    hnp_wire_welcome_t bare = { .nprocs = UINT32_MAX, .nfirst = UINT32_MAX,
                                .nsubtree = 1, .subtree = nodes };

    (void)state;
    check_message(&welcome_codec, &full);
    check_message(&welcome_codec, &bare);
}

/* The order of the fields, the components' above all: plm, routed,
 * exchange, pmi, the pmi started early. */
static void test_welcome_layout(void **state)
{
    hnp_wire_welcome_node_t node = { 1, "n1" };
    hnp_wire_welcome_t w = {
        .nprocs = 2, .nfirst = 1, .hnp_uri = "u", .params = "P",
        .params_len = 1, .components = { "a", "bb", "", "ccc", "d" },
        .nsubtree = 1, .subtree = &node,
    };
    static const uint8_t golden[] = {
        U32(2), U32(1), U32(1), 'u', U32(1), 'P',
        U32(1), 'a', U32(2), 'b', 'b', U32(0), U32(3), 'c', 'c', 'c',
        U32(1), 'd', U32(1), U32(1), U32(2), 'n', '1',
    };

    (void)state;
    check_golden(&welcome_codec, &w, golden, sizeof(golden));
}

static void test_welcome_refuses_a_subtree_outside_the_job(void **state)
{
    static const uint8_t outside[] = {
        U32(2), U32(2), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0),
        U32(0), /* no pmi started early */
        U32(2), U32(1), U32(0), U32(2), U32(0), /* vpid 2 of 2 */
    };
    static const uint8_t huge_count[] = {
        U32(2), U32(2), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0),
        U32(0), /* no pmi started early */
        U32(0x40000000), U32(1), U32(0),
    };
    /* a first launch of none, or of more than the runtime holds */
    static const uint8_t no_first[] = {
        U32(2), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0),
        U32(0), /* no pmi started early */
        U32(1), U32(1), U32(0),
    };
    static const uint8_t first_too_large[] = {
        U32(2), U32(3), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0),
        U32(0), /* no pmi started early */
        U32(1), U32(1), U32(0),
    };

    (void)state;
    check_refused(&welcome_codec, no_first, sizeof(no_first),
                  HNP_ERR_BAD_PARAM);
    check_refused(&welcome_codec, first_too_large, sizeof(first_too_large),
                  HNP_ERR_BAD_PARAM);
    check_refused(&welcome_codec, outside, sizeof(outside), HNP_ERR_BAD_PARAM);
    check_refused(&welcome_codec, huge_count, sizeof(huge_count),
                  HNP_ERR_TRUNCATED);
}

/* Daemons added to a running runtime: their nodes, their contacts. */
static void test_roster(void **state)
{
    hnp_wire_roster_entry_t added[] = {
        { 5, "node005", "" }, { 6, "node006", "tcp://10.0.0.6:4000" },
        { 9, "", "tcp://10.0.0.9:4001" },
    };
    hnp_wire_roster_t grow = { .nprocs = 10, .count = 3, .entries = added };
    hnp_wire_roster_t none = { .nprocs = 1, .count = 0, .entries = NULL };
    hnp_wire_roster_t one = { .nprocs = 2, .count = 1, .entries = added };
    static const uint8_t golden[] = {
        U32(7), U32(1), U32(5), U32(7), 'n', 'o', 'd', 'e', '0', '0', '5',
        U32(0),
    };
    /* an entry for the HNP, one outside the runtime, a huge count */
    static const uint8_t hnp[] = { U32(3), U32(1), U32(0), U32(0), U32(0) };
    static const uint8_t outside[] = { U32(3), U32(1), U32(3), U32(0),
                                       U32(0) };
    static const uint8_t huge[] = { U32(3), U32(0x10000000), U32(1), U32(0),
                                    U32(0) };

    (void)state;
    check_message(&roster_codec, &grow);
    check_message(&roster_codec, &none);
    one.entries = &added[0];
    one.nprocs = 7;
    check_golden(&roster_codec, &one, golden, sizeof(golden));
    check_refused(&roster_codec, hnp, sizeof(hnp), HNP_ERR_BAD_PARAM);
    check_refused(&roster_codec, outside, sizeof(outside), HNP_ERR_BAD_PARAM);
    check_refused(&roster_codec, huge, sizeof(huge), HNP_ERR_TRUNCATED);
}

/* ------------------------------------------------------------ broadcasts */

static void test_xcast(void **state)
{
    static const uint8_t inner[] = { 0, 1, 2, 0, 0xff };
    hnp_wire_xcast_t x = { .tag = 4, .data = inner, .len = sizeof(inner) };
    hnp_wire_xcast_t empty = { .tag = UINT32_MAX, .data = NULL, .len = 0 };
    static const uint8_t golden[] = { U32(4), U32(5), 0, 1, 2, 0, 0xff };

    (void)state;
    check_message(&xcast_codec, &x);
    check_message(&xcast_codec, &empty);
    check_golden(&xcast_codec, &x, golden, sizeof(golden));
}

static void test_launch(void **state)
{
    uint32_t node_of[] = { 0, 0, 1, 2, 2 };
    char *names[] = { "n0", "", "node-with-a-long-name.cluster" };
    uint32_t slots[] = { 2, 0, UINT32_MAX };
    char *env[] = { "A=1", "", "PATH=/usr/bin:/bin" };
    char *argv0[] = { "/bin/true" };
    char *argv1[] = { "./app", "", "--flag=x y" };
    char *env1[] = { "Q=1" };
    hnp_wire_launch_app_t apps[] = {
        { 0, 2, 1, argv0, "/scratch/run", 3, env },
        { 2, 3, 3, argv1, "/tmp", 1, env1 },
    };
    char *specs[] = { "1:0-2", "", "0,1", "*", "0:*" };
    hnp_wire_launch_t full = {
        .jobid = 1, .nprocs = 5, .nnodes = 3, .node_of = node_of,
        .node_names = names, .node_slots = slots, .universe_size = 7,
        .place = { HNP_OBJ_SOCKET, 1, 2, 4, HNP_OBJ_CPULIST, 0x1f, "0-3",
                   5, specs },
        .stdin_target = HNP_STDIN_ALL, .output = HNP_LAUNCH_MERGE_STDERR,
        .napps = 2,
        .apps = apps, .pmi = "simple,pmix", .parent_jobid = 3,
        .spawn_component = "pmix", .spawn_data = "ab", .spawn_data_len = 2,
    };
    hnp_wire_launch_app_t bare_app = { 0, 0, 1, argv0, NULL, 0, NULL };
    hnp_wire_launch_t bare = {
        .jobid = UINT32_MAX,
        .place = { HNP_OBJ_HWTHREAD, UINT8_MAX, UINT32_MAX, UINT32_MAX,
                   HNP_OBJ_CPULIST, UINT8_MAX, NULL, 0, NULL },
        .stdin_target = INT32_MIN, .output = UINT8_MAX, .napps = 1,
        .apps = &bare_app,
    };

    (void)state;
    check_message(&launch_codec, &full);
    check_message(&launch_codec, &bare);
}

static void test_launch_layout(void **state)
{
    uint32_t node_of[] = { 0, 1 };
    char *names[] = { "a", "bc" };
    uint32_t slots[] = { 4, 5 };
    char *env[] = { "A=1" };
    char *argv[] = { "x", "-v" };
    hnp_wire_launch_app_t app = { 0, 2, 2, argv, "/w", 1, env };
    hnp_wire_launch_t m = {
        .jobid = 1, .nprocs = 2, .nnodes = 2, .node_of = node_of,
        .node_names = names, .node_slots = slots, .universe_size = 9,
        .place = { HNP_OBJ_MACHINE, 0, 0, 0, HNP_OBJ_CORE, 0, "", 0, NULL },
        .stdin_target = HNP_STDIN_NONE, .output = HNP_LAUNCH_MERGE_STDERR,
        .napps = 1, .apps = &app, .pmi = "s",
    };
    static const uint8_t golden[] = {
        U32(1), U32(2), U32(2), U32(0), U32(1),
        U32(1), 'a', U32(4), U32(2), 'b', 'c', U32(5), U32(9),
        HNP_OBJ_MACHINE, 0, U32(0), U32(0), HNP_OBJ_CORE, 0, U32(0), U32(0),
        0xff, 0xff, 0xff, 0xff, HNP_LAUNCH_MERGE_STDERR,
        U32(1), U32(0), U32(2), U32(2), U32(1), 'x', U32(2), '-', 'v',
        U32(2), '/', 'w', U32(1), U32(3), 'A', '=', '1',
        U32(1), 's', U32(0), U32(0), U32(0),
    };

    (void)state;
    check_golden(&launch_codec, &m, golden, sizeof(golden));
}

/* What no HNP sends: refused, and counts no message could hold are
 * refused before anything is allocated for them. */
/* An empty placement block of the launch message. */
#define PLACE0 HNP_OBJ_MACHINE, 0, U32(0), U32(0), 0, 0, U32(0), U32(0)

static void test_launch_refusals(void **state)
{
    static const uint8_t no_app[] = {
        U32(1), U32(0), U32(0), U32(0), PLACE0, U32(0), 0, U32(0),
    };
    static const uint8_t no_program[] = {
        U32(1), U32(0), U32(0), U32(0), PLACE0, U32(0), 0,
        U32(1), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0),
    };
    static const uint8_t huge_nprocs[] = {
        U32(1), U32(0x40000000), U32(1), U32(0), U32(0), U32(0),
    };
    static const uint8_t huge_nnodes[] = {
        U32(1), U32(0), U32(0x40000000), U32(0), U32(0), U32(0),
    };
    /* rank 0 on node 1 of 1 */
    static const uint8_t node_outside[] = {
        U32(1), U32(1), U32(1), U32(1), U32(1), 'a', U32(1), U32(1),
        PLACE0, U32(0), 0, U32(1), U32(0), U32(1), U32(1),
        U32(1), 'x', U32(0), U32(0), U32(0),
    };
    static const uint8_t huge_env[] = {
        U32(1), U32(0), U32(0), U32(0), PLACE0, U32(0), 0,
        U32(1), U32(0), U32(0), U32(1), U32(1), 'x', U32(0),
        U32(0xffffffff), U32(0), U32(0),
    };
    static const uint8_t huge_napps[] = {
        U32(1), U32(0), U32(0), U32(0), PLACE0, U32(0), 0,
        U32(0x10000000), U32(0), U32(0), U32(1), U32(0), U32(0), U32(0),
    };
    static const uint8_t bad_object[] = {
        U32(1), U32(0), U32(0), U32(0), HNP_OBJ_CPULIST, 0,
        U32(0), U32(0), 0, 0, U32(0), U32(0), U32(0), U32(0),
    };
    static const uint8_t huge_argc[] = {
        U32(1), U32(0), U32(0), U32(0), PLACE0, U32(0), 0,
        U32(1), U32(0), U32(0), U32(0x7fffffff), U32(0), U32(0), U32(0),
    };
    /* the second node's name holds a NUL; the second node's name runs
     * past the end (the names are read in one block) */
    static const uint8_t name_with_nul[] = {
        U32(1), U32(0), U32(2), U32(1), 'a', U32(1), U32(2), 'b', 0, U32(1),
        U32(2), PLACE0, U32(0), 0, U32(1), U32(0), U32(0), U32(1),
        U32(1), 'x', U32(0), U32(0), U32(0),
    };
    static const uint8_t name_past_end[] = {
        U32(1), U32(0), U32(2), U32(1), 'a', U32(1), U32(200), 'b', 'c',
    };

    (void)state;
    check_refused(&launch_codec, no_app, sizeof(no_app), HNP_ERR_BAD_PARAM);
    check_refused(&launch_codec, bad_object, sizeof(bad_object),
                  HNP_ERR_BAD_PARAM);
    check_refused(&launch_codec, no_program, sizeof(no_program),
                  HNP_ERR_BAD_PARAM);
    check_refused(&launch_codec, huge_nprocs, sizeof(huge_nprocs),
                  HNP_ERR_TRUNCATED);
    check_refused(&launch_codec, huge_nnodes, sizeof(huge_nnodes),
                  HNP_ERR_TRUNCATED);
    check_refused(&launch_codec, node_outside, sizeof(node_outside),
                  HNP_ERR_BAD_PARAM);
    check_refused(&launch_codec, huge_env, sizeof(huge_env),
                  HNP_ERR_TRUNCATED);
    check_refused(&launch_codec, huge_napps, sizeof(huge_napps),
                  HNP_ERR_TRUNCATED);
    check_refused(&launch_codec, huge_argc, sizeof(huge_argc),
                  HNP_ERR_TRUNCATED);
    check_refused(&launch_codec, name_with_nul, sizeof(name_with_nul),
                  HNP_ERR_TRUNCATED);
    check_refused(&launch_codec, name_past_end, sizeof(name_past_end),
                  HNP_ERR_TRUNCATED);
}

static void test_control(void **state)
{
    hnp_wire_signal_t term = { .jobid = 70000, .signo = 15 };
    hnp_wire_signal_t min = { .jobid = UINT32_MAX, .signo = INT32_MIN };
    hnp_wire_shutdown_t now = { .now = true };
    hnp_wire_shutdown_t later = { .now = false };
    static const uint8_t golden_signal[] = { U32(70000), U32(15) };
    hnp_wire_procs_started_t started = { .jobid = 70000 };
    static const uint8_t golden_started[] = { U32(70000) };
    static const uint8_t golden_now[] = { 1 };
    static const uint8_t golden_later[] = { 0 };
    hnp_wire_kill_daemon_t kill3 = { .vpid = 3 };
    static const uint8_t golden_kill[] = { U32(3) };

    (void)state;
    check_message(&signal_codec, &term);
    check_message(&signal_codec, &min);
    check_message(&shutdown_codec, &now);
    check_message(&shutdown_codec, &later);
    check_golden(&signal_codec, &term, golden_signal, sizeof(golden_signal));
    check_refused(&signal_codec, golden_signal, 4, HNP_ERR_TRUNCATED);
    check_message(&procs_started_codec, &started);
    check_golden(&procs_started_codec, &started, golden_started,
                 sizeof(golden_started));
    check_refused(&procs_started_codec, golden_started, 3,
                  HNP_ERR_TRUNCATED);
    check_golden(&shutdown_codec, &now, golden_now, sizeof(golden_now));
    check_golden(&shutdown_codec, &later, golden_later, sizeof(golden_later));
    check_message(&kill_daemon_codec, &kill3);
    check_golden(&kill_daemon_codec, &kill3, golden_kill, sizeof(golden_kill));
    check_refused(&kill_daemon_codec, golden_kill, 3, HNP_ERR_TRUNCATED);
}

/* Any byte but 0 means now, as it did when the byte was read by hand. */
static void test_shutdown_any_nonzero_byte_is_now(void **state)
{
    static const uint8_t two[] = { 2 };
    hnp_wire_shutdown_t m = { .now = false };
    hnp_reader_t rd;

    (void)state;
    hnp_reader_init(&rd, two, sizeof(two));
    assert_int_equal(hnp_wire_shutdown_unpack(&rd, &m), HNP_SUCCESS);
    assert_true(m.now);
}

/* ------------------------------------------------------------ daemon -> HNP */

static void test_iof(void **state)
{
    static const char line[] = "hello\n\0binary\xff";
    hnp_wire_iof_t out = { .jobid = 2, .rank = 3, .stream = 2, .data = line,
                           .len = sizeof(line) - 1,
                           .read_us = 1795881600123456ull };
    hnp_wire_iof_t empty = { .jobid = UINT32_MAX, .rank = UINT32_MAX, .stream = UINT8_MAX,
                             .flags = UINT8_MAX, .read_us = UINT64_MAX };
    static const uint8_t golden[] = { U32(70000), U32(3), 1, 1,
                                      U64(0x0102030405060708ull), U32(2),
                                      'o', 'k' };
    hnp_wire_iof_t g = { .jobid = 70000, .rank = 3, .stream = 1, .flags = HNP_IOF_CUT,
                         .read_us = 0x0102030405060708ull, .data = "ok",
                         .len = 2 };

    (void)state;
    check_message(&iof_codec, &out);
    check_message(&iof_codec, &empty);
    check_golden(&iof_codec, &g, golden, sizeof(golden));
}

static void test_iof_ack(void **state)
{
    hnp_wire_iof_ack_t some = { .bytes = 65536 };
    hnp_wire_iof_ack_t max = { .bytes = UINT64_MAX };
    static const uint8_t golden[] = { U64(0x0102030405060708ull) };
    hnp_wire_iof_ack_t g = { .bytes = 0x0102030405060708ull };

    (void)state;
    check_message(&iof_ack_codec, &some);
    check_message(&iof_ack_codec, &max);
    check_golden(&iof_ack_codec, &g, golden, sizeof(golden));
}

/* ------------------------------------------------------------ daemon <-> daemon */

static void test_request(void **state)
{
    static const char key[] = "modex\0of rank 7\xff";
    hnp_wire_request_t out = { .jobid = 70000, .id = 41, .service = 400,
                               .rank = 7, .data = key,
                               .len = sizeof(key) - 1 };
    hnp_wire_request_t empty = { .jobid = UINT32_MAX, .id = UINT32_MAX,
                                 .service = UINT32_MAX, .rank = UINT32_MAX };
    static const uint8_t golden[] = { U32(3), U32(1), U32(401), U32(2),
                                      U32(1), 'k' };
    hnp_wire_request_t g = { .jobid = 3, .id = 1, .service = 401, .rank = 2,
                             .data = "k", .len = 1 };

    (void)state;
    check_message(&request_codec, &out);
    check_message(&request_codec, &empty);
    check_golden(&request_codec, &g, golden, sizeof(golden));
}

static void test_reply(void **state)
{
    static const uint8_t blob[] = { 0, 1, 2, 0xfe, 0xff };
    hnp_wire_reply_t out = { .id = 41, .status = 0, .data = blob,
                             .len = sizeof(blob) };
    hnp_wire_reply_t failed = { .id = 0, .status = INT32_MIN };
    static const uint8_t golden[] = { U32(9), 0xff, 0xff, 0xff, 0xfe,
                                      U32(0) };
    hnp_wire_reply_t g = { .id = 9, .status = -2 };

    (void)state;
    check_message(&reply_codec, &out);
    check_message(&reply_codec, &failed);
    check_golden(&reply_codec, &g, golden, sizeof(golden));
}

static void test_proc_exit(void **state)
{
    hnp_wire_proc_exit_t killed = { .jobid = 9, .rank = 12, .pid = 4242,
                                    .wait_status = 9, .exec_errno = 0,
                                    .why = NULL };
    hnp_wire_proc_exit_t failed = { .jobid = UINT32_MAX, .rank = UINT32_MAX, .pid = INT32_MIN,
                                    .wait_status = INT32_MAX,
                                    .exec_errno = -1,
                                    .why = "working directory /nope: No such "
                                           "file or directory" };
    static const uint8_t golden[] = {
        U32(70000), U32(1), U32(100), U32(0x100), U32(2), U32(1), 'w',
    };
    hnp_wire_proc_exit_t g = { .jobid = 70000, .rank = 1, .pid = 100, .wait_status = 0x100,
                               .exec_errno = 2, .why = "w" };

    (void)state;
    check_message(&proc_exit_codec, &killed);
    check_message(&proc_exit_codec, &failed);
    check_golden(&proc_exit_codec, &g, golden, sizeof(golden));
}

/* ------------------------------------------------------------ --timeout */

static void test_state_request(void **state)
{
    hnp_wire_state_request_t stacks = { .jobid = 3, .flags = HNP_STATE_STACKS,
                                        .stack_ms = 10000 };
    hnp_wire_state_request_t max = { .jobid = UINT32_MAX, .flags = UINT8_MAX,
                                     .stack_ms = UINT32_MAX };
    static const uint8_t golden[] = { U32(70000), 1, U32(2500) };
    hnp_wire_state_request_t g = { .jobid = 70000, .flags = HNP_STATE_STACKS,
                                   .stack_ms = 2500 };

    (void)state;
    check_message(&state_request_codec, &stacks);
    check_message(&state_request_codec, &max);
    check_golden(&state_request_codec, &g, golden, sizeof(golden));
}

static void test_state_reply(void **state)
{
    hnp_wire_rank_state_t ranks[] = {
        { 0, 4242, HNP_RANK_RUNNING, 0,
          "Thread 1 (process 4242):\n#0  0x00007f in clock_nanosleep ()\n" },
        { 1, 4243, HNP_RANK_EXITED, 0x100, NULL },
        { UINT32_MAX, 0, HNP_RANK_FAILED, INT32_MIN,
          "gdb is not installed on node n1" },
        { 3, INT32_MAX, UINT8_MAX, INT32_MAX, "" },
    };
    hnp_wire_state_reply_t all = { .jobid = 4, .nranks = 4, .ranks = ranks };
    hnp_wire_state_reply_t none = { .nranks = 0, .ranks = NULL };
    hnp_wire_rank_state_t one = { 7, 100, HNP_RANK_RUNNING, 0, "s" };
    static const uint8_t golden[] = {
        U32(70000), U32(1), U32(7), U32(100), HNP_RANK_RUNNING, U32(0),
        U32(1), 's',
    };
    hnp_wire_state_reply_t g = { .jobid = 70000, .nranks = 1, .ranks = &one };
    /* 4 ranks announced, room for one */
    static const uint8_t too_many[] = {
        U32(1), U32(4), U32(7), U32(100), 1, U32(0), U32(0),
    };
    static const uint8_t huge[] = { U32(1), U32(0xffffffff), U32(0) };

    (void)state;
    check_message(&state_reply_codec, &all);
    check_message(&state_reply_codec, &none);
    check_golden(&state_reply_codec, &g, golden, sizeof(golden));
    check_refused(&state_reply_codec, too_many, sizeof(too_many),
                  HNP_ERR_TRUNCATED);
    check_refused(&state_reply_codec, huge, sizeof(huge), HNP_ERR_TRUNCATED);
}

static void test_stdin(void **state)
{
    static const uint8_t bytes[] = { 'a', 0, '\n', 0xfe };
    hnp_wire_stdin_t chunk = { .jobid = 2, .seq = 1, .eof = false, .data = bytes,
                               .len = sizeof(bytes) };
    hnp_wire_stdin_t last = { .jobid = UINT32_MAX, .seq = UINT32_MAX,
                              .eof = true };
    hnp_wire_stdin_ack_t ack = { .jobid = UINT32_MAX, .seq = UINT32_MAX };
    static const uint8_t golden_chunk[] = { U32(70000), U32(5), 1, U32(1),
                                            'z' };
    hnp_wire_stdin_t g = { .jobid = 70000, .seq = 5, .eof = true,
                           .data = "z", .len = 1 };
    static const uint8_t golden_ack[] = { U32(70000), U32(5) };
    hnp_wire_stdin_ack_t gack = { .jobid = 70000, .seq = 5 };

    (void)state;
    check_message(&stdin_codec, &chunk);
    check_message(&stdin_codec, &last);
    check_message(&stdin_ack_codec, &ack);
    check_golden(&stdin_codec, &g, golden_chunk, sizeof(golden_chunk));
    check_golden(&stdin_ack_codec, &gack, golden_ack, sizeof(golden_ack));
}

static void test_report(void **state)
{
    hnp_wire_report_t line = { .severity = HNP_WIRE_REPORT_USER, .stream = "",
                               .line = "rank 0 on node n1: put refused" };
    hnp_wire_report_t plain = { .severity = HNP_WIRE_REPORT_PLAIN,
                                .stream = "",
                                .line = "[n1:00042] MCW rank 0 is not bound" };
    hnp_wire_report_t empty = { .severity = HNP_WIRE_REPORT_USER, .stream = "",
                                .line = "" };
    hnp_wire_report_t warning = { .severity = HNP_LOG_WARN, .stream = "pmi",
                                  .line = "a daemon's warning" };
    hnp_wire_report_t verbose = { .severity = HNP_LOG_VERBOSE,
                                  .stream = "plm", .line = "details" };
    static const uint8_t golden[] = { U32(1), U32(1), 'x', U32(2), 'o', 'k' };
    hnp_wire_report_t g = { .severity = HNP_LOG_WARN, .stream = "x",
                            .line = "ok" };
    /* Severities past the known ones are refused, not printed as something
     * else. */
    static const uint8_t above[] = { U32(4), U32(0), U32(0) };
    static const uint8_t below[] = { U32(0xfffffffd), U32(0), U32(0) };

    (void)state;
    check_message(&report_codec, &line);
    check_message(&report_codec, &plain);
    check_message(&report_codec, &empty);
    check_message(&report_codec, &warning);
    check_message(&report_codec, &verbose);
    check_golden(&report_codec, &g, golden, sizeof(golden));
    check_refused(&report_codec, above, sizeof(above), HNP_ERR_TRUNCATED);
    check_refused(&report_codec, below, sizeof(below), HNP_ERR_TRUNCATED);
}

static void test_failure(void **state)
{
    hnp_wire_failure_t f = { .jobid = 3, .status = 1,
                             .message = "node n3: cannot serve PMI" };
    hnp_wire_failure_t extremes = { .jobid = UINT32_MAX, .status = INT32_MIN,
                                    .message = "" };
    hnp_wire_peer_lost_t lost = { .vpid = 5, .why = "died (its connection "
                                                    "closed)" };
    hnp_wire_peer_lost_t max = { .vpid = UINT32_MAX, .why = NULL };
    static const uint8_t golden_failure[] = { U32(70000), U32(-2), U32(1),
                                              'x' };
    hnp_wire_failure_t gf = { .jobid = 70000, .status = -2, .message = "x" };
    static const uint8_t golden_lost[] = { U32(9), U32(1), 'y' };
    hnp_wire_peer_lost_t gl = { .vpid = 9, .why = "y" };

    (void)state;
    check_message(&failure_codec, &f);
    check_message(&failure_codec, &extremes);
    check_message(&peer_lost_codec, &lost);
    check_message(&peer_lost_codec, &max);
    check_golden(&failure_codec, &gf, golden_failure, sizeof(golden_failure));
    check_golden(&peer_lost_codec, &gl, golden_lost, sizeof(golden_lost));
}

static void test_spawn_note(void **state)
{
    hnp_wire_spawn_note_t note = {
        .vpid = 3, .command = "ssh n3 '/usr/bin/hnpd' '--vpid' '3'",
        .output = "Host key verification failed.",
    };
    hnp_wire_spawn_note_t bare = { .vpid = UINT32_MAX, .command = NULL,
                                   .output = "" };
    static const uint8_t golden[] = { U32(4), U32(1), 'c', U32(2), 'o', 'k' };
    hnp_wire_spawn_note_t g = { .vpid = 4, .command = "c", .output = "ok" };
    static const uint8_t cut[] = { U32(4), U32(1), 'c', U32(2), 'o' };

    (void)state;
    check_message(&spawn_note_codec, &note);
    check_message(&spawn_note_codec, &bare);
    check_golden(&spawn_note_codec, &g, golden, sizeof(golden));
    check_refused(&spawn_note_codec, cut, sizeof(cut), HNP_ERR_TRUNCATED);
}

static void test_pmi_abort(void **state)
{
    hnp_wire_pmi_abort_t req = { .jobid = 1, .rank = 7, .code = 3,
                                 .words = "MPI_Abort called" };
    hnp_wire_pmi_abort_t bare = { .jobid = UINT32_MAX, .rank = UINT32_MAX, .code = INT32_MIN,
                                  .words = NULL };
    static const uint8_t golden[] = { U32(70000), U32(7), U32(3), U32(1),
                                      'w' };
    hnp_wire_pmi_abort_t g = { .jobid = 70000, .rank = 7, .code = 3, .words = "w" };

    (void)state;
    check_message(&pmi_abort_codec, &req);
    check_message(&pmi_abort_codec, &bare);
    check_golden(&pmi_abort_codec, &g, golden, sizeof(golden));
}

static void test_stats(void **state)
{
    hnp_wire_stats_t s = { 3, 1500, 2048, 90000, 4096, 700, 1900, 80, 4,
                           2600 };
    hnp_wire_stats_t max = { UINT32_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                             UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                             UINT32_MAX, UINT64_MAX };
    static const uint8_t golden[] = {
        U32(1), U64(2), U64(3), U64(4), U64(0x0102030405060708ull), U64(6),
        U64(7), U64(8), U32(9), U64(10),
    };
    hnp_wire_stats_t g = { 1, 2, 3, 4, 0x0102030405060708ull, 6, 7, 8, 9,
                           10 };

    (void)state;
    check_message(&stats_codec, &s);
    check_message(&stats_codec, &max);
    check_golden(&stats_codec, &g, golden, sizeof(golden));
}

/* A string with a NUL inside is malformed, whatever message carries it. */
static void test_embedded_nul_is_refused(void **state)
{
    static const uint8_t report[] = { U32(0), U32(0), U32(3), 'a', 0, 'b' };
    static const uint8_t proc_exit[] = {
        U32(1), U32(0), U32(0), U32(0), U32(0), U32(2), 0, 'x',
    };

    (void)state;
    check_refused(&report_codec, report, sizeof(report), HNP_ERR_TRUNCATED);
    check_refused(&proc_exit_codec, proc_exit, sizeof(proc_exit),
                  HNP_ERR_TRUNCATED);
}

/* The end of one job in a DVM: the job is named, so that the end of one
 * never touches another. */
static void test_job_end(void **state)
{
    hnp_wire_job_end_t big = { .jobid = 70000, .now = true };
    hnp_wire_job_end_t later = { .jobid = 1, .now = false };
    static const uint8_t golden[] = { U32(70000), 1 };

    (void)state;
    check_message(&job_end_codec, &big);
    check_message(&job_end_codec, &later);
    check_golden(&job_end_codec, &big, golden, sizeof(golden));
    check_refused(&job_end_codec, golden, 4, HNP_ERR_TRUNCATED);
}

static void test_collective(void **state)
{
    hnp_wire_collective_t m = { .id = 5u * 65536u + 3u };
    static const uint8_t golden[] = { U32(5u * 65536u + 3u) };

    (void)state;
    check_message(&collective_codec, &m);
    check_golden(&collective_codec, &m, golden, sizeof(golden));
    check_refused(&collective_codec, golden, 2, HNP_ERR_TRUNCATED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_daemon_up),
        cmocka_unit_test(test_welcome),
        cmocka_unit_test(test_welcome_layout),
        cmocka_unit_test(test_welcome_refuses_a_subtree_outside_the_job),
        cmocka_unit_test(test_roster),
        cmocka_unit_test(test_xcast),
        cmocka_unit_test(test_launch),
        cmocka_unit_test(test_launch_layout),
        cmocka_unit_test(test_launch_refusals),
        cmocka_unit_test(test_control),
        cmocka_unit_test(test_shutdown_any_nonzero_byte_is_now),
        cmocka_unit_test(test_job_end),
        cmocka_unit_test(test_collective),
        cmocka_unit_test(test_iof),
        cmocka_unit_test(test_iof_ack),
        cmocka_unit_test(test_request),
        cmocka_unit_test(test_reply),
        cmocka_unit_test(test_proc_exit),
        cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_failure),
        cmocka_unit_test(test_spawn_note),
        cmocka_unit_test(test_pmi_abort),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_state_request),
        cmocka_unit_test(test_state_reply),
        cmocka_unit_test(test_embedded_nul_is_refused),
    };

    return cmocka_run_group_tests_name("messages", tests, NULL, NULL);
}
