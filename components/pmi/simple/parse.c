/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMI wire codec: where a message ends in a byte stream, what it says,
 * and how an answer is written, for both PMI-1 lines and PMI-2
 * length-prefixed messages. No I/O and no state: the server feeds it what
 * it has read, the fuzz target feeds it anything.
 *
 * Everything a process sends is untrusted. Lengths are checked before they
 * are used, a message is copied before it is cut into NUL-terminated
 * pieces, and nothing here grows without a bound the caller chose.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "internal.h"

#define V1_MCMD_PREFIX "mcmd="
#define V1_BLOCK_END "endcmd"

static bool is_blank(char c)
{
    /* '\r' too: a client that ends its lines with CRLF still parses. */
    return c == ' ' || c == '\t' || c == '\r';
}

static bool has_prefix(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

/* [s, s+len) without the blanks at its end. */
static size_t trim_end(const char *s, size_t len)
{
    while (len > 0 && is_blank(s[len - 1]))
        len--;
    return len;
}

/* ------------------------------------------------------------- framing */

/* The end of the mcmd block whose first line ends at data[first_eol]: the
 * index of the newline after its "endcmd" line, or len when not there yet. */
static size_t v1_block_end(const char *data, size_t len, size_t first_eol)
{
    size_t line = first_eol + 1;

    while (line < len) {
        const char *eol = memchr(data + line, '\n', len - line);
        if (eol == NULL)
            return len;
        size_t end = (size_t)(eol - data);
        size_t n = trim_end(data + line, end - line);
        if (n == strlen(V1_BLOCK_END) &&
            memcmp(data + line, V1_BLOCK_END, n) == 0)
            return end;
        line = end + 1;
    }
    return len;
}

static int frame_v1(const char *data, size_t len, size_t max,
                    size_t *msg_len, size_t *consumed, char *err,
                    size_t errlen)
{
    size_t window = len < max ? len : max;
    const char *eol = memchr(data, '\n', window);
    size_t end;

    if (eol == NULL) {
        if (len < max)
            return 0;
        hnp_err_set(err, errlen, "PMI-1 line longer than %zu bytes", max);
        return HNP_ERR_BAD_PARAM;
    }
    end = (size_t)(eol - data);
    if (has_prefix(data, end, V1_MCMD_PREFIX)) {
        end = v1_block_end(data, window, end);
        if (end == window) {
            if (len < max)
                return 0;
            hnp_err_set(err, errlen,
                        "PMI-1 mcmd block longer than %zu bytes", max);
            return HNP_ERR_BAD_PARAM;
        }
    }
    *msg_len = end;
    *consumed = end + 1;
    return 1;
}

/* The PMI-2 length field: decimal digits, blank padded on either side. */
static int v2_length(const char *field, size_t *value)
{
    size_t i = 0, n = 0, digits = 0;

    while (i < PMI_SIMPLE_V2_HEADER_LEN && field[i] == ' ')
        i++;
    for (; i < PMI_SIMPLE_V2_HEADER_LEN && field[i] >= '0' && field[i] <= '9';
         i++, digits++)
        n = n * 10 + (size_t)(field[i] - '0');
    while (i < PMI_SIMPLE_V2_HEADER_LEN && field[i] == ' ')
        i++;
    if (digits == 0 || i != PMI_SIMPLE_V2_HEADER_LEN)
        return HNP_ERR_BAD_PARAM;
    *value = n;
    return HNP_SUCCESS;
}

static int frame_v2(const char *data, size_t len, size_t max,
                    size_t *msg_len, size_t *consumed, char *err,
                    size_t errlen)
{
    size_t body;

    if (len < PMI_SIMPLE_V2_HEADER_LEN)
        return 0;
    if (v2_length(data, &body) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "PMI-2 length field \"%.*s\" is not a number",
                    PMI_SIMPLE_V2_HEADER_LEN, data);
        return HNP_ERR_BAD_PARAM;
    }
    if (body > max) {
        hnp_err_set(err, errlen, "PMI-2 message of %zu bytes (limit %zu)",
                    body, max);
        return HNP_ERR_BAD_PARAM;
    }
    if (len - PMI_SIMPLE_V2_HEADER_LEN < body)
        return 0;
    *msg_len = body;
    *consumed = PMI_SIMPLE_V2_HEADER_LEN + body;
    return 1;
}

int pmi_simple_frame(pmi_simple_wire_t wire, const char *data, size_t len,
                     size_t max, size_t *start, size_t *msg_len,
                     size_t *consumed, char *err, size_t errlen)
{
    if (wire == PMI_SIMPLE_WIRE_V1) {
        *start = 0;
        return frame_v1(data, len, max, msg_len, consumed, err, errlen);
    }
    *start = PMI_SIMPLE_V2_HEADER_LEN;
    return frame_v2(data, len, max, msg_len, consumed, err, errlen);
}

/* ------------------------------------------------------------- parsing */

void pmi_simple_msg_release(pmi_simple_msg_t *msg)
{
    free(msg->pairs);
    free(msg->storage);
    memset(msg, 0, sizeof(*msg));
}

const pmi_simple_pair_t *pmi_simple_msg_find(const pmi_simple_msg_t *msg,
                                       const char *key)
{
    for (size_t i = 0; i < msg->npairs; i++)
        if (strcmp(msg->pairs[i].key, key) == 0)
            return &msg->pairs[i];
    return NULL;
}

const char *pmi_simple_msg_get(const pmi_simple_msg_t *msg, const char *key)
{
    const pmi_simple_pair_t *pair = pmi_simple_msg_find(msg, key);
    return pair != NULL ? pair->value : NULL;
}

/* A private, NUL-terminated copy of the message, and room for as many
 * pairs as it could hold (a pair needs an '='). */
static int msg_prepare(pmi_simple_msg_t *msg, const char *text, size_t len)
{
    size_t bound = 1;

    memset(msg, 0, sizeof(*msg));
    for (size_t i = 0; i < len; i++)
        bound += text[i] == '=';
    msg->storage = malloc(len + 1);
    msg->pairs = calloc(bound, sizeof(*msg->pairs));
    if (msg->storage == NULL || msg->pairs == NULL) {
        pmi_simple_msg_release(msg);
        return HNP_ERR_NOMEM;
    }
    if (len > 0)
        memcpy(msg->storage, text, len);
    msg->storage[len] = '\0';
    return HNP_SUCCESS;
}

/* Split "key=value" (NUL-terminated, in storage) at its first '='. */
static int split_pair(char *word, pmi_simple_pair_t *pair, char *err,
                      size_t errlen)
{
    char *eq = strchr(word, '=');

    if (eq == NULL || eq == word) {
        hnp_err_set(err, errlen, "\"%.40s\" is not key=value", word);
        return HNP_ERR_BAD_PARAM;
    }
    *eq = '\0';
    pair->key = word;
    pair->value = eq + 1;
    pair->value_len = strlen(eq + 1);
    return HNP_SUCCESS;
}

/* The first pair names the command: key "cmd" (or "mcmd" for a block). */
static int take_command(pmi_simple_msg_t *msg, const pmi_simple_pair_t *first,
                        const char *want, char *err, size_t errlen)
{
    if (strcmp(first->key, want) != 0 || first->value[0] == '\0') {
        hnp_err_set(err, errlen, "message does not start with %s=NAME", want);
        return HNP_ERR_BAD_PARAM;
    }
    msg->cmd = first->value;
    return HNP_SUCCESS;
}

/* Words separated by blanks, each key=value, the first cmd=NAME. */
static int parse_v1_words(pmi_simple_msg_t *msg, char *err, size_t errlen)
{
    char *p = msg->storage;
    bool first = true;

    for (;;) {
        pmi_simple_pair_t pair;
        while (is_blank(*p))
            p++;
        if (*p == '\0')
            break;
        char *word = p;
        while (*p != '\0' && !is_blank(*p))
            p++;
        if (*p != '\0')
            *p++ = '\0';
        int rc = split_pair(word, &pair, err, errlen);
        if (rc == HNP_SUCCESS && first)
            rc = take_command(msg, &pair, "cmd", err, errlen);
        else if (rc == HNP_SUCCESS)
            msg->pairs[msg->npairs++] = pair;
        if (rc != HNP_SUCCESS)
            return rc;
        first = false;
    }
    if (first) {
        hnp_err_set(err, errlen, "empty PMI-1 line");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* "mcmd=NAME" then one key=value a line (values keep their blanks: they
 * carry command-line arguments), then "endcmd". */
static int parse_v1_block(pmi_simple_msg_t *msg, char *err, size_t errlen)
{
    char *line = msg->storage;
    bool first = true;

    for (;;) {
        pmi_simple_pair_t pair;
        char *eol = strchr(line, '\n');
        if (eol != NULL)
            *eol = '\0';
        line[trim_end(line, strlen(line))] = '\0';
        if (eol == NULL) {
            if (strcmp(line, V1_BLOCK_END) == 0 && !first)
                return HNP_SUCCESS;
            hnp_err_set(err, errlen, "mcmd block does not end with endcmd");
            return HNP_ERR_BAD_PARAM;
        }
        int rc = split_pair(line, &pair, err, errlen);
        if (rc == HNP_SUCCESS && first)
            rc = take_command(msg, &pair, "mcmd", err, errlen);
        else if (rc == HNP_SUCCESS)
            msg->pairs[msg->npairs++] = pair;
        if (rc != HNP_SUCCESS)
            return rc;
        first = false;
        line = eol + 1;
    }
}

int pmi_simple_parse_v1(pmi_simple_msg_t *msg, const char *text, size_t len,
                        char *err, size_t errlen)
{
    int rc;

    if (memchr(text, '\0', len) != NULL) {
        memset(msg, 0, sizeof(*msg));
        hnp_err_set(err, errlen, "NUL byte in a PMI-1 line");
        return HNP_ERR_BAD_PARAM;
    }
    rc = msg_prepare(msg, text, len);
    if (rc != HNP_SUCCESS)
        return rc;
    msg->multiline = has_prefix(text, len, V1_MCMD_PREFIX);
    rc = msg->multiline ? parse_v1_block(msg, err, errlen)
                        : parse_v1_words(msg, err, errlen);
    if (rc != HNP_SUCCESS)
        pmi_simple_msg_release(msg);
    return rc;
}

/* One PMI-2 value starting at *p: up to a ';' that is not doubled, or the
 * end of the body (the last ';' is optional here). Unescapes ";;" in place
 * and NUL-terminates; *p moves past the terminator. */
static size_t take_v2_value(char **p, char *end)
{
    char *in = *p, *out = *p;

    while (in < end) {
        if (*in == ';') {
            if (in + 1 < end && in[1] == ';') {
                *out++ = ';';
                in += 2;
                continue;
            }
            in++;
            break;
        }
        *out++ = *in++;
    }
    *out = '\0';
    size_t n = (size_t)(out - *p);
    *p = in;
    return n;
}

static int parse_v2_pairs(pmi_simple_msg_t *msg, size_t len, char *err,
                          size_t errlen)
{
    char *p = msg->storage, *end = msg->storage + len;
    bool first = true;

    while (p < end) {
        pmi_simple_pair_t pair;
        char *eq = memchr(p, '=', (size_t)(end - p));
        size_t keylen = eq != NULL ? (size_t)(eq - p) : 0;
        if (eq == NULL || keylen == 0 || memchr(p, ';', keylen) != NULL ||
            memchr(p, '\0', keylen) != NULL) {
            hnp_err_set(err, errlen, "PMI-2 message has a word that is not "
                        "key=value at byte %zu", (size_t)(p - msg->storage));
            return HNP_ERR_BAD_PARAM;
        }
        *eq = '\0';
        pair.key = p;
        p = eq + 1;
        pair.value = p;
        pair.value_len = take_v2_value(&p, end);
        if (first) {
            int rc = take_command(msg, &pair, "cmd", err, errlen);
            if (rc != HNP_SUCCESS)
                return rc;
            first = false;
        } else {
            msg->pairs[msg->npairs++] = pair;
        }
    }
    if (first) {
        hnp_err_set(err, errlen, "empty PMI-2 message");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

int pmi_simple_parse_v2(pmi_simple_msg_t *msg, const char *body, size_t len,
                        char *err, size_t errlen)
{
    int rc = msg_prepare(msg, body, len);

    if (rc != HNP_SUCCESS)
        return rc;
    rc = parse_v2_pairs(msg, len, err, errlen);
    if (rc != HNP_SUCCESS)
        pmi_simple_msg_release(msg);
    return rc;
}

/* ------------------------------------------------------------- answers */

bool pmi_simple_v1_value_ok(const char *value, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (value[i] == ' ' || value[i] == '\t' || value[i] == '\n' ||
            value[i] == '\r' || value[i] == '\0')
            return false;
    return true;
}

/* A PMI-2 value with each ';' doubled, then the terminating ';'. */
static void pack_v2_value(hnp_buffer_t *out, const char *value, size_t len)
{
    size_t run = 0;

    for (size_t i = 0; i < len; i++) {
        if (value[i] != ';')
            continue;
        hnp_pack_bytes(out, value + run, i + 1 - run);
        hnp_pack_bytes(out, ";", 1);
        run = i + 1;
    }
    hnp_pack_bytes(out, value + run, len - run);
    hnp_pack_bytes(out, ";", 1);
}

/* The command is a value like any other: escaped the same way. */
void pmi_simple_reply_begin(pmi_simple_reply_t *r, hnp_buffer_t *out,
                            pmi_simple_wire_t wire, const char *cmd)
{
    r->out = out;
    r->wire = wire;
    r->start = out->len;
    r->invalid = false;
    if (wire == PMI_SIMPLE_WIRE_V2)
        hnp_pack_bytes(out, "      ", PMI_SIMPLE_V2_HEADER_LEN);
    pmi_simple_reply_add(r, "cmd", cmd, strlen(cmd));
}

void pmi_simple_reply_add(pmi_simple_reply_t *r, const char *key,
                          const char *value, size_t value_len)
{
    if (r->wire == PMI_SIMPLE_WIRE_V1) {
        if (!pmi_simple_v1_value_ok(value, value_len))
            r->invalid = true;
        /* Words are separated by a blank; the line starts with cmd=. */
        if (r->out->len > r->start)
            hnp_pack_bytes(r->out, " ", 1);
    }
    hnp_pack_bytes(r->out, key, strlen(key));
    hnp_pack_bytes(r->out, "=", 1);
    if (r->wire == PMI_SIMPLE_WIRE_V1)
        hnp_pack_bytes(r->out, value, value_len);
    else
        pack_v2_value(r->out, value, value_len);
}

void pmi_simple_reply_add_str(pmi_simple_reply_t *r, const char *key,
                              const char *value)
{
    pmi_simple_reply_add(r, key, value, strlen(value));
}

void pmi_simple_reply_add_int(pmi_simple_reply_t *r, const char *key,
                              long value)
{
    char text[24];

    snprintf(text, sizeof(text), "%ld", value);
    pmi_simple_reply_add_str(r, key, text);
}

/* Take the answer out again: the buffer ends where it began. */
static int reply_rollback(pmi_simple_reply_t *r, int rc)
{
    r->out->len = r->start;
    r->out->failed = false;
    return rc;
}

int pmi_simple_reply_end(pmi_simple_reply_t *r)
{
    char field[PMI_SIMPLE_V2_HEADER_LEN + 1];

    if (r->wire == PMI_SIMPLE_WIRE_V1)
        hnp_pack_bytes(r->out, "\n", 1);
    if (r->out->failed)
        return reply_rollback(r, HNP_ERR_NOMEM);
    size_t n = r->out->len - r->start;
    if (r->wire == PMI_SIMPLE_WIRE_V1) {
        if (r->invalid || n > PMI_SIMPLE_V1_LINE_MAX - 1)
            return reply_rollback(r, HNP_ERR_BAD_PARAM);
        return HNP_SUCCESS;
    }
    n -= PMI_SIMPLE_V2_HEADER_LEN;
    if (n > PMI_SIMPLE_V2_BODY_MAX)
        return reply_rollback(r, HNP_ERR_TRUNCATED);
    /* Left-justified and blank padded, as MPICH's clients write it. */
    snprintf(field, sizeof(field), "%-6zu", n);
    memcpy(r->out->data + r->start, field, PMI_SIMPLE_V2_HEADER_LEN);
    return HNP_SUCCESS;
}
