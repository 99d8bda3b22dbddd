/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of host expressions (runtime/hosts/hostlist.c) and of node
 * lists from --host (runtime/hosts/hostfile.c); test_hostfile.c has the
 * hostfiles.
 *
 * Error cases check the sentence as well as the code: a user with a typo in
 * a 4000-line hostfile needs the file, the line and the bad text.
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
#include "hosts_fixture.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ helpers */

static void expect_names(const char *text, const char *const *want,
                         size_t nwant)
{
    char err[512] = "";
    char **names = NULL;
    size_t count = 0;

    int rc = hnp_hostlist_expand(text, &names, &count, err, sizeof(err));
    if (rc != HNP_SUCCESS)
        fail_msg("\"%s\": %d %s", text, rc, err);
    if (count != nwant)
        fail_msg("\"%s\": %zu names, want %zu", text, count, nwant);
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], want[i]) != 0)
            fail_msg("\"%s\": name %zu is \"%s\", want \"%s\"", text, i,
                     names[i], want[i]);
    hnp_hostlist_free(names, count);
}

#define EXPECT_NAMES(text, ...)                                            \
    do {                                                                   \
        static const char *const want_[] = { __VA_ARGS__ };                \
        expect_names(text, want_, NELEM(want_));                           \
    } while (0)

/* The error message must contain every given piece. */
static void expect_error(const char *text, int code, ...)
{
    char err[512] = "";
    char **names = (char **)&err; /* must come back untouched */
    size_t count = 12345;
    va_list ap;

    int rc = hnp_hostlist_expand(text, &names, &count, err, sizeof(err));
    if (rc != code)
        fail_msg("\"%s\": returned %d, want %d (%s)", text, rc, code, err);
    assert_ptr_equal(names, (char **)&err);
    assert_int_equal(count, 12345);
    va_start(ap, code);
    for (const char *piece; (piece = va_arg(ap, const char *)) != NULL;)
        if (strstr(err, piece) == NULL)
            fail_msg("\"%s\": message \"%s\" lacks \"%s\"", text, err, piece);
    va_end(ap);
}

/* Parse @p text as --host into a list holding one node "keep", expecting
 * failure with a message holding @p piece, and the list left as it was. */
static void expect_hosts_error(const char *text, const char *piece)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    char err[512] = "";

    assert_int_equal(hnp_nodelist_add(&l, "keep", 3, true), HNP_SUCCESS);
    int rc = hnp_nodelist_parse_hosts(&l, text, err, sizeof(err));
    if (rc != HNP_ERR_BAD_PARAM)
        fail_msg("--host \"%s\": returned %d (%s)", text, rc, err);
    if (strstr(err, piece) == NULL)
        fail_msg("--host \"%s\": message \"%s\" lacks \"%s\"", text, err,
                 piece);
    assert_int_equal(l.count, 1);
    expect_node(&l, 0, "keep", 3, true);
    hnp_nodelist_free(&l);
}

/* ---------------------------------------------------------- expansion */

static void test_plain_names(void **state)
{
    (void)state;
    EXPECT_NAMES("node1", "node1");
    EXPECT_NAMES("a,b,c", "a", "b", "c");
    EXPECT_NAMES("  a ,\tb  ", "a", "b");
    EXPECT_NAMES("head.cluster.example.org", "head.cluster.example.org");
    EXPECT_NAMES("10.0.0.1,10.0.0.2", "10.0.0.1", "10.0.0.2");
}

static void test_ranges(void **state)
{
    (void)state;
    EXPECT_NAMES("n[1-3,7]", "n1", "n2", "n3", "n7");
    EXPECT_NAMES("node[001-003,140]", "node001", "node002", "node003",
                 "node140");
    EXPECT_NAMES("n[5]", "n5");
    EXPECT_NAMES("n[0-0]", "n0");
    EXPECT_NAMES("n[3-3,1]", "n3", "n1");
    EXPECT_NAMES("n[1, 3 ,5]", "n1", "n3", "n5");
    EXPECT_NAMES("[1-3]", "1", "2", "3");
    EXPECT_NAMES("n[1-2].ib", "n1.ib", "n2.ib");
    EXPECT_NAMES("a,n[1-2],b", "a", "n1", "n2", "b");
}

static void test_zero_padding(void **state)
{
    (void)state;
    EXPECT_NAMES("n[08-11]", "n08", "n09", "n10", "n11");
    EXPECT_NAMES("n[8-11]", "n8", "n9", "n10", "n11");
    EXPECT_NAMES("n[098-101]", "n098", "n099", "n100", "n101");
    EXPECT_NAMES("n[01-02,7,009]", "n01", "n02", "n7", "n009");
    /* Padding to the lower bound's width; wider values keep their digits. */
    EXPECT_NAMES("n[9-10]", "n9", "n10");
    EXPECT_NAMES("n[09-100]x", "n09x", "n10x", "n11x", "n12x", "n13x",
                 "n14x", "n15x", "n16x", "n17x", "n18x", "n19x", "n20x",
                 "n21x", "n22x", "n23x", "n24x", "n25x", "n26x", "n27x",
                 "n28x", "n29x", "n30x", "n31x", "n32x", "n33x", "n34x",
                 "n35x", "n36x", "n37x", "n38x", "n39x", "n40x", "n41x",
                 "n42x", "n43x", "n44x", "n45x", "n46x", "n47x", "n48x",
                 "n49x", "n50x", "n51x", "n52x", "n53x", "n54x", "n55x",
                 "n56x", "n57x", "n58x", "n59x", "n60x", "n61x", "n62x",
                 "n63x", "n64x", "n65x", "n66x", "n67x", "n68x", "n69x",
                 "n70x", "n71x", "n72x", "n73x", "n74x", "n75x", "n76x",
                 "n77x", "n78x", "n79x", "n80x", "n81x", "n82x", "n83x",
                 "n84x", "n85x", "n86x", "n87x", "n88x", "n89x", "n90x",
                 "n91x", "n92x", "n93x", "n94x", "n95x", "n96x", "n97x",
                 "n98x", "n99x", "n100x");
    EXPECT_NAMES("n[000000000000000001-000000000000000002]",
                 "n000000000000000001", "n000000000000000002");
}

static void test_cartesian_product(void **state)
{
    (void)state;
    EXPECT_NAMES("r[1-2]n[1-2]", "r1n1", "r1n2", "r2n1", "r2n2");
    EXPECT_NAMES("r[1,3]-n[01-03]", "r1-n01", "r1-n02", "r1-n03", "r3-n01",
                 "r3-n02", "r3-n03");
    EXPECT_NAMES("[1-2][3-4]", "13", "14", "23", "24");
}

static void test_product_three_groups(void **state)
{
    (void)state;
    EXPECT_NAMES("c[1-2]r[0-1]n[7,9]", "c1r0n7", "c1r0n9", "c1r1n7",
                 "c1r1n9", "c2r0n7", "c2r0n9", "c2r1n7", "c2r1n9");
    EXPECT_NAMES("x[1-2],y[1-2]z[5]", "x1", "x2", "y1z5", "y2z5");
}

static void test_limit(void **state)
{
    char **names = NULL;
    size_t count = 0;
    char err[256];
    (void)state;

    /* Exactly the limit is allowed, in the right order. */
    assert_int_equal(hnp_hostlist_expand("n[1-1000]m[000-999]", &names,
                                         &count, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(count, 1000000);
    assert_string_equal(names[0], "n1m000");
    assert_string_equal(names[1], "n1m001");
    assert_string_equal(names[1000], "n2m000");
    assert_string_equal(names[999999], "n1000m999");
    hnp_hostlist_free(names, count);

    expect_error("n[0-1000000]", HNP_ERR_BAD_PARAM, "\"n[0-1000000]\"",
                 "more than 1000000 names", NULL);
    expect_error("n[1-1000000],extra", HNP_ERR_BAD_PARAM,
                 "\"n[1-1000000],extra\"", "more than 1000000 names", NULL);
    expect_error("n[1-1000]m[1-1001]", HNP_ERR_BAD_PARAM,
                 "more than 1000000", NULL);
    expect_error("n[0-999999999999999999]", HNP_ERR_BAD_PARAM,
                 "more than 1000000", NULL);
    expect_error("a[1-999999999]b[1-999999999]c[1-999999999]",
                 HNP_ERR_BAD_PARAM, "more than 1000000", NULL);
    expect_error("n[1-9,1-999999999999999999,1-9]", HNP_ERR_BAD_PARAM,
                 "more than 1000000", NULL);
}

/* Names times their length is bounded too: a long name and a large range
 * would otherwise take gigabytes for a million names. */
static void test_limit_bytes(void **state)
{
    char text[200], name[101];
    char **names;
    size_t count;
    char err[512];

    (void)state;
    memset(name, 'x', 100);
    name[100] = '\0';
    snprintf(text, sizeof(text), "%s[1-999999]", name);
    expect_error(text, HNP_ERR_BAD_PARAM, "more than 64 MiB", NULL);
    snprintf(text, sizeof(text), "a[1-10],%s[1-700000]", name);
    expect_error(text, HNP_ERR_BAD_PARAM, "more than 64 MiB", NULL);
    /* The digits a group writes are counted as they are, not at their
     * widest: a million names of 60 characters fit. */
    snprintf(text, sizeof(text), "%.54s[000000-999999]", name);
    assert_int_equal(hnp_hostlist_expand(text, &names, &count, err,
                                         sizeof(err)), HNP_SUCCESS);
    assert_int_equal(count, 1000000);
    assert_int_equal(strlen(names[999999]), 60);
    hnp_hostlist_free(names, count);
}

static void test_bracket_errors(void **state)
{
    (void)state;
    expect_error("n[1-3", HNP_ERR_BAD_PARAM, "host expression \"n[1-3\"",
                 "'[' without a matching ']'", NULL);
    expect_error("n1-3]", HNP_ERR_BAD_PARAM, "\"n1-3]\"",
                 "']' without a matching '['", NULL);
    expect_error("n[1-2]]", HNP_ERR_BAD_PARAM, "']' without", NULL);
    expect_error("n[[1-2]]", HNP_ERR_BAD_PARAM, "'[' inside brackets",
                 NULL);
    expect_error("a,n[1-3,b", HNP_ERR_BAD_PARAM, "\"n[1-3,b\"",
                 "without a matching ']'", NULL);
    expect_error("ok,n[1-2]x[", HNP_ERR_BAD_PARAM, "\"n[1-2]x[\"", NULL);
}

static void test_range_errors(void **state)
{
    (void)state;
    expect_error("n[3-1]", HNP_ERR_BAD_PARAM, "host expression \"n[3-1]\"",
                 "range '3-1' is reversed", NULL);
    expect_error("good,n[5-1]", HNP_ERR_BAD_PARAM, "\"n[5-1]\"", "reversed",
                 NULL);
    expect_error("n[]", HNP_ERR_BAD_PARAM, "\"n[]\"", "empty range", NULL);
    expect_error("n[1,,2]", HNP_ERR_BAD_PARAM, "empty range", NULL);
    expect_error("n[1,]", HNP_ERR_BAD_PARAM, "empty range", NULL);
    expect_error("n[a-c]", HNP_ERR_BAD_PARAM, "\"n[a-c]\"",
                 "'a-c' is not a number or a range", NULL);
    expect_error("n[1-]", HNP_ERR_BAD_PARAM, "'1-' is not a number", NULL);
    expect_error("n[-3]", HNP_ERR_BAD_PARAM, "'-3' is not a number", NULL);
    expect_error("n[1-2-3]", HNP_ERR_BAD_PARAM, "'1-2-3'", NULL);
    expect_error("n[x]", HNP_ERR_BAD_PARAM, "'x' is not", NULL);
    expect_error("n[+1]", HNP_ERR_BAD_PARAM, "'+1' is not", NULL);
    expect_error("n[1234567890123456789]", HNP_ERR_BAD_PARAM,
                 "at most 18 digits", NULL);
}

static void test_name_errors(void **state)
{
    (void)state;
    expect_error("", HNP_ERR_BAD_PARAM, "empty host list", NULL);
    expect_error("   ", HNP_ERR_BAD_PARAM, "empty host list", NULL);
    expect_error("a,,b", HNP_ERR_BAD_PARAM, "\"a,,b\"", "empty name", NULL);
    expect_error("a,", HNP_ERR_BAD_PARAM, "\"a,\"", "empty name", NULL);
    expect_error(",a", HNP_ERR_BAD_PARAM, "empty name", NULL);
    expect_error("a b", HNP_ERR_BAD_PARAM, "\"a b\"", "blank", NULL);
    expect_error("-oProxyCommand=x", HNP_ERR_BAD_PARAM,
                 "may not start with '-'", NULL);
    expect_error(NULL, HNP_ERR_BAD_PARAM, "no host list", NULL);
}

static void test_null_error_buffer(void **state)
{
    char **names;
    size_t count;
    (void)state;

    assert_int_equal(hnp_hostlist_expand("n[2-1]", &names, &count, NULL, 0),
                     HNP_ERR_BAD_PARAM);
    /* A short buffer gets a truncated sentence, never an overrun. */
    char tiny[8];
    memset(tiny, 'x', sizeof(tiny));
    assert_int_equal(hnp_hostlist_expand("n[2-1]", &names, &count, tiny,
                                         sizeof(tiny)),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
    hnp_hostlist_free(NULL, 0);
}

/* --------------------------------------------------------- node lists */

static void test_nodelist_add(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    assert_int_equal(hnp_nodelist_add(&l, "a", 0, false), HNP_SUCCESS);
    assert_int_equal(hnp_nodelist_add(&l, "b", 4, true), HNP_SUCCESS);
    assert_int_equal(hnp_nodelist_add(&l, "a", 2, true), HNP_SUCCESS);
    assert_int_equal(hnp_nodelist_add(&l, "b", 3, true), HNP_SUCCESS);
    assert_int_equal(hnp_nodelist_add(&l, "b", 0, false), HNP_SUCCESS);
    assert_int_equal(l.count, 2);
    expect_node(&l, 0, "a", 2, true);
    expect_node(&l, 1, "b", 7, true);

    assert_int_equal(hnp_nodelist_add(&l, NULL, 1, true), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_nodelist_add(&l, "", 1, true), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_nodelist_add(NULL, "x", 1, true), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_nodelist_add(&l, "a", UINT32_MAX, true),
                     HNP_ERR_BAD_PARAM);
    expect_node(&l, 0, "a", 2, true);

    /* Many adds: the array grows, order stays. */
    for (int i = 0; i < 1000; i++) {
        char name[16];
        snprintf(name, sizeof(name), "m%d", i);
        assert_int_equal(hnp_nodelist_add(&l, name, 1, true), HNP_SUCCESS);
    }
    assert_int_equal(l.count, 1002);
    expect_node(&l, 501, "m499", 1, true);
    hnp_nodelist_free(&l);
    assert_null(l.nodes);
    assert_int_equal(l.count, 0);
    hnp_nodelist_free(&l);
    hnp_nodelist_free(NULL);
}

static void test_parse_hosts(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    parse_hosts_ok(&l, "a,b:4,c");
    assert_int_equal(l.count, 3);
    expect_node(&l, 0, "a", 0, false);
    expect_node(&l, 1, "b", 4, true);
    expect_node(&l, 2, "c", 0, false);
    hnp_nodelist_free(&l);

    parse_hosts_ok(&l, "node[1-3]:2, x , n[1,3]:5");
    assert_int_equal(l.count, 6);
    expect_node(&l, 0, "node1", 2, true);
    expect_node(&l, 2, "node3", 2, true);
    expect_node(&l, 3, "x", 0, false);
    expect_node(&l, 4, "n1", 5, true);
    expect_node(&l, 5, "n3", 5, true);
    hnp_nodelist_free(&l);

    parse_hosts_ok(&l, " a : 2 ,\tb\t");
    expect_node(&l, 0, "a", 2, true);
    expect_node(&l, 1, "b", 0, false);
    hnp_nodelist_free(&l);
}

static void test_parse_hosts_merges(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    /* The last "a" is one slot more, as Open MPI counts it. */
    parse_hosts_ok(&l, "a:2,a:3,b,a");
    assert_int_equal(l.count, 2);
    expect_node(&l, 0, "a", 6, true);
    expect_node(&l, 1, "b", 0, false);

    /* Into a list that already has nodes: existing ones add up, a node
     * named without a count being one slot. */
    parse_hosts_ok(&l, "b:1,c,a:1");
    assert_int_equal(l.count, 3);
    expect_node(&l, 0, "a", 7, true);
    expect_node(&l, 1, "b", 2, true);
    expect_node(&l, 2, "c", 0, false);
    hnp_nodelist_free(&l);

    /* Thousands of names with overlaps go through the hash index. */
    parse_hosts_ok(&l, "n[1-3000]:1,n[2001-5000]:2,n[1-3000]:1");
    assert_int_equal(l.count, 5000);
    expect_node(&l, 0, "n1", 2, true);
    expect_node(&l, 2000, "n2001", 4, true);
    expect_node(&l, 2999, "n3000", 4, true);
    expect_node(&l, 3000, "n3001", 2, true);
    expect_node(&l, 4999, "n5000", 2, true);
    parse_hosts_ok(&l, "n[4000-6000]:1");
    assert_int_equal(l.count, 6000);
    expect_node(&l, 3999, "n4000", 3, true);
    expect_node(&l, 5999, "n6000", 1, true);
    hnp_nodelist_free(&l);
}

/* Open MPI 4.1: each mention of a node is a slot, and a count adds its
 * own; the sum is a given count (mpirun --host a,a --display-allocation:
 * slots=2). */
static void test_parse_hosts_repeated(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    parse_hosts_ok(&l, "a,a,b");
    assert_int_equal(l.count, 2);
    expect_node(&l, 0, "a", 2, true);
    expect_node(&l, 1, "b", 0, false);
    hnp_nodelist_free(&l);

    parse_hosts_ok(&l, "a,a:3,b:3,b,c:2,c:3,d,d,d");
    expect_node(&l, 0, "a", 4, true);
    expect_node(&l, 1, "b", 4, true);
    expect_node(&l, 2, "c", 5, true);
    expect_node(&l, 3, "d", 3, true);
    hnp_nodelist_free(&l);

    parse_hosts_ok(&l, "n[1-2],n[1-3]");
    expect_node(&l, 0, "n1", 2, true);
    expect_node(&l, 1, "n2", 2, true);
    expect_node(&l, 2, "n3", 0, false);
    hnp_nodelist_free(&l);
}

/* IPv6 addresses: bare ones take no slot count (their colons leave none
 * to tell), bracketed ones may; the node is the address either way. */
static void test_parse_hosts_ipv6(void **state)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    (void)state;

    parse_hosts_ok(&l, "fe80::1,[fe80::2]:4,[fe80::3],::1,a:2");
    assert_int_equal(l.count, 5);
    expect_node(&l, 0, "fe80::1", 0, false);
    expect_node(&l, 1, "fe80::2", 4, true);
    expect_node(&l, 2, "fe80::3", 0, false);
    expect_node(&l, 3, "::1", 0, false);
    expect_node(&l, 4, "a", 2, true);
    hnp_nodelist_free(&l);

    parse_hosts_ok(&l, "fe80::1%eth0,[fe80::1%eth0]:2, [2001:db8::7] : 3");
    assert_int_equal(l.count, 2);
    expect_node(&l, 0, "fe80::1%eth0", 3, true);
    expect_node(&l, 1, "2001:db8::7", 3, true);
    hnp_nodelist_free(&l);

    expect_hosts_error("[fe80::1]:x", "bad slot count in \"[fe80::1]:x\"");
    expect_hosts_error("[fe80::1]:0", "bad slot count");
}

static void test_parse_hosts_errors(void **state)
{
    (void)state;
    expect_hosts_error("a,b:x", "bad slot count in \"b:x\"");
    expect_hosts_error("a:0", "bad slot count in \"a:0\"");
    expect_hosts_error("a:-1", "bad slot count");
    expect_hosts_error("a:", "bad slot count");
    expect_hosts_error("a:4294967296", "bad slot count");
    expect_hosts_error(":4", "no host name before \":4\"");
    expect_hosts_error("a,,b", "empty name");
    expect_hosts_error("a,", "empty name");
    expect_hosts_error("", "empty host list");
    expect_hosts_error(" ", "empty host list");
    expect_hosts_error("ok,n[1-2:3", "\"n[1-2:3\"");
    expect_hosts_error("n[3-1]:2", "host expression \"n[3-1]\"");
    expect_hosts_error("a b:2", "blank");
    expect_hosts_error("keep:4294967295", "more than 4294967295 slots on "
                                          "keep");
    expect_hosts_error("z:4294967295,z:1", "more than 4294967295 slots");
    /* Each item within the bound, all of them not. */
    expect_hosts_error("a[1-600000],b[1-600000]", "more than 1000000 host "
                                                  "names in all");
}

/* A host name longer than a host name may be is refused with its length
 * and its beginning, in a message that fits, however long the name. */
static void test_long_name(void **state)
{
    size_t big = 10u << 20;
    char *text = malloc(big + 2);
    char err[512] = "";
    char **names;
    size_t count;

    (void)state;
    assert_non_null(text);
    memset(text, 'n', big);
    text[big] = '\0';
    assert_int_equal(hnp_hostlist_expand(text, &names, &count, err,
                                         sizeof(err)), HNP_ERR_BAD_PARAM);
    if (strstr(err, "(10485760 bytes) is longer than a host name may be "
                    "(255 bytes)") == NULL || strstr(err, "\"nnnn") == NULL)
        fail_msg("message \"%s\"", err);
    text[big] = '\n';
    text[big + 1] = '\0';
    expect_hostfile_error(text, 1, "(10485760 bytes) is longer than");
    free(text);
    /* 255 is a name still; a range that makes 256 is not. */
    char edge[300];
    memset(edge, 'a', 255);
    edge[255] = '\0';
    assert_int_equal(hnp_hostlist_expand(edge, &names, &count, err,
                                         sizeof(err)), HNP_SUCCESS);
    hnp_hostlist_free(names, count);
    memcpy(edge + 254, "[1-10]", 7);
    expect_error(edge, HNP_ERR_BAD_PARAM, "(256 bytes) is longer", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_names),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_zero_padding),
        cmocka_unit_test(test_cartesian_product),
        cmocka_unit_test(test_product_three_groups),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_limit_bytes),
        cmocka_unit_test(test_bracket_errors),
        cmocka_unit_test(test_range_errors),
        cmocka_unit_test(test_name_errors),
        cmocka_unit_test(test_null_error_buffer),
        cmocka_unit_test(test_nodelist_add),
        cmocka_unit_test(test_parse_hosts),
        cmocka_unit_test(test_parse_hosts_merges),
        cmocka_unit_test(test_parse_hosts_repeated),
        cmocka_unit_test(test_parse_hosts_ipv6),
        cmocka_unit_test(test_parse_hosts_errors),
        cmocka_unit_test(test_long_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
