/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_suggest.h
 * @brief The names a user probably meant by one that nothing knows.
 *
 * Two kinds of closeness count. A typo (`plm_rsh_num_concurent`,
 * `--hostfil`) is a small edit distance. A half-remembered name
 * (`prsh_degree` for `plm_prsh_spawning_degree`) is far in edits but
 * shares a long run of characters. Candidates are ranked by edit
 * distance, then by the longest shared run, then by name, so the answer
 * never depends on the order they are offered in. Case is ignored.
 *
 * Used for unknown parameter names (param_suggest.c) and unknown
 * command-line options (runtime/hnp/args.c). Not installed.
 */
#ifndef HNP_SUGGEST_H
#define HNP_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

/** The most names a search keeps. */
#define HNP_SUGGEST_MAX 3

/** How close one candidate is to the unknown name. */
typedef struct hnp_suggest_score {
    const char *name;
    size_t distance; /**< edits (Levenshtein) */
    size_t run;      /**< longest run of characters shared */
} hnp_suggest_score_t;

/** One search: the unknown name, the best candidates so far and scratch. */
typedef struct hnp_suggest {
    const char *unknown;
    size_t *prev, *cur; /* two rows of dynamic programming; owned */
    size_t room;        /* entries in each row */
    hnp_suggest_score_t best[HNP_SUGGEST_MAX];
    size_t kept;
} hnp_suggest_t;

/** Start a search for names close to @p unknown (not copied). */
void hnp_suggest_init(hnp_suggest_t *s, const char *unknown);
/** Measure @p name into *score; false when it is not close enough to be
 *  worth suggesting (or memory ran out: then nothing is suggested). */
bool hnp_suggest_measure(hnp_suggest_t *s, const char *name,
                         hnp_suggest_score_t *score);
/** Whether @p a ranks before @p b. */
bool hnp_suggest_ranks_before(const hnp_suggest_score_t *a,
                              const hnp_suggest_score_t *b);
/** Keep @p score among the best HNP_SUGGEST_MAX, in order. */
void hnp_suggest_keep(hnp_suggest_t *s, const hnp_suggest_score_t *score);
/** Measure @p name and keep it when it is close. */
void hnp_suggest_consider(hnp_suggest_t *s, const char *name);
/** The names kept, best first, into @p out (HNP_SUGGEST_MAX + 1 entries,
 *  NULL-terminated). Returns how many. */
size_t hnp_suggest_result(const hnp_suggest_t *s, const char **out);
void hnp_suggest_fini(hnp_suggest_t *s);

#endif /* HNP_SUGGEST_H */
