/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the messages of jobs started on running daemons
 * (runtime/wire/dvm.c, spawn.c, gather.c, name.c): a DVM's submissions
 * and replies, MPI_Comm_spawn's request and answer, the collectives
 * across a family's jobs, name publishing. The same checks as
 * test_messages.c (codec_check.c): round trips, every truncation, every
 * allocation failed in turn, golden layouts, and each message's own
 * refusals.
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
#include "dvm.h"
#include "name.h"
#include "spawn.h"
#include "gather.h"

static void test_name(void **state)
{
    hnp_wire_name_entry_t two[] = {
        { .key = "ompi-port-svc", .value = "0.1:2:3", .len = 7 },
        { .key = "other", .value = "", .len = 0 },
    };
    hnp_wire_name_t pub = { .op = HNP_WIRE_NAME_PUBLISH, .id = 7, .jobid = 2,
                            .rank = 3, .flags = 3, .count = 2,
                            .entries = two };
    hnp_wire_name_entry_t key = { .key = "k" };
    hnp_wire_name_t look = { .op = HNP_WIRE_NAME_LOOKUP, .id = UINT32_MAX,
                             .jobid = UINT32_MAX, .rank = UINT32_MAX,
                             .flags = 4, .timeout_ms = 600000, .count = 1,
                             .entries = &key };
    hnp_wire_name_t all = { .op = HNP_WIRE_NAME_UNPUBLISH, .id = 1,
                            .jobid = 1 };
    static const uint8_t golden[] = { 2, U32(1), U32(2), U32(3), U32(4),
                                      U32(5), U32(1), U32(1), 'k', U32(0) };
    hnp_wire_name_t g = { .op = 2, .id = 1, .jobid = 2, .rank = 3,
                          .flags = 4, .timeout_ms = 5, .count = 1,
                          .entries = &key };
    /* a lookup of nothing, an unknown op, an empty key, a count past
     * what the bytes can hold */
    static const uint8_t no_keys[] = { 2, U32(1), U32(2), U32(3), U32(4),
                                       U32(5), U32(0) };
    static const uint8_t bad_op[] = { 9, U32(1), U32(2), U32(3), U32(4),
                                      U32(5), U32(1), U32(1), 'k', U32(0) };
    static const uint8_t empty_key[] = { 1, U32(1), U32(2), U32(3), U32(4),
                                         U32(5), U32(1), U32(0), U32(0) };
    static const uint8_t huge[] = { 2, U32(1), U32(2), U32(3), U32(4),
                                    U32(5), U32(0x10000000), U32(1), 'k' };

    (void)state;
    check_message(&name_request_codec, &pub);
    check_message(&name_request_codec, &look);
    check_message(&name_request_codec, &all);
    check_golden(&name_request_codec, &g, golden, sizeof(golden));
    check_refused(&name_request_codec, no_keys, sizeof(no_keys),
                  HNP_ERR_BAD_PARAM);
    check_refused(&name_request_codec, bad_op, sizeof(bad_op),
                  HNP_ERR_BAD_PARAM);
    check_refused(&name_request_codec, empty_key, sizeof(empty_key),
                  HNP_ERR_BAD_PARAM);
    check_refused(&name_request_codec, huge, sizeof(huge), HNP_ERR_TRUNCATED);
}

static void test_name_reply(void **state)
{
    hnp_wire_name_entry_t found[] = {
        { .key = "svc", .jobid = 4, .rank = 1, .job_name = "job-4",
          .value = "port\0x", .len = 6 },
    };
    hnp_wire_name_t ok = { .id = 7, .status = 0, .count = 1,
                           .entries = found };
    hnp_wire_name_t missing = { .id = UINT32_MAX, .status = -4 };
    static const uint8_t golden[] = { U32(9), 0xff, 0xff, 0xff, 0xfc,
                                      U32(0) };
    hnp_wire_name_t g = { .id = 9, .status = -4 };
    static const uint8_t positive[] = { U32(9), U32(1), U32(0) };

    (void)state;
    check_message(&name_reply_codec, &ok);
    check_message(&name_reply_codec, &missing);
    check_golden(&name_reply_codec, &g, golden, sizeof(golden));
    check_refused(&name_reply_codec, positive, sizeof(positive),
                  HNP_ERR_BAD_PARAM);
}

static void test_dvm_request(void **state)
{
    char *argv[] = { "-n", "2", "hostname", NULL };
    char *env[] = { "PATH=/bin", "A=b=c", NULL };
    char *mca[] = { "btl", "self,tcp", "rte_heartbeat_interval", "5", NULL };
    hnp_wire_dvm_request_t submit = {
        .kind = HNP_DVM_SUBMIT, .flags = HNP_DVM_NOWAIT, .argc = 3,
        .argv = argv, .cwd = "/home/u", .nenv = 2, .env = env, .nmca = 2,
        .mca = mca,
    };
    hnp_wire_dvm_request_t sig = { .kind = HNP_DVM_SIGNAL, .signo = 2 };
    hnp_wire_dvm_request_t list = { .kind = HNP_DVM_LIST };
    static const uint8_t golden_list[] = { 3, 0, U32(0), U32(0), U32(0),
                                           U32(0), U32(0) };
    /* a submission without a word, an unknown kind, a count of strings
     * no message could hold */
    static const uint8_t empty_submit[] = { 1, 0, U32(0), U32(0), U32(0),
                                            U32(0), U32(0) };
    static const uint8_t unknown[] = { 9, 0, U32(0), U32(0), U32(0), U32(0),
                                       U32(0) };
    /* a parameter's name without its value */
    static const uint8_t odd_mca[] = { 3, 0, U32(0), U32(0), U32(0), U32(0),
                                       U32(1), U32(1), 'x' };
    static const uint8_t huge[] = { 1, 0, U32(0), U32(0x40000000), U32(0) };

    (void)state;
    check_message(&dvm_request_codec, &submit);
    check_message(&dvm_request_codec, &sig);
    check_message(&dvm_request_codec, &list);
    check_golden(&dvm_request_codec, &list, golden_list, sizeof(golden_list));
    check_refused(&dvm_request_codec, empty_submit, sizeof(empty_submit),
                  HNP_ERR_BAD_PARAM);
    check_refused(&dvm_request_codec, unknown, sizeof(unknown),
                  HNP_ERR_BAD_PARAM);
    check_refused(&dvm_request_codec, huge, sizeof(huge), HNP_ERR_TRUNCATED);
    check_refused(&dvm_request_codec, odd_mca, sizeof(odd_mca),
                  HNP_ERR_BAD_PARAM);
}

/* MPI_Comm_spawn_multiple's two commands, the second with everything. */
static void test_spawn_request(void **state)
{
    char *argv[] = { "-v", "in put", NULL };
    char *env[] = { "OMPI_PARENT_PORT=1.0:77", "OMPI_MCA_btl=self", NULL };
    hnp_wire_spawn_app_t apps[2] = {
        { .cmd = "worker", .maxprocs = 1 },
        { .cmd = "/bin/other", .argc = 2, .argv = argv, .nenv = 2,
          .env = env, .maxprocs = 16, .hosts = "a,b", .hostfile = "/h",
          .add_hosts = "c", .add_hostfile = "/ah", .wdir = "/w",
          .path = "/p", .prefix = "/opt/ompi" },
    };
    hnp_wire_spawn_request_t full = {
        .reqid = 9, .parent_jobid = 1, .parent_rank = 3,
        .parent_wdir = "/home/u", .map_by = "node", .rank_by = "slot",
        .bind_to = "core", .ppr = "2:node", .display_map = 1,
        .component = "simple", .data = "\x01\x00k", .data_len = 3,
        .napps = 2, .apps = apps,
    };
    hnp_wire_spawn_request_t one = { .reqid = 1, .parent_jobid = 2,
                                     .napps = 1, .apps = apps };
    static const uint8_t golden[] = {
        U32(1), U32(2), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0), 0,
        U32(0), U32(0), U32(1),
        U32(6), 'w', 'o', 'r', 'k', 'e', 'r', U32(0), U32(0), U32(1),
        U32(0), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0),
    };
    /* no app; a program ""; maxprocs 0; 2^32-1 apps; data too long */
    static const uint8_t no_app[] = {
        U32(1), U32(2), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0), 0,
        U32(0), U32(0), U32(0),
    };
    static const uint8_t no_cmd[] = {
        U32(1), U32(2), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0), 0,
        U32(0), U32(0), U32(1),
        U32(0), U32(0), U32(0), U32(1),
        U32(0), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0),
    };
    uint8_t zero_procs[sizeof(golden)];
    static const uint8_t huge_apps[] = {
        U32(1), U32(2), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0), 0,
        U32(0), U32(0), U32(0xffffffffu),
    };
    static const uint8_t long_data[] = {
        U32(1), U32(2), U32(0), U32(0), U32(0), U32(0), U32(0), U32(0), 0,
        U32(0), U32(0x10001), 0,
    };

    (void)state;
    memcpy(zero_procs, golden, sizeof(golden));
    zero_procs[sizeof(golden) - 29] = 0; /* maxprocs' low byte */
    check_message(&spawn_request_codec, &full);
    check_message(&spawn_request_codec, &one);
    check_golden(&spawn_request_codec, &one, golden, sizeof(golden));
    check_refused(&spawn_request_codec, no_app, sizeof(no_app),
                  HNP_ERR_BAD_PARAM);
    check_refused(&spawn_request_codec, no_cmd, sizeof(no_cmd),
                  HNP_ERR_BAD_PARAM);
    check_refused(&spawn_request_codec, zero_procs, sizeof(zero_procs),
                  HNP_ERR_BAD_PARAM);
    check_refused(&spawn_request_codec, huge_apps, sizeof(huge_apps),
                  HNP_ERR_BAD_PARAM);
    check_refused(&spawn_request_codec, long_data, sizeof(long_data),
                  HNP_ERR_TRUNCATED);
    check_refused(&spawn_request_codec, golden, sizeof(golden) - 1,
                  HNP_ERR_TRUNCATED);
}

static void test_spawn_reply(void **state)
{
    hnp_wire_spawn_reply_t ok = { .reqid = 4, .jobid = 2,
                                  .name = "hnp-2-0123abcd" };
    hnp_wire_spawn_reply_t refused = {
        .reqid = 5, .status = HNP_ERR_NOT_FOUND,
        .err = "no such program: ./nothere",
    };
    static const uint8_t golden[] = { U32(4), U32(0), U32(2), U32(1), 'n',
                                      U32(0) };
    static const uint8_t positive[] = { U32(4), U32(1), U32(2), U32(0),
                                        U32(0) };
    hnp_wire_spawn_reply_t g = { .reqid = 4, .jobid = 2, .name = "n" };

    (void)state;
    check_message(&spawn_reply_codec, &ok);
    check_message(&spawn_reply_codec, &refused);
    check_golden(&spawn_reply_codec, &g, golden, sizeof(golden));
    check_refused(&spawn_reply_codec, positive, sizeof(positive),
                  HNP_ERR_BAD_PARAM);
    check_refused(&spawn_reply_codec, golden, sizeof(golden) - 2,
                  HNP_ERR_TRUNCATED);
}

/* A disconnect of job 1's every rank with job 2's rank 3, with data. */
static void test_gather(void **state)
{
    hnp_wire_member_t members[] = { { 1, HNP_WIRE_ALL_RANKS }, { 2, 3 } };
    hnp_wire_gather_t m = { .reqid = 7, .nmembers = 2, .members = members,
                            .nlocal = 4, .data = "abc", .len = 3 };
    hnp_wire_gather_t g = { .reqid = 1, .nmembers = 1, .members = members,
                            .nlocal = 2 };
    static const uint8_t golden[] = { U32(1), U32(1), U32(1),
                                      U32(0xffffffffu), U32(2), U32(0) };
    /* no member, 2^32-1 of them, a job id 0 */
    static const uint8_t none[] = { U32(1), U32(0), U32(1), U32(0) };
    static const uint8_t huge[] = { U32(1), U32(0xffffffffu), U32(1) };
    static const uint8_t job0[] = { U32(1), U32(1), U32(0), U32(0), U32(1),
                                    U32(0) };

    (void)state;
    check_message(&gather_codec, &m);
    check_golden(&gather_codec, &g, golden, sizeof(golden));
    check_refused(&gather_codec, none, sizeof(none), HNP_ERR_BAD_PARAM);
    check_refused(&gather_codec, huge, sizeof(huge), HNP_ERR_BAD_PARAM);
    check_refused(&gather_codec, job0, sizeof(job0), HNP_ERR_BAD_PARAM);
    check_refused(&gather_codec, golden, sizeof(golden) - 1,
                  HNP_ERR_TRUNCATED);
}

static void test_gather_reply(void **state)
{
    hnp_wire_gather_reply_t ok = { .reqid = 7, .data = "abcabc", .len = 6 };
    hnp_wire_gather_reply_t failed = { .reqid = 8,
                                       .status = HNP_ERR_UNREACHABLE };
    static const uint8_t golden[] = { U32(8), U32(0), U32(1), 'x' };
    static const uint8_t positive[] = { U32(8), U32(2), U32(0) };
    hnp_wire_gather_reply_t g = { .reqid = 8, .data = "x", .len = 1 };

    (void)state;
    check_message(&gather_reply_codec, &ok);
    check_message(&gather_reply_codec, &failed);
    check_golden(&gather_reply_codec, &g, golden, sizeof(golden));
    check_refused(&gather_reply_codec, positive, sizeof(positive),
                  HNP_ERR_BAD_PARAM);
    check_refused(&gather_reply_codec, golden, sizeof(golden) - 2,
                  HNP_ERR_TRUNCATED);
}

static void test_dvm_reply(void **state)
{
    hnp_wire_dvm_reply_t done = { .kind = HNP_DVM_DONE, .jobid = 4000000000u,
                                  .status = 143 };
    hnp_wire_dvm_reply_t queued = { .kind = HNP_DVM_QUEUED, .jobid = 7,
                                    .text = "needs 64 slots, 16 free" };
    static const uint8_t golden[] = { 2, U32(5), U32(0), U32(0) };
    static const uint8_t unknown[] = { 0, U32(5), U32(0), U32(0) };
    hnp_wire_dvm_reply_t started = { .kind = HNP_DVM_STARTED, .jobid = 5 };

    (void)state;
    check_message(&dvm_reply_codec, &done);
    check_message(&dvm_reply_codec, &queued);
    check_golden(&dvm_reply_codec, &started, golden, sizeof(golden));
    check_refused(&dvm_reply_codec, unknown, sizeof(unknown),
                  HNP_ERR_BAD_PARAM);
    check_refused(&dvm_reply_codec, golden, 5, HNP_ERR_TRUNCATED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dvm_request),
        cmocka_unit_test(test_dvm_reply),
        cmocka_unit_test(test_spawn_request),
        cmocka_unit_test(test_spawn_reply),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_gather_reply),
        cmocka_unit_test(test_name),
        cmocka_unit_test(test_name_reply),
    };

    return cmocka_run_group_tests_name("job messages", tests, NULL, NULL);
}
