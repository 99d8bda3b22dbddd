/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parameter values as text: strict parsing and canonical formatting, one
 * pair per type. Strict means the whole text must be the value, with no
 * surrounding blanks: "4 " is more likely a mistake than a 4, and a value
 * that a user cannot predict is worse than an error message.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hnp_errors.h"
#include "param_internal.h"

/*
 * An unsigned number filling the whole text: decimal digits, or hex after
 * "0x" when @p allow_hex. No sign and no blanks: strtoull() would accept
 * both, and would turn "-1" into a huge number.
 */
static param_parse_status_t parse_magnitude(const char *text, bool allow_hex,
                                            unsigned long long *out,
                                            const char **end)
{
    int base = 10;
    char *stop;

    if (!isdigit((unsigned char)text[0]))
        return PARAM_PARSE_INVALID;
    if (allow_hex && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        if (!isxdigit((unsigned char)text[2]))
            return PARAM_PARSE_INVALID;
        base = 16;
    }
    errno = 0;
    unsigned long long value = strtoull(text, &stop, base);
    *end = stop;
    if (errno == ERANGE)
        return PARAM_PARSE_RANGE;
    *out = value;
    return PARAM_PARSE_OK;
}

/* Invalid beats out-of-range: "99999999999999999999x" is not a number. */
static param_parse_status_t parse_whole_magnitude(const char *text,
                                                  bool allow_hex,
                                                  unsigned long long *out)
{
    const char *end = text;
    param_parse_status_t status = parse_magnitude(text, allow_hex, out, &end);

    if (status != PARAM_PARSE_INVALID && *end != '\0')
        return PARAM_PARSE_INVALID;
    return status;
}

static param_parse_status_t parse_int(const char *text, int *out)
{
    bool negative = text[0] == '-';
    unsigned long long magnitude;
    const char *digits = text + (text[0] == '-' || text[0] == '+');
    param_parse_status_t status =
        parse_whole_magnitude(digits, true, &magnitude);

    if (status != PARAM_PARSE_OK)
        return status;
    if (negative) {
        if (magnitude > (unsigned long long)INT_MAX + 1)
            return PARAM_PARSE_RANGE;
        /* -(INT_MAX + 1) is representable though INT_MAX + 1 is not. */
        *out = magnitude == 0 ? 0 : -(int)(magnitude - 1) - 1;
        return PARAM_PARSE_OK;
    }
    if (magnitude > INT_MAX)
        return PARAM_PARSE_RANGE;
    *out = (int)magnitude;
    return PARAM_PARSE_OK;
}

static param_parse_status_t parse_unsigned(const char *text, unsigned int *out)
{
    unsigned long long value;
    param_parse_status_t status;

    /* "-1" is a number, only not one of this type: out of range; "-x" is
     * no number at all. */
    if (text[0] == '-') {
        unsigned int ignored;
        if (text[1] == '-' || text[1] == '+')
            return PARAM_PARSE_INVALID;
        return parse_unsigned(text + 1, &ignored) == PARAM_PARSE_INVALID
                   ? PARAM_PARSE_INVALID
                   : PARAM_PARSE_RANGE;
    }
    status = parse_whole_magnitude(text + (text[0] == '+'), true, &value);
    if (status != PARAM_PARSE_OK)
        return status;
    if (value > UINT_MAX)
        return PARAM_PARSE_RANGE;
    *out = (unsigned int)value;
    return PARAM_PARSE_OK;
}

static const struct size_suffix {
    const char *suffix;
    int shift;
} size_suffixes[] = {
    { "", 0 },     { "b", 0 },     { "k", 10 },    { "kb", 10 },
    { "kib", 10 }, { "m", 20 },    { "mb", 20 },   { "mib", 20 },
    { "g", 30 },   { "gb", 30 },   { "gib", 30 },  { "t", 40 },
    { "tb", 40 },  { "tib", 40 },
};

static int size_suffix_shift(const char *suffix)
{
    for (size_t i = 0; i < sizeof(size_suffixes) / sizeof(size_suffixes[0]);
         i++)
        if (strcasecmp(suffix, size_suffixes[i].suffix) == 0)
            return size_suffixes[i].shift;
    return -1;
}

/* Decimal only: in hex, "0x1b" would be ambiguous with the "b" suffix. */
static param_parse_status_t parse_size(const char *text, size_t *out)
{
    unsigned long long value = 0;
    const char *suffix = text;
    param_parse_status_t status;

    if (text[0] == '-') {
        size_t ignored;
        if (text[1] == '-')
            return PARAM_PARSE_INVALID;
        return parse_size(text + 1, &ignored) == PARAM_PARSE_INVALID
                   ? PARAM_PARSE_INVALID
                   : PARAM_PARSE_RANGE;
    }
    status = parse_magnitude(text, false, &value, &suffix);
    if (status == PARAM_PARSE_INVALID)
        return status;
    int shift = size_suffix_shift(suffix);
    if (shift < 0)
        return PARAM_PARSE_INVALID;
    /* In 64 bits: on a 32-bit size_t a shift by 40 would be undefined. */
    if (status == PARAM_PARSE_RANGE ||
        value > ((unsigned long long)SIZE_MAX >> shift))
        return PARAM_PARSE_RANGE;
    *out = (size_t)(value << shift);
    return PARAM_PARSE_OK;
}

static const struct bool_word {
    const char *word;
    bool value;
} bool_words[] = {
    { "true", true }, { "yes", true }, { "on", true },   { "1", true },
    { "false", false }, { "no", false }, { "off", false }, { "0", false },
};

static param_parse_status_t parse_bool(const char *text, bool *out)
{
    for (size_t i = 0; i < sizeof(bool_words) / sizeof(bool_words[0]); i++) {
        if (strcasecmp(text, bool_words[i].word) == 0) {
            *out = bool_words[i].value;
            return PARAM_PARSE_OK;
        }
    }
    return PARAM_PARSE_INVALID;
}

static param_parse_status_t parse_double(const char *text, double *out)
{
    char *end;

    if (text[0] == '\0' || isspace((unsigned char)text[0]))
        return PARAM_PARSE_INVALID;
    errno = 0;
    double value = strtod(text, &end);
    if (*end != '\0')
        return PARAM_PARSE_INVALID;
    if (errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL))
        return PARAM_PARSE_RANGE;
    /* "inf" and "nan" parse, but no tunable means them. */
    if (!isfinite(value))
        return PARAM_PARSE_INVALID;
    *out = value; /* an underflow reads as the nearest tiny value: fine */
    return PARAM_PARSE_OK;
}

static param_parse_status_t parse_enum(const hnp_param_enum_value_t *enums,
                                       const char *text, int *out)
{
    int number;

    for (const hnp_param_enum_value_t *e = enums; e->name != NULL; e++) {
        if (strcasecmp(text, e->name) == 0) {
            *out = e->value;
            return PARAM_PARSE_OK;
        }
    }
    if (parse_int(text, &number) != PARAM_PARSE_OK)
        return PARAM_PARSE_INVALID;
    for (const hnp_param_enum_value_t *e = enums; e->name != NULL; e++) {
        if (e->value == number) {
            *out = number;
            return PARAM_PARSE_OK;
        }
    }
    return PARAM_PARSE_INVALID;
}

param_parse_status_t param_value_parse(hnp_param_type_t type,
                                       const hnp_param_enum_value_t *enums,
                                       const char *text, param_datum_t *out)
{
    switch (type) {
    case HNP_PARAM_INT: return parse_int(text, &out->i);
    case HNP_PARAM_UNSIGNED: return parse_unsigned(text, &out->u);
    case HNP_PARAM_SIZE: return parse_size(text, &out->size);
    case HNP_PARAM_BOOL: return parse_bool(text, &out->b);
    case HNP_PARAM_DOUBLE: return parse_double(text, &out->d);
    case HNP_PARAM_STRING: return PARAM_PARSE_OK;
    case HNP_PARAM_ENUM: return parse_enum(enums, text, &out->i);
    }
    return PARAM_PARSE_INVALID;
}

/* The shortest text that reads back as the same double, so that 0.1 shows
 * as "0.1" yet a packed value reaches the daemons unchanged. Whole numbers
 * of up to 17 digits are written out: "2000", not "2e+03". */
static const char *format_double(double value, char *buf, size_t buflen)
{
    int digits = 1;

    for (; digits <= 17; digits++) {
        snprintf(buf, buflen, "%.*g", digits, value);
        if (strtod(buf, NULL) == value)
            break;
    }
    const char *exponent = strchr(buf, 'e');
    if (exponent != NULL) {
        int power = atoi(exponent + 1);
        /* %g writes no exponent when the precision exceeds it. */
        if (power >= 0 && power < 17)
            snprintf(buf, buflen, "%.*g",
                     power + 1 > digits ? power + 1 : digits, value);
    }
    return buf;
}

static const char *enum_name(const hnp_param_enum_value_t *enums, int value)
{
    for (const hnp_param_enum_value_t *e = enums; e->name != NULL; e++)
        if (e->value == value)
            return e->name;
    return "";
}

const char *param_value_format(hnp_param_type_t type,
                               const hnp_param_enum_value_t *enums,
                               const param_datum_t *datum, char *buf,
                               size_t buflen)
{
    switch (type) {
    case HNP_PARAM_INT: snprintf(buf, buflen, "%d", datum->i); return buf;
    case HNP_PARAM_UNSIGNED: snprintf(buf, buflen, "%u", datum->u); return buf;
    case HNP_PARAM_SIZE: snprintf(buf, buflen, "%zu", datum->size); return buf;
    case HNP_PARAM_BOOL: return datum->b ? "true" : "false";
    case HNP_PARAM_DOUBLE: return format_double(datum->d, buf, buflen);
    case HNP_PARAM_STRING: return datum->s != NULL ? datum->s : "";
    case HNP_PARAM_ENUM: return enum_name(enums, datum->i);
    }
    return "";
}

void param_value_store(hnp_param_type_t type, void *storage,
                       const param_datum_t *datum)
{
    if (storage == NULL)
        return;
    switch (type) {
    case HNP_PARAM_INT: *(int *)storage = datum->i; break;
    case HNP_PARAM_UNSIGNED: *(unsigned int *)storage = datum->u; break;
    case HNP_PARAM_SIZE: *(size_t *)storage = datum->size; break;
    case HNP_PARAM_BOOL: *(bool *)storage = datum->b; break;
    case HNP_PARAM_DOUBLE: *(double *)storage = datum->d; break;
    case HNP_PARAM_STRING: *(char **)storage = datum->s; break;
    case HNP_PARAM_ENUM: *(int *)storage = datum->i; break;
    }
}

/* What a value of the parameter's type looks like: "is not a valid ..." */
static void describe_type(const param_t *param, char *buf, size_t buflen)
{
    static const char *const words[] = {
        [HNP_PARAM_INT] = "integer",
        [HNP_PARAM_UNSIGNED] = "unsigned integer",
        [HNP_PARAM_SIZE] = "size (a number of bytes, optionally followed "
                           "by k, m, g or t)",
        [HNP_PARAM_BOOL] = "boolean (true/false, yes/no, on/off, 1/0)",
        [HNP_PARAM_DOUBLE] = "floating-point number",
        [HNP_PARAM_STRING] = "string",
    };
    size_t used;

    if (param->type != HNP_PARAM_ENUM) {
        snprintf(buf, buflen, "%s", words[param->type]);
        return;
    }
    used = (size_t)snprintf(buf, buflen, "enum value (one of:");
    for (const hnp_param_enum_value_t *e = param->enum_values;
         e->name != NULL && used < buflen; e++)
        used += (size_t)snprintf(buf + used, buflen - used, "%s %s",
                                 e == param->enum_values ? "" : ",", e->name);
    if (used < buflen)
        snprintf(buf + used, buflen - used, ")");
}

/* The type and its limits, for "is out of range for ..." */
static void describe_range(hnp_param_type_t type, char *buf, size_t buflen)
{
    switch (type) {
    case HNP_PARAM_INT:
        snprintf(buf, buflen, "an integer (%d..%d)", INT_MIN, INT_MAX);
        return;
    case HNP_PARAM_UNSIGNED:
        snprintf(buf, buflen, "an unsigned integer (0..%u)", UINT_MAX);
        return;
    case HNP_PARAM_SIZE:
        snprintf(buf, buflen, "a size (0..%zu bytes)", (size_t)SIZE_MAX);
        return;
    case HNP_PARAM_DOUBLE:
        snprintf(buf, buflen, "a floating-point number (at most %g in "
                              "magnitude)", DBL_MAX);
        return;
    default:
        snprintf(buf, buflen, "a %s", hnp_param_type_name(type));
        return;
    }
}

/* The source, and the detail when it adds something ("command line" set as
 * the detail of a command-line value would only say it twice). */
static void describe_origin(hnp_param_source_t source, const char *detail,
                            char *buf, size_t buflen)
{
    const char *what = hnp_param_source_name(source);

    if (detail == NULL || detail[0] == '\0' || strcmp(detail, what) == 0)
        snprintf(buf, buflen, "%s", what);
    else
        snprintf(buf, buflen, "%s %s", what, detail);
}

void param_value_explain(const param_t *param, const char *text,
                         hnp_param_source_t source, const char *detail,
                         param_parse_status_t status, char *err,
                         size_t errlen)
{
    char origin[512];
    char expected[512];

    describe_origin(source, detail, origin, sizeof(origin));
    if (status == PARAM_PARSE_RANGE) {
        describe_range(param->type, expected, sizeof(expected));
        hnp_err_set(err, errlen,
                    "parameter %s: value \"%s\" (from %s) is out of range "
                    "for %s",
                    param->full_name, text, origin, expected);
        return;
    }
    describe_type(param, expected, sizeof(expected));
    hnp_err_set(err, errlen,
                "parameter %s: value \"%s\" (from %s) is not a valid %s",
                param->full_name, text, origin, expected);
}
