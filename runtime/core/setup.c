/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Creating and tearing down the runtime context, and choosing its
 * components.
 */
#include "config.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange_base.h"
#include "plm_base.h"
#include "routed_base.h"
#include "rte.h"

/* libevent's own complaints go through our log, not straight to stderr. */
static void libevent_log(int severity, const char *msg)
{
    hnp_log_stream_t *log = hnp_log_stream("event");

    if (severity >= EVENT_LOG_ERR)
        HNP_ERROR_LOG(log, "libevent: %s", msg);
    else
        HNP_VERBOSE(log, 1, "libevent: %s", msg);
}

int hnp_rte_create(hnp_rte_t **out, hnp_setup_t *setup, bool is_hnp,
                   hnp_vpid_t self, char *err, size_t errlen)
{
    hnp_rte_t *rte = calloc(1, sizeof(*rte));

    if (rte == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    rte->setup = setup;
    rte->core = &setup->core;
    rte->is_hnp = is_hnp;
    rte->ready = is_hnp;
    rte->self = self;
    rte->log = hnp_log_stream("rte");
    event_set_log_callback(libevent_log);
    rte->base = event_base_new();
    if (rte->base == NULL) {
        hnp_err_set(err, errlen, "cannot create the event loop");
        goto fail;
    }
    if (hnp_rte_held_create(rte) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "out of memory");
        goto fail;
    }
    if (hnp_rte_requests_create(rte) != HNP_SUCCESS ||
        hnp_rte_names_create(rte) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "out of memory");
        goto fail;
    }
    if (hnp_children_create(&rte->children, rte->base) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "cannot watch child processes");
        goto fail;
    }
    *out = rte;
    return HNP_SUCCESS;
fail:
    hnp_rte_destroy(rte);
    return HNP_ERROR;
}

static void free_uris(hnp_rte_t *rte)
{
    for (uint32_t i = 0; rte->uris != NULL && i < rte->nprocs; i++)
        free(rte->uris[i]);
    free(rte->uris);
    free(rte->uri_wanted);
    rte->uris = NULL;
    rte->uri_wanted = NULL;
}

void hnp_rte_finalize(hnp_rte_t *rte)
{
    if (rte == NULL || rte->finalized)
        return;
    rte->finalized = true;
    hnp_rte_heartbeat_stop(rte);
    hnp_rte_spawn_notes_stop(rte);
    if (rte->exchange != NULL && rte->exchange->finalize != NULL)
        rte->exchange->finalize(rte);
    if (rte->plm != NULL && rte->plm->finalize != NULL)
        rte->plm->finalize(rte);
}

void hnp_rte_destroy(hnp_rte_t *rte)
{
    if (rte == NULL)
        return;
    hnp_rte_finalize(rte);
    hnp_rte_scratch_release(rte);
    hnp_rte_job_destroy(rte);
    hnp_rte_requests_destroy(rte);
    hnp_rte_spawns_destroy(rte);
    hnp_rte_across_destroy(rte);
    hnp_rte_names_destroy(rte);
    hnp_rte_growth_destroy(rte);
    hnp_rte_release_trees(&rte->spawn_tree, &rte->routing_tree);
    if (rte->launcher != NULL)
        hnp_launcher_destroy(rte->launcher);
    if (rte->oob != NULL)
        hnp_oob_destroy(rte->oob);
    if (rte->children != NULL)
        hnp_children_destroy(rte->children);
    free(rte->node_names); /* one block (hnp_rte_strings_copy) */
    free_uris(rte);
    hnp_rte_held_destroy(rte);
    free(rte->daemon_path);
    free(rte->hnp_uri);
    free(rte->welcome_params);
    free(rte->left);
    if (rte->base != NULL)
        event_base_free(rte->base);
    free(rte);
}

int hnp_rte_set_procs(hnp_rte_t *rte, uint32_t nprocs, char *const *node_names)
{
    char **names = hnp_rte_strings_copy(nprocs, node_names, NULL);
    char **uris = calloc(nprocs, sizeof(*uris));
    bool *wanted = calloc(nprocs, sizeof(*wanted));

    if (names == NULL || uris == NULL || wanted == NULL) {
        free(names);
        free(uris);
        free(wanted);
        return HNP_ERR_NOMEM;
    }
    free(rte->node_names);
    free_uris(rte);
    rte->node_names = names;
    rte->nprocs = nprocs;
    rte->nfirst = nprocs;
    rte->uris = uris;
    rte->uri_wanted = wanted;
    if (rte->oob != NULL)
        hnp_oob_set_nprocs(rte->oob, nprocs);
    return HNP_SUCCESS;
}

static int open_and_select(hnp_mca_framework_t *fw, const void **module,
                           char name[HNP_MCA_NAME_LEN], char *err,
                           size_t errlen)
{
    const hnp_mca_component_t *component = NULL;
    int rc = hnp_mca_framework_open(fw, err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    rc = hnp_mca_framework_select(fw, &component, module, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    HNP_VERBOSE(hnp_mca_framework_log(fw), 1, "selected %s component %s",
                hnp_mca_framework_desc(fw)->name, component->name);
    snprintf(name, HNP_MCA_NAME_LEN, "%.*s", HNP_MCA_NAME_LEN - 1,
             component->name);
    return HNP_SUCCESS;
}

void hnp_rte_set_plm(hnp_rte_t *rte, const char *name,
                     const hnp_plm_module_t *module)
{
    snprintf(rte->selected[0], HNP_MCA_NAME_LEN, "%.*s", HNP_MCA_NAME_LEN - 1,
             name);
    rte->plm = module;
}

/* A daemon that asked its plm who it is has it selected already. */
static int select_plm(hnp_rte_t *rte, char *err, size_t errlen)
{
    const void *module = NULL;
    int rc;

    if (rte->plm != NULL)
        return HNP_SUCCESS;
    rc = open_and_select(rte->setup->plm, &module, rte->selected[0], err,
                         errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_plm_module_check(module, rte->selected[0], err, errlen);
    if (rc == HNP_SUCCESS)
        rte->plm = module;
    return rc;
}

int hnp_rte_select_components(hnp_rte_t *rte, char *err, size_t errlen)
{
    const void *module = NULL;
    int rc;

    rc = open_and_select(rte->setup->routed, &module, rte->selected[1], err,
                         errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    rte->routed = module;
    rc = open_and_select(rte->setup->exchange, &module, rte->selected[2], err,
                         errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    rte->exchange = module;
    /* A daemon loads its pmi components at the first job that can use
     * them (hnp_rte_select_pmi()). */
    if (rte->is_hnp && (rc = hnp_rte_select_pmi(rte, NULL, err, errlen)) !=
                           HNP_SUCCESS)
        return rc;
    return select_plm(rte, err, errlen);
}

/* The HNP's spawn-tree children in a job of @p ndaemons daemons, as the
 * selected plm and routed would build the trees. */
static int hnp_spawn_children(hnp_rte_t *rte, uint32_t ndaemons,
                              uint32_t *children)
{
    hnp_tree_t routing, spawn;
    int rc = rte->routed->spanning_tree(ndaemons + 1, &routing);

    if (rc != HNP_SUCCESS)
        return rc;
    rc = hnp_rte_plm_spawn_tree(rte, ndaemons + 1, &routing, &spawn);
    if (rc != HNP_SUCCESS) {
        hnp_tree_release(&routing);
        return rc;
    }
    *children = hnp_tree_children(&spawn, 0, NULL, 0);
    hnp_rte_release_trees(&spawn, &routing);
    return HNP_SUCCESS;
}

int hnp_rte_select_exchange_for(hnp_rte_t *rte, uint32_t ndaemons, char *err,
                                size_t errlen)
{
    hnp_exchange_job_t job = { .ndaemons = ndaemons };
    const hnp_exchange_module_t *module = NULL;
    const char *name = NULL;
    int rc = hnp_spawn_children(rte, ndaemons, &job.hnp_children);

    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "cannot build the spawn tree of %u daemons: "
                    "%s", ndaemons, hnp_strerror(rc));
        return rc;
    }
    rc = hnp_exchange_base_select_for(rte->setup->exchange, &job, &name,
                                      &module, rte->exchange_offers,
                                      sizeof(rte->exchange_offers), err,
                                      errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if (strcmp(name, rte->selected[2]) != 0)
        HNP_VERBOSE(hnp_mca_framework_log(rte->setup->exchange), 1,
                    "for %u daemons: exchange component %s (offers: %s)",
                    ndaemons, name, rte->exchange_offers);
    snprintf(rte->selected[2], HNP_MCA_NAME_LEN, "%.*s", HNP_MCA_NAME_LEN - 1,
             name);
    rte->exchange = module;
    rte->exchange_job = job;
    return HNP_SUCCESS;
}

int hnp_rte_select_pmi(hnp_rte_t *rte, const char *wanted, char *err,
                       size_t errlen)
{
    int rc;

    if (rte->pmi_selected)
        return HNP_SUCCESS;
    rc = hnp_pmi_base_select(rte->setup->pmi, wanted, &rte->pmi, err, errlen);
    rte->pmi_selected = rc == HNP_SUCCESS;
    return rc;
}

static bool gives_launch_model(void *ctx, const void *module)
{
    const hnp_plm_module_t *plm = module;

    (void)ctx;
    return plm->launch_model != NULL;
}

/* hnp --plan ranks the trees of a flat launcher too: by the model of the
 * framework, as the launchers that start daemons through the shared agent
 * share its costs. */
int hnp_rte_launch_model(hnp_rte_t *rte, hnp_plm_launch_model_t *model)
{
    const void *found = rte->plm;

    if (rte->plm->launch_model == NULL &&
        hnp_mca_framework_find_module(rte->setup->plm, gives_launch_model,
                                      NULL, &found) != HNP_SUCCESS)
        return HNP_ERR_NOT_FOUND;
    return ((const hnp_plm_module_t *)found)->launch_model(rte, model);
}
