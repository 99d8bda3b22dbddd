/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Start-up shared by the programs: parameter sources from the command line,
 * the environment and the files, then the component architecture with the
 * frameworks registered. Nothing is opened here: each program opens
 * and selects only what it uses (hnp-info opens nothing at all).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "startup.h"
#include "ompi_names.h"
#include "hnp_static_components.h"
#include "exchange_base.h"
#include "pmi_base.h"
#include "plm_base.h"
#include "routed_base.h"

#define SYSTEM_PARAM_FILE HNP_SYSCONFDIR "/hnp-mca-params.conf"

/* @p arg in the program's own option table, or NULL. */
static const hnp_setup_option_t *
program_option(const hnp_setup_option_t *options, const char *arg)
{
    if (options == NULL)
        return NULL;
    for (const hnp_setup_option_t *o = options; o->name != NULL; o++)
        if (strcmp(o->name, arg) == 0)
            return o;
    return NULL;
}

/* A program's option that sets parameters: taken with its values. */
static int take_program_option(hnp_params_t *params,
                               const hnp_setup_option_t *o, int avail,
                               char **words, char *err, size_t errlen)
{
    if (avail < 1 + o->nvalues) {
        hnp_err_set(err, errlen, "option %s needs %s", words[0],
                    o->nvalues == 1 ? "a value" : "values");
        return HNP_ERR_BAD_PARAM;
    }
    int rc = o->take(params, words[0], words + 1, err, errlen);
    return rc < 0 ? rc : 1 + o->nvalues;
}

static int take_mca_pair(hnp_params_t *params, int avail, char **words,
                         char *err, size_t errlen)
{
    /* A name that looks like an option means the user forgot one of the two
     * words; taking it as a name would silently eat the next option. */
    if (avail < 3 || words[1][0] == '-') {
        hnp_err_set(err, errlen,
                    "%s needs a parameter name and a value (%s NAME VALUE)",
                    words[0], words[0]);
        return HNP_ERR_BAD_PARAM;
    }
    int rc = hnp_param_set(params, words[1], words[2], HNP_PARAM_SRC_CMDLINE,
                           "command line", err, errlen);
    return rc < 0 ? rc : 3;
}

static int take_tune_file(hnp_params_t *params, int avail, char **words,
                          char *err, size_t errlen)
{
    char why[512] = "";

    if (avail < 2) {
        hnp_err_set(err, errlen, "%s needs a file name (%s FILE)", words[0],
                    words[0]);
        return HNP_ERR_BAD_PARAM;
    }
    int rc = hnp_params_load_file(params, words[1], HNP_PARAM_SRC_TUNE_FILE,
                                  false, why, sizeof(why));
    if (rc < 0) {
        /* The registry's message may or may not carry the path; the user
         * must always learn which of possibly several --tune files failed. */
        if (strstr(why, words[1]) != NULL)
            hnp_err_set(err, errlen, "%s", why);
        else
            hnp_err_set(err, errlen, "tune file %s: %s", words[1],
                        why[0] != '\0' ? why : hnp_strerror(rc));
        return rc;
    }
    return 2;
}

/* Takes the option at words[0] when it is --mca or --tune. Returns how many
 * words it used, 0 when the option is not ours, or an error. */
static int take_one_option(hnp_params_t *params, int avail, char **words,
                           char *err, size_t errlen)
{
    /* --gmca: Open MPI's parameter of every app context, which every
     * parameter is here. */
    if (strcmp(words[0], "--mca") == 0 || strcmp(words[0], "-mca") == 0 ||
        strcmp(words[0], "--gmca") == 0 || strcmp(words[0], "-gmca") == 0)
        return take_mca_pair(params, avail, words, err, errlen);
    if (strcmp(words[0], "--tune") == 0 || strcmp(words[0], "-tune") == 0)
        return take_tune_file(params, avail, words, err, errlen);
    return 0;
}

int hnp_setup_take_mca_args_opts(hnp_params_t *params, int *argc, char **argv,
                                 const hnp_setup_option_t *options, char *err,
                                 size_t errlen)
{
    int n = *argc, i = 1, kept = 1, rc = HNP_SUCCESS;

    if (n < 2)
        return HNP_SUCCESS;
    /* argv is rewritten only once every option was accepted. */
    char **rest = calloc((size_t)n + 1, sizeof(*rest));
    if (rest == NULL) {
        hnp_err_set(err, errlen, "out of memory reading the command line");
        return HNP_ERR_NOMEM;
    }
    rest[0] = argv[0];
    while (i < n && argv[i][0] == '-' && strcmp(argv[i], "--") != 0) {
        int used = take_one_option(params, n - i, argv + i, err, errlen);
        if (used < 0) {
            rc = used;
            goto cleanup;
        }
        if (used > 0) {
            i += used;
            continue;
        }
        const hnp_setup_option_t *o = program_option(options, argv[i]);
        if (o != NULL && o->take != NULL) {
            used = take_program_option(params, o, n - i, argv + i, err,
                                       errlen);
            if (used < 0) {
                rc = used;
                goto cleanup;
            }
            i += used;
            continue;
        }
        int words = 1 + (o != NULL && o->nvalues > 0 ? o->nvalues : 0);
        for (int w = 0; w < words && i < n; w++)
            rest[kept++] = argv[i++];
    }
    while (i < n)
        rest[kept++] = argv[i++];
    memcpy(argv, rest, (size_t)kept * sizeof(*rest));
    argv[kept] = NULL;
    *argc = kept;
cleanup:
    free(rest);
    return rc;
}

int hnp_setup_init_core(hnp_setup_t *setup, int *argc, char **argv,
                        const hnp_setup_option_t *options, char *err,
                        size_t errlen)
{
    hnp_mca_t *mca = NULL;

    memset(setup, 0, sizeof(*setup));
    int rc = hnp_mca_create(&mca, hnp_static_components, HNP_COMPONENTDIR,
                            err, errlen);
    if (rc < 0)
        return rc;
    /* The command line goes in first only for the sake of its error
     * messages: precedence comes from each value's source, not from order. */
    rc = hnp_setup_take_mca_args_opts(hnp_mca_params(mca), argc, argv,
                                      options, err, errlen);
    if (rc < 0)
        goto fail;
    rc = hnp_mca_load_default_sources(mca, environ, SYSTEM_PARAM_FILE, err,
                                      errlen);
    if (rc < 0)
        goto fail;
    rc = hnp_core_params_register(hnp_mca_params(mca), &setup->core, err,
                                  errlen);
    if (rc < 0)
        goto fail;
    /* Open MPI's parameters are the ranks' (hnp hands them on), not
     * unknown ones. */
    hnp_mca_set_foreign_params(mca, hnp_ompi_param_claims,
                               hnp_mca_params(mca));
    setup->mca = mca;
    return HNP_SUCCESS;
fail:
    hnp_mca_destroy(mca);
    return rc;
}

int hnp_setup_select_plm(hnp_setup_t *setup, const char *name,
                         const hnp_plm_module_t **module, char *err,
                         size_t errlen)
{
    const hnp_mca_component_t *component = NULL;
    const hnp_plm_module_t *plm = NULL;
    const void *found = NULL;
    int rc = hnp_param_set(hnp_mca_params(setup->mca), "plm", name,
                           HNP_PARAM_SRC_FORWARDED, "the launcher (--plm)",
                           err, errlen);

    hnp_mca_load_selected_only(setup->mca, true);
    if (rc == HNP_SUCCESS)
        rc = hnp_mca_framework_register(setup->mca, &hnp_plm_framework,
                                        &setup->plm, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_mca_framework_open(setup->plm, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_mca_framework_select(setup->plm, &component, &found, err,
                                      errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_plm_module_check(found, name, err, errlen);
    plm = found;
    if (rc == HNP_SUCCESS && plm->daemon_identity == NULL) {
        hnp_err_set(err, errlen, "plm component '%s' cannot tell a daemon "
                    "who it is (it has no daemon_identity)", name);
        rc = HNP_ERR_NOT_AVAILABLE;
    }
    if (rc == HNP_SUCCESS)
        *module = plm;
    return rc;
}

/* Each framework once: a daemon may have registered its plm already. */
int hnp_setup_register_frameworks(hnp_setup_t *setup, char *err,
                                  size_t errlen)
{
    int rc = HNP_SUCCESS;

    if (setup->plm == NULL)
        rc = hnp_mca_framework_register(setup->mca, &hnp_plm_framework,
                                        &setup->plm, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_mca_framework_register(setup->mca, &hnp_routed_framework,
                                        &setup->routed, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_mca_framework_register(setup->mca, &hnp_exchange_framework,
                                        &setup->exchange, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_mca_framework_register(setup->mca, &hnp_pmi_framework,
                                        &setup->pmi, err, errlen);
    if (rc < 0)
        return rc;
    /* Only now is every name that will ever be registered known. */
    hnp_mca_warn_unknown_params(setup->mca);
    return HNP_SUCCESS;
}

int hnp_setup_init_opts(hnp_setup_t *setup, int *argc, char **argv,
                        const hnp_setup_option_t *options, char *err,
                        size_t errlen)
{
    int rc = hnp_setup_init_core(setup, argc, argv, options, err, errlen);

    if (rc == HNP_SUCCESS)
        rc = hnp_setup_register_frameworks(setup, err, errlen);
    if (rc < 0)
        hnp_setup_fini(setup);
    return rc;
}

size_t hnp_setup_frameworks(const hnp_setup_t *setup,
                            hnp_mca_framework_t *out[5])
{
    size_t n = 0;

    if (setup->plm != NULL)
        out[n++] = setup->plm;
    if (setup->routed != NULL)
        out[n++] = setup->routed;
    if (setup->exchange != NULL)
        out[n++] = setup->exchange;
    if (setup->pmi != NULL)
        out[n++] = setup->pmi;
    out[n] = NULL;
    return n;
}

void hnp_setup_fini(hnp_setup_t *setup)
{
    if (setup->mca != NULL)
        hnp_mca_destroy(setup->mca);
    memset(setup, 0, sizeof(*setup));
}
