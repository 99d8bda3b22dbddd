/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `prsh` plm component: descriptor, the `plm_prsh_spawning_degree`
 * parameter and selection. The agent it starts daemons with is the one
 * every plm shares (plm_rsh_agent and friends, registered by the runtime).
 */
#include "config.h"

#include "hnp_log.h"
#include "plm_prsh.h"

#define PLM_PRSH_STR_(x) #x
#define PLM_PRSH_STR(x) PLM_PRSH_STR_(x)

/*
 * 20: above rsh (10), so that a user who names no launcher gets the tree
 * spawn. Both need the same thing, an agent that reaches every node, but
 * rsh makes the HNP run every agent and accept every call-back itself,
 * which costs time linear in the number of nodes and, past the listen
 * backlog, the connection storm of paper 002; prsh spreads both over the
 * tree. It stays below what a launcher tied to a resource manager (slurm,
 * inside an allocation) should claim, since one srun beats any tree of
 * remote shells there.
 */
#define PLM_PRSH_PRIORITY 20

unsigned int plm_prsh_spawning_degree = PLM_PRSH_DEFAULT_DEGREE;
int plm_prsh_tree = PLM_PRSH_TREE_KARY;
double plm_prsh_seq;
double plm_prsh_rem;
int plm_prsh_model = PLM_PRSH_MODEL_FIXED;

static const hnp_param_enum_value_t plm_prsh_tree_values[] = {
    { "kary", PLM_PRSH_TREE_KARY },
    { "routed", PLM_PRSH_TREE_ROUTED },
    { "greedy", PLM_PRSH_TREE_GREEDY },
    { NULL, 0 },
};

static const hnp_param_enum_value_t plm_prsh_model_values[] = {
    { "fixed", PLM_PRSH_MODEL_FIXED },
    { "auto", PLM_PRSH_MODEL_AUTO },
    { NULL, 0 },
};

/* The paper's name for δ, so that its command lines work as written. */
static const char *const plm_prsh_degree_synonyms[] = {
    "prsh_spawning_degree", NULL,
};

/* δ, then the greedy tree's parameters (kary and routed keep the
 * behaviour the degree alone gave before they existed). */
static const hnp_param_desc_t plm_prsh_params[] = {
    { .framework = "plm", .component = "prsh", .name = "spawning_degree",
      .type = HNP_PARAM_UNSIGNED,
      .default_value = PLM_PRSH_STR(PLM_PRSH_DEFAULT_DEGREE),
      .help = "Children each process spawns (the delta of a delta-ary "
              "spawn tree rooted at the HNP); 0 spawns along the routing "
              "topology's tree instead. A larger delta makes the tree "
              "shallower but runs more agents one after another on each "
              "launching node.",
      .level = 4, .synonyms = plm_prsh_degree_synonyms,
      .storage = &plm_prsh_spawning_degree },
    { .framework = "plm", .component = "prsh", .name = "tree",
      .type = HNP_PARAM_ENUM, .default_value = "kary",
      .help = "Spawn tree: kary (plm_prsh_spawning_degree children each), "
              "routed (the routing topology's tree, as degree 0), or greedy "
              "(the fastest tree under the launch model with plm_prsh_seq "
              "and plm_prsh_rem, after \"An optimal bootstrapping strategy\").",
      .level = 4, .enum_values = plm_prsh_tree_values,
      .storage = &plm_prsh_tree },
    { .framework = "plm", .component = "prsh", .name = "seq",
      .type = HNP_PARAM_DOUBLE, .default_value = PLM_PRSH_DEFAULT_SEQ,
      .help = "Seconds a launching node spends between starting two "
              "successive agents (the model's SEQ); used by the greedy tree "
              "and by hnp --plan.",
      .level = 5, .storage = &plm_prsh_seq },
    { .framework = "plm", .component = "prsh", .name = "rem",
      .type = HNP_PARAM_DOUBLE, .default_value = PLM_PRSH_DEFAULT_REM,
      .help = "Seconds from starting an agent to the new daemon being able "
              "to start its own children (the model's REM); used by the "
              "greedy tree and by hnp --plan.",
      .level = 5, .storage = &plm_prsh_rem },
    { .framework = "plm", .component = "prsh", .name = "model",
      .type = HNP_PARAM_ENUM, .default_value = "fixed",
      .help = "Where the greedy tree's seq and rem come from: fixed (the "
              "two parameters as set) or auto (hnp measures them on every "
              "launch and keeps a running estimate per agent in "
              "~/.hnp/launch-model; hnp-info shows it).",
      .level = 4, .enum_values = plm_prsh_model_values,
      .storage = &plm_prsh_model },
};

static int plm_prsh_register_params(const hnp_mca_component_t *self,
                                    hnp_params_t *params)
{
    char err[256] = "";
    int rc = HNP_SUCCESS;

    (void)self;
    for (size_t i = 0; rc == HNP_SUCCESS &&
                       i < sizeof(plm_prsh_params) / sizeof(plm_prsh_params[0]);
         i++)
        rc = hnp_param_register(params, &plm_prsh_params[i], err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(hnp_log_stream("plm"), "prsh: %s", err);
    return rc;
}

/* A launch model with negative times would pick a nonsense tree without a
 * word: refused, which fails the selection before launch. */
static int plm_prsh_query(const hnp_mca_component_t *self,
                          const void **module, int *priority)
{
    (void)self;
    if (plm_prsh_seq < 0 || plm_prsh_rem < 0) {
        HNP_ERROR_LOG(hnp_log_stream("plm"),
                      "plm_prsh_%s = %g: expected a number of seconds, 0 "
                      "or more", plm_prsh_seq < 0 ? "seq" : "rem",
                      plm_prsh_seq < 0 ? plm_prsh_seq : plm_prsh_rem);
        return HNP_ERR_BAD_PARAM;
    }
    *module = &plm_prsh_module;
    *priority = PLM_PRSH_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_plm_prsh_component = {
    HNP_MCA_COMPONENT_INIT("plm", "prsh", HNP_PLM_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = plm_prsh_register_params,
    .query = plm_prsh_query,
};
