/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where values come from besides hnp_param_set(): the environment and
 * parameter files. Each source is read whole and handed to param_assign()
 * in one batch, so a bad line leaves nothing of its file applied.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "param_internal.h"

#define ENV_PREFIX "HNP_MCA_"

/* ------------------------------------------------------------ environment */

/* The '=' of an `HNP_MCA_<name>=<value>` entry with a non-empty name. */
static const char *env_param_equals(const char *entry)
{
    size_t prefix_len = strlen(ENV_PREFIX);
    const char *equals;

    if (strncmp(entry, ENV_PREFIX, prefix_len) != 0)
        return NULL;
    equals = strchr(entry + prefix_len, '=');
    if (equals == NULL || equals == entry + prefix_len)
        return NULL;
    return equals;
}

static size_t count_env_params(char *const *envp)
{
    size_t count = 0;

    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
        if (env_param_equals(envp[i]) != NULL)
            count++;
    return count;
}

int hnp_params_load_env(hnp_params_t *params, char *const *envp, char *err,
                        size_t errlen)
{
    size_t count = count_env_params(envp);
    size_t n = 0;
    param_assignment_t *assignments = calloc(count + 1, sizeof(*assignments));
    int rc = HNP_ERR_NOMEM;

    if (assignments == NULL)
        goto out;
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
        const char *equals = env_param_equals(envp[i]);
        if (equals == NULL)
            continue;
        /* The variable's name is the detail; the parameter's name is the
         * same text past the prefix. */
        char *variable = strndup(envp[i], (size_t)(equals - envp[i]));
        if (variable == NULL)
            goto out;
        assignments[n].detail = variable;
        assignments[n].name = variable + strlen(ENV_PREFIX);
        assignments[n].value = equals + 1;
        n++;
    }
    rc = param_assign(params, assignments, n, HNP_PARAM_SRC_ENV, err, errlen);
out:
    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory reading the environment");
    for (size_t i = 0; i < n; i++)
        free((char *)assignments[i].detail);
    free(assignments);
    return rc;
}

/* ------------------------------------------------------------ files */

typedef enum conf_line_kind {
    CONF_LINE_BLANK, /* nothing but blanks or a comment */
    CONF_LINE_ASSIGNMENT,
    CONF_LINE_MALFORMED,
} conf_line_kind_t;

static char *skip_blanks(char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    return text;
}

static void trim_end(char *text)
{
    size_t len = strlen(text);

    while (len > 0 && isspace((unsigned char)text[len - 1]))
        text[--len] = '\0';
}

/*
 * The value after '='. Quotes keep blanks and '#' that would otherwise be
 * trimmed or start a comment. Unquoted, '#' starts a comment only at the
 * start of a word, so that `ssh -o X=a#b` keeps its '#'.
 */
static conf_line_kind_t parse_conf_value(char *text, char **value,
                                         const char **why)
{
    text = skip_blanks(text);
    if (*text == '"' || *text == '\'') {
        char *close = strchr(text + 1, *text);
        if (close == NULL) {
            *why = "the quote is not closed";
            return CONF_LINE_MALFORMED;
        }
        *close = '\0';
        char *rest = skip_blanks(close + 1);
        if (*rest != '\0' && *rest != '#') {
            *why = "text after the closing quote";
            return CONF_LINE_MALFORMED;
        }
        *value = text + 1;
        return CONF_LINE_ASSIGNMENT;
    }
    for (char *c = text; *c != '\0'; c++) {
        if (*c == '#' && (c == text || isspace((unsigned char)c[-1]))) {
            *c = '\0';
            break;
        }
    }
    trim_end(text);
    *value = text;
    return CONF_LINE_ASSIGNMENT;
}

/* Split `name = value` in place. */
static conf_line_kind_t parse_conf_line(char *line, char **name, char **value,
                                        const char **why)
{
    char *start = skip_blanks(line);
    char *equals;

    if (*start == '\0' || *start == '#')
        return CONF_LINE_BLANK;
    equals = strchr(start, '=');
    if (equals == NULL) {
        *why = "expected \"name = value\"";
        return CONF_LINE_MALFORMED;
    }
    *equals = '\0';
    trim_end(start);
    if (*start == '\0') {
        *why = "no parameter name before '='";
        return CONF_LINE_MALFORMED;
    }
    for (const char *c = start; *c != '\0'; c++) {
        if (isspace((unsigned char)*c)) {
            *why = "a parameter name has no blanks in it";
            return CONF_LINE_MALFORMED;
        }
    }
    *name = start;
    return parse_conf_value(equals + 1, value, why);
}

/* A file's assignments. Each one's name, value and detail live in a single
 * block that begins at its name. */
typedef struct conf_entries {
    param_assignment_t *items;
    size_t count;
    size_t cap;
} conf_entries_t;

static void conf_entries_free(conf_entries_t *entries)
{
    for (size_t i = 0; i < entries->count; i++)
        free((char *)entries->items[i].name);
    free(entries->items);
}

static int conf_entries_add(conf_entries_t *entries, const char *name,
                            const char *value, const char *path,
                            unsigned long lineno)
{
    size_t name_len = strlen(name) + 1;
    size_t value_len = strlen(value) + 1;
    size_t detail_len = strlen(path) + 24; /* ':' and a line number */

    if (entries->count == entries->cap) {
        size_t cap = entries->cap > 0 ? entries->cap * 2 : 16;
        param_assignment_t *grown =
            realloc(entries->items, cap * sizeof(*grown));
        if (grown == NULL)
            return HNP_ERR_NOMEM;
        entries->items = grown;
        entries->cap = cap;
    }
    char *block = malloc(name_len + value_len + detail_len);
    if (block == NULL)
        return HNP_ERR_NOMEM;
    memcpy(block, name, name_len);
    memcpy(block + name_len, value, value_len);
    snprintf(block + name_len + value_len, detail_len, "%s:%lu", path, lineno);
    entries->items[entries->count++] = (param_assignment_t){
        .name = block,
        .value = block + name_len,
        .detail = block + name_len + value_len,
    };
    return HNP_SUCCESS;
}

static int read_conf_line(conf_entries_t *entries, char *line, size_t len,
                          const char *path, unsigned long lineno, char *err,
                          size_t errlen)
{
    char *name = NULL;
    char *value = NULL;
    const char *why = "a NUL byte in the line";
    conf_line_kind_t kind = CONF_LINE_MALFORMED;

    if (strlen(line) == len)
        kind = parse_conf_line(line, &name, &value, &why);
    if (kind == CONF_LINE_BLANK)
        return HNP_SUCCESS;
    if (kind == CONF_LINE_MALFORMED) {
        hnp_err_set(err, errlen, "%s:%lu: malformed line: %s", path, lineno,
                    why);
        return HNP_ERR_BAD_PARAM;
    }
    if (conf_entries_add(entries, name, value, path, lineno) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "out of memory reading %s", path);
        return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

static int read_conf_file(FILE *fp, const char *path, conf_entries_t *entries,
                          char *err, size_t errlen)
{
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    int rc = HNP_SUCCESS;

    while (rc == HNP_SUCCESS && (len = getline(&line, &line_cap, fp)) >= 0) {
        lineno++;
        rc = read_conf_line(entries, line, (size_t)len, path, lineno, err,
                            errlen);
    }
    if (rc == HNP_SUCCESS && !feof(fp)) {
        rc = errno == ENOMEM ? HNP_ERR_NOMEM : HNP_ERR_IO;
        hnp_err_set(err, errlen, "cannot read %s: %s", path, strerror(errno));
    }
    free(line);
    return rc;
}

int hnp_params_load_file(hnp_params_t *params, const char *path,
                         hnp_param_source_t source, bool optional, char *err,
                         size_t errlen)
{
    conf_entries_t entries = { 0 };
    FILE *fp;
    int rc;

    if (params == NULL || path == NULL) {
        hnp_err_set(err, errlen, "no registry or no file name");
        return HNP_ERR_BAD_PARAM;
    }
    fp = fopen(path, "r");
    if (fp == NULL) {
        bool missing = errno == ENOENT || errno == ENOTDIR;
        if (missing && optional)
            return HNP_SUCCESS;
        hnp_err_set(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return missing ? HNP_ERR_NOT_FOUND : HNP_ERR_IO;
    }
    rc = read_conf_file(fp, path, &entries, err, errlen);
    fclose(fp);
    if (rc == HNP_SUCCESS)
        rc = param_assign(params, entries.items, entries.count, source, err,
                          errlen);
    conf_entries_free(&entries);
    return rc;
}
