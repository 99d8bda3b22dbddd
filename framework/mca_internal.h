/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the component architecture's context share: the
 * context and a framework's state (mca_framework.c), and the
 * architecture's own parameters (mca_params.c). Private to framework/.
 */
#ifndef HNP_MCA_INTERNAL_H
#define HNP_MCA_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "hnp_mca_base.h"
#include "mca_repository.h"

struct hnp_mca_framework {
    hnp_mca_t *mca;
    const hnp_mca_framework_desc_t *desc;
    hnp_log_stream_t *log;
    char *selection; /* the value of `<fw>`; owned by the registry */
    hnp_mca_selection_t sel; /* parsed by open */
    mca_found_t found;
    bool searched;   /* found is filled, their parameters registered */
    bool opened;
    bool queried;
    const hnp_mca_component_t *refused; /* its query refused a value */
    const hnp_mca_component_t *selected;
    const void *module;
    char declined_why[256]; /* why a component the user named declined */
};

struct hnp_mca {
    hnp_params_t *params;
    mca_repository_t *repo;
    const hnp_mca_component_t *const *builtin;
    hnp_log_stream_t *log;
    char *default_path; /* default of mca_base_component_path; owned */
    size_t own_params;  /* how many of our own parameters are registered */
    bool log_applied;
    char *component_path; /* owned by the registry */
    char *log_output;     /* owned by the registry */
    FILE *log_file;       /* opened for log_output=file:PATH */
    hnp_mca_framework_t **frameworks; /* in registration order */
    size_t nframeworks;
    bool selected_only;   /* load only a component named alone */
    bool (*foreign_claims)(const char *name, void *ctx); /* may be NULL */
    void *foreign_ctx;
};

/* Register mca_base_component_path, mca_base_verbose and log_output, and
 * apply log_output. Picks up where an earlier call failed, so calling it
 * again after an error is safe. */
int mca_register_own_params(hnp_mca_t *mca, char *err, size_t errlen);

/* The verbosity at which a component says why it declines. */
#define MCA_DECLINE_VERBOSE 5

/* @p c's query; when the user's selection names @p c and it declines, the
 * reason it logged is kept in fw->declined_why (mca_decline.c). */
int mca_query_explained(hnp_mca_framework_t *fw, const hnp_mca_component_t *c,
                        const void **module, int *priority);

/* Reserve the message tags of @p fw's found components (mca_tags.c):
 * refuse, with a warning naming both components, one whose tag lies
 * outside the framework's hundred or is another found component's. */
int mca_tags_reserve(hnp_mca_framework_t *fw, char *err, size_t errlen);

#endif /* HNP_MCA_INTERNAL_H */
