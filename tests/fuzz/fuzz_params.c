/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the packed parameters a daemon unpacks from the welcome
 * (framework/param_pack.c), applied to a registry with a parameter of
 * every type, one of them set on the command line already.
 *
 * Input layout (make-corpus.sh writes seeds in it):
 *   byte 0    0: the rest is the buffer as it arrived;
 *             1: the rest is what lies between the magic and version and
 *                the hash, which the target adds (so that mutations get
 *                past the hash to the entries and the values)
 *   then      the buffer, or its entries
 *
 * Besides the sanitizers, the target checks what hnp_params_unpack()
 * promises: a refused buffer changes nothing (every value and what would
 * be forwarded on are as before); an accepted one, packed again, unpacks
 * into a registry like the first one to the same values and packs to the
 * same bytes.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "hnp_param.h"

#define ERRLEN 512

/* What each registry's parameters are stored in. */
typedef struct storage {
    int i, e;
    unsigned u;
    size_t z;
    bool b;
    double d;
    char *s;
} storage_t;

static const hnp_param_enum_value_t colours[] = {
    { "red", 1 }, { "green", 2 }, { "blue", 7 }, { NULL, 0 },
};
static const char *const int_synonyms[] = { "fuzz_old_int", NULL };

static hnp_params_t *registry(storage_t *st)
{
    const hnp_param_desc_t descs[] = {
        { "fuzz", "x", "int", HNP_PARAM_INT, "-3", "h", 1, NULL,
          int_synonyms, &st->i },
        { "fuzz", "x", "unsigned", HNP_PARAM_UNSIGNED, "4", "h", 1, NULL,
          NULL, &st->u },
        { "fuzz", "x", "size", HNP_PARAM_SIZE, "1k", "h", 1, NULL, NULL,
          &st->z },
        { "fuzz", "x", "bool", HNP_PARAM_BOOL, "no", "h", 1, NULL, NULL,
          &st->b },
        { "fuzz", "x", "double", HNP_PARAM_DOUBLE, "0.5", "h", 1, NULL, NULL,
          &st->d },
        { "fuzz", "x", "string", HNP_PARAM_STRING, "abc", "h", 1, NULL,
          NULL, &st->s },
        { "fuzz", "x", "enum", HNP_PARAM_ENUM, "red", "h", 1, colours, NULL,
          &st->e },
        { "fuzz", NULL, NULL, HNP_PARAM_STRING, NULL, "h", 1, NULL, NULL,
          NULL },
    };
    hnp_params_t *params = hnp_params_create();
    char err[ERRLEN];

    if (params == NULL)
        abort();
    memset(st, 0, sizeof(*st));
    for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
        FUZZ_CHECK(hnp_param_register(params, &descs[i], err, sizeof(err)) ==
                   HNP_SUCCESS);
    /* One set by a stronger source, one not registered (yet). */
    FUZZ_CHECK(hnp_param_set(params, "fuzz_x_double", "2.25",
                             HNP_PARAM_SRC_CMDLINE, NULL, err,
                             sizeof(err)) == HNP_SUCCESS);
    FUZZ_CHECK(hnp_param_set(params, "fuzz_y_later", "v", HNP_PARAM_SRC_ENV,
                             NULL, err, sizeof(err)) == HNP_SUCCESS);
    return params;
}

typedef struct text {
    char *buf;
    size_t len, cap;
} text_t;

static void text_add(text_t *t, const char *s, size_t len)
{
    if (t->len + len + 1 > t->cap) {
        t->cap = (t->len + len + 1) * 2;
        t->buf = realloc(t->buf, t->cap);
        if (t->buf == NULL)
            abort();
    }
    memcpy(t->buf + t->len, s, len);
    t->len += len;
    t->buf[t->len] = '\0';
}

static int describe_one(const hnp_param_info_t *info, void *ctx)
{
    text_add(ctx, info->full_name, strlen(info->full_name));
    text_add(ctx, "=", 1);
    text_add(ctx, info->value, strlen(info->value) + 1); /* with its NUL */
    return 0;
}

/* Every value, then what would be forwarded on: all a registry shows. */
static text_t describe(const hnp_params_t *params)
{
    text_t t = { NULL, 0, 0 };
    char *packed;
    size_t len;

    hnp_params_foreach(params, describe_one, &t);
    FUZZ_CHECK(hnp_params_pack(params, &packed, &len) == HNP_SUCCESS);
    text_add(&t, packed, len);
    free(packed);
    return t;
}

static bool same_text(const text_t *a, const text_t *b)
{
    return a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0;
}

static uint32_t fnv1a(const uint8_t *data, size_t len)
{
    uint32_t hash = 2166136261u;

    for (size_t i = 0; i < len; i++) {
        hash ^= data[i];
        hash *= 16777619u;
    }
    return hash;
}

/* "HNPP", version 1, @p body, the hash of all that. */
static uint8_t *framed(const uint8_t *body, size_t len, size_t *outlen)
{
    uint8_t *buf = malloc(len + 9);

    if (buf == NULL)
        abort();
    memcpy(buf, "HNPP\1", 5);
    memcpy(buf + 5, body, len);
    uint32_t hash = fnv1a(buf, len + 5);
    for (int i = 0; i < 4; i++)
        buf[len + 5 + i] = (uint8_t)(hash >> (24 - 8 * i));
    *outlen = len + 9;
    return buf;
}

static void check_round_trip(const hnp_params_t *params)
{
    storage_t st2;
    hnp_params_t *again = registry(&st2);
    char *packed, *packed2, err[ERRLEN];
    size_t len, len2;

    FUZZ_CHECK(hnp_params_pack(params, &packed, &len) == HNP_SUCCESS);
    FUZZ_CHECK(hnp_params_unpack(again, packed, len, HNP_PARAM_SRC_FORWARDED,
                                 err, sizeof(err)) == HNP_SUCCESS);
    FUZZ_CHECK(hnp_params_pack(again, &packed2, &len2) == HNP_SUCCESS);
    FUZZ_CHECK(len2 == len && memcmp(packed, packed2, len) == 0);
    text_t a = describe(params), b = describe(again);
    FUZZ_CHECK(same_text(&a, &b));
    free(a.buf);
    free(b.buf);
    free(packed);
    free(packed2);
    hnp_params_destroy(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    storage_t st;
    hnp_params_t *params;
    uint8_t *buf;
    size_t len;
    char err[ERRLEN];

    if (size < 1)
        return 0;
    hnp_log_set_handler(fuzz_discard_log, NULL);
    if (data[0] & 1) {
        buf = framed(data + 1, size - 1, &len);
    } else {
        /* A copy of exactly its size: a read past its end shows. */
        len = size - 1;
        buf = malloc(len > 0 ? len : 1);
        if (buf == NULL)
            abort();
        memcpy(buf, data + 1, len);
    }
    params = registry(&st);
    text_t before = describe(params);
    int rc = hnp_params_unpack(params, (const char *)buf, len,
                               HNP_PARAM_SRC_FORWARDED, err, sizeof(err));
    if (rc != HNP_SUCCESS) {
        FUZZ_CHECK(err[0] != '\0');
        text_t after = describe(params);
        FUZZ_CHECK(same_text(&before, &after));
        free(after.buf);
    } else {
        check_round_trip(params);
    }
    free(before.buf);
    free(buf);
    hnp_params_destroy(params);
    hnp_log_set_handler(NULL, NULL);
    return 0;
}
