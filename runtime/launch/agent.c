/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The words of a daemon launch (see launcher.h): what is executed and the
 * same command written for people, plus the capture of what an agent
 * prints. The state machine that runs them is launcher.c.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

char *hnp_shell_quote(const char *arg)
{
    size_t quotes = 0;

    for (const char *c = arg; *c != '\0'; c++)
        quotes += *c == '\'';
    /* Each embedded quote becomes the four characters '\'' */
    char *out = malloc(strlen(arg) + 3 * quotes + 3);
    if (out == NULL)
        return NULL;
    char *o = out;
    *o++ = '\'';
    for (const char *c = arg; *c != '\0'; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *c;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

size_t launch_strv_len(char *const *v)
{
    size_t n = 0;

    while (v != NULL && v[n] != NULL)
        n++;
    return n;
}

void launch_strv_free(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

char **launch_strv_join(char *const *head, const char *word,
                        char *const *tail)
{
    size_t nhead = launch_strv_len(head), ntail = launch_strv_len(tail);
    size_t n = nhead + (word != NULL) + ntail, i = 0;
    char **out = calloc(n + 1, sizeof(*out));

    if (out == NULL)
        return NULL;
    for (size_t k = 0; k < nhead; k++)
        if ((out[i++] = strdup(head[k])) == NULL)
            goto fail;
    if (word != NULL && (out[i++] = strdup(word)) == NULL)
        goto fail;
    for (size_t k = 0; k < ntail; k++)
        if ((out[i++] = strdup(tail[k])) == NULL)
            goto fail;
    return out;
fail:
    launch_strv_free(out);
    return NULL;
}

char **launch_strv_copy(char *const *v)
{
    return launch_strv_join(v, NULL, NULL);
}

/* @p first followed by @p rest, each quoted or not, joined with spaces. */
static char *join_words(const char *first, char *const *rest, bool quote)
{
    size_t n = launch_strv_len(rest);
    char **parts = calloc(n + 1, sizeof(*parts));
    size_t len = 1;
    char *out = NULL;

    if (parts == NULL)
        return NULL;
    for (size_t i = 0; i <= n; i++) {
        const char *word = i == 0 ? first : rest[i - 1];
        parts[i] = quote ? hnp_shell_quote(word) : strdup(word);
        if (parts[i] == NULL)
            goto out;
        len += strlen(parts[i]) + 1;
    }
    out = malloc(len);
    if (out == NULL)
        goto out;
    out[0] = '\0';
    for (size_t i = 0; i <= n; i++) {
        if (i > 0)
            strcat(out, " ");
        strcat(out, parts[i]);
    }
out:
    for (size_t i = 0; i <= n; i++)
        free(parts[i]);
    free(parts);
    return out;
}

/*
 * Agent: agent_argv..., node, and the remote command as ONE word. ssh joins
 * its remaining arguments with spaces and hands the result to the remote
 * shell, so the only robust form is a string already quoted for that shell.
 */
int launch_words_agent(char *const *agent_argv, const char *node,
                       const char *daemon_path, char *const *args,
                       launch_words_t *out)
{
    size_t nagent = launch_strv_len(agent_argv);
    char *remote = join_words(daemon_path, args, true);
    char *agent_text = join_words(agent_argv[0], agent_argv + 1, false);
    char **argv = calloc(nagent + 3, sizeof(*argv));
    int rc = HNP_ERR_NOMEM;

    if (remote == NULL || agent_text == NULL || argv == NULL)
        goto out;
    for (size_t i = 0; i < nagent; i++)
        if ((argv[i] = strdup(agent_argv[i])) == NULL)
            goto out;
    if ((argv[nagent] = strdup(node)) == NULL)
        goto out;
    size_t len = strlen(agent_text) + strlen(node) + strlen(remote) + 3;
    out->command = malloc(len);
    if (out->command == NULL)
        goto out;
    snprintf(out->command, len, "%s %s %s", agent_text, node, remote);
    argv[nagent + 1] = remote;
    remote = NULL;
    out->argv = argv;
    argv = NULL;
    rc = HNP_SUCCESS;
out:
    launch_strv_free(argv);
    free(agent_text);
    free(remote);
    return rc;
}

/* Local: the daemon itself; the command for people is quoted so that it
 * can be pasted into a shell as it stands. */
int launch_words_local(const char *daemon_path, char *const *args,
                       launch_words_t *out)
{
    size_t nargs = launch_strv_len(args);
    char **argv = calloc(nargs + 2, sizeof(*argv));

    out->command = join_words(daemon_path, args, true);
    if (argv == NULL || out->command == NULL)
        goto fail;
    if ((argv[0] = strdup(daemon_path)) == NULL)
        goto fail;
    for (size_t i = 0; i < nargs; i++)
        if ((argv[i + 1] = strdup(args[i])) == NULL)
            goto fail;
    out->argv = argv;
    return HNP_SUCCESS;
fail:
    launch_strv_free(argv);
    free(out->command);
    out->command = NULL;
    return HNP_ERR_NOMEM;
}

/* ------------------------------------------------------------ capture */

void launch_capture_append(launch_capture_t *c, const void *data, size_t len)
{
    const char *bytes = data;
    size_t to_head = LAUNCH_CAPTURE_HALF - c->head_len;

    c->total += len;
    if (to_head > len)
        to_head = len;
    memcpy(c->head + c->head_len, bytes, to_head);
    c->head_len += to_head;
    bytes += to_head;
    len -= to_head;
    /* Only the last LAUNCH_CAPTURE_HALF bytes can survive in the ring. */
    if (len > LAUNCH_CAPTURE_HALF) {
        bytes += len - LAUNCH_CAPTURE_HALF;
        len = LAUNCH_CAPTURE_HALF;
    }
    while (len > 0) {
        size_t room = LAUNCH_CAPTURE_HALF - c->tail_end;
        size_t n = len < room ? len : room;
        memcpy(c->tail + c->tail_end, bytes, n);
        c->tail_end = (c->tail_end + n) % LAUNCH_CAPTURE_HALF;
        c->tail_len += n;
        if (c->tail_len > LAUNCH_CAPTURE_HALF)
            c->tail_len = LAUNCH_CAPTURE_HALF;
        bytes += n;
        len -= n;
    }
}

char *launch_capture_render(const launch_capture_t *c)
{
    size_t omitted = c->total - c->head_len - c->tail_len;
    char marker[80] = "";

    if (omitted > 0)
        snprintf(marker, sizeof(marker), "\n[... %zu bytes omitted ...]\n",
                 omitted);
    size_t mlen = strlen(marker);
    char *out = malloc(c->head_len + mlen + c->tail_len + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, c->head, c->head_len);
    memcpy(out + c->head_len, marker, mlen);
    char *o = out + c->head_len + mlen;
    size_t start = (c->tail_end + LAUNCH_CAPTURE_HALF - c->tail_len) %
                   LAUNCH_CAPTURE_HALF;
    size_t first = LAUNCH_CAPTURE_HALF - start;
    if (first > c->tail_len)
        first = c->tail_len;
    memcpy(o, c->tail + start, first);
    memcpy(o + first, c->tail, c->tail_len - first);
    o[c->tail_len] = '\0';
    return out;
}

/* Whether text[from, to) holds anything but blanks. */
static bool has_words(const char *text, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (!isspace((unsigned char)text[i]))
            return true;
    return false;
}

size_t launch_last_lines(const char *text, unsigned max_lines, char *out,
                         size_t outlen)
{
    size_t end = strlen(text), start = end, used = 0;
    unsigned found = 0;

    if (outlen == 0)
        return 0;
    /* Back from the end, line by line: a password prompt or ssh's last
     * complaint is what tells why a daemon never called back. */
    while (start > 0 && found < max_lines) {
        size_t line_end = start;
        while (start > 0 && text[start - 1] != '\n' && text[start - 1] != '\r')
            start--;
        if (has_words(text, start, line_end))
            found++;
        if (found < max_lines && start > 0)
            start--;
    }
    if (end - start >= outlen) /* the end of what does not fit */
        start = end - (outlen - 1);
    for (size_t i = start; i < end; i++) {
        char c = text[i] == '\r' ? '\n' : text[i];
        bool line_start = used == 0 || out[used - 1] == '\n';
        if (c == '\n' && line_start)
            continue; /* a blank line, or a CR LF pair */
        out[used++] = c == '\n' || c == '\t' || !iscntrl((unsigned char)c)
                          ? c : '?';
    }
    while (used > 0 && isspace((unsigned char)out[used - 1]))
        used--;
    out[used] = '\0';
    return used;
}
