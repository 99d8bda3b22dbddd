/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names that were set but that nothing registered: the registered names
 * the user probably meant (the closeness is hnp_suggest.h's: edit
 * distance, then the longest shared run, then the name), and their values
 * for a program that hands another program's parameters on.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "hnp_suggest.h"
#include "param_internal.h"

_Static_assert(HNP_SUGGEST_MAX == PARAM_MAX_SUGGESTIONS,
               "a search keeps as many names as the callback is promised");

/* A parameter is as close as the closest of its names, and is suggested
 * under its main name: synonyms are usually the old names. */
static void consider(hnp_suggest_t *search, const param_t *param)
{
    hnp_suggest_score_t closest, s;
    bool near = hnp_suggest_measure(search, param->full_name, &closest);

    for (char **synonym = param->synonyms; *synonym != NULL; synonym++) {
        if (hnp_suggest_measure(search, *synonym, &s) &&
            (!near || hnp_suggest_ranks_before(&s, &closest))) {
            closest = s;
            near = true;
        }
    }
    if (!near)
        return;
    closest.name = param->full_name;
    hnp_suggest_keep(search, &closest);
}

/* Fill @p out (PARAM_MAX_SUGGESTIONS + 1 entries) with the registered
 * names closest to @p unknown, NULL-terminated. */
static void suggest(const hnp_params_t *params, const char *unknown,
                    const char **out)
{
    hnp_suggest_t search;

    hnp_suggest_init(&search, unknown);
    for (size_t i = 0; i < params->nparams; i++)
        consider(&search, params->params[i]);
    hnp_suggest_result(&search, out);
    hnp_suggest_fini(&search);
}

int hnp_params_check_unknown(const hnp_params_t *params,
                             void (*fn)(const char *name,
                                        hnp_param_source_t source,
                                        const char *detail,
                                        const char *const *suggestions,
                                        void *ctx),
                             void *ctx)
{
    int unknown = 0;

    if (params == NULL)
        return HNP_ERR_BAD_PARAM;
    for (size_t i = 0; i < params->nsettings; i++) {
        const param_setting_t *setting = &params->settings[i];
        const char *suggestions[HNP_SUGGEST_MAX + 1];
        hnp_param_source_t source;
        const param_slot_t *slot = param_setting_strongest(setting, &source);
        if (slot == NULL || param_find(params, setting->name) != NULL)
            continue;
        unknown++;
        if (fn == NULL)
            continue;
        suggest(params, setting->name, suggestions);
        fn(setting->name, source, slot->detail, suggestions, ctx);
    }
    return unknown;
}

int hnp_params_foreach_unregistered(const hnp_params_t *params,
                                    int (*fn)(const char *name,
                                              const char *value,
                                              hnp_param_source_t source,
                                              void *ctx),
                                    void *ctx)
{
    if (params == NULL || fn == NULL)
        return HNP_ERR_BAD_PARAM;
    for (size_t i = 0; i < params->nsettings; i++) {
        const param_setting_t *setting = &params->settings[i];
        hnp_param_source_t source;
        const param_slot_t *slot = param_setting_strongest(setting, &source);
        if (slot == NULL || param_find(params, setting->name) != NULL)
            continue;
        int rc = fn(setting->name, slot->text, source, ctx);
        if (rc != 0)
            return rc;
    }
    return 0;
}
