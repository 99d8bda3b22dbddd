/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp-info's own pieces, shared by its files: the command-line options and
 * the two listings. Not installed.
 */
#ifndef HNP_INFO_H
#define HNP_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/startup.h"

/* The pseudo-framework that owns the component architecture's parameters. */
#define HNP_INFO_MCA_FRAMEWORK "mca"
/* The pseudo-component that owns a framework's own parameters. */
#define HNP_INFO_BASE_COMPONENT "base"

typedef struct hnp_info_options {
    bool help;
    bool version;
    bool parsable;
    const char *param_framework; /* NULL: list the components instead */
    const char *param_component;
    int level; /* show parameters of this level and below */
} hnp_info_options_t;

/* Every framework, its components and the files that failed to load. */
int hnp_info_print_components(const hnp_setup_t *setup, bool parsable);
/** Which hnp, where its files are, its libraries' versions (version.c). */
void hnp_info_print_version(bool parsable);
/** The launch model's estimates in ~/.hnp/launch-model (model.c). */
void hnp_info_print_launch_model(bool parsable);

/* The parameters that --param and --level select. A framework or component
 * that does not exist is an error listing those that do. */
int hnp_info_print_params(const hnp_setup_t *setup,
                          const hnp_info_options_t *opts, char *err,
                          size_t errlen);

/* "major.minor.release" of a packed HNP_MCA_VERSION. */
void hnp_info_version_text(uint32_t version, char *buf, size_t len);

/* Where exactly the value of @p info came from (file:line, variable), or
 * NULL when that would only repeat the source's name. */
const char *hnp_info_source_detail(const hnp_param_info_t *info);

/* @p text on stdout with line breaks turned into spaces, so that one fact
 * stays on one line of --parsable output. */
void hnp_info_put_oneline(const char *text);

#endif /* HNP_INFO_H */
