/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp-info's default listing: every framework, the components found for it
 * and where each came from, and the files that were skipped and why.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hnp_static_components.h"
#include "info.h"

#define VERSION_TEXT_LEN 16

void hnp_info_version_text(uint32_t version, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u", (unsigned)HNP_MCA_VERSION_MAJOR(version),
             (unsigned)HNP_MCA_VERSION_MINOR(version),
             (unsigned)HNP_MCA_VERSION_RELEASE(version));
}

void hnp_info_put_oneline(const char *text)
{
    for (const char *c = text; c != NULL && *c != '\0'; c++)
        putchar(*c == '\n' || *c == '\r' ? ' ' : *c);
}

const char *hnp_info_source_detail(const hnp_param_info_t *info)
{
    const char *detail = info->source_detail;

    if (detail == NULL || detail[0] == '\0' ||
        strcmp(detail, hnp_param_source_name(info->source)) == 0)
        return NULL;
    return detail;
}

/* The selection list a user set for @p fw, or a note that none was. */
static void print_selection(const hnp_setup_t *setup,
                            const hnp_mca_framework_desc_t *desc)
{
    const char *fw = desc->name;
    hnp_param_info_t info;

    if (hnp_param_lookup(hnp_mca_params(setup->mca), fw, &info) < 0 ||
        info.value == NULL || info.value[0] == '\0') {
        printf("  selection: every component, %s (%s is not set)\n",
               desc->all_active ? "each one that accepts is active, "
                                  "highest priority first"
                                : "highest priority wins", fw);
        return;
    }
    const char *detail = hnp_info_source_detail(&info);
    printf("  selection: %s = %s (%s%s%s)\n", fw, info.value,
           hnp_param_source_name(info.source), detail != NULL ? ", " : "",
           detail != NULL ? detail : "");
}

/* " 210,211" (the component's message tags), or "" for none. */
static void tags_text(const hnp_mca_component_t *c, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (const uint32_t *t = c->tags; t != NULL && *t != 0 && at < len; t++) {
        int n = snprintf(buf + at, len - at, "%s%u", at == 0 ? "" : ",", *t);
        at += n > 0 ? (size_t)n : 0;
    }
}

/* "priority 20", "declines here" (asked, offered nothing) or "" (not
 * asked: the framework could not be opened). */
static void priority_text(const hnp_mca_component_entry_t *entry, char *buf,
                          size_t len)
{
    if (!entry->queried)
        snprintf(buf, len, "%s", "");
    else if (entry->module == NULL)
        snprintf(buf, len, "%s", "declines here");
    else
        snprintf(buf, len, "priority %d", entry->priority);
}

static void print_component(const char *fw,
                            const hnp_mca_component_entry_t *entry,
                            bool parsable)
{
    const hnp_mca_component_t *c = entry->component;
    char version[VERSION_TEXT_LEN], iface[VERSION_TEXT_LEN], tags[128];
    char priority[32];

    tags_text(c, tags, sizeof(tags));
    priority_text(entry, priority, sizeof(priority));
    hnp_info_version_text(c->component_version, version, sizeof(version));
    hnp_info_version_text(c->interface_version, iface, sizeof(iface));
    if (parsable) {
        printf("mca:%s:%s:version:%s\n", fw, c->name, version);
        printf("mca:%s:%s:interface:%s\n", fw, c->name, iface);
        printf("mca:%s:%s:path:", fw, c->name);
        hnp_info_put_oneline(entry->path != NULL ? entry->path : "built-in");
        putchar('\n');
        if (tags[0] != '\0')
            printf("mca:%s:%s:tags:%s\n", fw, c->name, tags);
        if (entry->queried && entry->module != NULL)
            printf("mca:%s:%s:priority:%d\n", fw, c->name, entry->priority);
        else if (entry->queried)
            printf("mca:%s:%s:priority:declined\n", fw, c->name);
        return;
    }
    printf("  component %-14s version %-8s for interface %-8s %s%s%s%s%s%s\n",
           c->name, version, iface, entry->path != NULL ? "from " : "",
           entry->path != NULL ? entry->path : "built in",
           priority[0] != '\0' ? ", " : "", priority,
           tags[0] != '\0' ? ", message tags " : "", tags);
}

static void print_failure(const char *fw, const hnp_mca_load_failure_t *f,
                          bool parsable)
{
    const char *name = f->component != NULL ? f->component : "unknown";
    const char *reason = f->reason != NULL ? f->reason : "unknown reason";

    if (parsable) {
        printf("mca:%s:%s:failed:", fw, name);
        hnp_info_put_oneline(f->path);
        putchar(':');
        hnp_info_put_oneline(reason);
        putchar('\n');
        return;
    }
    printf("  FAILED    %-14s %s: %s\n", name, f->path, reason);
}

static void print_framework_head(const hnp_setup_t *setup,
                                 const hnp_mca_framework_desc_t *desc,
                                 bool parsable)
{
    char iface[VERSION_TEXT_LEN];

    hnp_info_version_text(desc->interface_version, iface, sizeof(iface));
    if (parsable) {
        printf("framework:%s:interface:%s\n", desc->name, iface);
        printf("framework:%s:description:", desc->name);
        hnp_info_put_oneline(desc->description);
        putchar('\n');
        return;
    }
    printf("Framework %s (interface %s): %s\n", desc->name, iface,
           desc->description);
    print_selection(setup, desc);
}

static bool accept_none(void *ctx, const void *module)
{
    (void)ctx;
    (void)module;
    return false;
}

/* Ask every component what it offers here (its priority, or that it
 * declines), as hnp's selection would, without selecting one: the
 * framework is opened for it unless it is already. */
static void ask_components(hnp_mca_framework_t *fw)
{
    char err[256];
    const void *module;
    int rc = hnp_mca_framework_open(fw, err, sizeof(err));

    if (rc == HNP_SUCCESS || rc == HNP_ERR_EXISTS)
        hnp_mca_framework_find_module(fw, accept_none, NULL, &module);
}

static void print_framework(const hnp_setup_t *setup, hnp_mca_framework_t *fw,
                            bool parsable, bool first)
{
    const hnp_mca_framework_desc_t *desc = hnp_mca_framework_desc(fw);
    const hnp_mca_component_entry_t *entries = NULL;
    const hnp_mca_load_failure_t *failures = NULL;

    ask_components(fw);
    if (!parsable && !first)
        putchar('\n');
    print_framework_head(setup, desc, parsable);
    size_t ncomponents = hnp_mca_framework_components(fw, &entries);
    size_t nfailures = hnp_mca_framework_failures(fw, &failures);
    if (!parsable && ncomponents == 0)
        printf("  (no components found)\n");
    for (size_t i = 0; i < ncomponents; i++)
        print_component(desc->name, &entries[i], parsable);
    for (size_t i = 0; i < nfailures; i++)
        print_failure(desc->name, &failures[i], parsable);
}

/* The in-tree components configure left out, and why. */
static void print_not_built(bool parsable)
{
    for (const hnp_component_not_built_t *c = hnp_components_not_built;
         c->framework != NULL; c++) {
        if (parsable)
            printf("mca:%s:%s:not_built:%s\n", c->framework, c->name,
                   c->reason);
        else
            printf("%s %s: not built (%s)\n", c->framework, c->name,
                   c->reason);
    }
}

int hnp_info_print_components(const hnp_setup_t *setup, bool parsable)
{
    hnp_mca_framework_t *frameworks[5];

    size_t n = hnp_setup_frameworks(setup, frameworks);
    for (size_t i = 0; i < n; i++)
        print_framework(setup, frameworks[i], parsable, i == 0);
    print_not_built(parsable);
    return HNP_SUCCESS;
}
