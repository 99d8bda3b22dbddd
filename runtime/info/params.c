/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp-info --param: parameters grouped as a user names them, by framework
 * and component. A framework's own parameters (`routed`,
 * `routed_base_verbose`) belong to its component "base"; the component
 * architecture's (`mca_base_*`, `log_output`) to framework "mca".
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "info.h"

#define NAME_LIST_LEN 512
#define HELP_WIDTH 78
#define HELP_INDENT 13 /* under the text after "    help:    " */

typedef struct param_filter {
    const hnp_setup_t *setup;
    const hnp_info_options_t *opts;
} param_filter_t;

static bool is_all(const char *text)
{
    return strcmp(text, "all") == 0;
}

static bool is_framework(const hnp_setup_t *setup, const char *name)
{
    hnp_mca_framework_t *frameworks[5];

    size_t n = hnp_setup_frameworks(setup, frameworks);
    for (size_t i = 0; i < n; i++)
        if (strcmp(hnp_mca_framework_desc(frameworks[i])->name, name) == 0)
            return true;
    return false;
}

/* The framework and component a user names @p info by. Anything not
 * registered by one of the frameworks is the architecture's own. */
static void param_owner(const param_filter_t *f, const hnp_param_info_t *info,
                        const char **fw, const char **component)
{
    bool known = strcmp(info->framework, HNP_INFO_MCA_FRAMEWORK) == 0 ||
                 is_framework(f->setup, info->framework);

    *fw = known ? info->framework : HNP_INFO_MCA_FRAMEWORK;
    *component = known && info->component[0] != '\0'
                     ? info->component
                     : HNP_INFO_BASE_COMPONENT;
}

static bool has_component(hnp_mca_framework_t *fw, const char *name)
{
    const hnp_mca_component_entry_t *entries = NULL;

    size_t n = hnp_mca_framework_components(fw, &entries);
    for (size_t i = 0; i < n; i++)
        if (strcmp(entries[i].component->name, name) == 0)
            return true;
    return false;
}

static void append_name(char *list, size_t len, const char *name)
{
    size_t used = strlen(list);

    if (used < len)
        snprintf(list + used, len - used, "%s%s", used > 0 ? ", " : "", name);
}

/* Whether the framework (or any, for "all") has @p component; fills
 * @p names with the components that do exist, for the error message. */
static bool component_exists(const hnp_setup_t *setup, const char *fw_name,
                             const char *component, char *names, size_t len)
{
    hnp_mca_framework_t *frameworks[5];
    bool found = false;

    append_name(names, len, HNP_INFO_BASE_COMPONENT);
    size_t n = hnp_setup_frameworks(setup, frameworks);
    for (size_t i = 0; i < n; i++) {
        const hnp_mca_component_entry_t *entries = NULL;
        if (!is_all(fw_name) &&
            strcmp(hnp_mca_framework_desc(frameworks[i])->name, fw_name) != 0)
            continue;
        found = found || has_component(frameworks[i], component);
        size_t count = hnp_mca_framework_components(frameworks[i], &entries);
        for (size_t c = 0; c < count; c++)
            append_name(names, len, entries[c].component->name);
    }
    return found;
}

static void list_frameworks(const hnp_setup_t *setup, char *names,
                            size_t len)
{
    hnp_mca_framework_t *frameworks[5];

    append_name(names, len, HNP_INFO_MCA_FRAMEWORK);
    size_t n = hnp_setup_frameworks(setup, frameworks);
    for (size_t i = 0; i < n; i++)
        append_name(names, len, hnp_mca_framework_desc(frameworks[i])->name);
}

static int check_selection(const hnp_setup_t *setup, const char *fw,
                           const char *component, char *err, size_t errlen)
{
    char names[NAME_LIST_LEN] = "";

    if (!is_all(fw) && strcmp(fw, HNP_INFO_MCA_FRAMEWORK) != 0 &&
        !is_framework(setup, fw)) {
        list_frameworks(setup, names, sizeof(names));
        hnp_err_set(err, errlen, "no framework '%s' (frameworks: all, %s)",
                    fw, names);
        return HNP_ERR_NOT_FOUND;
    }
    if (is_all(component) || strcmp(component, HNP_INFO_BASE_COMPONENT) == 0)
        return HNP_SUCCESS;
    if (strcmp(fw, HNP_INFO_MCA_FRAMEWORK) == 0 ||
        !component_exists(setup, fw, component, names, sizeof(names))) {
        hnp_err_set(err, errlen, "no component '%s' in framework %s "
                    "(components: all, %s)", component, fw,
                    names[0] != '\0' ? names : HNP_INFO_BASE_COMPONENT);
        return HNP_ERR_NOT_FOUND;
    }
    return HNP_SUCCESS;
}

/* " (one of: a b c)" after the type of an enumeration. */
static void print_allowed_inline(const hnp_param_info_t *info)
{
    printf(" (one of:");
    for (const hnp_param_enum_value_t *v = info->enum_values;
         v != NULL && v->name != NULL; v++)
        printf(" %s", v->name);
    printf(")");
}

static void print_param_parsable(const hnp_param_info_t *info,
                                 const char *fw, const char *component)
{
    char prefix[256];

    snprintf(prefix, sizeof(prefix), "mca:%s:%s:param:%s", fw, component,
             info->full_name);
    printf("%s:value:", prefix);
    hnp_info_put_oneline(info->value);
    printf("\n%s:source:%s\n", prefix, hnp_param_source_name(info->source));
    const char *detail = hnp_info_source_detail(info);
    if (detail != NULL) {
        printf("%s:source_detail:", prefix);
        hnp_info_put_oneline(detail);
        putchar('\n');
    }
    printf("%s:type:%s\n", prefix, hnp_param_type_name(info->type));
    for (const hnp_param_enum_value_t *v = info->enum_values;
         info->type == HNP_PARAM_ENUM && v != NULL && v->name != NULL; v++)
        printf("%s:allowed:%s\n", prefix, v->name);
    printf("%s:default:", prefix);
    hnp_info_put_oneline(info->default_value);
    printf("\n%s:level:%d\n", prefix, info->level);
    for (const char *const *s = info->synonyms; s != NULL && *s != NULL; s++)
        printf("%s:synonym:%s\n", prefix, *s);
    printf("%s:help:", prefix);
    hnp_info_put_oneline(info->help);
    putchar('\n');
}

/* Help text wrapped to the terminal's usual width, its continuation lines
 * indented under the first; the text's own line breaks are kept. */
static void print_wrapped(const char *text, int indent)
{
    int column = indent;
    const char *word = text;

    while (*word != '\0') {
        size_t len = strcspn(word, " \n");
        if (column > indent && column + 1 + (int)len > HELP_WIDTH) {
            printf("\n%*s", indent, "");
            column = indent;
        } else if (column > indent) {
            putchar(' ');
            column++;
        }
        printf("%.*s", (int)len, word);
        column += (int)len;
        word += len;
        if (*word == '\n' && word[1] != '\0') {
            printf("\n%*s", indent, "");
            column = indent;
        }
        word += strspn(word, " \n");
    }
    putchar('\n');
}

static void print_param_human(const hnp_param_info_t *info, const char *fw,
                              const char *component)
{
    const char *detail = hnp_info_source_detail(info);

    printf("%s = \"%s\"  (%s %s, level %d)\n", info->full_name,
           info->value != NULL ? info->value : "", fw, component, info->level);
    printf("    source:  %s%s%s%s\n", hnp_param_source_name(info->source),
           detail != NULL ? " (" : "", detail != NULL ? detail : "",
           detail != NULL ? ")" : "");
    printf("    type:    %s", hnp_param_type_name(info->type));
    if (info->type == HNP_PARAM_ENUM)
        print_allowed_inline(info);
    printf("\n    default: \"%s\"\n",
           info->default_value != NULL ? info->default_value : "");
    if (info->synonyms != NULL && info->synonyms[0] != NULL) {
        printf("    synonyms:");
        for (const char *const *s = info->synonyms; *s != NULL; s++)
            printf(" %s", *s);
        putchar('\n');
    }
    printf("    help:    ");
    print_wrapped(info->help != NULL ? info->help : "", HELP_INDENT);
}

static int print_matching_param(const hnp_param_info_t *info, void *ctx)
{
    const param_filter_t *f = ctx;
    const char *fw, *component;

    param_owner(f, info, &fw, &component);
    if (info->level > f->opts->level)
        return 0;
    if (!is_all(f->opts->param_framework) &&
        strcmp(f->opts->param_framework, fw) != 0)
        return 0;
    if (!is_all(f->opts->param_component) &&
        strcmp(f->opts->param_component, component) != 0)
        return 0;
    if (f->opts->parsable)
        print_param_parsable(info, fw, component);
    else
        print_param_human(info, fw, component);
    return 0;
}

int hnp_info_print_params(const hnp_setup_t *setup,
                          const hnp_info_options_t *opts, char *err,
                          size_t errlen)
{
    param_filter_t filter = { .setup = setup, .opts = opts };

    int rc = check_selection(setup, opts->param_framework,
                             opts->param_component, err, errlen);
    if (rc < 0)
        return rc;
    return hnp_params_foreach(hnp_mca_params(setup->mca),
                              print_matching_param, &filter);
}
