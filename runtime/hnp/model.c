/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calibrated launch model in the HNP, for a launcher whose tree
 * follows it (HNP_PLM_CAP_LAUNCH_MODEL) when its launch_model says the
 * user asked for it (prsh: plm_prsh_model=auto with the greedy tree):
 * before the spawn tree is built, set the model's parameters from the
 * estimate kept for the agent; once every daemon is up, measure this
 * launch and fold it into the estimate.
 *
 * What is measured is what the model predicts, not the forks: an agent is
 * forked at once, but a node's agents contend for its CPU (the local agent
 * emulates that with a lock), so the cost SEQ shows up only in when the
 * children join. The model puts the HNP's i-th child to join at
 * (i - 1)·SEQ + REM after its first agent started; the HNP sees its own
 * children's joins directly, so it fits both from them (launch/model.h).
 * Daemons' launches are not measured: that would need their start times
 * in DAEMON_UP, and the HNP's own children suffice once it has two.
 *
 * The estimate reaches the daemons as a forwarded parameter (a value not
 * from the default is forwarded), so every process builds the same tree.
 */
#include "config.h"

#include <stdlib.h>

#include "job.h"
#include "launch/model.h"

#define MODEL_AGENT_LEN 1024
#define MODEL_PATH_LEN 4096

/* The launcher asks for the estimate, and its tree depends on it (or,
 * for --plan, which ranks every tree, the user asked for the estimate);
 * then @p model names the parameters the estimate goes to. */
static bool model_is_auto(const hnp_job_t *job, bool planning,
                          hnp_plm_launch_model_t *model)
{
    const hnp_plm_module_t *plm = job->rte->plm;

    return (plm->capabilities & HNP_PLM_CAP_LAUNCH_MODEL) &&
           plm->launch_model(job->rte, model) == HNP_SUCCESS &&
           (model->calibrate || (planning && model->estimate));
}

/* The user-file source: the estimate lives in the user's ~/.hnp, and a
 * value the user sets anywhere stronger (--mca, environment, --tune)
 * still wins over it, in the HNP and, forwarded, in every daemon. */
static int set_estimate(hnp_job_t *job, const hnp_plm_launch_model_t *model,
                        const hnp_launch_model_entry_t *e, const char *path,
                        char *err, size_t errlen)
{
    hnp_params_t *params = hnp_mca_params(job->rte->setup->mca);
    char seq[64], rem[64];
    int rc;

    snprintf(seq, sizeof(seq), "%.17g", e->seq);
    snprintf(rem, sizeof(rem), "%.17g", e->rem);
    rc = hnp_param_set(params, model->seq_param, seq, HNP_PARAM_SRC_USER_FILE,
                       path, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_param_set(params, model->rem_param, rem,
                           HNP_PARAM_SRC_USER_FILE, path, err, errlen);
    return rc;
}

/* The model file for this job's agent: 0 and both filled in, or < 0 when
 * there is nothing to calibrate with (no agent, no HOME). */
static int model_names(const hnp_job_t *job, char *agent, char *path)
{
    char err[256] = "";

    if (hnp_rte_agent_name(job->rte, agent, MODEL_AGENT_LEN) != HNP_SUCCESS)
        return HNP_ERR_NOT_FOUND;
    int rc = hnp_launch_model_path(path, MODEL_PATH_LEN, err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_WARN(job->rte->log, "launch model: %s; not calibrating", err);
    return rc;
}

/* Never fatal: without an estimate the tree is built for the set values. */
int hnp_job_model_apply(hnp_job_t *job, bool planning)
{
    char agent[MODEL_AGENT_LEN], path[MODEL_PATH_LEN], err[512] = "";
    hnp_launch_model_t model = { NULL, 0 };
    hnp_plm_launch_model_t wanted;
    const hnp_launch_model_entry_t *e;
    int rc;

    if (!model_is_auto(job, planning, &wanted) ||
        model_names(job, agent, path) != HNP_SUCCESS)
        return HNP_SUCCESS;
    rc = hnp_launch_model_load(&model, path, err, sizeof(err));
    if (rc != HNP_SUCCESS && rc != HNP_ERR_NOT_FOUND)
        HNP_WARN(job->rte->log, "launch model ignored: %s", err);
    e = hnp_launch_model_find(&model, agent);
    if (e != NULL && set_estimate(job, &wanted, e, path, err,
                                  sizeof(err)) != 0)
        HNP_WARN(job->rte->log, "launch model ignored: %s", err);
    else if (e != NULL)
        HNP_VERBOSE(job->rte->log, 1, "launch model for '%s': seq %.4f s, "
                    "rem %.4f s (%lu runs)", agent, e->seq, e->rem,
                    e->samples);
    else
        HNP_VERBOSE(job->rte->log, 1, "launch model: no estimate yet for "
                    "'%s'", agent);
    hnp_launch_model_free(&model);
    return HNP_SUCCESS;
}

/* Join delays of the HNP's own children started through the agent, after
 * the first of those agents started; returns how many, or < 0. */
static int collect_delays(const hnp_job_t *job, double **out)
{
    hnp_rte_t *rte = job->rte;
    uint32_t n = hnp_rte_spawn_children(rte, NULL, 0), used = 0;
    hnp_vpid_t *kids = malloc((n + 1) * sizeof(*kids));
    double *delays = malloc((n + 1) * sizeof(*delays));
    double first = 0, began = (double)job->start.tv_sec +
                              job->start.tv_nsec / 1e9;

    if (kids == NULL || delays == NULL) {
        free(kids);
        free(delays);
        return HNP_ERR_NOMEM;
    }
    hnp_rte_spawn_children(rte, kids, n);
    for (uint32_t i = 0; i < n; i++) {
        double at;
        if (job->up_at[kids[i]] <= 0 ||
            hnp_launcher_started_at(rte->launcher, kids[i], &at) != 0)
            continue;
        if (used == 0 || at < first)
            first = at;
        delays[used++] = began + job->up_at[kids[i]];
    }
    for (uint32_t i = 0; i < used; i++)
        delays[i] -= first;
    free(kids);
    *out = delays;
    return (int)used;
}

static void save_measurement(hnp_job_t *job, const char *agent,
                             const char *path, double seq, double rem)
{
    hnp_launch_model_t model = { NULL, 0 };
    char err[512] = "";
    int rc = hnp_launch_model_load(&model, path, err, sizeof(err));

    if (rc != HNP_SUCCESS && rc != HNP_ERR_NOT_FOUND)
        HNP_WARN(job->rte->log, "launch model: %s; starting it afresh", err);
    rc = hnp_launch_model_update(&model, agent, seq, rem);
    if (rc == HNP_SUCCESS)
        rc = hnp_launch_model_save(&model, path, err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_WARN(job->rte->log, "launch model not saved: %s",
                 err[0] != '\0' ? err : hnp_strerror(rc));
    hnp_launch_model_free(&model);
}

void hnp_job_model_record(hnp_job_t *job)
{
    char agent[MODEL_AGENT_LEN], path[MODEL_PATH_LEN];
    hnp_plm_launch_model_t wanted;
    double *delays = NULL, seq, rem;
    int n;

    if (!model_is_auto(job, false, &wanted) || job->rte->launcher == NULL ||
        model_names(job, agent, path) != HNP_SUCCESS)
        return;
    n = collect_delays(job, &delays);
    if (n >= 2 && hnp_launch_model_fit(delays, (size_t)n, &seq, &rem) == 0) {
        HNP_VERBOSE(job->rte->log, 1, "launch model: this launch measured "
                    "seq %.4f s, rem %.4f s from %d children", seq, rem, n);
        save_measurement(job, agent, path, seq, rem);
    } else if (n >= 0) {
        HNP_VERBOSE(job->rte->log, 1, "launch model: %d of the HNP's "
                    "children started through the agent; 2 are needed to "
                    "measure", n);
    }
    free(delays);
}
