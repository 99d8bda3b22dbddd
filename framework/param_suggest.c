/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names that were set but that nothing registered, and the registered
 * names the user probably meant.
 *
 * Two kinds of closeness count. A typo (`plm_rsh_num_concurent`) is a small
 * edit distance. A half-remembered name (`prsh_degree` for
 * `plm_prsh_spawning_degree`, `verbose` for `plm_base_verbose`) is far in
 * edits but shares a long run of characters. Candidates are ranked by edit
 * distance, then by the longest shared run, then by name, so the answer
 * never depends on registration order. Case is ignored: an environment
 * variable written in capitals still finds its parameter.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "param_internal.h"

/* Typos: up to a quarter of the name's characters, and at least 2. */
#define SUGGEST_MIN_EDITS 2
#define SUGGEST_EDIT_DIVISOR 4
/* Shared runs: at least 5 characters and half the unknown name. */
#define SUGGEST_MIN_RUN 5

typedef struct suggestion {
    const char *name;
    size_t distance;
    size_t run;
} suggestion_t;

/* Two rows of dynamic-programming scratch, long enough for any candidate. */
typedef struct suggest_scratch {
    size_t *prev;
    size_t *cur;
} suggest_scratch_t;

static bool same_letter(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Levenshtein distance, one row per character of @p a. */
static size_t edit_distance(const char *a, const char *b,
                            suggest_scratch_t *scratch)
{
    size_t blen = strlen(b);
    size_t *prev = scratch->prev;
    size_t *cur = scratch->cur;

    for (size_t j = 0; j <= blen; j++)
        prev[j] = j;
    for (size_t i = 1; a[i - 1] != '\0'; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t substitute =
                prev[j - 1] + (same_letter(a[i - 1], b[j - 1]) ? 0 : 1);
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, substitute);
        }
        size_t *swap = prev;
        prev = cur;
        cur = swap;
    }
    return prev[blen];
}

/* Length of the longest run of characters that @p a and @p b share. */
static size_t longest_shared_run(const char *a, const char *b,
                                 suggest_scratch_t *scratch)
{
    size_t blen = strlen(b);
    size_t *prev = scratch->prev;
    size_t *cur = scratch->cur;
    size_t best = 0;

    memset(prev, 0, (blen + 1) * sizeof(*prev));
    for (size_t i = 1; a[i - 1] != '\0'; i++) {
        cur[0] = 0;
        for (size_t j = 1; j <= blen; j++) {
            cur[j] = same_letter(a[i - 1], b[j - 1]) ? prev[j - 1] + 1 : 0;
            if (cur[j] > best)
                best = cur[j];
        }
        size_t *swap = prev;
        prev = cur;
        cur = swap;
    }
    return best;
}

static bool is_close(const char *unknown, const suggestion_t *s)
{
    size_t len = strlen(unknown);
    size_t max_edits = len / SUGGEST_EDIT_DIVISOR;
    size_t min_run = (len + 1) / 2;

    if (max_edits < SUGGEST_MIN_EDITS)
        max_edits = SUGGEST_MIN_EDITS;
    if (min_run < SUGGEST_MIN_RUN)
        min_run = SUGGEST_MIN_RUN;
    return s->distance <= max_edits || s->run >= min_run;
}

static bool ranks_before(const suggestion_t *a, const suggestion_t *b)
{
    if (a->distance != b->distance)
        return a->distance < b->distance;
    if (a->run != b->run)
        return a->run > b->run;
    return strcmp(a->name, b->name) < 0;
}

/* Keep the best PARAM_MAX_SUGGESTIONS in order; @p kept of them so far. */
static void keep_if_better(suggestion_t *best, size_t *kept,
                           const suggestion_t *candidate)
{
    size_t at = *kept;

    while (at > 0 && ranks_before(candidate, &best[at - 1]))
        at--;
    if (at >= PARAM_MAX_SUGGESTIONS)
        return;
    size_t last = *kept < PARAM_MAX_SUGGESTIONS ? *kept
                                                : PARAM_MAX_SUGGESTIONS - 1;
    memmove(&best[at + 1], &best[at], (last - at) * sizeof(*best));
    best[at] = *candidate;
    if (*kept < PARAM_MAX_SUGGESTIONS)
        (*kept)++;
}

/* How close @p candidate is to @p unknown, or false when not close. */
static bool measure(const char *unknown, const char *candidate,
                    suggest_scratch_t *scratch, suggestion_t *out)
{
    out->name = candidate;
    out->distance = edit_distance(unknown, candidate, scratch);
    out->run = longest_shared_run(unknown, candidate, scratch);
    return is_close(unknown, out);
}

/* A parameter is as close as the closest of its names, and is suggested
 * under its main name: synonyms are usually the old names. */
static void consider(const char *unknown, const param_t *param,
                     suggest_scratch_t *scratch, suggestion_t *best,
                     size_t *kept)
{
    suggestion_t closest;
    suggestion_t s;
    bool near = measure(unknown, param->full_name, scratch, &closest);

    for (char **synonym = param->synonyms; *synonym != NULL; synonym++) {
        if (measure(unknown, *synonym, scratch, &s) &&
            (!near || ranks_before(&s, &closest))) {
            closest = s;
            near = true;
        }
    }
    if (!near)
        return;
    closest.name = param->full_name;
    keep_if_better(best, kept, &closest);
}

/* Fill @p out (PARAM_MAX_SUGGESTIONS + 1 entries) with the registered
 * names closest to @p unknown, NULL-terminated. */
static void suggest(const hnp_params_t *params, const char *unknown,
                    suggest_scratch_t *scratch, const char **out)
{
    suggestion_t best[PARAM_MAX_SUGGESTIONS];
    size_t kept = 0;

    for (size_t i = 0; i < params->nparams; i++)
        consider(unknown, params->params[i], scratch, best, &kept);
    for (size_t i = 0; i < kept; i++)
        out[i] = best[i].name;
    out[kept] = NULL;
}

static size_t longest_registered_name(const hnp_params_t *params)
{
    size_t longest = 0;

    for (size_t i = 0; i < params->nparams; i++) {
        const param_t *param = params->params[i];
        if (strlen(param->full_name) > longest)
            longest = strlen(param->full_name);
        for (char **s = param->synonyms; *s != NULL; s++)
            if (strlen(*s) > longest)
                longest = strlen(*s);
    }
    return longest;
}

int hnp_params_check_unknown(const hnp_params_t *params,
                             void (*fn)(const char *name,
                                        hnp_param_source_t source,
                                        const char *detail,
                                        const char *const *suggestions,
                                        void *ctx),
                             void *ctx)
{
    size_t row;
    suggest_scratch_t scratch;
    int unknown = 0;

    if (params == NULL)
        return HNP_ERR_BAD_PARAM;
    row = longest_registered_name(params) + 1;
    scratch.prev = calloc(row, sizeof(size_t));
    scratch.cur = calloc(row, sizeof(size_t));
    if (scratch.prev == NULL || scratch.cur == NULL) {
        free(scratch.prev);
        free(scratch.cur);
        return HNP_ERR_NOMEM;
    }
    for (size_t i = 0; i < params->nsettings; i++) {
        const param_setting_t *setting = &params->settings[i];
        const char *suggestions[PARAM_MAX_SUGGESTIONS + 1];
        hnp_param_source_t source;
        const param_slot_t *slot = param_setting_strongest(setting, &source);
        if (slot == NULL || param_find(params, setting->name) != NULL)
            continue;
        unknown++;
        if (fn == NULL)
            continue;
        suggest(params, setting->name, &scratch, suggestions);
        fn(setting->name, source, slot->detail, suggestions, ctx);
    }
    free(scratch.prev);
    free(scratch.cur);
    return unknown;
}
