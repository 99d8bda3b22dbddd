/* SPDX-License-Identifier: BSD-3-Clause */
/* The vpid of a daemon that a spawn added through a launcher's own command
 * (hnpd --plm NAME --first-vpid F): F - 1 plus the plm's number for it. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hnpd/identity.h"

/* Under srun, the plm says SLURM_NODEID + 1: the added step's node 0 is
 * the first added daemon, its node 2 the third. */
static void test_offset(void **state)
{
    hnp_vpid_t vpid = 0;
    char err[256] = "";

    (void)state;
    assert_int_equal(hnpd_added_vpid("4", 1, &vpid, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(vpid, 4);
    assert_int_equal(hnpd_added_vpid("4", 3, &vpid, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(vpid, 6);
    /* a job whose first launch had no daemon: the plm's own numbers */
    assert_int_equal(hnpd_added_vpid("1", 2, &vpid, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(vpid, 2);
    assert_int_equal(hnpd_added_vpid("4294967294", 1, &vpid, err,
                                     sizeof(err)), HNP_SUCCESS);
    assert_int_equal(vpid, 4294967294u);
}

/* Anything else is refused, naming the value, and the vpid is untouched. */
static void test_refused(void **state)
{
    static const char *const bad[] = { "", "0", "-3", "+4", " 4", "4x",
                                       "4294967295", "99999999999999999999",
                                       NULL };
    hnp_vpid_t vpid = 77;
    char err[256];

    (void)state;
    for (size_t i = 0; bad[i] != NULL; i++) {
        err[0] = '\0';
        assert_int_equal(hnpd_added_vpid(bad[i], 1, &vpid, err, sizeof(err)),
                         HNP_ERR_BAD_PARAM);
        assert_non_null(strstr(err, "--first-vpid"));
        assert_int_equal(vpid, 77);
    }
    assert_int_equal(hnpd_added_vpid(NULL, 1, &vpid, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    /* past the largest vpid, or a plm number 0 */
    assert_int_equal(hnpd_added_vpid("4294967294", 2, &vpid, err,
                                     sizeof(err)), HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "past the largest vpid"));
    assert_int_equal(hnpd_added_vpid("5", 0, &vpid, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(vpid, 77);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
