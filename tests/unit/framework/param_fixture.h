/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the parameter registry's unit tests. */
#ifndef HNP_TEST_PARAM_FIXTURE_H
#define HNP_TEST_PARAM_FIXTURE_H

#include <limits.h>
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
#include "hnp_param.h"

#define FIRST_SET_SOURCE HNP_PARAM_SRC_SYSTEM_FILE
#define LAST_SOURCE HNP_PARAM_SRC_CMDLINE

/* The last error message a call under test wrote. */
static char err[1024];


static inline int register_param(hnp_params_t *params, const char *framework,
                          const char *component, const char *name,
                          hnp_param_type_t type, const char *default_value,
                          void *storage)
{
    hnp_param_desc_t desc = {
        .framework = framework, .component = component, .name = name,
        .type = type, .default_value = default_value, .help = "help text",
        .level = 3, .storage = storage,
    };
    err[0] = '\0';
    return hnp_param_register(params, &desc, err, sizeof(err));
}

static inline int set_value(hnp_params_t *params, const char *name,
                     const char *value, hnp_param_source_t source,
                     const char *detail)
{
    err[0] = '\0';
    return hnp_param_set(params, name, value, source, detail, err,
                         sizeof(err));
}

static inline hnp_param_info_t info_of(const hnp_params_t *params, const char *name)
{
    hnp_param_info_t info;
    assert_int_equal(hnp_param_lookup(params, name, &info), HNP_SUCCESS);
    return info;
}

static inline void assert_err_contains(const char *needle)
{
    if (strstr(err, needle) == NULL)
        fail_msg("error \"%s\" does not contain \"%s\"", err, needle);
}

static inline int count_params(const hnp_param_info_t *info, void *ctx)
{
    (void)info;
    (*(int *)ctx)++;
    return 0;
}

static inline int registered_count(const hnp_params_t *params)
{
    int n = 0;
    assert_int_equal(hnp_params_foreach(params, count_params, &n), 0);
    return n;
}

static inline char *write_temp_file(const char *content)
{
    char *path = strdup("/tmp/test_param_XXXXXX");
    assert_non_null(path);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = strlen(content);
    assert_int_equal(write(fd, content, len), (ssize_t)len);
    close(fd);
    return path;
}

static inline void remove_temp_file(char *path)
{
    unlink(path);
    free(path);
}

static inline int register_with_synonym(hnp_params_t *params, int *storage)
{
    static const char *const synonyms[] = { "prsh_spawning_degree",
                                            "prsh_degree", NULL };
    hnp_param_desc_t desc = {
        .framework = "plm", .component = "prsh", .name = "spawning_degree",
        .type = HNP_PARAM_INT, .default_value = "0", .level = 4,
        .synonyms = synonyms, .storage = storage,
    };
    return hnp_param_register(params, &desc, err, sizeof(err));
}

#endif /* HNP_TEST_PARAM_FIXTURE_H */
