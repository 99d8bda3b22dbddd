/* SPDX-License-Identifier: BSD-3-Clause */
/* The names a user probably meant (hnp_suggest.h). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_suggest.h"

/* Typos: up to a quarter of the name's characters, and at least 2. */
#define SUGGEST_MIN_EDITS 2
#define SUGGEST_EDIT_DIVISOR 4
/* Shared runs: at least 5 characters and half the unknown name. */
#define SUGGEST_MIN_RUN 5

static bool same_letter(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Rows long enough for a candidate of @p len characters. */
static bool make_room(hnp_suggest_t *s, size_t len)
{
    if (len + 1 <= s->room)
        return true;
    size_t *prev = realloc(s->prev, (len + 1) * sizeof(size_t));
    if (prev != NULL)
        s->prev = prev;
    size_t *cur = prev != NULL ? realloc(s->cur, (len + 1) * sizeof(size_t))
                               : NULL;
    if (cur == NULL)
        return false;
    s->cur = cur;
    s->room = len + 1;
    return true;
}

/* Levenshtein distance, one row per character of @p a. */
static size_t edit_distance(hnp_suggest_t *s, const char *a, const char *b)
{
    size_t blen = strlen(b);
    size_t *prev = s->prev, *cur = s->cur;

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
static size_t longest_shared_run(hnp_suggest_t *s, const char *a,
                                 const char *b)
{
    size_t blen = strlen(b), best = 0;
    size_t *prev = s->prev, *cur = s->cur;

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

static bool is_close(const char *unknown, const hnp_suggest_score_t *sc)
{
    size_t len = strlen(unknown);
    size_t max_edits = len / SUGGEST_EDIT_DIVISOR;
    size_t min_run = (len + 1) / 2;

    if (max_edits < SUGGEST_MIN_EDITS)
        max_edits = SUGGEST_MIN_EDITS;
    if (min_run < SUGGEST_MIN_RUN)
        min_run = SUGGEST_MIN_RUN;
    return sc->distance <= max_edits || sc->run >= min_run;
}

void hnp_suggest_init(hnp_suggest_t *s, const char *unknown)
{
    memset(s, 0, sizeof(*s));
    s->unknown = unknown;
}

bool hnp_suggest_measure(hnp_suggest_t *s, const char *name,
                         hnp_suggest_score_t *score)
{
    if (!make_room(s, strlen(name)))
        return false;
    score->name = name;
    score->distance = edit_distance(s, s->unknown, name);
    score->run = longest_shared_run(s, s->unknown, name);
    return is_close(s->unknown, score);
}

bool hnp_suggest_ranks_before(const hnp_suggest_score_t *a,
                              const hnp_suggest_score_t *b)
{
    if (a->distance != b->distance)
        return a->distance < b->distance;
    if (a->run != b->run)
        return a->run > b->run;
    return strcmp(a->name, b->name) < 0;
}

void hnp_suggest_keep(hnp_suggest_t *s, const hnp_suggest_score_t *score)
{
    size_t at = s->kept;

    for (size_t i = 0; i < s->kept; i++)
        if (strcmp(s->best[i].name, score->name) == 0)
            return; /* offered twice: once is enough */
    while (at > 0 && hnp_suggest_ranks_before(score, &s->best[at - 1]))
        at--;
    if (at >= HNP_SUGGEST_MAX)
        return;
    size_t last = s->kept < HNP_SUGGEST_MAX ? s->kept : HNP_SUGGEST_MAX - 1;
    memmove(&s->best[at + 1], &s->best[at], (last - at) * sizeof(*s->best));
    s->best[at] = *score;
    if (s->kept < HNP_SUGGEST_MAX)
        s->kept++;
}

void hnp_suggest_consider(hnp_suggest_t *s, const char *name)
{
    hnp_suggest_score_t score;

    if (hnp_suggest_measure(s, name, &score))
        hnp_suggest_keep(s, &score);
}

size_t hnp_suggest_result(const hnp_suggest_t *s, const char **out)
{
    for (size_t i = 0; i < s->kept; i++)
        out[i] = s->best[i].name;
    out[s->kept] = NULL;
    return s->kept;
}

void hnp_suggest_fini(hnp_suggest_t *s)
{
    free(s->prev);
    free(s->cur);
    s->prev = s->cur = NULL;
    s->room = 0;
}
