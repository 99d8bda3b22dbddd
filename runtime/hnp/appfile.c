/* SPDX-License-Identifier: BSD-3-Clause */
/* An appfile (--app FILE): see appfile.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appfile.h"
#include "hnp_errors.h"

static const char blanks[] = " \t\r\n\v\f";

void hnp_appfile_words_free(char **words)
{
    for (size_t i = 0; words != NULL && words[i] != NULL; i++)
        free(words[i]);
    free(words);
}

/* One word starting at *pos (not a blank), unquoted into @p out (room for
 * the whole line); moves *pos past it. */
static int take_word(const char **pos, char *out, char *err, size_t errlen)
{
    const char *s = *pos;
    char quote = '\0';

    for (; *s != '\0' && (quote != '\0' || strchr(blanks, *s) == NULL); s++) {
        if (quote == '\0' && (*s == '\'' || *s == '"'))
            quote = *s;
        else if (quote != '\0' && *s == quote)
            quote = '\0';
        else if (*s == '\\' && quote != '\'' && s[1] != '\0' &&
                 (quote == '\0' || strchr("$`\"\\\n", s[1]) != NULL))
            *out++ = *++s;
        else
            *out++ = *s;
    }
    *out = '\0';
    *pos = s;
    if (quote != '\0') {
        hnp_err_set(err, errlen, "unterminated %s quote",
                    quote == '"' ? "double" : "single");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static int add_word(char ***words, int *nwords, const char *word)
{
    char **grown = realloc(*words, ((size_t)*nwords + 2) * sizeof(char *));
    char *copy = strdup(word);

    if (grown != NULL)
        *words = grown;
    if (grown == NULL || copy == NULL) {
        free(copy);
        return HNP_ERR_NOMEM;
    }
    grown[(*nwords)++] = copy;
    grown[*nwords] = NULL;
    return HNP_SUCCESS;
}

int hnp_appfile_split(const char *line, char ***words, int *nwords, char *err,
                      size_t errlen)
{
    char *word = malloc(strlen(line) + 1);
    int rc = word != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;

    *words = NULL;
    *nwords = 0;
    for (const char *s = line; rc == HNP_SUCCESS;) {
        s += strspn(s, blanks);
        if (*s == '\0' || *s == '#')
            break;
        rc = take_word(&s, word, err, errlen);
        if (rc == HNP_SUCCESS)
            rc = add_word(words, nwords, word);
    }
    free(word);
    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory");
    if (rc != HNP_SUCCESS) {
        hnp_appfile_words_free(*words);
        *words = NULL;
        *nwords = 0;
    }
    return rc;
}

static int read_lines(FILE *f, const char *path, hnp_appfile_line_fn fn,
                      void *ctx, char *err, size_t errlen)
{
    char *line = NULL, why[1024] = "";
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = HNP_SUCCESS;

    while (rc == HNP_SUCCESS && getline(&line, &cap, f) != -1) {
        char **words;
        int nwords;
        lineno++;
        rc = hnp_appfile_split(line, &words, &nwords, why, sizeof(why));
        if (rc == HNP_SUCCESS && nwords > 0)
            rc = fn(ctx, words, nwords, lineno, why, sizeof(why));
        if (rc != HNP_SUCCESS)
            hnp_err_set(err, errlen, "%s:%u: %s", path, lineno, why);
    }
    free(line);
    if (rc == HNP_SUCCESS && ferror(f)) {
        hnp_err_set(err, errlen, "cannot read appfile %s: %s", path,
                    strerror(errno));
        rc = HNP_ERR_IO;
    }
    return rc;
}

int hnp_appfile_read(const char *path, hnp_appfile_line_fn fn, void *ctx,
                     char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    int rc;

    if (f == NULL) {
        int e = errno;
        hnp_err_set(err, errlen, "cannot open appfile %s: %s", path,
                    strerror(e));
        return e == ENOENT ? HNP_ERR_NOT_FOUND : HNP_ERR_IO;
    }
    rc = read_lines(f, path, fn, ctx, err, errlen);
    fclose(f);
    return rc;
}
