/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Start-up shared by hnp, hnpd and hnp-info: the parameter sources, the
 * component architecture, and the frameworks registered (not yet
 * opened: a program opens and selects what it uses).
 */
#ifndef HNP_SETUP_H
#define HNP_SETUP_H

#include <stddef.h>

#include "params.h"
#include "hnp_mca_base.h"
#include "hnp_plm.h"

typedef struct hnp_setup {
    hnp_mca_t *mca;
    hnp_mca_framework_t *plm;
    hnp_mca_framework_t *routed;
    hnp_mca_framework_t *exchange;
    hnp_mca_framework_t *pmi;
    hnp_core_params_t core; /**< the runtime core's parameters */
} hnp_setup_t;

/**
 * An option of the calling program that is followed by values (`-n 512`,
 * `--param routed radix`). Those values do not start with '-', so without
 * this table they would be taken for the application and end the search
 * for `--mca` early. A table ends with a NULL name.
 */
typedef struct hnp_setup_option {
    const char *name; /**< exactly as typed: "-n", "--hostfile" */
    int nvalues;      /**< how many words follow it */
    /** NULL: the option stays in argv, for the program. Else the option
     *  sets parameters (hnp's `-iface eth0` sets oob_tcp_if_include): the
     *  scan takes it out of argv with its values, as it takes --mca, and
     *  calls this with them; an error fills @p err and ends the scan. */
    int (*take)(hnp_params_t *params, const char *opt, char *const *values,
                char *err, size_t errlen);
} hnp_setup_option_t;

/**
 * Take `--mca NAME VALUE` (also `-mca`, and Open MPI's `--gmca`, `-gmca`;
 * no `--mca=` form) and `--tune FILE` (also `-tune`) out of argv, leaving the rest in order. They may appear
 * anywhere before the first operand that does not start with '-' (the
 * application) and before "--", skipping over the options of @p options
 * (may be NULL) and their values, which stay in argv, but for those with
 * a take hook, which are taken out and applied too. Errors name the
 * option that lacks a value.
 */
int hnp_setup_take_mca_args_opts(hnp_params_t *params, int *argc, char **argv,
                                 const hnp_setup_option_t *options, char *err,
                                 size_t errlen);

/**
 * Create the component architecture, read every parameter source (argv as
 * above, with the program's value-taking @p options, then environment,
 * user and system files), register the frameworks and their
 * components, and warn about unknown parameter names. On failure *setup
 * is left empty and err says why.
 */
int hnp_setup_init_opts(hnp_setup_t *setup, int *argc, char **argv,
                        const hnp_setup_option_t *options, char *err,
                        size_t errlen);

/**
 * The first half of hnp_setup_init_opts(): the component architecture and
 * every parameter source, but no framework yet. For a daemon, which must
 * apply the values its parent forwards before the components register.
 * On failure *setup is left empty and err says why.
 */
int hnp_setup_init_core(hnp_setup_t *setup, int *argc, char **argv,
                        const hnp_setup_option_t *options, char *err,
                        size_t errlen);

/**
 * The second half: register the frameworks (and so their components)
 * and warn about parameter names nothing registered. Call once, after
 * hnp_setup_init_core(); hnp_setup_fini() releases what it did even when it
 * fails.
 */
int hnp_setup_register_frameworks(hnp_setup_t *setup, char *err,
                                  size_t errlen);

/**
 * A daemon started by a launcher's own command (hnpd --plm NAME): register
 * the plm framework with component @p name alone, open and select it, and
 * return its module, which must have a daemon_identity. Before
 * hnp_setup_register_frameworks(), which then registers the others.
 */
int hnp_setup_select_plm(hnp_setup_t *setup, const char *name,
                         const hnp_plm_module_t **module, char *err,
                         size_t errlen);

/** The frameworks in a fixed order, for loops (NULL-terminated). */
size_t hnp_setup_frameworks(const hnp_setup_t *setup,
                            hnp_mca_framework_t *out[5]);

void hnp_setup_fini(hnp_setup_t *setup);

#endif /* HNP_SETUP_H */
