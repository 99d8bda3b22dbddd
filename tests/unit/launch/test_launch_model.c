/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the launch model file (runtime/launch/model.c): parsing,
 * the weighted update, the atomic write and the fit of SEQ and REM.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "launch/model.h"

static void parses_lines_comments_and_blanks(void **state)
{
    hnp_launch_model_t m = { NULL, 0 };
    char err[256] = "";

    (void)state;
    assert_int_equal(hnp_launch_model_parse(&m, "# c\n\nssh -x\t0.01\t0.05\t3\n"
                                            "rsh\t0.5\t1\t1", err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(m.n, 2);
    const hnp_launch_model_entry_t *e = hnp_launch_model_find(&m, "ssh -x");
    assert_non_null(e);
    assert_true(e->seq == 0.01 && e->rem == 0.05 && e->samples == 3);
    assert_null(hnp_launch_model_find(&m, "ssh"));
    hnp_launch_model_free(&m);
}

static void rejects_malformed_whole(void **state)
{
    static const char *const bad[] = {
        "ssh\t0.1\t0.2\n",            /* three fields */
        "ssh\t0.1\t0.2\t1\textra\n",  /* five */
        "ssh\tfast\t0.2\t1\n",        /* not a number */
        "ssh\t-0.1\t0.2\t1\n",        /* negative */
        "ssh\tnan\t0.2\t1\n",
        "ssh\t0.1\t0.2\t0\n",         /* no samples */
        "ssh\t0.1\t0.2\t-1\n",
        "\t0.1\t0.2\t1\n",            /* no agent */
        "ssh\t0.1\t0.2\t1\nssh\t0.1\t0.2\t1\n", /* twice */
    };
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        hnp_launch_model_t m = { NULL, 0 };
        err[0] = '\0';
        assert_int_equal(hnp_launch_model_parse(&m, bad[i], err, sizeof(err)),
                         HNP_ERR_BAD_PARAM);
        assert_int_equal(m.n, 0);
        assert_null(m.entries);
        assert_non_null(strstr(err, "line"));
    }
}

static void update_weights_new_measurement(void **state)
{
    hnp_launch_model_t m = { NULL, 0 };
    const hnp_launch_model_entry_t *e;

    (void)state;
    assert_int_equal(hnp_launch_model_update(&m, "ssh", 0.1, 1.0), 0);
    e = hnp_launch_model_find(&m, "ssh");
    assert_true(e->seq == 0.1 && e->rem == 1.0 && e->samples == 1);
    assert_int_equal(hnp_launch_model_update(&m, "ssh", 0.2, 2.0), 0);
    e = hnp_launch_model_find(&m, "ssh");
    assert_float_equal(e->seq, 0.7 * 0.1 + 0.3 * 0.2, 1e-12);
    assert_float_equal(e->rem, 0.7 * 1.0 + 0.3 * 2.0, 1e-12);
    assert_int_equal(e->samples, 2);
    assert_int_equal(hnp_launch_model_update(&m, "a\tb", 0.1, 0.1),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_launch_model_update(&m, "rsh", -1, 0.1),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(m.n, 1);
    hnp_launch_model_free(&m);
}

static void saves_atomically_and_reads_back(void **state)
{
    char dir[] = "/tmp/test_launch_model.XXXXXX", path[256], err[256] = "";
    hnp_launch_model_t m = { NULL, 0 }, back = { NULL, 0 };
    struct stat st;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/sub/launch-model", dir);
    assert_int_equal(hnp_launch_model_update(&m, "ssh -x", 0.0125, 0.25), 0);
    assert_int_equal(hnp_launch_model_update(&m, "rsh", 1, 2), 0);
    assert_int_equal(hnp_launch_model_save(&m, path, err, sizeof(err)), 0);
    assert_int_equal(hnp_launch_model_load(&back, path, err, sizeof(err)), 0);
    assert_int_equal(back.n, 2);
    assert_float_equal(hnp_launch_model_find(&back, "ssh -x")->seq, 0.0125,
                       1e-6);
    /* the directory holds the file alone: no temporary left behind */
    snprintf(path, sizeof(path), "%s/sub", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) = 1", path);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    hnp_launch_model_free(&m);
    hnp_launch_model_free(&back);
}

static void load_reports_missing_and_malformed(void **state)
{
    char dir[] = "/tmp/test_launch_model.XXXXXX", path[256], err[256] = "";
    hnp_launch_model_t m = { NULL, 0 };
    FILE *f;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/launch-model", dir);
    assert_int_equal(hnp_launch_model_load(&m, path, err, sizeof(err)),
                     HNP_ERR_NOT_FOUND);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("ssh\t0.1\t0.2\t1\ngarbage\n", f);
    fclose(f);
    assert_int_equal(hnp_launch_model_load(&m, path, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "line 2"));
    assert_int_equal(m.n, 0);
    unlink(path);
    rmdir(dir);
}

static void fit_recovers_seq_and_rem(void **state)
{
    /* joins at (i-1)·0.05 + 0.3, shuffled, one straggler */
    const double delays[] = { 0.40, 0.30, 0.35, 0.50, 0.45, 0.90 };
    const double before[] = { 0.40, 0.30, 0.35, 0.50, 0.45, 0.90 };
    double seq, rem;

    (void)state;
    assert_int_equal(hnp_launch_model_fit(delays, 6, &seq, &rem), 0);
    assert_float_equal(seq, 0.05, 1e-9);
    assert_float_equal(rem, 0.30, 1e-9);
    assert_memory_equal(delays, before, sizeof(before));
    assert_int_equal(hnp_launch_model_fit(delays, 1, &seq, &rem),
                     HNP_ERR_BAD_PARAM);
}

static void path_is_under_home(void **state)
{
    char path[256], err[128];

    (void)state;
    setenv("HOME", "/home/u", 1);
    assert_int_equal(hnp_launch_model_path(path, sizeof(path), err,
                                           sizeof(err)), 0);
    assert_string_equal(path, "/home/u/.hnp/launch-model");
    unsetenv("HOME");
    assert_int_equal(hnp_launch_model_path(path, sizeof(path), err,
                                           sizeof(err)), HNP_ERR_NOT_FOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_lines_comments_and_blanks),
        cmocka_unit_test(rejects_malformed_whole),
        cmocka_unit_test(update_weights_new_measurement),
        cmocka_unit_test(saves_atomically_and_reads_back),
        cmocka_unit_test(load_reports_missing_and_malformed),
        cmocka_unit_test(fit_recovers_seq_and_rem),
        cmocka_unit_test(path_is_under_home),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
