/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the endpoint data a connect carries
 * (components/pmi/pmix/pmi_pmix_cards.c): cards packed by one daemon are
 * read back by another, those it does not want are skipped, a malformed
 * run stores nothing, a card sent twice is held once, and a job's cards
 * go with it.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "pmi/pmix/pmi_pmix_cards.h"

static bool want_below_100(const char *nspace, uint32_t rank, void *cbdata)
{
    (void)nspace;
    (void)cbdata;
    return rank < 100;
}

/* Keeps every card but those of rank *cbdata. */
static bool want_all_but(const char *nspace, uint32_t rank, void *cbdata)
{
    (void)nspace;
    return rank != *(const uint32_t *)cbdata;
}

static void expect_card(const pmi_pmix_cards_t *cards, const char *nspace,
                        uint32_t rank, const char *data, size_t len)
{
    const void *got;
    size_t got_len;

    assert_true(pmi_pmix_cards_find(cards, nspace, rank, &got, &got_len));
    assert_int_equal(got_len, len);
    if (len > 0)
        assert_memory_equal(got, data, len);
}

static void three_cards(hnp_buffer_t *buf)
{
    hnp_buffer_init(buf);
    pmi_pmix_cards_pack(buf, "job-1", 0, "alpha", 5);
    pmi_pmix_cards_pack(buf, "job-2", 7, "bravo!", 6);
    pmi_pmix_cards_pack(buf, "job-2", 3, NULL, 0);
    assert_int_equal(hnp_buffer_status(buf), HNP_SUCCESS);
}

static void test_cards_read_back(void **unused)
{
    pmi_pmix_cards_t cards = { 0 };
    hnp_buffer_t buf;
    size_t learned = 99;

    (void)unused;
    three_cards(&buf);
    assert_int_equal(pmi_pmix_cards_learn(&cards, buf.data, buf.len,
                                          want_below_100, NULL, &learned),
                     HNP_SUCCESS);
    assert_int_equal(learned, 3);
    assert_int_equal(cards.count, 3);
    assert_int_equal(cards.bytes, 11);
    expect_card(&cards, "job-1", 0, "alpha", 5);
    expect_card(&cards, "job-2", 7, "bravo!", 6);
    expect_card(&cards, "job-2", 3, NULL, 0);
    const void *d;
    size_t n;
    assert_false(pmi_pmix_cards_find(&cards, "job-1", 1, &d, &n));
    assert_false(pmi_pmix_cards_find(&cards, "job-3", 0, &d, &n));
    pmi_pmix_cards_forget(&cards, NULL);
    hnp_buffer_release(&buf);
}

static void test_unwanted_cards_are_skipped(void **unused)
{
    pmi_pmix_cards_t cards = { 0 };
    hnp_buffer_t buf;
    uint32_t not_this = 7;
    size_t learned = 0;
    const void *d;
    size_t n;

    (void)unused;
    three_cards(&buf);
    assert_int_equal(pmi_pmix_cards_learn(&cards, buf.data, buf.len,
                                          want_all_but, &not_this, &learned),
                     HNP_SUCCESS);
    assert_int_equal(learned, 2);
    assert_false(pmi_pmix_cards_find(&cards, "job-2", 7, &d, &n));
    expect_card(&cards, "job-1", 0, "alpha", 5);
    pmi_pmix_cards_forget(&cards, NULL);
    hnp_buffer_release(&buf);
}

/* A valid run followed by @p tail (a broken card) stores nothing. */
static void expect_refused(void (*tail)(hnp_buffer_t *buf))
{
    pmi_pmix_cards_t cards = { 0 };
    hnp_buffer_t buf;
    size_t learned = 5;

    three_cards(&buf);
    tail(&buf);
    assert_int_equal(hnp_buffer_status(&buf), HNP_SUCCESS);
    assert_int_equal(pmi_pmix_cards_learn(&cards, buf.data, buf.len,
                                          want_below_100, NULL, &learned),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(learned, 0);
    assert_int_equal(cards.count, 0);
    assert_null(cards.sets);
    hnp_buffer_release(&buf);
}

static void tail_truncated(hnp_buffer_t *buf)
{
    hnp_pack_string(buf, "job-1");
    hnp_pack_u32(buf, 4);
    hnp_pack_u32(buf, 10); /* a blob of 10 bytes, 3 there */
    hnp_pack_bytes(buf, "abc", 3);
}

static void tail_empty_nspace(hnp_buffer_t *buf)
{
    pmi_pmix_cards_pack(buf, "", 1, "x", 1);
}

static void tail_long_nspace(hnp_buffer_t *buf)
{
    char name[PMI_PMIX_CARD_MAX_NSLEN + 2];

    memset(name, 'n', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    pmi_pmix_cards_pack(buf, name, 1, "x", 1);
}

static void tail_huge_card(hnp_buffer_t *buf)
{
    size_t len = PMI_PMIX_CARD_MAX_BYTES + 1;
    char *big = calloc(1, len);

    assert_non_null(big);
    pmi_pmix_cards_pack(buf, "job-1", 2, big, len);
    free(big);
}

static void tail_one_byte(hnp_buffer_t *buf)
{
    hnp_pack_u8(buf, 1);
}

static void test_malformed_run_stores_nothing(void **unused)
{
    (void)unused;
    expect_refused(tail_truncated);
    expect_refused(tail_empty_nspace);
    expect_refused(tail_long_nspace);
    expect_refused(tail_huge_card);
    expect_refused(tail_one_byte);
}

static void test_card_sent_twice_is_held_once(void **unused)
{
    pmi_pmix_cards_t cards = { 0 };
    hnp_buffer_t buf;

    (void)unused;
    hnp_buffer_init(&buf);
    pmi_pmix_cards_pack(&buf, "job-1", 4, "old", 3);
    pmi_pmix_cards_pack(&buf, "job-1", 4, "newer", 5);
    assert_int_equal(pmi_pmix_cards_learn(&cards, buf.data, buf.len,
                                          want_below_100, NULL, NULL),
                     HNP_SUCCESS);
    assert_int_equal(cards.count, 1);
    assert_int_equal(cards.bytes, 5);
    expect_card(&cards, "job-1", 4, "newer", 5);
    pmi_pmix_cards_forget(&cards, NULL);
    hnp_buffer_release(&buf);
}

static void test_a_jobs_cards_go_with_it(void **unused)
{
    pmi_pmix_cards_t cards = { 0 };
    hnp_buffer_t buf;
    const void *d;
    size_t n;

    (void)unused;
    three_cards(&buf);
    assert_int_equal(pmi_pmix_cards_learn(&cards, buf.data, buf.len,
                                          want_below_100, NULL, NULL),
                     HNP_SUCCESS);
    pmi_pmix_cards_forget(&cards, "job-2");
    assert_int_equal(cards.count, 1);
    assert_int_equal(cards.bytes, 5);
    assert_false(pmi_pmix_cards_find(&cards, "job-2", 7, &d, &n));
    expect_card(&cards, "job-1", 0, "alpha", 5);
    pmi_pmix_cards_forget(&cards, NULL);
    assert_int_equal(cards.count, 0);
    assert_int_equal(cards.bytes, 0);
    assert_null(cards.sets);
    /* an empty run is no card at all */
    assert_int_equal(pmi_pmix_cards_learn(&cards, NULL, 0, want_below_100,
                                          NULL, NULL),
                     HNP_SUCCESS);
    assert_int_equal(cards.count, 0);
    hnp_buffer_release(&buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cards_read_back),
        cmocka_unit_test(test_unwanted_cards_are_skipped),
        cmocka_unit_test(test_malformed_run_stores_nothing),
        cmocka_unit_test(test_card_sent_twice_is_held_once),
        cmocka_unit_test(test_a_jobs_cards_go_with_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
