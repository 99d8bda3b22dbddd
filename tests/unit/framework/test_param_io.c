/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the parameter registry (framework/param*.c): unknown names
 * and suggestions, the environment, files, the packed form the HNP forwards
 * to its daemons, ownership and iteration.
 */
#include "config.h"

#include "param_fixture.h"

typedef struct unknown_report {
    char name[64];
    hnp_param_source_t source;
    char detail[64];
    char suggestions[4][64];
    int nsuggestions;
} unknown_report_t;

typedef struct unknown_reports {
    unknown_report_t r[8];
    int n;
} unknown_reports_t;

static void collect_unknown(const char *name, hnp_param_source_t source,
                            const char *detail,
                            const char *const *suggestions, void *ctx)
{
    unknown_reports_t *reports = ctx;
    assert_true(reports->n < 8);
    unknown_report_t *r = &reports->r[reports->n++];
    snprintf(r->name, sizeof(r->name), "%s", name);
    r->source = source;
    snprintf(r->detail, sizeof(r->detail), "%s", detail);
    for (r->nsuggestions = 0; suggestions[r->nsuggestions] != NULL;
         r->nsuggestions++) {
        assert_true(r->nsuggestions < HNP_PARAM_MAX_SUGGESTIONS);
        snprintf(r->suggestions[r->nsuggestions], 64, "%s",
                 suggestions[r->nsuggestions]);
    }
}

static void register_launch_params(hnp_params_t *params, bool reversed)
{
    static const char *const names[][3] = {
        { "plm", "rsh", "num_concurrent" }, { "plm", "rsh", "agent" },
        { "plm", "base", "verbose" }, { "routed", "base", "verbose" },
        { "exchange", "base", "verbose" }, { "mca", "base", "verbose" },
        { "routed", "radix", "degree" },
    };
    static int storage[8];
    size_t n = sizeof(names) / sizeof(names[0]);

    for (size_t k = 0; k < n; k++) {
        size_t i = reversed ? n - 1 - k : k;
        assert_int_equal(register_param(params, names[i][0], names[i][1],
                                        names[i][2], HNP_PARAM_INT, "0",
                                        &storage[i]), 0);
    }
    assert_int_equal(register_with_synonym(params, &storage[7]), 0);
}

static void find_unknowns(bool reversed, unknown_reports_t *reports)
{
    hnp_params_t *params = hnp_params_create();

    assert_int_equal(set_value(params, "plm_rsh_num_concurent", "4",
                               HNP_PARAM_SRC_TUNE_FILE, "/t:1"), 0);
    assert_int_equal(set_value(params, "plm_rsh_num_concurent", "4",
                               HNP_PARAM_SRC_CMDLINE, "command line"), 0);
    assert_int_equal(set_value(params, "PLM_RSH_AGENT", "ssh",
                               HNP_PARAM_SRC_ENV, "HNP_MCA_PLM_RSH_AGENT"), 0);
    assert_int_equal(set_value(params, "plm_prsh_degree", "2",
                               HNP_PARAM_SRC_USER_FILE, "/u:9"), 0);
    assert_int_equal(set_value(params, "verbose", "1",
                               HNP_PARAM_SRC_CMDLINE, NULL), 0);
    assert_int_equal(set_value(params, "xyzzy", "1", HNP_PARAM_SRC_CMDLINE,
                               NULL), 0);
    assert_int_equal(set_value(params, "plm_rsh_agent", "2",
                               HNP_PARAM_SRC_CMDLINE, NULL), 0);
    assert_int_equal(set_value(params, "prsh_degree", "3",
                               HNP_PARAM_SRC_CMDLINE, NULL), 0);
    register_launch_params(params, reversed);
    memset(reports, 0, sizeof(*reports));
    assert_int_equal(hnp_params_check_unknown(params, collect_unknown,
                                              reports), 5);
    hnp_params_destroy(params);
}

static void test_unknown_names_and_suggestions(void **state)
{
    (void)state;
    unknown_reports_t got;

    find_unknowns(false, &got);
    assert_int_equal(got.n, 5);
    assert_string_equal(got.r[0].name, "plm_rsh_num_concurent");
    assert_int_equal(got.r[0].source, HNP_PARAM_SRC_CMDLINE);
    assert_string_equal(got.r[0].detail, "command line");
    assert_string_equal(got.r[0].suggestions[0], "plm_rsh_num_concurrent");
    assert_string_equal(got.r[1].name, "PLM_RSH_AGENT");
    assert_int_equal(got.r[1].source, HNP_PARAM_SRC_ENV);
    assert_string_equal(got.r[1].detail, "HNP_MCA_PLM_RSH_AGENT");
    assert_string_equal(got.r[1].suggestions[0], "plm_rsh_agent");
    assert_string_equal(got.r[2].name, "plm_prsh_degree");
    assert_string_equal(got.r[2].detail, "/u:9");
    assert_true(got.r[2].nsuggestions >= 1);
    assert_string_equal(got.r[2].suggestions[0], "plm_prsh_spawning_degree");
    /* Four *_base_verbose are close; the three best, in a fixed order. */
    assert_string_equal(got.r[3].name, "verbose");
    assert_int_equal(got.r[3].nsuggestions, 3);
    assert_string_equal(got.r[3].suggestions[0], "mca_base_verbose");
    assert_string_equal(got.r[3].suggestions[1], "plm_base_verbose");
    assert_string_equal(got.r[3].suggestions[2], "routed_base_verbose");
    assert_string_equal(got.r[4].name, "xyzzy");
    assert_int_equal(got.r[4].nsuggestions, 0);
}

static void test_suggestions_do_not_depend_on_order(void **state)
{
    (void)state;
    unknown_reports_t forward;
    unknown_reports_t backward;

    find_unknowns(false, &forward);
    find_unknowns(true, &backward);
    assert_memory_equal(&forward, &backward, sizeof(forward));
}

/* ------------------------------------------------------------ environment */

static void test_load_env(void **state)
{
    (void)state;
    char *envp[] = {
        "PATH=/bin", "HNP_MCA_plm_rsh_agent=ssh -x", "HNP_MCA_later=a=b",
        "HNP_MCA_", "HNP_MCA_noequals", "HNP_MCA_=v", "hnp_mca_lower=1",
        "XHNP_MCA_plm_rsh_agent=no", NULL,
    };
    hnp_params_t *params = hnp_params_create();
    char *agent = NULL;
    char *later = NULL;
    unknown_reports_t unknown = { .n = 0 };

    assert_int_equal(register_param(params, "plm", "rsh", "agent",
                                    HNP_PARAM_STRING, "rsh", &agent), 0);
    assert_int_equal(hnp_params_load_env(params, envp, err, sizeof(err)), 0);
    assert_string_equal(agent, "ssh -x");
    hnp_param_info_t info = info_of(params, "plm_rsh_agent");
    assert_int_equal(info.source, HNP_PARAM_SRC_ENV);
    assert_string_equal(info.source_detail, "HNP_MCA_plm_rsh_agent");
    assert_int_equal(hnp_params_check_unknown(params, collect_unknown,
                                              &unknown), 1);
    assert_string_equal(unknown.r[0].name, "later");
    assert_string_equal(unknown.r[0].detail, "HNP_MCA_later");
    assert_int_equal(register_param(params, "later", NULL, NULL,
                                    HNP_PARAM_STRING, "", &later), 0);
    assert_string_equal(later, "a=b");
    assert_int_equal(hnp_params_load_env(params, NULL, err, sizeof(err)), 0);
    hnp_params_destroy(params);
}

static void test_load_env_bad_value_applies_nothing(void **state)
{
    (void)state;
    char *envp[] = { "HNP_MCA_t_c_name=new", "HNP_MCA_t_c_count=many",
                     "HNP_MCA_pending=1", NULL };
    hnp_params_t *params = hnp_params_create();
    char *name = NULL;
    int count = 2;

    assert_int_equal(register_param(params, "t", "c", "name",
                                    HNP_PARAM_STRING, "old", &name), 0);
    assert_int_equal(register_param(params, "t", "c", "count", HNP_PARAM_INT,
                                    "2", &count), 0);
    assert_int_equal(hnp_params_load_env(params, envp, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_err_contains("t_c_count");
    assert_err_contains("\"many\"");
    assert_err_contains("HNP_MCA_t_c_count");
    assert_string_equal(name, "old");
    assert_int_equal(count, 2);
    assert_int_equal(hnp_params_check_unknown(params, NULL, NULL), 0);
    hnp_params_destroy(params);
}

/* ------------------------------------------------------------ files */

static void test_load_file(void **state)
{
    (void)state;
    char *path = write_temp_file(
        "# a comment\n"
        "\n"
        "   \t\n"
        "plm_rsh_agent = ssh -x   \n"
        "  t_c_count=3 # trailing comment\n"
        "t_c_quoted = \"  keep # this  \"  # comment\n"
        "t_c_single='a b'\n"
        "t_c_hash = a#b\n"
        "t_c_empty =\n"
        "t_c_count = 4\r\n"
        "pending_name = 1\n");
    hnp_params_t *params = hnp_params_create();
    char *agent = NULL, *quoted = NULL, *single = NULL, *hash = NULL;
    char *empty = NULL;
    int count = 0;
    char detail[512];

    assert_int_equal(register_param(params, "plm", "rsh", "agent",
                                    HNP_PARAM_STRING, "rsh", &agent), 0);
    assert_int_equal(register_param(params, "t", "c", "count", HNP_PARAM_INT,
                                    "0", &count), 0);
    assert_int_equal(hnp_params_load_file(params, path,
                                          HNP_PARAM_SRC_SYSTEM_FILE, false,
                                          err, sizeof(err)), 0);
    assert_int_equal(register_param(params, "t", "c", "quoted",
                                    HNP_PARAM_STRING, "", &quoted), 0);
    assert_int_equal(register_param(params, "t", "c", "single",
                                    HNP_PARAM_STRING, "", &single), 0);
    assert_int_equal(register_param(params, "t", "c", "hash",
                                    HNP_PARAM_STRING, "", &hash), 0);
    assert_int_equal(register_param(params, "t", "c", "empty",
                                    HNP_PARAM_STRING, "x", &empty), 0);
    assert_string_equal(agent, "ssh -x");
    assert_int_equal(count, 4); /* the later line wins */
    assert_string_equal(quoted, "  keep # this  ");
    assert_string_equal(single, "a b");
    assert_string_equal(hash, "a#b");
    assert_string_equal(empty, "");
    hnp_param_info_t info = info_of(params, "plm_rsh_agent");
    assert_int_equal(info.source, HNP_PARAM_SRC_SYSTEM_FILE);
    snprintf(detail, sizeof(detail), "%s:4", path);
    assert_string_equal(info.source_detail, detail);
    snprintf(detail, sizeof(detail), "%s:10", path);
    assert_string_equal(info_of(params, "t_c_count").source_detail, detail);
    assert_int_equal(hnp_params_check_unknown(params, NULL, NULL), 1);
    hnp_params_destroy(params);
    remove_temp_file(path);
}

static void test_load_file_malformed_lines(void **state)
{
    (void)state;
    static const char *const bad_lines[] = {
        "no equals sign\n", "= 3\n", "two words = 3\n", "a = \"open\n",
        "a = 'x' y\n", "a = \"x\" \"y\"\n",
    };
    for (size_t i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
        char content[256];
        char where[512];
        snprintf(content, sizeof(content), "# header\nt_c_p = 5\n%s",
                 bad_lines[i]);
        char *path = write_temp_file(content);
        hnp_params_t *params = hnp_params_create();
        int p = 1;
        assert_int_equal(register_param(params, "t", "c", "p", HNP_PARAM_INT,
                                        "1", &p), 0);
        if (hnp_params_load_file(params, path, HNP_PARAM_SRC_TUNE_FILE, false,
                                 err, sizeof(err)) != HNP_ERR_BAD_PARAM)
            fail_msg("accepted the line %s", bad_lines[i]);
        snprintf(where, sizeof(where), "%s:3:", path);
        assert_err_contains(where);
        assert_int_equal(p, 1); /* line 2 was good, but not applied */
        assert_int_equal(info_of(params, "t_c_p").source,
                         HNP_PARAM_SRC_DEFAULT);
        hnp_params_destroy(params);
        remove_temp_file(path);
    }
}

static void test_load_file_bad_value(void **state)
{
    (void)state;
    char *path = write_temp_file("t_c_other = 7\n\nt_c_p = lots\n");
    hnp_params_t *params = hnp_params_create();
    unsigned int p = 1;
    char where[512];

    assert_int_equal(register_param(params, "t", "c", "p",
                                    HNP_PARAM_UNSIGNED, "1", &p), 0);
    assert_int_equal(hnp_params_load_file(params, path,
                                          HNP_PARAM_SRC_USER_FILE, true, err,
                                          sizeof(err)), HNP_ERR_BAD_PARAM);
    snprintf(where, sizeof(where), "(from user file %s:3)", path);
    assert_err_contains(where);
    assert_err_contains("t_c_p");
    assert_err_contains("\"lots\"");
    assert_err_contains("unsigned integer");
    assert_int_equal(hnp_params_check_unknown(params, NULL, NULL), 0);
    hnp_params_destroy(params);
    remove_temp_file(path);
}

static void test_load_file_missing(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    const char *missing = "/nonexistent/dir/hnp-mca-params.conf";

    assert_int_equal(hnp_params_load_file(params, missing,
                                          HNP_PARAM_SRC_USER_FILE, true, err,
                                          sizeof(err)), 0);
    assert_int_equal(hnp_params_load_file(params, missing,
                                          HNP_PARAM_SRC_TUNE_FILE, false, err,
                                          sizeof(err)), HNP_ERR_NOT_FOUND);
    assert_err_contains(missing);
    assert_int_equal(hnp_params_load_file(params, "/tmp",
                                          HNP_PARAM_SRC_TUNE_FILE, true, err,
                                          sizeof(err)), HNP_ERR_IO);
    hnp_params_destroy(params);
}

static void test_files_in_precedence(void **state)
{
    (void)state;
    char *system_file = write_temp_file("t_c_a = 1\nt_c_b = 1\nt_c_c = 1\n");
    char *user_file = write_temp_file("t_c_b = 2\nt_c_c = 2\n");
    char *tune_file = write_temp_file("t_c_c = 3\n");
    hnp_params_t *params = hnp_params_create();
    int a = 0, b = 0, c = 0;

    /* Read strongest first, as the programs do: order must not matter. */
    assert_int_equal(hnp_params_load_file(params, tune_file,
                                          HNP_PARAM_SRC_TUNE_FILE, false, err,
                                          sizeof(err)), 0);
    assert_int_equal(hnp_params_load_file(params, user_file,
                                          HNP_PARAM_SRC_USER_FILE, false, err,
                                          sizeof(err)), 0);
    assert_int_equal(hnp_params_load_file(params, system_file,
                                          HNP_PARAM_SRC_SYSTEM_FILE, false,
                                          err, sizeof(err)), 0);
    assert_int_equal(register_param(params, "t", "c", "a", HNP_PARAM_INT, "0",
                                    &a), 0);
    assert_int_equal(register_param(params, "t", "c", "b", HNP_PARAM_INT, "0",
                                    &b), 0);
    assert_int_equal(register_param(params, "t", "c", "c", HNP_PARAM_INT, "0",
                                    &c), 0);
    assert_int_equal(a, 1);
    assert_int_equal(b, 2);
    assert_int_equal(c, 3);
    assert_int_equal(info_of(params, "t_c_b").source,
                     HNP_PARAM_SRC_USER_FILE);
    hnp_params_destroy(params);
    remove_temp_file(system_file);
    remove_temp_file(user_file);
    remove_temp_file(tune_file);
}

/* ------------------------------------------------------------ pack */

/* The HNP side: values from several sources, one default, one pending. */
static hnp_params_t *make_sender(void)
{
    static int count;
    static char *agent;
    static double ratio;
    static int untouched;
    hnp_params_t *params = hnp_params_create();

    assert_int_equal(set_value(params, "not_registered_here", "x y",
                               HNP_PARAM_SRC_ENV, NULL), 0);
    assert_int_equal(register_param(params, "t", "c", "count", HNP_PARAM_INT,
                                    "1", &count), 0);
    assert_int_equal(register_param(params, "t", "c", "agent",
                                    HNP_PARAM_STRING, "rsh", &agent), 0);
    assert_int_equal(register_param(params, "t", "c", "ratio",
                                    HNP_PARAM_DOUBLE, "1", &ratio), 0);
    assert_int_equal(register_param(params, "t", "c", "untouched",
                                    HNP_PARAM_INT, "5", &untouched), 0);
    assert_int_equal(set_value(params, "t_c_count", "0x20",
                               HNP_PARAM_SRC_CMDLINE, NULL), 0);
    assert_int_equal(set_value(params, "t_c_agent", "",
                               HNP_PARAM_SRC_TUNE_FILE, NULL), 0);
    assert_int_equal(set_value(params, "t_c_ratio", "0.3",
                               HNP_PARAM_SRC_USER_FILE, NULL), 0);
    return params;
}

/* The daemon side: the same registrations, nothing set yet. */
static hnp_params_t *make_receiver(int *count, char **agent, double *ratio,
                                   int *untouched)
{
    hnp_params_t *params = hnp_params_create();

    assert_int_equal(register_param(params, "t", "c", "count", HNP_PARAM_INT,
                                    "1", count), 0);
    assert_int_equal(register_param(params, "t", "c", "agent",
                                    HNP_PARAM_STRING, "rsh", agent), 0);
    assert_int_equal(register_param(params, "t", "c", "ratio",
                                    HNP_PARAM_DOUBLE, "1", ratio), 0);
    assert_int_equal(register_param(params, "t", "c", "untouched",
                                    HNP_PARAM_INT, "5", untouched), 0);
    return params;
}

static void assert_receiver_untouched(const hnp_params_t *params, int count,
                                      const char *agent)
{
    assert_int_equal(count, 1);
    assert_string_equal(agent, "rsh");
    assert_int_equal(info_of(params, "t_c_count").source,
                     HNP_PARAM_SRC_DEFAULT);
    assert_int_equal(info_of(params, "t_c_ratio").source,
                     HNP_PARAM_SRC_DEFAULT);
    assert_int_equal(hnp_params_check_unknown(params, NULL, NULL), 0);
}

/* Unpack as a daemon does what its parent forwarded. */
static int unpack(hnp_params_t *params, const char *buf, size_t len)
{
    return hnp_params_unpack(params, buf, len, HNP_PARAM_SRC_FORWARDED, err,
                             sizeof(err));
}

/* A sender, its packed values, and a receiver that has not unpacked yet. */
typedef struct pack_fixture {
    hnp_params_t *sender, *receiver;
    int count, untouched; /* the receiver's storage */
    char *agent;
    double ratio;
    char *buf;
    size_t len;
} pack_fixture_t;

static int pack_setup(void **state)
{
    pack_fixture_t *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    f->sender = make_sender();
    f->receiver = make_receiver(&f->count, &f->agent, &f->ratio,
                                &f->untouched);
    assert_int_equal(hnp_params_pack(f->sender, &f->buf, &f->len), 0);
    *state = f;
    return 0;
}

static int pack_teardown(void **state)
{
    pack_fixture_t *f = *state;

    free(f->buf);
    hnp_params_destroy(f->receiver);
    hnp_params_destroy(f->sender);
    free(f);
    return 0;
}

static void test_pack_round_trip(void **state)
{
    pack_fixture_t *f = *state;
    char *later = NULL;

    assert_int_equal(unpack(f->receiver, f->buf, f->len), 0);
    assert_int_equal(f->count, 32);
    assert_string_equal(f->agent, "");
    assert_true(f->ratio == 0.3);
    assert_int_equal(f->untouched, 5);
    assert_int_equal(info_of(f->receiver, "t_c_count").source,
                     HNP_PARAM_SRC_FORWARDED);
    assert_int_equal(info_of(f->receiver, "t_c_untouched").source,
                     HNP_PARAM_SRC_DEFAULT);
    assert_int_equal(hnp_params_check_unknown(f->receiver, NULL, NULL), 1);
    assert_int_equal(register_param(f->receiver, "not", "registered", "here",
                                    HNP_PARAM_STRING, "", &later), 0);
    assert_string_equal(later, "x y");
    assert_int_equal(info_of(f->receiver, "not_registered_here").source,
                     HNP_PARAM_SRC_FORWARDED);
}

static void test_pack_nothing_set(void **state)
{
    (void)state;
    hnp_params_t *sender = hnp_params_create();
    int count, untouched;
    char *agent;
    double ratio;
    hnp_params_t *receiver = make_receiver(&count, &agent, &ratio, &untouched);
    char *buf = NULL;
    size_t len = 0;

    assert_int_equal(register_param(sender, "t", "c", "count", HNP_PARAM_INT,
                                    "9", &untouched), 0);
    assert_int_equal(hnp_params_pack(sender, &buf, &len), 0);
    assert_true(len <= 10);
    assert_int_equal(unpack(receiver, buf, len), 0);
    assert_receiver_untouched(receiver, count, agent);
    free(buf);
    hnp_params_destroy(receiver);
    hnp_params_destroy(sender);
}

static void test_unpack_rejects_truncated(void **state)
{
    pack_fixture_t *f = *state;

    for (size_t cut = 0; cut < f->len; cut++) {
        char *copy = malloc(cut + 1); /* exact size: valgrind sees overreads */
        memcpy(copy, f->buf, cut);
        int rc = unpack(f->receiver, copy, cut);
        if (rc != HNP_ERR_TRUNCATED && rc != HNP_ERR_BAD_PARAM)
            fail_msg("%zu of %zu bytes: %d", cut, f->len, rc);
        assert_err_contains("rejected");
        assert_receiver_untouched(f->receiver, f->count, f->agent);
        free(copy);
    }
}

static void test_unpack_rejects_corrupt(void **state)
{
    static const unsigned char flips[] = { 0x01, 0x80, 0xff };
    pack_fixture_t *f = *state;

    for (size_t at = 0; at < f->len; at++) {
        for (size_t i = 0; i < sizeof(flips); i++) {
            char *copy = malloc(f->len);
            memcpy(copy, f->buf, f->len);
            copy[at] = (char)(copy[at] ^ flips[i]);
            if (unpack(f->receiver, copy, f->len) == HNP_SUCCESS)
                fail_msg("byte %zu ^ 0x%02x accepted", at, flips[i]);
            assert_receiver_untouched(f->receiver, f->count, f->agent);
            free(copy);
        }
    }
    /* Trailing bytes are corruption too. */
    char *longer = malloc(f->len + 1);
    memcpy(longer, f->buf, f->len);
    longer[f->len] = 0;
    assert_int_not_equal(unpack(f->receiver, longer, f->len + 1), HNP_SUCCESS);
    assert_receiver_untouched(f->receiver, f->count, f->agent);
    free(longer);
}

/* A buffer in the documented format with a correct FNV-1a hash, so that
 * only the structure checks can reject it. */
static size_t seal(unsigned char *buf, size_t len)
{
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        hash ^= buf[i];
        hash *= 16777619u;
    }
    for (int shift = 24; shift >= 0; shift -= 8)
        buf[len++] = (unsigned char)(hash >> shift);
    return len;
}

static void test_unpack_checks_structure(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        size_t len;
        unsigned char bytes[24];
    } cases[] = {
        { "duplicate name", 13,
          { 'H', 'N', 'P', 'P', 1, 2, 1, 'a', 1, '1', 1, 'a', 0 } },
        { "NUL in a name", 10, { 'H', 'N', 'P', 'P', 1, 1, 2, 'a', 0, 0 } },
        { "empty name", 8, { 'H', 'N', 'P', 'P', 1, 1, 0, 0 } },
        { "name past the end", 9, { 'H', 'N', 'P', 'P', 1, 1, 9, 'a', 0 } },
        { "count too large", 10, { 'H', 'N', 'P', 'P', 1, 2, 1, 'a', 1, '1' } },
        { "bytes after the entries", 11,
          { 'H', 'N', 'P', 'P', 1, 1, 1, 'a', 1, '1', 'x' } },
        { "varint too long", 11,
          { 'H', 'N', 'P', 'P', 1, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00 } },
        { "other version", 10, { 'H', 'N', 'P', 'P', 2, 1, 1, 'a', 1, '1' } },
        { "other magic", 10, { 'H', 'N', 'P', 'Q', 1, 1, 1, 'a', 1, '1' } },
    };
    static const unsigned char good[] = { 'H', 'N', 'P', 'P', 1, 1,
                                          5, 't', '_', 'c', '_', 'x', 1, '7' };
    hnp_params_t *params = hnp_params_create();
    unsigned char buf[32];
    int x = 0;

    assert_int_equal(register_param(params, "t", "c", "x", HNP_PARAM_INT, "0",
                                    &x), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memcpy(buf, cases[i].bytes, cases[i].len);
        size_t len = seal(buf, cases[i].len);
        if (unpack(params, (char *)buf, len) == HNP_SUCCESS)
            fail_msg("accepted a buffer with %s", cases[i].what);
        assert_int_equal(hnp_params_check_unknown(params, NULL, NULL), 0);
        assert_int_equal(x, 0);
    }
    /* The same hand-made framing, well formed, is accepted. */
    memcpy(buf, good, sizeof(good));
    size_t len = seal(buf, sizeof(good));
    assert_int_equal(unpack(params, (char *)buf, len), 0);
    assert_int_equal(x, 7);
    hnp_params_destroy(params);
}

static void test_unpack_bad_value_rejected_whole(void **state)
{
    pack_fixture_t *f = *state;
    bool flag = false;

    /* The daemon knows not_registered_here as a bool; "x y" is not one. */
    assert_int_equal(register_param(f->receiver, "not", "registered", "here",
                                    HNP_PARAM_BOOL, "false", &flag), 0);
    assert_int_equal(unpack(f->receiver, f->buf, f->len), HNP_ERR_BAD_PARAM);
    assert_err_contains("not_registered_here");
    assert_err_contains("forwarded");
    assert_receiver_untouched(f->receiver, f->count, f->agent);
}

static void test_unpack_loses_to_command_line(void **state)
{
    pack_fixture_t *f = *state;

    assert_int_equal(set_value(f->receiver, "t_c_count", "7",
                               HNP_PARAM_SRC_CMDLINE, NULL), 0);
    assert_int_equal(set_value(f->receiver, "t_c_ratio", "9",
                               HNP_PARAM_SRC_ENV, NULL), 0);
    assert_int_equal(unpack(f->receiver, f->buf, f->len), 0);
    assert_int_equal(f->count, 7);
    assert_true(f->ratio == 0.3);
}

/* ------------------------------------------------------------ the rest */

static void test_string_storage_owned_by_registry(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    char *agent = NULL;
    char value[32];

    assert_int_equal(register_param(params, "plm", "rsh", "agent",
                                    HNP_PARAM_STRING, "ssh", &agent), 0);
    for (int i = 0; i < 50; i++) {
        snprintf(value, sizeof(value), "agent-%d", i);
        hnp_param_source_t source = FIRST_SET_SOURCE + i % 6;
        assert_int_equal(set_value(params, "plm_rsh_agent", value, source,
                                   "somewhere"), 0);
    }
    /* The last command-line value (i = 47) wins and is a private copy. */
    assert_string_equal(agent, "agent-47");
    assert_ptr_not_equal(agent, value);
    hnp_params_destroy(params);
    assert_null(agent);
}

typedef struct foreach_probe {
    char names[8][64];
    int n;
    int stop_after;
} foreach_probe_t;

static int record_name(const hnp_param_info_t *info, void *ctx)
{
    foreach_probe_t *probe = ctx;
    snprintf(probe->names[probe->n], 64, "%s", info->full_name);
    probe->n++;
    return probe->n == probe->stop_after ? 42 : 0;
}

static void test_foreach_and_lookup(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    int storage[3];
    foreach_probe_t probe = { .n = 0, .stop_after = 0 };
    hnp_param_info_t info;

    assert_int_equal(register_param(params, "z", "c", "last", HNP_PARAM_INT,
                                    "0", &storage[0]), 0);
    assert_int_equal(register_param(params, "a", "c", "first", HNP_PARAM_INT,
                                    "0", &storage[1]), 0);
    assert_int_equal(register_param(params, "m", NULL, NULL, HNP_PARAM_INT,
                                    "0", &storage[2]), 0);
    assert_int_equal(hnp_params_foreach(params, record_name, &probe), 0);
    assert_int_equal(probe.n, 3);
    assert_string_equal(probe.names[0], "z_c_last");
    assert_string_equal(probe.names[1], "a_c_first");
    assert_string_equal(probe.names[2], "m");
    probe.n = 0;
    probe.stop_after = 2;
    assert_int_equal(hnp_params_foreach(params, record_name, &probe), 42);
    assert_int_equal(probe.n, 2);
    assert_int_equal(hnp_param_lookup(params, "nope", &info),
                     HNP_ERR_NOT_FOUND);
    hnp_params_destroy(params);
}

static void test_storage_may_be_null(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();

    assert_int_equal(register_param(params, "t", "c", "v", HNP_PARAM_STRING,
                                    "a", NULL), 0);
    assert_int_equal(set_value(params, "t_c_v", "b", HNP_PARAM_SRC_ENV,
                               NULL), 0);
    assert_string_equal(info_of(params, "t_c_v").value, "b");
    hnp_params_destroy(params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_names_and_suggestions),
        cmocka_unit_test(test_suggestions_do_not_depend_on_order),
        cmocka_unit_test(test_load_env),
        cmocka_unit_test(test_load_env_bad_value_applies_nothing),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_load_file_malformed_lines),
        cmocka_unit_test(test_load_file_bad_value),
        cmocka_unit_test(test_load_file_missing),
        cmocka_unit_test(test_files_in_precedence),
        cmocka_unit_test_setup_teardown(test_pack_round_trip, pack_setup,
                                        pack_teardown),
        cmocka_unit_test(test_pack_nothing_set),
        cmocka_unit_test_setup_teardown(test_unpack_rejects_truncated, pack_setup,
                                        pack_teardown),
        cmocka_unit_test_setup_teardown(test_unpack_rejects_corrupt, pack_setup,
                                        pack_teardown),
        cmocka_unit_test(test_unpack_checks_structure),
        cmocka_unit_test_setup_teardown(test_unpack_bad_value_rejected_whole, pack_setup,
                                        pack_teardown),
        cmocka_unit_test_setup_teardown(test_unpack_loses_to_command_line, pack_setup,
                                        pack_teardown),
        cmocka_unit_test(test_string_storage_owned_by_registry),
        cmocka_unit_test(test_foreach_and_lookup),
        cmocka_unit_test(test_storage_may_be_null),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
