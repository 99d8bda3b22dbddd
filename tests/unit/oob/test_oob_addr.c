/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the OOB's address handling (runtime/oob/addr.c): URI syntax,
 * the order in which a peer's addresses are tried, and the
 * oob_tcp_if_include / oob_tcp_if_exclude selection. Pure functions over
 * getifaddrs(): no socket is opened here.
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
#include "hnp_log.h"
#include "oob/internal.h"

typedef struct warnings {
    char text[4096];
} warnings_t;

static void capture(void *ctx, hnp_log_severity_t sev, const char *stream,
                    const char *message)
{
    warnings_t *w = ctx;
    (void)stream;
    if (sev == HNP_LOG_WARN)
        snprintf(w->text + strlen(w->text), sizeof(w->text) - strlen(w->text),
                 "%s\n", message);
}

static void uri_roundtrip(const char *in, const char *out_first)
{
    oob_endpoint_t *eps = NULL;
    size_t n = 0;
    char err[256] = "", text[OOB_URI_ENTRY_LEN];

    if (oob_uri_parse(in, &eps, &n, err, sizeof(err)) != HNP_SUCCESS)
        fail_msg("\"%s\": %s", in, err);
    oob_endpoint_uri(&eps[0], text, sizeof(text));
    assert_string_equal(text, out_first);
    free(eps);
}

static void test_uri_syntax(void **state)
{
    const char *bad[] = { "", "http://127.0.0.1:80", "tcp://127.0.0.1",
                          "tcp://127.0.0.1:0", "tcp://127.0.0.1:65536",
                          "tcp://localhost:80", "tcp://127.0.0.1:80,",
                          "tcp6://::1:80", "tcp://127.0.0.1:8x",
                          "tcp://127.0.0.1:-1", "tcp6://[::1]80",
                          "tcp://1.2.3.4:5,tcp6://[nonsense]:6" };
    oob_endpoint_t *eps = NULL;
    size_t n = 0;
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(oob_uri_parse(bad[i], &eps, &n, err, sizeof(err)),
                         HNP_ERR_BAD_PARAM);
        assert_true(err[0] != '\0');
    }
    uri_roundtrip("tcp://10.0.0.1:1", "tcp://10.0.0.1:1");
    uri_roundtrip("tcp6://[fe80::1]:2,tcp://10.0.0.1:1", "tcp6://[fe80::1]:2");
    uri_roundtrip("tcp://255.255.255.255:65535", "tcp://255.255.255.255:65535");
    assert_int_equal(oob_uri_parse("tcp://1.2.3.4:5,tcp6://[::1]:6,"
                                   "tcp://5.6.7.8:9", &eps, &n, NULL, 0),
                     HNP_SUCCESS);
    assert_int_equal(n, 3);
    free(eps);
}

static void test_address_order(void **state)
{
    oob_ifaddr_t local[] = {
        { "eth9", AF_INET, { 10, 1, 0, 7 }, 16, false },
        { "eth8", AF_INET, { 172, 16, 0, 9 }, 31, false },
    };
    oob_endpoint_t *eps = NULL;
    size_t n = 0;
    char text[OOB_URI_ENTRY_LEN];
    const char *want[] = { "tcp://10.1.2.3:2", "tcp://10.1.9.9:4",
                           "tcp://172.16.0.8:6", "tcp://192.168.1.1:1",
                           "tcp6://[::1]:5", "tcp://172.16.0.10:3" };

    (void)state;
    assert_int_equal(oob_uri_parse("tcp://192.168.1.1:1,tcp://10.1.2.3:2,"
                                   "tcp6://[::1]:5,tcp://172.16.0.10:3,"
                                   "tcp://10.1.9.9:4,tcp://172.16.0.8:6",
                                   &eps, &n, NULL, 0), HNP_SUCCESS);
    /* Our networks first (10.1/16, 172.16.0.8/31), the rest after, both in
     * URI order. */
    oob_endpoints_order(local, 2, eps, n);
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; i++) {
        oob_endpoint_uri(&eps[i], text, sizeof(text));
        assert_string_equal(text, want[i]);
    }
    free(eps);
}

static int select_lists(const char *include, const char *exclude, char *err,
                        size_t errlen, size_t *n)
{
    oob_ifaddr_t *sel = NULL;
    int rc = oob_addr_select(include, exclude, hnp_log_stream("oob"), &sel, n,
                             err, errlen);
    free(sel);
    return rc;
}

static void expect_error(const char *include, const char *exclude, int code,
                         const char *mention1, const char *mention2)
{
    char err[1024] = "";
    size_t n = 0;

    assert_int_equal(select_lists(include, exclude, err, sizeof(err), &n),
                     code);
    if (strstr(err, mention1) == NULL ||
        (mention2 != NULL && strstr(err, mention2) == NULL))
        fail_msg("\"%s\" does not mention \"%s\" and \"%s\"", err, mention1,
                 mention2 ? mention2 : "");
}

static void test_include_exclude_errors(void **state)
{
    (void)state;
    /* Naming nothing that exists: the value, and what does exist. */
    expect_error("nosuchif0", NULL, HNP_ERR_NOT_FOUND, "nosuchif0",
                 "lo 127.0.0.1/8");
    expect_error("127.255.255.254/32", NULL, HNP_ERR_NOT_FOUND,
                 "oob_tcp_if_include", "127.255.255.254/32");
    expect_error("127.0.0.1/33", NULL, HNP_ERR_BAD_PARAM,
                 "oob_tcp_if_include", "127.0.0.1/33");
    expect_error("::1/129", NULL, HNP_ERR_BAD_PARAM, "oob_tcp_if_include",
                 "::1/129");
    expect_error("eth0/8", NULL, HNP_ERR_BAD_PARAM, "oob_tcp_if_include",
                 "eth0/8");
    expect_error("127.0.0.1/", NULL, HNP_ERR_BAD_PARAM, "oob_tcp_if_include",
                 NULL);
    expect_error(" , ", NULL, HNP_ERR_BAD_PARAM, "names nothing", NULL);
    expect_error("an-interface-name-far-too-long-to-be-one-of-linux-"
                 "interfaces-really", NULL, HNP_ERR_BAD_PARAM, "too long",
                 NULL);
    expect_error(NULL, "1.2.3.4/99", HNP_ERR_BAD_PARAM, "oob_tcp_if_exclude",
                 "1.2.3.4/99");
    expect_error(NULL, "0.0.0.0/0, ::/0", HNP_ERR_NOT_FOUND,
                 "oob_tcp_if_exclude", "leaves no interface");
}

static void test_include_exclude_select(void **state)
{
    warnings_t warn = { "" };
    oob_ifaddr_t *sel = NULL;
    size_t n = 0;
    char err[512] = "";

    (void)state;
    hnp_log_set_handler(capture, &warn);
    /* Both set: include wins, exclude is ignored with a warning naming
     * both; an include entry that matches nothing only warns. */
    assert_int_equal(oob_addr_select(" 127.0.0.1 , lo9", "127.0.0.0/8",
                                     hnp_log_stream("oob"), &sel, &n, err,
                                     sizeof(err)), HNP_SUCCESS);
    assert_int_equal(n, 1);
    assert_string_equal(sel[0].name, "lo");
    assert_int_equal(sel[0].prefix, 8);
    assert_true(sel[0].loopback);
    free(sel);
    assert_non_null(
        strstr(warn.text, "oob_tcp_if_include=\" 127.0.0.1 , lo9\""));
    assert_non_null(strstr(warn.text, "oob_tcp_if_exclude=\"127.0.0.0/8\""));
    assert_non_null(strstr(warn.text, "\"lo9\" matches no"));

    /* By name: every address of lo, IPv4 first as getifaddrs lists them. */
    assert_int_equal(select_lists("lo", NULL, err, sizeof(err), &n),
                     HNP_SUCCESS);
    assert_true(n >= 1);
    /* Excluding loopback by network keeps what else there is, if any. */
    int rc = select_lists(NULL, "127.0.0.0/8,::1", err, sizeof(err), &n);
    assert_true(rc == HNP_SUCCESS || rc == HNP_ERR_NOT_FOUND);
    hnp_log_set_handler(NULL, NULL);
}

/* Without lists: no loopback unless nothing else is up. */
static void test_default_selection(void **state)
{
    oob_ifaddr_t *sel = NULL;
    size_t n = 0;
    char err[256];

    (void)state;
    assert_int_equal(oob_addr_select(NULL, "", hnp_log_stream("oob"), &sel, &n,
                                     err, sizeof(err)), HNP_SUCCESS);
    assert_true(n > 0);
    bool all_loopback = true;
    for (size_t i = 0; i < n; i++)
        all_loopback = all_loopback && sel[i].loopback;
    if (!all_loopback)
        for (size_t i = 0; i < n; i++)
            assert_false(sel[i].loopback);
    free(sel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uri_syntax),
        cmocka_unit_test(test_address_order),
        cmocka_unit_test(test_include_exclude_errors),
        cmocka_unit_test(test_include_exclude_select),
        cmocka_unit_test(test_default_selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
