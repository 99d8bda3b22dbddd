/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parameter registry: registration, setting values from any source,
 * and reading them back. See param_internal.h for how it is laid out.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "param_internal.h"

const char *hnp_param_type_name(hnp_param_type_t type)
{
    switch (type) {
    case HNP_PARAM_INT: return "int";
    case HNP_PARAM_UNSIGNED: return "unsigned";
    case HNP_PARAM_SIZE: return "size";
    case HNP_PARAM_BOOL: return "bool";
    case HNP_PARAM_DOUBLE: return "double";
    case HNP_PARAM_STRING: return "string";
    case HNP_PARAM_ENUM: return "enum";
    }
    return "unknown";
}

const char *hnp_param_source_name(hnp_param_source_t source)
{
    switch (source) {
    case HNP_PARAM_SRC_DEFAULT: return "default";
    case HNP_PARAM_SRC_SYSTEM_FILE: return "system file";
    case HNP_PARAM_SRC_USER_FILE: return "user file";
    case HNP_PARAM_SRC_TUNE_FILE: return "tune file";
    case HNP_PARAM_SRC_ENV: return "environment";
    case HNP_PARAM_SRC_FORWARDED: return "forwarded";
    case HNP_PARAM_SRC_CMDLINE: return "command line";
    }
    return "unknown";
}

/* ------------------------------------------------------------ lifetime */

hnp_params_t *hnp_params_create(void)
{
    return calloc(1, sizeof(hnp_params_t));
}

static void param_free(param_t *param)
{
    if (param == NULL)
        return;
    free(param->full_name);
    free(param->framework);
    free(param->component);
    free(param->help);
    free(param->default_text);
    if (param->enum_values != NULL)
        for (hnp_param_enum_value_t *e = param->enum_values; e->name; e++)
            free((char *)e->name);
    free(param->enum_values);
    if (param->synonyms != NULL)
        for (char **s = param->synonyms; *s != NULL; s++)
            free(*s);
    free(param->synonyms);
    free(param);
}

static void slot_clear(param_slot_t *slot)
{
    free(slot->text);
    free(slot->detail);
    slot->text = NULL;
    slot->detail = NULL;
}

void hnp_params_destroy(hnp_params_t *params)
{
    if (params == NULL)
        return;
    for (size_t i = 0; i < params->nparams; i++) {
        param_t *param = params->params[i];
        /* The string is about to be freed: leave no dangling pointer in the
         * registrant's variable. */
        if (param->type == HNP_PARAM_STRING && param->storage != NULL)
            *(char **)param->storage = NULL;
        param_free(param);
    }
    for (size_t i = 0; i < params->nsettings; i++) {
        free(params->settings[i].name);
        for (int s = 0; s < PARAM_NSOURCES; s++)
            slot_clear(&params->settings[i].slots[s]);
    }
    free(params->params);
    free(params->settings);
    free(params);
}

/* Grow an array so that @p needed more elements fit; nothing else moves. */
static int reserve(void **array, size_t *cap, size_t used, size_t needed,
                   size_t elem_size)
{
    size_t want = *cap > 0 ? *cap : 8;

    if (used + needed <= *cap)
        return HNP_SUCCESS;
    while (want < used + needed)
        want *= 2;
    void *grown = realloc(*array, want * elem_size);
    if (grown == NULL)
        return HNP_ERR_NOMEM;
    *array = grown;
    *cap = want;
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ finding */

param_t *param_find(const hnp_params_t *params, const char *name)
{
    /* A linear scan: a few hundred parameters, searched at start-up only. */
    for (size_t i = 0; i < params->nparams; i++) {
        param_t *param = params->params[i];
        if (strcmp(param->full_name, name) == 0)
            return param;
        for (char **s = param->synonyms; *s != NULL; s++)
            if (strcmp(*s, name) == 0)
                return param;
    }
    return NULL;
}

static param_setting_t *setting_find(const hnp_params_t *params,
                                     const char *name, size_t *index)
{
    for (size_t i = 0; i < params->nsettings; i++) {
        if (strcmp(params->settings[i].name, name) == 0) {
            if (index != NULL)
                *index = i;
            return &params->settings[i];
        }
    }
    return NULL;
}

const param_slot_t *param_setting_strongest(const param_setting_t *setting,
                                            hnp_param_source_t *source)
{
    for (int s = PARAM_NSOURCES - 1; s > HNP_PARAM_SRC_DEFAULT; s--) {
        if (setting->slots[s].text != NULL) {
            *source = (hnp_param_source_t)s;
            return &setting->slots[s];
        }
    }
    return NULL;
}

/* The names a parameter answers to, main name first: ties between sources
 * of equal strength go to the earlier name. */
static const char *param_name_at(const param_t *param, size_t i)
{
    return i == 0 ? param->full_name : param->synonyms[i - 1];
}

static const param_slot_t *param_winning_slot(const hnp_params_t *params,
                                              const param_t *param,
                                              hnp_param_source_t *source)
{
    const param_slot_t *best = NULL;

    for (size_t i = 0; param_name_at(param, i) != NULL; i++) {
        const param_setting_t *setting =
            setting_find(params, param_name_at(param, i), NULL);
        hnp_param_source_t found;
        const param_slot_t *slot =
            setting != NULL ? param_setting_strongest(setting, &found) : NULL;
        if (slot != NULL && (best == NULL || found > *source)) {
            best = slot;
            *source = found;
        }
    }
    return best;
}

/*
 * Bring the parameter's current value and its variable up to date with the
 * slots. Allocates nothing and cannot fail: every text in a slot a
 * parameter answers to was checked before it was stored.
 */
static void param_resolve(const hnp_params_t *params, param_t *param)
{
    hnp_param_source_t source = HNP_PARAM_SRC_DEFAULT;
    const param_slot_t *slot = param_winning_slot(params, param, &source);
    char *text = slot != NULL ? slot->text : param->default_text;
    param_datum_t datum;

    if (param->type == HNP_PARAM_STRING)
        datum.s = text;
    else if (param_value_parse(param->type, param->enum_values, text,
                               &datum) != PARAM_PARSE_OK)
        return;
    param_value_store(param->type, param->storage, &datum);
    param->value_text =
        param_value_format(param->type, param->enum_values, &datum,
                           param->value_canonical,
                           sizeof(param->value_canonical));
    param->source = source;
    param->source_detail = slot != NULL ? slot->detail : "";
}

/* ------------------------------------------------------------ registering */

/* Name parts become environment variable names (HNP_MCA_<name>), so they
 * keep to what a shell accepts there. */
static bool is_name_text(const char *text)
{
    if (text == NULL || text[0] == '\0')
        return false;
    for (const char *c = text; *c != '\0'; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return false;
    return true;
}

static int check_desc_names(const hnp_param_desc_t *desc, char *err,
                            size_t errlen)
{
    if (desc->component == NULL && desc->name == NULL) {
        if (is_name_text(desc->framework))
            return HNP_SUCCESS;
    } else if (is_name_text(desc->framework) && is_name_text(desc->name) &&
               (desc->component == NULL || is_name_text(desc->component))) {
        return HNP_SUCCESS;
    }
    hnp_err_set(err, errlen,
                "cannot register parameter %s_%s_%s: framework, component "
                "and name must be letters, digits and '_' (component and "
                "name both NULL for a framework's selection parameter; component NULL for a "
                "framework-wide one)",
                desc->framework ? desc->framework : "(null)",
                desc->component ? desc->component : "(null)",
                desc->name ? desc->name : "(null)");
    return HNP_ERR_BAD_PARAM;
}

static int check_desc_shape(const hnp_param_desc_t *desc,
                            const char *full_name, char *err, size_t errlen)
{
    if ((unsigned)desc->type > HNP_PARAM_ENUM) {
        hnp_err_set(err, errlen, "parameter %s: unknown type %d", full_name,
                    (int)desc->type);
        return HNP_ERR_BAD_PARAM;
    }
    if (desc->level < 1 || desc->level > 9) {
        hnp_err_set(err, errlen, "parameter %s: level %d is not in 1..9",
                    full_name, desc->level);
        return HNP_ERR_BAD_PARAM;
    }
    if (desc->type == HNP_PARAM_ENUM &&
        (desc->enum_values == NULL || desc->enum_values[0].name == NULL)) {
        hnp_err_set(err, errlen, "parameter %s: an enum needs enum_values",
                    full_name);
        return HNP_ERR_BAD_PARAM;
    }
    if (desc->type != HNP_PARAM_STRING && desc->default_value == NULL) {
        hnp_err_set(err, errlen, "parameter %s: a %s needs a default value",
                    full_name, hnp_param_type_name(desc->type));
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static char *build_full_name(const hnp_param_desc_t *desc)
{
    size_t len = strlen(desc->framework) + 1;
    char *name;

    if (desc->component != NULL)
        len += strlen(desc->component) + 1;
    if (desc->name != NULL)
        len += strlen(desc->name) + 1;
    name = malloc(len);
    if (name == NULL)
        return NULL;
    /* "<fw>_<component>_<name>"; without a component, "<fw>_<name>" (a
     * runtime-wide setting such as rte_kill_grace); without either, the
     * framework's selection parameter "<fw>". */
    snprintf(name, len, "%s%s%s%s%s", desc->framework,
             desc->component != NULL ? "_" : "",
             desc->component != NULL ? desc->component : "",
             desc->name != NULL ? "_" : "", desc->name != NULL ? desc->name : "");
    return name;
}

/* A name another parameter already answers to cannot be taken again. */
static int check_name_free(const hnp_params_t *params, const char *name,
                           const char *full_name, char *err, size_t errlen)
{
    const param_t *owner = param_find(params, name);

    if (owner == NULL)
        return HNP_SUCCESS;
    if (strcmp(owner->full_name, name) == 0)
        hnp_err_set(err, errlen, "parameter %s: %s is already registered",
                    full_name, name);
    else
        hnp_err_set(err, errlen,
                    "parameter %s: %s is already a synonym of %s", full_name,
                    name, owner->full_name);
    return HNP_ERR_EXISTS;
}

/* Does synonym @p i repeat the main name or an earlier synonym? */
static bool synonym_repeats(const hnp_param_desc_t *desc,
                            const char *full_name, size_t i)
{
    if (strcmp(desc->synonyms[i], full_name) == 0)
        return true;
    for (size_t j = 0; j < i; j++)
        if (strcmp(desc->synonyms[j], desc->synonyms[i]) == 0)
            return true;
    return false;
}

static int check_names_free(const hnp_params_t *params,
                            const hnp_param_desc_t *desc,
                            const char *full_name, char *err, size_t errlen)
{
    int rc = check_name_free(params, full_name, full_name, err, errlen);

    for (size_t i = 0; rc == HNP_SUCCESS && desc->synonyms != NULL &&
                       desc->synonyms[i] != NULL;
         i++) {
        if (!is_name_text(desc->synonyms[i]) ||
            synonym_repeats(desc, full_name, i)) {
            hnp_err_set(err, errlen,
                        "parameter %s: synonym \"%s\" is malformed or "
                        "repeats a name of the parameter",
                        full_name, desc->synonyms[i]);
            return HNP_ERR_BAD_PARAM;
        }
        rc = check_name_free(params, desc->synonyms[i], full_name, err,
                             errlen);
    }
    return rc;
}

static char *dup_or_empty(const char *text)
{
    return strdup(text != NULL ? text : "");
}

static hnp_param_enum_value_t *copy_enum_values(
    const hnp_param_enum_value_t *values)
{
    size_t n = 0;

    while (values[n].name != NULL)
        n++;
    hnp_param_enum_value_t *copy = calloc(n + 1, sizeof(*copy));
    for (size_t i = 0; copy != NULL && i < n; i++) {
        copy[i].value = values[i].value;
        copy[i].name = strdup(values[i].name);
        if (copy[i].name == NULL) {
            while (i-- > 0)
                free((char *)copy[i].name);
            free(copy);
            return NULL;
        }
    }
    return copy;
}

static char **copy_synonyms(const char *const *synonyms)
{
    size_t n = 0;

    while (synonyms != NULL && synonyms[n] != NULL)
        n++;
    char **copy = calloc(n + 1, sizeof(*copy));
    for (size_t i = 0; copy != NULL && i < n; i++) {
        copy[i] = strdup(synonyms[i]);
        if (copy[i] == NULL) {
            while (i-- > 0)
                free(copy[i]);
            free(copy);
            return NULL;
        }
    }
    return copy;
}

/* A copy of everything in @p desc; takes @p full_name. NULL: no memory. */
static param_t *param_new(const hnp_param_desc_t *desc, char *full_name)
{
    param_t *param = calloc(1, sizeof(*param));

    if (param == NULL) {
        free(full_name);
        return NULL;
    }
    param->full_name = full_name;
    param->framework = strdup(desc->framework);
    param->component = dup_or_empty(desc->component);
    param->help = dup_or_empty(desc->help);
    param->type = desc->type;
    param->level = desc->level;
    param->storage = desc->storage;
    param->synonyms = copy_synonyms(desc->synonyms);
    if (desc->type == HNP_PARAM_ENUM)
        param->enum_values = copy_enum_values(desc->enum_values);
    if (desc->default_value != NULL)
        param->default_text = strdup(desc->default_value);
    if (param->framework == NULL || param->component == NULL ||
        param->help == NULL || param->synonyms == NULL ||
        (desc->type == HNP_PARAM_ENUM && param->enum_values == NULL) ||
        (desc->default_value != NULL && param->default_text == NULL)) {
        param_free(param);
        return NULL;
    }
    return param;
}

/* A default that does not parse is the registrant's bug, caught here. */
static int param_check_default(param_t *param, char *err, size_t errlen)
{
    param_datum_t datum;
    param_parse_status_t status;

    if (param->type == HNP_PARAM_STRING) {
        param->default_shown = param->default_text ? param->default_text : "";
        return HNP_SUCCESS;
    }
    status = param_value_parse(param->type, param->enum_values,
                               param->default_text, &datum);
    if (status != PARAM_PARSE_OK) {
        param_value_explain(param, param->default_text, HNP_PARAM_SRC_DEFAULT,
                            NULL, status, err, errlen);
        return HNP_ERR_BAD_PARAM;
    }
    param->default_shown = param_value_format(
        param->type, param->enum_values, &datum, param->default_canonical,
        sizeof(param->default_canonical));
    return HNP_SUCCESS;
}

/* Every value already set for the parameter's names must be of its type,
 * shadowed or not: the same value set after registration would be refused
 * too, and the answer must not depend on the order. */
static int param_check_pending(const hnp_params_t *params,
                               const param_t *param, char *err, size_t errlen)
{
    for (size_t i = 0; param_name_at(param, i) != NULL; i++) {
        const param_setting_t *setting =
            setting_find(params, param_name_at(param, i), NULL);
        for (int s = PARAM_NSOURCES - 1; setting != NULL && s > 0; s--) {
            const param_slot_t *slot = &setting->slots[s];
            param_datum_t ignored;
            param_parse_status_t status;
            if (slot->text == NULL)
                continue;
            status = param_value_parse(param->type, param->enum_values,
                                       slot->text, &ignored);
            if (status != PARAM_PARSE_OK) {
                param_value_explain(param, slot->text, (hnp_param_source_t)s,
                                    slot->detail, status, err, errlen);
                return HNP_ERR_BAD_PARAM;
            }
        }
    }
    return HNP_SUCCESS;
}

int hnp_param_register(hnp_params_t *params, const hnp_param_desc_t *desc,
                       char *err, size_t errlen)
{
    param_t *param = NULL;
    char *full_name = NULL;
    int rc;

    if (params == NULL || desc == NULL) {
        hnp_err_set(err, errlen, "no registry or no description");
        return HNP_ERR_BAD_PARAM;
    }
    rc = check_desc_names(desc, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    full_name = build_full_name(desc);
    if (full_name == NULL)
        goto out_of_memory;
    rc = check_desc_shape(desc, full_name, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = check_names_free(params, desc, full_name, err, errlen);
    if (rc != HNP_SUCCESS) {
        free(full_name);
        return rc;
    }
    param = param_new(desc, full_name);
    if (param == NULL)
        goto out_of_memory;
    rc = param_check_default(param, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = param_check_pending(params, param, err, errlen);
    if (rc == HNP_SUCCESS &&
        reserve((void **)&params->params, &params->params_cap,
                params->nparams, 1, sizeof(*params->params)) != HNP_SUCCESS)
        goto out_of_memory;
    if (rc != HNP_SUCCESS) {
        param_free(param);
        return rc;
    }
    params->params[params->nparams++] = param;
    param_resolve(params, param);
    return HNP_SUCCESS;

out_of_memory:
    param_free(param);
    hnp_err_set(err, errlen, "out of memory registering a parameter");
    return HNP_ERR_NOMEM;
}

/* ------------------------------------------------------------ setting */

static int check_assignment(const hnp_params_t *params,
                            const param_assignment_t *a,
                            hnp_param_source_t source, char *err,
                            size_t errlen)
{
    const param_t *param;
    param_datum_t ignored;
    param_parse_status_t status;

    if (a->name == NULL || a->name[0] == '\0' || a->value == NULL) {
        hnp_err_set(err, errlen, "a parameter needs a name and a value%s%s",
                    a->detail != NULL ? " at " : "",
                    a->detail != NULL ? a->detail : "");
        return HNP_ERR_BAD_PARAM;
    }
    param = param_find(params, a->name);
    if (param == NULL)
        return HNP_SUCCESS; /* checked when something registers it */
    status = param_value_parse(param->type, param->enum_values, a->value,
                               &ignored);
    if (status == PARAM_PARSE_OK)
        return HNP_SUCCESS;
    param_value_explain(param, a->value, source, a->detail, status, err,
                        errlen);
    return HNP_ERR_BAD_PARAM;
}

static int check_assignments(const hnp_params_t *params,
                             const param_assignment_t *assignments,
                             size_t count, hnp_param_source_t source,
                             char *err, size_t errlen)
{
    /* The default belongs to the registration; a value set "as the
     * default" would have no meaning the precedence could honour. */
    if (source == HNP_PARAM_SRC_DEFAULT) {
        hnp_err_set(err, errlen, "a default comes with the registration; "
                                 "values are set from another source");
        return HNP_ERR_BAD_PARAM;
    }
    if ((unsigned)source > HNP_PARAM_SRC_CMDLINE) {
        hnp_err_set(err, errlen, "no such parameter source: %d", (int)source);
        return HNP_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < count; i++) {
        int rc = check_assignment(params, &assignments[i], source, err,
                                  errlen);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return HNP_SUCCESS;
}

/* What one assignment will change, allocated before anything changes. */
typedef struct prepared_assignment {
    bool superseded;     /* a later assignment sets the same name */
    size_t setting;      /* index of the existing setting, or SIZE_MAX */
    char *new_name;      /* the name of a setting still to create */
    char *text;
    char *detail;
} prepared_assignment_t;

static void prepared_free(prepared_assignment_t *prepared, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(prepared[i].new_name);
        free(prepared[i].text);
        free(prepared[i].detail);
    }
    free(prepared);
}

static bool is_superseded(const param_assignment_t *assignments,
                          size_t count, size_t i)
{
    for (size_t later = i + 1; later < count; later++)
        if (strcmp(assignments[later].name, assignments[i].name) == 0)
            return true;
    return false;
}

/* Allocate all the memory the commit will need. */
static int prepare_assignments(hnp_params_t *params,
                               const param_assignment_t *assignments,
                               size_t count, prepared_assignment_t *prepared)
{
    size_t new_settings = 0;

    for (size_t i = 0; i < count; i++) {
        const param_assignment_t *a = &assignments[i];
        prepared_assignment_t *p = &prepared[i];
        p->superseded = is_superseded(assignments, count, i);
        if (p->superseded)
            continue;
        if (setting_find(params, a->name, &p->setting) == NULL) {
            p->setting = SIZE_MAX;
            p->new_name = strdup(a->name);
            new_settings++;
        }
        p->text = strdup(a->value);
        p->detail = dup_or_empty(a->detail);
        if (p->text == NULL || p->detail == NULL ||
            (p->setting == SIZE_MAX && p->new_name == NULL))
            return HNP_ERR_NOMEM;
    }
    return reserve((void **)&params->settings, &params->settings_cap,
                   params->nsettings, new_settings, sizeof(*params->settings));
}

/* Store the prepared values and resolve the parameters they belong to.
 * Takes the prepared memory; cannot fail. */
static void commit_assignments(hnp_params_t *params,
                               prepared_assignment_t *prepared, size_t count,
                               hnp_param_source_t source)
{
    for (size_t i = 0; i < count; i++) {
        prepared_assignment_t *p = &prepared[i];
        if (p->superseded)
            continue;
        if (p->setting == SIZE_MAX) {
            p->setting = params->nsettings++;
            memset(&params->settings[p->setting], 0,
                   sizeof(params->settings[p->setting]));
            params->settings[p->setting].name = p->new_name;
            p->new_name = NULL;
        }
        param_setting_t *setting = &params->settings[p->setting];
        slot_clear(&setting->slots[source]);
        setting->slots[source].text = p->text;
        setting->slots[source].detail = p->detail;
        p->text = p->detail = NULL;

        param_t *param = param_find(params, setting->name);
        if (param != NULL)
            param_resolve(params, param);
    }
}

int param_assign(hnp_params_t *params, const param_assignment_t *assignments,
                 size_t count, hnp_param_source_t source, char *err,
                 size_t errlen)
{
    prepared_assignment_t *prepared;
    int rc;

    if (params == NULL) {
        hnp_err_set(err, errlen, "no parameter registry");
        return HNP_ERR_BAD_PARAM;
    }
    rc = check_assignments(params, assignments, count, source, err, errlen);
    if (rc != HNP_SUCCESS || count == 0)
        return rc;
    prepared = calloc(count, sizeof(*prepared));
    if (prepared == NULL ||
        prepare_assignments(params, assignments, count, prepared) !=
            HNP_SUCCESS) {
        prepared_free(prepared, prepared != NULL ? count : 0);
        hnp_err_set(err, errlen, "out of memory setting parameters");
        return HNP_ERR_NOMEM;
    }
    commit_assignments(params, prepared, count, source);
    prepared_free(prepared, count);
    return HNP_SUCCESS;
}

int hnp_param_set(hnp_params_t *params, const char *name, const char *value,
                  hnp_param_source_t source, const char *detail, char *err,
                  size_t errlen)
{
    param_assignment_t assignment = { name, value, detail };

    return param_assign(params, &assignment, 1, source, err, errlen);
}

/* ------------------------------------------------------------ reading */

static void param_fill_info(const param_t *param, hnp_param_info_t *info)
{
    info->full_name = param->full_name;
    info->framework = param->framework;
    info->component = param->component;
    info->type = param->type;
    info->value = param->value_text;
    info->default_value = param->default_shown;
    info->source = param->source;
    info->source_detail = param->source_detail;
    info->help = param->help;
    info->level = param->level;
    info->enum_values = param->enum_values;
    info->synonyms = (const char *const *)param->synonyms;
}

int hnp_param_lookup(const hnp_params_t *params, const char *name,
                     hnp_param_info_t *info)
{
    const param_t *param;

    if (params == NULL || name == NULL || info == NULL)
        return HNP_ERR_BAD_PARAM;
    param = param_find(params, name);
    if (param == NULL)
        return HNP_ERR_NOT_FOUND;
    param_fill_info(param, info);
    return HNP_SUCCESS;
}

int hnp_params_foreach(const hnp_params_t *params,
                       int (*fn)(const hnp_param_info_t *info, void *ctx),
                       void *ctx)
{
    if (params == NULL || fn == NULL)
        return HNP_ERR_BAD_PARAM;
    for (size_t i = 0; i < params->nparams; i++) {
        hnp_param_info_t info;
        param_fill_info(params->params[i], &info);
        int rc = fn(&info, ctx);
        if (rc != 0)
            return rc;
    }
    return HNP_SUCCESS;
}
