/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An appfile (--app FILE), as Open MPI's mpirun reads one: one app context
 * a line, each line what would stand between two ':' on the command line
 * ("-n 2 -x A=1 ./a arg"). '#' starts a comment where a word could start;
 * blank lines are skipped. Words are split as a shell splits them: blanks
 * separate them, single quotes keep everything, double quotes keep all
 * but a backslash before $ ` " \ or a newline, and a backslash outside
 * quotes keeps the next character.
 */
#ifndef HNP_APPFILE_H
#define HNP_APPFILE_H

#include <stddef.h>

/** Called for each line with words: @p words (NULL-terminated, @p nwords
 *  of them; the array and its strings become the callee's, whatever it
 *  returns). A negative return stops the reading and is returned. */
typedef int (*hnp_appfile_line_fn)(void *ctx, char **words, int nwords,
                                   unsigned lineno, char *err,
                                   size_t errlen);

/** Read @p path, calling @p fn for every line with words. Errors name the
 *  file and line ("FILE:LINE: unterminated quote"). */
int hnp_appfile_read(const char *path, hnp_appfile_line_fn fn, void *ctx,
                     char *err, size_t errlen);

/** Free a line's words as given to the callback. */
void hnp_appfile_words_free(char **words);

/** Split one line into words (as above). *words is NULL when the line has
 *  none. Returns 0, or a negative error with @p err saying why. */
int hnp_appfile_split(const char *line, char ***words, int *nwords, char *err,
                      size_t errlen);

#endif /* HNP_APPFILE_H */
