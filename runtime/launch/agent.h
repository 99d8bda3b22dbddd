/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the daemon launcher: building the command lines and
 * capturing what an agent prints (agent.c).
 */
#ifndef HNP_LAUNCH_AGENT_H
#define HNP_LAUNCH_AGENT_H

#include <stdbool.h>
#include <stddef.h>

#include "hnp_errors.h"
#include "launcher.h"

/* An agent's output is kept as its first and its last this many bytes. */
#define LAUNCH_CAPTURE_HALF (16 * 1024)

typedef struct launch_words {
    char **argv;     /* what is executed, NULL-terminated */
    char *command;   /* the same for messages */
} launch_words_t;

typedef struct launch_capture {
    char head[LAUNCH_CAPTURE_HALF];
    size_t head_len;
    char tail[LAUNCH_CAPTURE_HALF];  /* ring of the latest bytes */
    size_t tail_end;                 /* where the next byte goes */
    size_t tail_len;
    size_t total;                    /* everything ever appended */
} launch_capture_t;

size_t launch_strv_len(char *const *v);
char **launch_strv_copy(char *const *v);
void launch_strv_free(char **v);
/** A copy of @p head, then @p word, then @p tail (each may be NULL). */
char **launch_strv_join(char *const *head, const char *word,
                        char *const *tail);

/** agent_argv..., node, "'daemon_path' 'arg'...": fills @p out. */
int launch_words_agent(char *const *agent_argv, const char *node,
                       const char *daemon_path, char *const *args,
                       launch_words_t *out);
/** daemon_path, args...: fills @p out. */
int launch_words_local(const char *daemon_path, char *const *args,
                       launch_words_t *out);

/** The last @p max_lines lines of @p text into @p out (NUL-terminated,
 *  without the final newline, blank lines and carriage returns left out,
 *  other control characters shown as '?'); when they do not fit, their
 *  end. Returns the length written. */
size_t launch_last_lines(const char *text, unsigned max_lines, char *out,
                         size_t outlen);

void launch_capture_append(launch_capture_t *c, const void *data, size_t len);
/** The capture as one string, with a marker where bytes were dropped. */
char *launch_capture_render(const launch_capture_t *c);

#endif /* HNP_LAUNCH_AGENT_H */
