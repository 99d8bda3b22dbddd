/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Slurm-style host ranges: "node[001-128,140]", "r[1-2]n[01-04]",
 * "a,b,c[1-3]".
 *
 * An expression is parsed completely, and the number of names it yields is
 * known, before a single name is built: a typo such as "n[1-100000000]"
 * must fail fast with a sentence, not after eating the machine's memory.
 * Names are produced with an odometer over the bracket groups (the last
 * group turns fastest), so a group with many items costs nothing per name.
 *
 * Nothing here resolves a name: a launcher that touches DNS for ten
 * thousand nodes before starting anything is slow, and the agent (ssh or
 * the local stand-in) is the only one that needs to know what a name means.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "hostlist.h"

/* More names than this is a typo, never a cluster (hostlist.h). */
#define HOSTLIST_MAX_NAMES ((uint64_t)HNP_HOSTLIST_MAX_NAMES)
/* 18 digits keep every bound, and every bound + 1, inside uint64_t. */
#define HOSTLIST_MAX_DIGITS 18

typedef struct range {
    uint64_t lo, hi;
    int width; /* digits of the lower bound: "08" pads every value to 2 */
} range_t;

/* A piece of an expression: literal text, or a bracket group. */
typedef struct segment {
    const char *text; /* literal: points into the caller's string */
    size_t len;
    range_t *ranges; /* group: NULL for a literal */
    size_t nranges;
    uint64_t count; /* names the group yields; 1 for a literal */
} segment_t;

typedef struct expression {
    const char *text; /* for messages */
    size_t len;
    segment_t *segs;
    size_t nsegs;
    uint64_t count;
} expression_t;

/* Where the odometer stands in one group. */
typedef struct cursor {
    size_t range;
    uint64_t value;
} cursor_t;

typedef struct namevec {
    char **names;
    size_t count;
} namevec_t;

/* ------------------------------------------------------------ messages */

static void expr_error(const expression_t *e, char *err, size_t errlen,
                       const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void expr_error(const expression_t *e, char *err, size_t errlen,
                       const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    hnp_err_set(err, errlen, "host expression \"%.*s\": %s", (int)e->len,
                e->text, why);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* ------------------------------------------------------------- parsing */

/* Digits only, at most HOSTLIST_MAX_DIGITS of them. */
static int parse_bound(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;

    if (len == 0 || len > HOSTLIST_MAX_DIGITS)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(s[i]))
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* One item between the brackets: "7" or "01-10", spaces around allowed. */
static int parse_range(const expression_t *e, const char *s, size_t len,
                       range_t *r, char *err, size_t errlen)
{
    while (len > 0 && is_space(*s))
        s++, len--;
    while (len > 0 && is_space(s[len - 1]))
        len--;
    if (len == 0) {
        expr_error(e, err, errlen, "empty range between the brackets");
        return HNP_ERR_BAD_PARAM;
    }
    const char *dash = memchr(s, '-', len);
    size_t lolen = dash != NULL ? (size_t)(dash - s) : len;
    int bad = parse_bound(s, lolen, &r->lo);
    if (dash != NULL)
        bad |= parse_bound(dash + 1, len - lolen - 1, &r->hi);
    else
        r->hi = r->lo;
    if (bad) {
        expr_error(e, err, errlen,
                   "'%.*s' is not a number or a range such as 1-8 (at most "
                   "%d digits)", (int)len, s, HOSTLIST_MAX_DIGITS);
        return HNP_ERR_BAD_PARAM;
    }
    if (r->hi < r->lo) {
        expr_error(e, err, errlen, "range '%.*s' is reversed", (int)len, s);
        return HNP_ERR_BAD_PARAM;
    }
    r->width = (int)lolen;
    return HNP_SUCCESS;
}

/* Counts in a group and in a product stop at the limit: past it only
 * "too many" matters, and stopping keeps the arithmetic from overflowing. */
static uint64_t capped_add(uint64_t a, uint64_t b)
{
    return a + b > HOSTLIST_MAX_NAMES ? HOSTLIST_MAX_NAMES + 1 : a + b;
}

static uint64_t capped_mul(uint64_t a, uint64_t b)
{
    if (a > HOSTLIST_MAX_NAMES || b > HOSTLIST_MAX_NAMES)
        return HOSTLIST_MAX_NAMES + 1;
    return a * b > HOSTLIST_MAX_NAMES ? HOSTLIST_MAX_NAMES + 1 : a * b;
}

/* The items of "[...]", @p s and @p len exclude the brackets. */
static int parse_group(const expression_t *e, const char *s, size_t len,
                       segment_t *seg, char *err, size_t errlen)
{
    size_t items = 1;

    for (size_t i = 0; i < len; i++)
        items += s[i] == ',';
    seg->ranges = calloc(items, sizeof(*seg->ranges));
    if (seg->ranges == NULL) {
        hnp_err_set(err, errlen, "out of memory expanding host names");
        return HNP_ERR_NOMEM;
    }
    seg->count = 0;
    for (const char *p = s, *end = s + len; seg->nranges < items; p++) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma != NULL ? comma : end;
        range_t *r = &seg->ranges[seg->nranges];
        int rc = parse_range(e, p, (size_t)(stop - p), r, err, errlen);
        if (rc < 0)
            return rc;
        seg->nranges++;
        seg->count = capped_add(seg->count,
                                capped_add(r->hi - r->lo, 1));
        p = stop;
    }
    return HNP_SUCCESS;
}

/* Literal text up to the next '[' or the end; rejects what cannot be in a
 * host name. Returns its length or an error. */
static long scan_literal(const expression_t *e, const char *s, size_t len,
                         char *err, size_t errlen)
{
    size_t i = 0;

    for (; i < len && s[i] != '['; i++) {
        if (s[i] == ']') {
            expr_error(e, err, errlen, "']' without a matching '['");
            return HNP_ERR_BAD_PARAM;
        }
        if (is_space(s[i]) || (unsigned char)s[i] < 0x20) {
            expr_error(e, err, errlen, "blank or control character inside "
                       "a host name");
            return HNP_ERR_BAD_PARAM;
        }
    }
    return (long)i;
}

/* Length of the bracket group starting at s[0] == '[', brackets included. */
static long scan_group(const expression_t *e, const char *s, size_t len,
                       char *err, size_t errlen)
{
    for (size_t i = 1; i < len; i++) {
        if (s[i] == ']')
            return (long)i + 1;
        if (s[i] == '[') {
            expr_error(e, err, errlen, "'[' inside brackets");
            return HNP_ERR_BAD_PARAM;
        }
    }
    expr_error(e, err, errlen, "'[' without a matching ']'");
    return HNP_ERR_BAD_PARAM;
}

static int add_segment(expression_t *e, const char *s, size_t len,
                       char *err, size_t errlen)
{
    segment_t *seg = &e->segs[e->nsegs];

    memset(seg, 0, sizeof(*seg));
    e->nsegs++;
    if (s[0] != '[') {
        seg->text = s;
        seg->len = len;
        seg->count = 1;
        return HNP_SUCCESS;
    }
    int rc = parse_group(e, s + 1, len - 2, seg, err, errlen);
    e->count = capped_mul(e->count, seg->count);
    return rc;
}

static void expression_clear(expression_t *e)
{
    for (size_t i = 0; i < e->nsegs; i++)
        free(e->segs[i].ranges);
    free(e->segs);
    e->segs = NULL;
    e->nsegs = 0;
}

/* Split one expression (no comma outside brackets, not empty) into
 * literal and bracket segments. */
static int parse_expression(expression_t *e, char *err, size_t errlen)
{
    e->count = 1;
    if (e->text[0] == '-') {
        /* It would reach the agent's command line as an option. */
        expr_error(e, err, errlen, "a host name may not start with '-'");
        return HNP_ERR_BAD_PARAM;
    }
    /* Every segment takes at least one character. */
    e->segs = calloc(e->len, sizeof(*e->segs));
    if (e->segs == NULL) {
        hnp_err_set(err, errlen, "out of memory expanding host names");
        return HNP_ERR_NOMEM;
    }
    for (size_t at = 0; at < e->len;) {
        const char *s = e->text + at;
        long n = s[0] == '['
                     ? scan_group(e, s, e->len - at, err, errlen)
                     : scan_literal(e, s, e->len - at, err, errlen);
        int rc = n < 0 ? (int)n
                       : add_segment(e, s, (size_t)n, err, errlen);
        if (rc < 0)
            return rc;
        at += (size_t)n;
    }
    return HNP_SUCCESS;
}

/* ---------------------------------------------------------- generating */

/* Bytes one name of @p e needs, terminator included. */
/* The most digits a group writes: its largest bound, or its padding. */
static size_t group_digits(const segment_t *seg)
{
    size_t most = 1;

    for (size_t r = 0; r < seg->nranges; r++) {
        size_t digits = 1;
        for (uint64_t v = seg->ranges[r].hi; v >= 10; v /= 10)
            digits++;
        if ((size_t)seg->ranges[r].width > digits)
            digits = (size_t)seg->ranges[r].width;
        if (digits > most)
            most = digits;
    }
    return most;
}

static size_t name_size(const expression_t *e)
{
    size_t size = 1;

    for (size_t i = 0; i < e->nsegs; i++) {
        const segment_t *seg = &e->segs[i];
        size += seg->ranges == NULL ? seg->len : group_digits(seg);
    }
    return size;
}

static void format_name(const expression_t *e, const cursor_t *cur,
                        char *buf, size_t size)
{
    size_t at = 0;

    for (size_t i = 0; i < e->nsegs; i++) {
        const segment_t *seg = &e->segs[i];
        if (seg->ranges == NULL) {
            memcpy(buf + at, seg->text, seg->len);
            at += seg->len;
        } else {
            at += (size_t)snprintf(buf + at, size - at, "%0*llu",
                                   seg->ranges[cur[i].range].width,
                                   (unsigned long long)cur[i].value);
        }
    }
    buf[at] = '\0';
}

/* Step the odometer: the last group turns fastest, as Slurm orders names. */
static void cursor_advance(const expression_t *e, cursor_t *cur)
{
    for (size_t i = e->nsegs; i-- > 0;) {
        const segment_t *seg = &e->segs[i];
        if (seg->ranges == NULL)
            continue;
        if (cur[i].value < seg->ranges[cur[i].range].hi) {
            cur[i].value++;
            return;
        }
        if (cur[i].range + 1 < seg->nranges) {
            cur[i].range++;
            cur[i].value = seg->ranges[cur[i].range].lo;
            return;
        }
        cur[i].range = 0;
        cur[i].value = seg->ranges[0].lo;
    }
}

/* Append the names of @p e; the vector already has room for them. */
static int generate_names(const expression_t *e, namevec_t *out)
{
    size_t size = name_size(e);
    char *buf = malloc(size);
    cursor_t *cur = calloc(e->nsegs, sizeof(*cur));
    int rc = HNP_ERR_NOMEM;

    if (buf == NULL || cur == NULL)
        goto out;
    for (size_t i = 0; i < e->nsegs; i++)
        if (e->segs[i].ranges != NULL)
            cur[i].value = e->segs[i].ranges[0].lo;
    for (uint64_t k = 0; k < e->count; k++) {
        format_name(e, cur, buf, size);
        out->names[out->count] = strdup(buf);
        if (out->names[out->count] == NULL)
            goto out;
        out->count++;
        cursor_advance(e, cur);
    }
    rc = HNP_SUCCESS;
out:
    free(cur);
    free(buf);
    return rc;
}

/* ------------------------------------------------------ the whole list */

/* Cut @p text at commas outside brackets, trimming blanks. An unbalanced
 * bracket keeps the rest together so that parse_expression names it. */
static size_t split_expressions(const char *text, expression_t *exprs)
{
    size_t n = 0;
    const char *start = text;
    int depth = 0;

    for (const char *p = text;; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']' && depth > 0)
            depth--;
        if (*p != '\0' && (*p != ',' || depth > 0))
            continue;
        const char *end = p;
        while (start < end && is_space(*start))
            start++;
        while (end > start && is_space(end[-1]))
            end--;
        exprs[n].text = start;
        exprs[n].len = (size_t)(end - start);
        n++;
        if (*p == '\0')
            return n;
        start = p + 1;
    }
}

static void free_expressions(expression_t *exprs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        expression_clear(&exprs[i]);
    free(exprs);
}

/* Parse every expression and count the names, and their bytes, before
 * building any. */
static int parse_all(const char *text, expression_t *exprs, size_t n,
                     uint64_t *total, char *err, size_t errlen)
{
    uint64_t bytes = 0;

    *total = 0;
    for (size_t i = 0; i < n; i++) {
        if (exprs[i].len == 0) {
            if (n == 1)
                hnp_err_set(err, errlen, "empty host list");
            else
                hnp_err_set(err, errlen, "host list \"%s\": empty name "
                            "before or after a comma", text);
            return HNP_ERR_BAD_PARAM;
        }
        int rc = parse_expression(&exprs[i], err, errlen);
        if (rc < 0)
            return rc;
        if (name_size(&exprs[i]) - 1 > HNP_HOST_NAME_MAX) {
            hnp_err_set(err, errlen, "host name \"%.40s...\" (%zu bytes) is "
                        "longer than a host name may be (%d bytes)",
                        exprs[i].text, name_size(&exprs[i]) - 1,
                        HNP_HOST_NAME_MAX);
            return HNP_ERR_BAD_PARAM;
        }
        *total = capped_add(*total, exprs[i].count);
        if (*total > HOSTLIST_MAX_NAMES) {
            if (n == 1)
                expr_error(&exprs[i], err, errlen,
                           "more than %llu names",
                           (unsigned long long)HOSTLIST_MAX_NAMES);
            else
                hnp_err_set(err, errlen, "host list \"%s\": more than %llu "
                            "names", text,
                            (unsigned long long)HOSTLIST_MAX_NAMES);
            return HNP_ERR_BAD_PARAM;
        }
        /* At most a million names of a length bounded by the text's:
         * no overflow. */
        bytes += exprs[i].count * name_size(&exprs[i]);
        if (bytes > HNP_HOSTLIST_MAX_BYTES) {
            hnp_err_set(err, errlen, "host list \"%s\": its names would "
                        "take more than %llu MiB", text,
                        (unsigned long long)(HNP_HOSTLIST_MAX_BYTES >> 20));
            return HNP_ERR_BAD_PARAM;
        }
    }
    return HNP_SUCCESS;
}

int hnp_hostlist_expand(const char *text, char ***names, size_t *count,
                        char *err, size_t errlen)
{
    expression_t *exprs = NULL;
    namevec_t out = { NULL, 0 };
    uint64_t total;
    size_t n = 1;
    int rc = HNP_ERR_NOMEM;

    if (text == NULL || names == NULL || count == NULL) {
        hnp_err_set(err, errlen, "no host list given");
        return HNP_ERR_BAD_PARAM;
    }
    for (const char *p = text; *p != '\0'; p++)
        n += *p == ',';
    exprs = calloc(n, sizeof(*exprs));
    if (exprs == NULL)
        goto nomem;
    n = split_expressions(text, exprs);
    rc = parse_all(text, exprs, n, &total, err, errlen);
    if (rc < 0)
        goto fail;
    out.names = calloc((size_t)total, sizeof(*out.names));
    if (out.names == NULL)
        goto nomem;
    for (size_t i = 0; i < n; i++)
        if (generate_names(&exprs[i], &out) < 0)
            goto nomem;
    free_expressions(exprs, n);
    *names = out.names;
    *count = out.count;
    return HNP_SUCCESS;
nomem:
    rc = HNP_ERR_NOMEM;
    hnp_err_set(err, errlen, "out of memory expanding host names");
fail:
    hnp_hostlist_free(out.names, out.count);
    if (exprs != NULL)
        free_expressions(exprs, n);
    return rc;
}

void hnp_hostlist_free(char **names, size_t count)
{
    if (names == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}
