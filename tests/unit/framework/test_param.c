/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the parameter registry (framework/param*.c): types,
 * registration, sources and their precedence, synonyms.
 */
#include "config.h"

#include "param_fixture.h"


/* ------------------------------------------------------------ names */

static void test_type_and_source_names(void **state)
{
    (void)state;
    assert_string_equal(hnp_param_type_name(HNP_PARAM_INT), "int");
    assert_string_equal(hnp_param_type_name(HNP_PARAM_UNSIGNED), "unsigned");
    assert_string_equal(hnp_param_type_name(HNP_PARAM_SIZE), "size");
    assert_string_equal(hnp_param_type_name(HNP_PARAM_BOOL), "bool");
    assert_string_equal(hnp_param_type_name(HNP_PARAM_DOUBLE), "double");
    assert_string_equal(hnp_param_type_name(HNP_PARAM_STRING), "string");
    assert_string_equal(hnp_param_type_name(HNP_PARAM_ENUM), "enum");
    assert_string_equal(hnp_param_source_name(HNP_PARAM_SRC_DEFAULT),
                        "default");
    assert_string_equal(hnp_param_source_name(HNP_PARAM_SRC_SYSTEM_FILE),
                        "system file");
    assert_string_equal(hnp_param_source_name(HNP_PARAM_SRC_USER_FILE),
                        "user file");
    assert_string_equal(hnp_param_source_name(HNP_PARAM_SRC_TUNE_FILE),
                        "tune file");
    assert_string_equal(hnp_param_source_name(HNP_PARAM_SRC_ENV),
                        "environment");
    assert_string_equal(hnp_param_source_name(HNP_PARAM_SRC_FORWARDED),
                        "forwarded");
    assert_string_equal(hnp_param_source_name(HNP_PARAM_SRC_CMDLINE),
                        "command line");
}

static void test_full_names(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    char *selection = NULL;
    int verbose = -1;
    char *path = NULL;

    assert_int_equal(register_param(params, "plm", NULL, NULL,
                                    HNP_PARAM_STRING, "rsh", &selection), 0);
    assert_int_equal(register_param(params, "plm", "base", "verbose",
                                    HNP_PARAM_INT, "0", &verbose), 0);
    assert_int_equal(register_param(params, "mca", "base", "component_path",
                                    HNP_PARAM_STRING, "/x:/y", &path), 0);
    hnp_param_info_t info = info_of(params, "plm");
    assert_string_equal(info.framework, "plm");
    assert_string_equal(info.component, "");
    assert_string_equal(selection, "rsh");
    info = info_of(params, "plm_base_verbose");
    assert_string_equal(info.component, "base");
    assert_int_equal(verbose, 0);
    info = info_of(params, "mca_base_component_path");
    assert_string_equal(info.framework, "mca");
    assert_string_equal(path, "/x:/y");
    hnp_params_destroy(params);
}

/* ------------------------------------------------------------ registration */

static void test_register_defaults_and_info(void **state)
{
    (void)state;
    static const hnp_param_enum_value_t modes[] = {
        { "fork", 0 }, { "rsh", 1 }, { "ssh", 2 }, { NULL, 0 } };
    static const char *const synonyms[] = { "old_mode", NULL };
    hnp_params_t *params = hnp_params_create();
    int mode = -1;
    hnp_param_desc_t desc = {
        .framework = "plm", .component = "rsh", .name = "mode",
        .type = HNP_PARAM_ENUM, .default_value = "2", .help = "how",
        .level = 5, .enum_values = modes, .synonyms = synonyms,
        .storage = &mode,
    };

    assert_int_equal(hnp_param_register(params, &desc, err, sizeof(err)), 0);
    assert_int_equal(mode, 2);
    hnp_param_info_t info = info_of(params, "plm_rsh_mode");
    assert_string_equal(info.full_name, "plm_rsh_mode");
    assert_string_equal(info.value, "ssh");
    assert_string_equal(info.default_value, "ssh");
    assert_int_equal(info.source, HNP_PARAM_SRC_DEFAULT);
    assert_string_equal(info.source_detail, "");
    assert_string_equal(info.help, "how");
    assert_int_equal(info.level, 5);
    assert_int_equal(info.type, HNP_PARAM_ENUM);
    assert_string_equal(info.enum_values[1].name, "rsh");
    assert_null(info.enum_values[3].name);
    assert_string_equal(info.synonyms[0], "old_mode");
    assert_null(info.synonyms[1]);
    hnp_params_destroy(params);
}

static void test_register_canonical_defaults(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    size_t size = 0;
    bool flag = false;
    double ratio = 0;
    char *text = (char *)"untouched";

    assert_int_equal(register_param(params, "t", "c", "size", HNP_PARAM_SIZE,
                                    "4k", &size), 0);
    assert_int_equal(register_param(params, "t", "c", "flag", HNP_PARAM_BOOL,
                                    "Yes", &flag), 0);
    assert_int_equal(register_param(params, "t", "c", "ratio",
                                    HNP_PARAM_DOUBLE, "0.1", &ratio), 0);
    assert_int_equal(register_param(params, "t", "c", "text",
                                    HNP_PARAM_STRING, NULL, &text), 0);
    assert_int_equal(size, 4096);
    assert_string_equal(info_of(params, "t_c_size").default_value, "4096");
    assert_string_equal(info_of(params, "t_c_size").value, "4096");
    assert_true(flag);
    assert_string_equal(info_of(params, "t_c_flag").value, "true");
    assert_true(ratio == 0.1);
    assert_string_equal(info_of(params, "t_c_ratio").value, "0.1");
    assert_null(text); /* a NULL string default stores NULL ... */
    assert_string_equal(info_of(params, "t_c_text").value, ""); /* reads "" */
    assert_string_equal(info_of(params, "t_c_text").default_value, "");
    hnp_params_destroy(params);
}

static void test_register_existing_name(void **state)
{
    (void)state;
    static const char *const synonyms[] = { "rsh_agent", NULL };
    static const char *const taken[] = { "plm_rsh_agent", NULL };
    hnp_params_t *params = hnp_params_create();
    char *agent = NULL;
    int other = 7;
    hnp_param_desc_t desc = {
        .framework = "plm", .component = "rsh", .name = "agent",
        .type = HNP_PARAM_STRING, .default_value = "ssh", .level = 1,
        .synonyms = synonyms, .storage = &agent,
    };
    hnp_param_desc_t clash = {
        .framework = "x", .component = "y", .name = "z", .type = HNP_PARAM_INT,
        .default_value = "1", .level = 1, .synonyms = taken, .storage = &other,
    };

    assert_int_equal(hnp_param_register(params, &desc, err, sizeof(err)), 0);
    assert_int_equal(hnp_param_register(params, &desc, err, sizeof(err)),
                     HNP_ERR_EXISTS);
    assert_err_contains("plm_rsh_agent");
    assert_int_equal(hnp_param_register(params, &clash, err, sizeof(err)),
                     HNP_ERR_EXISTS);
    assert_int_equal(register_param(params, "rsh", NULL, NULL,
                                    HNP_PARAM_INT, "1", &other), 0);
    assert_int_equal(register_param(params, "rsh", "x", NULL, HNP_PARAM_INT,
                                    "1", &other), HNP_ERR_BAD_PARAM);
    assert_int_equal(other, 1);
    assert_int_equal(registered_count(params), 2);
    hnp_param_info_t info;
    assert_int_equal(hnp_param_lookup(params, "x_y_z", &info),
                     HNP_ERR_NOT_FOUND);
    assert_int_equal(hnp_param_lookup(params, "rsh_agent", &info), 0);
    assert_string_equal(info.full_name, "plm_rsh_agent");
    hnp_params_destroy(params);
}

/* Without a component, a framework-wide parameter is "<fw>_<name>". */
static void test_register_framework_wide(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    hnp_param_info_t info;
    double grace = 0;
    hnp_param_desc_t d = {
        .framework = "rte", .name = "kill_grace", .type = HNP_PARAM_DOUBLE,
        .default_value = "2", .level = 1, .storage = &grace,
    };

    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(hnp_param_lookup(params, "rte_kill_grace", &info),
                     HNP_SUCCESS);
    assert_string_equal(info.component, "");
    assert_true(grace == 2.0);
    hnp_params_destroy(params);
}

static void test_register_malformed_desc(void **state)
{
    (void)state;
    static const char *const self[] = { "a_b_c", NULL };
    hnp_params_t *params = hnp_params_create();
    int v = 99;
    hnp_param_desc_t good = {
        .framework = "a", .component = "b", .name = "c",
        .type = HNP_PARAM_INT, .default_value = "1", .level = 1, .storage = &v,
    };
    hnp_param_desc_t d;

    d = good; d.name = NULL;
    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    d = good; d.component = "has space";
    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    d = good; d.name = "has space";
    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    d = good; d.level = 0;
    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    d = good; d.level = 10;
    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    d = good; d.type = HNP_PARAM_ENUM;
    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    d = good; d.default_value = NULL;
    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    d = good; d.synonyms = self;
    assert_int_equal(hnp_param_register(params, &d, err, sizeof(err)),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(v, 99);
    assert_int_equal(registered_count(params), 0);
    assert_int_equal(hnp_param_register(params, &good, err, sizeof(err)), 0);
    assert_int_equal(v, 1);
    hnp_params_destroy(params);
}

static void test_register_bad_default(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    unsigned int n = 5;

    assert_int_equal(register_param(params, "plm", "rsh", "num_concurrent",
                                    HNP_PARAM_UNSIGNED, "abc", &n),
                     HNP_ERR_BAD_PARAM);
    assert_err_contains("plm_rsh_num_concurrent");
    assert_err_contains("\"abc\"");
    assert_err_contains("unsigned integer");
    assert_err_contains("default");
    assert_int_equal(n, 5);
    assert_int_equal(registered_count(params), 0);
    hnp_params_destroy(params);
}

/* ------------------------------------------------------------ values */

typedef struct value_case {
    const char *text;
    bool ok;
    const char *canonical; /* the value text after a successful set */
} value_case_t;

/* Set each case on a fresh parameter of @p type; a bad value must leave
 * the default in place. */
static void check_values(hnp_param_type_t type, const char *default_value,
                         const value_case_t *cases, size_t ncases)
{
    static const hnp_param_enum_value_t modes[] = {
        { "fork", 0 }, { "rsh", 1 }, { "ssh", 7 }, { NULL, 0 } };
    union { int i; unsigned u; size_t z; bool b; double d; char *s; } store;

    for (size_t i = 0; i < ncases; i++) {
        hnp_params_t *params = hnp_params_create();
        hnp_param_desc_t desc = {
            .framework = "t", .component = "c", .name = "v", .type = type,
            .default_value = default_value, .level = 1,
            .enum_values = modes, .storage = &store,
        };
        assert_int_equal(hnp_param_register(params, &desc, err, sizeof(err)),
                         0);
        char before[128];
        snprintf(before, sizeof(before), "%s", info_of(params, "t_c_v").value);
        int rc = set_value(params, "t_c_v", cases[i].text,
                           HNP_PARAM_SRC_CMDLINE, NULL);
        hnp_param_info_t info = info_of(params, "t_c_v");
        if (cases[i].ok) {
            if (rc != 0)
                fail_msg("\"%s\" refused: %s", cases[i].text, err);
            if (strcmp(info.value, cases[i].canonical) != 0)
                fail_msg("\"%s\" reads \"%s\", expected \"%s\"",
                         cases[i].text, info.value, cases[i].canonical);
            assert_int_equal(info.source, HNP_PARAM_SRC_CMDLINE);
        } else {
            if (rc != HNP_ERR_BAD_PARAM)
                fail_msg("\"%s\" accepted as %s", cases[i].text,
                         hnp_param_type_name(type));
            assert_err_contains("t_c_v");
            assert_string_equal(info.value, before);
            assert_int_equal(info.source, HNP_PARAM_SRC_DEFAULT);
        }
        hnp_params_destroy(params);
    }
}

#define CHECK_VALUES(type, def, cases)                                      \
    check_values(type, def, cases, sizeof(cases) / sizeof(cases[0]))

static void test_int_values(void **state)
{
    (void)state;
    static const value_case_t cases[] = {
        { "42", true, "42" }, { "-7", true, "-7" }, { "+3", true, "3" },
        { "0x1f", true, "31" }, { "007", true, "7" },
        { "2147483647", true, "2147483647" },
        { "-2147483648", true, "-2147483648" },
        { "2147483648", false, NULL }, { "-2147483649", false, NULL },
        { "99999999999999999999999", false, NULL }, { "abc", false, NULL },
        { "", false, NULL }, { " 4", false, NULL }, { "4 ", false, NULL },
        { "12x", false, NULL }, { "1.5", false, NULL }, { "--1", false, NULL },
        { "0x", false, NULL }, { "-", false, NULL },
    };
    CHECK_VALUES(HNP_PARAM_INT, "1", cases);
}

static void test_unsigned_values(void **state)
{
    (void)state;
    static const value_case_t cases[] = {
        { "0", true, "0" }, { "4294967295", true, "4294967295" },
        { "0x10", true, "16" }, { "+5", true, "5" },
        { "4294967296", false, NULL }, { "-1", false, NULL },
        { "-0", false, NULL }, { "abc", false, NULL }, { "1e3", false, NULL },
        { "5 ", false, NULL }, { "-x", false, NULL },
    };
    CHECK_VALUES(HNP_PARAM_UNSIGNED, "1", cases);
}

static void test_size_values(void **state)
{
    (void)state;
    static const value_case_t cases[] = {
        { "0", true, "0" }, { "512", true, "512" }, { "4k", true, "4096" },
        { "4K", true, "4096" }, { "4kb", true, "4096" },
        { "4KiB", true, "4096" }, { "2m", true, "2097152" },
        { "3MB", true, "3145728" }, { "1g", true, "1073741824" },
        { "1GiB", true, "1073741824" }, { "10b", true, "10" },
        { "4x", false, NULL }, { "k", false, NULL }, { "-1", false, NULL },
        { "-1k", false, NULL }, { "1.5k", false, NULL },
        { "4 k", false, NULL }, { "18446744073709551616", false, NULL },
        { "18446744073709551615k", false, NULL }, { "", false, NULL },
        { "0x10", false, NULL },
    };
    CHECK_VALUES(HNP_PARAM_SIZE, "1", cases);
}

static void test_bool_values(void **state)
{
    (void)state;
    static const value_case_t cases[] = {
        { "true", true, "true" }, { "TRUE", true, "true" },
        { "yes", true, "true" }, { "On", true, "true" }, { "1", true, "true" },
        { "false", true, "false" }, { "No", true, "false" },
        { "off", true, "false" }, { "0", true, "false" },
        { "maybe", false, NULL }, { "2", false, NULL }, { "", false, NULL },
        { "yes ", false, NULL }, { "truex", false, NULL },
    };
    CHECK_VALUES(HNP_PARAM_BOOL, "false", cases);
    CHECK_VALUES(HNP_PARAM_BOOL, "true", cases);
}

static void test_double_values(void **state)
{
    (void)state;
    static const value_case_t cases[] = {
        { "1.5", true, "1.5" }, { "-2e3", true, "-2000" },
        { "0.1", true, "0.1" }, { "3", true, "3" }, { "1e20", true, "1e+20" },
        { "123456.5", true, "123456.5" }, { "2.5e-7", true, "2.5e-07" },
        { "abc", false, NULL }, { "1.5x", false, NULL },
        { "inf", false, NULL }, { "nan", false, NULL },
        { "1e999", false, NULL }, { "", false, NULL }, { " 1", false, NULL },
    };
    CHECK_VALUES(HNP_PARAM_DOUBLE, "0", cases);
}

static void test_enum_values(void **state)
{
    (void)state;
    static const value_case_t cases[] = {
        { "rsh", true, "rsh" }, { "SSH", true, "ssh" }, { "7", true, "ssh" },
        { "0", true, "fork" }, { "telnet", false, NULL },
        { "2", false, NULL }, { "", false, NULL }, { "rsh ", false, NULL },
    };
    CHECK_VALUES(HNP_PARAM_ENUM, "rsh", cases);
}

static void test_string_values(void **state)
{
    (void)state;
    static const value_case_t cases[] = {
        { "", true, "" }, { "ssh -x", true, "ssh -x" },
        { "  spaced  ", true, "  spaced  " }, { "a=b#c", true, "a=b#c" },
    };
    CHECK_VALUES(HNP_PARAM_STRING, "d", cases);
}

static void test_error_messages(void **state)
{
    (void)state;
    static const hnp_param_enum_value_t modes[] = {
        { "fork", 0 }, { "rsh", 1 }, { NULL, 0 } };
    hnp_params_t *params = hnp_params_create();
    unsigned int n = 0;
    int mode = 0;
    hnp_param_desc_t desc = {
        .framework = "plm", .component = "rsh", .name = "launch",
        .type = HNP_PARAM_ENUM, .default_value = "fork", .level = 1,
        .enum_values = modes, .storage = &mode,
    };

    assert_int_equal(register_param(params, "plm", "rsh", "num_concurrent",
                                    HNP_PARAM_UNSIGNED, "8", &n), 0);
    assert_int_equal(hnp_param_register(params, &desc, err, sizeof(err)), 0);
    assert_int_equal(set_value(params, "plm_rsh_num_concurrent", "abc",
                               HNP_PARAM_SRC_CMDLINE, "command line"),
                     HNP_ERR_BAD_PARAM);
    assert_string_equal(err, "parameter plm_rsh_num_concurrent: value \"abc\" "
                             "(from command line) is not a valid unsigned "
                             "integer");
    assert_int_equal(set_value(params, "plm_rsh_num_concurrent", "-1",
                               HNP_PARAM_SRC_ENV, "HNP_MCA_plm_rsh_num_"
                                                  "concurrent"),
                     HNP_ERR_BAD_PARAM);
    assert_err_contains("\"-1\"");
    assert_err_contains("environment HNP_MCA_plm_rsh_num_concurrent");
    assert_err_contains("out of range");
    assert_err_contains("unsigned integer");
    assert_int_equal(set_value(params, "plm_rsh_launch", "telnet",
                               HNP_PARAM_SRC_TUNE_FILE, "/t.conf:4"),
                     HNP_ERR_BAD_PARAM);
    assert_err_contains("plm_rsh_launch");
    assert_err_contains("\"telnet\"");
    assert_err_contains("tune file /t.conf:4");
    assert_err_contains("enum");
    assert_err_contains("fork, rsh");
    assert_int_equal(n, 8);
    assert_int_equal(mode, 0);
    hnp_params_destroy(params);
}

/* ------------------------------------------------------------ precedence */

static void check_precedence_pair(hnp_param_source_t first,
                                  hnp_param_source_t second, bool registered)
{
    hnp_params_t *params = hnp_params_create();
    hnp_param_source_t strong = first > second ? first : second;
    const char *strong_value = first > second ? "1" : "2";
    const char *strong_detail = first > second ? "first" : "second";
    int value = -1;

    if (registered)
        assert_int_equal(register_param(params, "t", "c", "p", HNP_PARAM_INT,
                                        "0", &value), 0);
    assert_int_equal(set_value(params, "t_c_p", "1", first, "first"), 0);
    assert_int_equal(set_value(params, "t_c_p", "2", second, "second"), 0);
    if (!registered)
        assert_int_equal(register_param(params, "t", "c", "p", HNP_PARAM_INT,
                                        "0", &value), 0);
    hnp_param_info_t info = info_of(params, "t_c_p");
    if (strcmp(info.value, strong_value) != 0 || info.source != strong)
        fail_msg("%s then %s (%s registration): %s from %s wins",
                 hnp_param_source_name(first), hnp_param_source_name(second),
                 registered ? "after" : "before", info.value,
                 hnp_param_source_name(info.source));
    assert_int_equal(value, atoi(strong_value));
    assert_string_equal(info.source_detail, strong_detail);
    hnp_params_destroy(params);
}

static void test_precedence_every_pair(void **state)
{
    (void)state;
    for (int a = FIRST_SET_SOURCE; a <= LAST_SOURCE; a++) {
        for (int b = FIRST_SET_SOURCE; b <= LAST_SOURCE; b++) {
            if (a == b)
                continue;
            check_precedence_pair(a, b, true);
            check_precedence_pair(a, b, false);
        }
    }
}

static void test_precedence_order_is_documented_one(void **state)
{
    (void)state;
    static const hnp_param_source_t weakest_first[] = {
        HNP_PARAM_SRC_DEFAULT, HNP_PARAM_SRC_SYSTEM_FILE,
        HNP_PARAM_SRC_USER_FILE, HNP_PARAM_SRC_TUNE_FILE, HNP_PARAM_SRC_ENV,
        HNP_PARAM_SRC_FORWARDED, HNP_PARAM_SRC_CMDLINE,
    };
    hnp_params_t *params = hnp_params_create();
    int value = -1;

    assert_int_equal(register_param(params, "t", "c", "p", HNP_PARAM_INT,
                                    "0", &value), 0);
    /* Strongest first: every later, weaker value must lose. */
    for (int i = 6; i >= 1; i--)
        assert_int_equal(set_value(params, "t_c_p", i == 6 ? "6" : "5",
                                   weakest_first[i], NULL), 0);
    assert_int_equal(value, 6);
    assert_int_equal(info_of(params, "t_c_p").source, HNP_PARAM_SRC_CMDLINE);
    hnp_params_destroy(params);
}

static void test_same_source_later_wins(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    char *agent = NULL;

    assert_int_equal(set_value(params, "plm_rsh_agent", "rsh",
                               HNP_PARAM_SRC_ENV, "A"), 0);
    assert_int_equal(set_value(params, "plm_rsh_agent", "ssh",
                               HNP_PARAM_SRC_ENV, "B"), 0);
    assert_int_equal(register_param(params, "plm", "rsh", "agent",
                                    HNP_PARAM_STRING, "x", &agent), 0);
    assert_string_equal(agent, "ssh");
    assert_int_equal(set_value(params, "plm_rsh_agent", "oarsh",
                               HNP_PARAM_SRC_ENV, "C"), 0);
    assert_string_equal(agent, "oarsh");
    assert_string_equal(info_of(params, "plm_rsh_agent").source_detail, "C");
    hnp_params_destroy(params);
}

static void test_set_after_register_applies_at_once(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    size_t limit = 0;

    assert_int_equal(register_param(params, "t", "c", "limit", HNP_PARAM_SIZE,
                                    "1k", &limit), 0);
    assert_int_equal(limit, 1024);
    assert_int_equal(set_value(params, "t_c_limit", "2m",
                               HNP_PARAM_SRC_USER_FILE, "/h/.hnp/x:3"), 0);
    assert_int_equal(limit, 2 * 1024 * 1024);
    hnp_param_info_t info = info_of(params, "t_c_limit");
    assert_int_equal(info.source, HNP_PARAM_SRC_USER_FILE);
    assert_string_equal(info.source_detail, "/h/.hnp/x:3");
    assert_string_equal(info.value, "2097152");
    /* A weaker value is remembered but does not win. */
    assert_int_equal(set_value(params, "t_c_limit", "3",
                               HNP_PARAM_SRC_SYSTEM_FILE, NULL), 0);
    assert_int_equal(limit, 2 * 1024 * 1024);
    hnp_params_destroy(params);
}

static void test_bad_value_after_register_changes_nothing(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    int value = 0;

    assert_int_equal(register_param(params, "t", "c", "p", HNP_PARAM_INT,
                                    "3", &value), 0);
    assert_int_equal(set_value(params, "t_c_p", "4", HNP_PARAM_SRC_ENV, "E"),
                     0);
    assert_int_equal(set_value(params, "t_c_p", "x", HNP_PARAM_SRC_CMDLINE,
                               NULL), HNP_ERR_BAD_PARAM);
    /* Even a value too weak to win is checked. */
    assert_int_equal(set_value(params, "t_c_p", "y",
                               HNP_PARAM_SRC_SYSTEM_FILE, NULL),
                     HNP_ERR_BAD_PARAM);
    hnp_param_info_t info = info_of(params, "t_c_p");
    assert_int_equal(value, 4);
    assert_string_equal(info.value, "4");
    assert_int_equal(info.source, HNP_PARAM_SRC_ENV);
    assert_string_equal(info.source_detail, "E");
    assert_int_equal(hnp_params_check_unknown(params, NULL, NULL), 0);
    hnp_params_destroy(params);
}

static void test_bad_pending_value_fails_register(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    int value = 11;

    assert_int_equal(set_value(params, "t_c_p", "5", HNP_PARAM_SRC_CMDLINE,
                               NULL), 0);
    assert_int_equal(set_value(params, "t_c_p", "five",
                               HNP_PARAM_SRC_USER_FILE, "/u.conf:2"), 0);
    assert_int_equal(register_param(params, "t", "c", "p", HNP_PARAM_INT,
                                    "0", &value), HNP_ERR_BAD_PARAM);
    assert_err_contains("t_c_p");
    assert_err_contains("\"five\"");
    assert_err_contains("user file /u.conf:2");
    assert_err_contains("integer");
    assert_int_equal(value, 11);
    assert_int_equal(registered_count(params), 0);
    /* The same values fit a string parameter of that name. */
    char *text = NULL;
    assert_int_equal(register_param(params, "t", "c", "p", HNP_PARAM_STRING,
                                    "", &text), 0);
    assert_string_equal(text, "5");
    hnp_params_destroy(params);
}

static void test_set_refuses_default_source_and_missing_parts(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();

    assert_int_equal(set_value(params, "a", "1", HNP_PARAM_SRC_DEFAULT, NULL),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(set_value(params, "a", NULL, HNP_PARAM_SRC_ENV, NULL),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(set_value(params, "", "1", HNP_PARAM_SRC_ENV, NULL),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(set_value(params, "a", "1", (hnp_param_source_t)42,
                               NULL), HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_params_check_unknown(params, NULL, NULL), 0);
    hnp_params_destroy(params);
}

/* ------------------------------------------------------------ synonyms */


static void test_synonym_sets_parameter(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    int degree = -1;

    assert_int_equal(set_value(params, "prsh_spawning_degree", "4",
                               HNP_PARAM_SRC_ENV, NULL), 0);
    assert_int_equal(register_with_synonym(params, &degree), 0);
    assert_int_equal(degree, 4);
    assert_int_equal(set_value(params, "prsh_degree", "8",
                               HNP_PARAM_SRC_CMDLINE, NULL), 0);
    assert_int_equal(degree, 8);
    assert_string_equal(info_of(params, "prsh_degree").full_name,
                        "plm_prsh_spawning_degree");
    assert_int_equal(set_value(params, "prsh_degree", "x",
                               HNP_PARAM_SRC_CMDLINE, NULL),
                     HNP_ERR_BAD_PARAM);
    assert_err_contains("plm_prsh_spawning_degree");
    assert_int_equal(hnp_params_check_unknown(params, NULL, NULL), 0);
    hnp_params_destroy(params);
}

static void test_synonym_stronger_source_wins(void **state)
{
    (void)state;
    hnp_params_t *params = hnp_params_create();
    int degree = -1;

    assert_int_equal(set_value(params, "plm_prsh_spawning_degree", "2",
                               HNP_PARAM_SRC_ENV, NULL), 0);
    assert_int_equal(set_value(params, "prsh_spawning_degree", "3",
                               HNP_PARAM_SRC_CMDLINE, NULL), 0);
    assert_int_equal(register_with_synonym(params, &degree), 0);
    assert_int_equal(degree, 3);
    assert_int_equal(set_value(params, "plm_prsh_spawning_degree", "5",
                               HNP_PARAM_SRC_TUNE_FILE, NULL), 0);
    assert_int_equal(degree, 3);
    hnp_params_destroy(params);
}

static void test_synonym_tie_goes_to_main_name(void **state)
{
    (void)state;
    for (int order = 0; order < 2; order++) {
        for (int registered_first = 0; registered_first < 2;
             registered_first++) {
            hnp_params_t *params = hnp_params_create();
            int degree = -1;
            if (registered_first)
                assert_int_equal(register_with_synonym(params, &degree), 0);
            const char *names[2] = { "plm_prsh_spawning_degree",
                                     "prsh_degree" };
            const char *values[2] = { "6", "9" };
            for (int k = 0; k < 2; k++) {
                int i = order ? 1 - k : k;
                assert_int_equal(set_value(params, names[i], values[i],
                                           HNP_PARAM_SRC_CMDLINE, NULL), 0);
            }
            if (!registered_first)
                assert_int_equal(register_with_synonym(params, &degree), 0);
            assert_int_equal(degree, 6);
            hnp_params_destroy(params);
        }
    }
}

/* ------------------------------------------------------------ unknown */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_and_source_names),
        cmocka_unit_test(test_full_names),
        cmocka_unit_test(test_register_defaults_and_info),
        cmocka_unit_test(test_register_canonical_defaults),
        cmocka_unit_test(test_register_existing_name),
        cmocka_unit_test(test_register_malformed_desc),
        cmocka_unit_test(test_register_framework_wide),
        cmocka_unit_test(test_register_bad_default),
        cmocka_unit_test(test_int_values),
        cmocka_unit_test(test_unsigned_values),
        cmocka_unit_test(test_size_values),
        cmocka_unit_test(test_bool_values),
        cmocka_unit_test(test_double_values),
        cmocka_unit_test(test_enum_values),
        cmocka_unit_test(test_string_values),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_precedence_every_pair),
        cmocka_unit_test(test_precedence_order_is_documented_one),
        cmocka_unit_test(test_same_source_later_wins),
        cmocka_unit_test(test_set_after_register_applies_at_once),
        cmocka_unit_test(test_bad_value_after_register_changes_nothing),
        cmocka_unit_test(test_bad_pending_value_fails_register),
        cmocka_unit_test(test_set_refuses_default_source_and_missing_parts),
        cmocka_unit_test(test_synonym_sets_parameter),
        cmocka_unit_test(test_synonym_stronger_source_wins),
        cmocka_unit_test(test_synonym_tie_goes_to_main_name),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
