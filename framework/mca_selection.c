/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selection lists: the value of a framework's own parameter, "a,b" to use
 * only those components or "^a,b" to use all but those.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_mca_base.h"

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* Check one element [start, start+len) of @p text, already trimmed. */
static int check_name(const char *text, const char *start, size_t len,
                      char *err, size_t errlen)
{
    if (len == 0) {
        hnp_err_set(err, errlen, "empty component name in the list '%s'", text);
        return HNP_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)start[i];

        if (c == '^') {
            hnp_err_set(err, errlen, "'^' may only start the list '%s' (it "
                        "excludes every name that follows it)", text);
            return HNP_ERR_BAD_PARAM;
        }
        if (!isalnum(c) && c != '_') {
            hnp_err_set(err, errlen, "bad character '%c' in the component "
                        "list '%s'", c, text);
            return HNP_ERR_BAD_PARAM;
        }
    }
    if (len >= HNP_MCA_NAME_LEN) {
        hnp_err_set(err, errlen, "component name '%.*s' in the list '%s' is "
                    "longer than %d characters", (int)len, start, text,
                    HNP_MCA_NAME_LEN - 1);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static int append_name(hnp_mca_selection_t *sel, const char *start, size_t len)
{
    char **grown = realloc(sel->names, (sel->count + 1) * sizeof(*grown));

    if (grown == NULL)
        return HNP_ERR_NOMEM;
    sel->names = grown;
    if ((grown[sel->count] = strndup(start, len)) == NULL)
        return HNP_ERR_NOMEM;
    sel->count++;
    return HNP_SUCCESS;
}

/* Split the names that start at @p list (within @p text) into @p sel. */
static int split_names(const char *text, const char *list,
                       hnp_mca_selection_t *sel, char *err, size_t errlen)
{
    const char *p = list;

    for (;;) {
        const char *start = skip_space(p);
        const char *end = strchr(start, ',');
        const char *next = end;
        int rc;

        if (end == NULL)
            end = start + strlen(start);
        while (end > start && isspace((unsigned char)end[-1]))
            end--;
        rc = check_name(text, start, (size_t)(end - start), err, errlen);
        if (rc == HNP_SUCCESS)
            rc = append_name(sel, start, (size_t)(end - start));
        if (rc == HNP_ERR_NOMEM)
            hnp_err_set(err, errlen, "out of memory parsing '%s'", text);
        if (rc != HNP_SUCCESS)
            return rc;
        if (next == NULL)
            return HNP_SUCCESS;
        p = next + 1;
    }
}

int hnp_mca_selection_parse(const char *text, hnp_mca_selection_t *sel,
                            char *err, size_t errlen)
{
    hnp_mca_selection_t result = { .exclude = false, .count = 0,
                                   .names = NULL };
    const char *p = skip_space(text != NULL ? text : "");
    int rc;

    if (*p == '\0') {
        *sel = result;
        return HNP_SUCCESS;
    }
    if (*p == '^') {
        result.exclude = true;
        p++;
        if (*skip_space(p) == '\0') {
            hnp_err_set(err, errlen, "the component list '%s' excludes "
                        "nothing: '^' must be followed by names", text);
            return HNP_ERR_BAD_PARAM;
        }
    }
    rc = split_names(text, p, &result, err, errlen);
    if (rc != HNP_SUCCESS) {
        hnp_mca_selection_free(&result);
        return rc;
    }
    *sel = result;
    return HNP_SUCCESS;
}

void hnp_mca_selection_free(hnp_mca_selection_t *sel)
{
    if (sel == NULL)
        return;
    for (size_t i = 0; i < sel->count; i++)
        free(sel->names[i]);
    free(sel->names);
    sel->names = NULL;
    sel->count = 0;
    sel->exclude = false;
}

bool hnp_mca_selection_allows(const hnp_mca_selection_t *sel, const char *name)
{
    bool listed = false;

    if (sel == NULL || (sel->count == 0 && !sel->exclude))
        return true;
    for (size_t i = 0; i < sel->count && !listed; i++)
        listed = strcmp(sel->names[i], name) == 0;
    return sel->exclude ? !listed : listed;
}

size_t hnp_mca_selection_rank(const hnp_mca_component_entry_t *entries,
                              size_t n, const hnp_mca_selection_t *sel,
                              const hnp_mca_component_entry_t **out,
                              size_t max)
{
    size_t count = 0;

    for (size_t i = 0; i < n; i++) {
        const hnp_mca_component_entry_t *e = &entries[i];
        size_t at;

        if (e->module == NULL ||
            !hnp_mca_selection_allows(sel, e->component->name))
            continue;
        /* Insertion after every entry of the same or a higher priority
         * keeps ties in the order given. */
        at = count < max ? count : max;
        while (at > 0 && out[at - 1]->priority < e->priority)
            at--;
        if (at < max) {
            size_t last = count < max ? count : max - 1;
            memmove(&out[at + 1], &out[at], (last - at) * sizeof(*out));
            out[at] = e;
        }
        count++;
    }
    return count;
}
