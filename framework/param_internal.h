/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parameter registry's private structures, shared by framework/param*.c
 * and never installed.
 *
 * Two tables make up the registry. The settings table holds every name that
 * any source set, registered or not, with one slot per source: a weaker
 * source's value is kept beside a stronger one's, so the winner can always
 * be recomputed. The parameter table holds what was registered. A
 * parameter's value is never stored twice: resolving it picks the winning
 * slot among its own name and its synonyms and points at that slot's text.
 * Because resolving allocates nothing, every change is prepared first (all
 * parsing and allocation) and committed afterwards without any way to fail,
 * which is how a failing call leaves the registry as it was.
 */
#ifndef PARAM_INTERNAL_H
#define PARAM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hnp_param.h"

#define PARAM_NSOURCES ((int)HNP_PARAM_SRC_CMDLINE + 1)

/* Room for the canonical text of any number (an unsigned 64-bit value has
 * 20 digits, a double at most 24 characters). */
#define PARAM_NUMBER_TEXT_MAX 32

/* The most suggestions hnp_params_check_unknown() offers for one name. */
#define PARAM_MAX_SUGGESTIONS HNP_PARAM_MAX_SUGGESTIONS

/** One source's value for one name. @c text is NULL when that source did
 *  not set the name. Both strings are owned. */
typedef struct param_slot {
    char *text;
    char *detail; /* never NULL when text is set; "" when nothing to say */
} param_slot_t;

/** Every value set for one name, whether or not it was registered. */
typedef struct param_setting {
    char *name;
    param_slot_t slots[PARAM_NSOURCES]; /* slot 0 (default) stays empty */
} param_setting_t;

/** A parsed value. Strings are not parsed: they are the text itself. */
typedef union param_datum {
    int i;
    unsigned int u;
    size_t size;
    bool b;
    double d;
    char *s;
} param_datum_t;

typedef enum param_parse_status {
    PARAM_PARSE_OK,
    PARAM_PARSE_INVALID, /* not of the type at all */
    PARAM_PARSE_RANGE,   /* of the type, but the number does not fit */
} param_parse_status_t;

/** A registered parameter. Every pointer is owned. */
typedef struct param {
    char *full_name;
    char *framework;
    char *component; /* "" for a framework's selection parameter */
    char *help;
    hnp_param_type_t type;
    int level;
    hnp_param_enum_value_t *enum_values; /* copy; NULL unless ENUM */
    char **synonyms;                     /* NULL-terminated; never NULL */
    void *storage;                       /* the registrant's; may be NULL */

    char *default_text; /* as registered; NULL only for a NULL string */
    char default_canonical[PARAM_NUMBER_TEXT_MAX];
    const char *default_shown; /* what hnp_param_info_t shows */

    /* The current value. The pointers lead into a settings slot, into this
     * struct, into enum_values or to default_text: nothing to free. */
    hnp_param_source_t source;
    const char *source_detail;
    const char *value_text;
    char value_canonical[PARAM_NUMBER_TEXT_MAX];
} param_t;

struct hnp_params {
    param_t **params; /* pointers: info hands out addresses inside them */
    size_t nparams;
    size_t params_cap;
    param_setting_t *settings;
    size_t nsettings;
    size_t settings_cap;
};

/** One value to set, as the sources hand it to param_assign(). */
typedef struct param_assignment {
    const char *name;
    const char *value;
    const char *detail; /* may be NULL */
} param_assignment_t;

/* ---- param.c */

/** Set every assignment from @p source, all or none. A name given twice
 *  keeps the later value, as a later line of a file overrides an earlier
 *  one. */
int param_assign(hnp_params_t *params, const param_assignment_t *assignments,
                 size_t count, hnp_param_source_t source, char *err,
                 size_t errlen);

/** The registered parameter whose full name or synonym is @p name. */
param_t *param_find(const hnp_params_t *params, const char *name);

/** The strongest slot set in @p setting, and its source. */
const param_slot_t *
param_setting_strongest(const param_setting_t *setting,
                        hnp_param_source_t *source);

/* ---- param_value.c */

/** Parse @p text as @p type. Strings always parse (and are not stored in
 *  @p out). */
param_parse_status_t
param_value_parse(hnp_param_type_t type, const hnp_param_enum_value_t *enums,
                  const char *text, param_datum_t *out);

/** The canonical text of @p datum: a pointer into @p buf (numbers and
 *  bools), to the enum's name, or to the string itself. */
const char *
param_value_format(hnp_param_type_t type, const hnp_param_enum_value_t *enums,
                   const param_datum_t *datum, char *buf, size_t buflen);

/** Write @p datum to the registrant's variable; nothing when NULL. */
void param_value_store(hnp_param_type_t type, void *storage,
                       const param_datum_t *datum);

/** The message for a value that failed to parse: it names the parameter,
 *  the value, where the value came from and what was expected. */
void param_value_explain(const param_t *param, const char *text,
                         hnp_param_source_t source, const char *detail,
                         param_parse_status_t status, char *err,
                         size_t errlen);

#endif /* PARAM_INTERNAL_H */
