/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `flood` exchange component: descriptor, the parameters
 * `exchange_flood_batch_delay` and `exchange_flood_min_nodes`, and
 * selection.
 */
#include "config.h"

#include "exchange_flood.h"
#include "hnp_log.h"

/*
 * Below gather_scatter (20) for small jobs, and above it from
 * exchange_flood_min_nodes daemons on, or where gather_scatter's
 * connections would crowd the HNP's descriptors (the module's
 * job_priority). It
 * pays off when the spawn tree is deep,
 * as plm prsh builds it: each process then talks to δ + 1 others and
 * sends O(N) bytes. Under plm rsh the spawn tree is flat, the HNP is
 * every daemon's parent, and flooding to the children already reported
 * costs the HNP up to one message per reported child per batch, where
 * gather_scatter sends each daemon a single table.
 */
#define EXCHANGE_FLOOD_PRIORITY 10
/*
 * Measured with plm prsh on one 2-core machine, /bin/true, 3 runs each
 * (median wall seconds, gather_scatter / flood; daemons' CPU summed):
 *   64 nodes: 0.49 / 0.44 s;  128: 0.78 / 0.75;  256: 1.32 / 1.18;
 *   512: 2.38 / 2.26;  1024: 4.98 / 5.05 (daemons' CPU: flood 5-15 %
 *   more at every size). Wall time does not separate them; what does is
 *   the HNP's connections (N with gather_scatter, 32 to 55 with flood)
 *   and the CPU: at 1,024 daemons, 5 runs each interleaved, every
 *   process of the launch used 4.95 s with gather_scatter against 5.34 s
 *   with flood (less in each pair). So flood is chosen from 2,048 daemons
 *   on, where gather_scatter's tables, all sent by the HNP, grow like N²,
 *   and below that only where gather_scatter's connections would take
 *   more than a quarter of the HNP's descriptor limit
 *   (exchange_flood_module.c): with a limit of 1,024, from 257 daemons on.
 */
#define EXCHANGE_FLOOD_MIN_NODES_DEFAULT "2048"

static const uint32_t flood_tags[] = { FLOOD_TAG_ENTRIES, 0 };

double exchange_flood_batch_delay = 0.0;
unsigned exchange_flood_min_nodes = 0;

static int flood_register_params(const hnp_mca_component_t *self,
                                 hnp_params_t *params)
{
    char err[256] = "";
    const hnp_param_desc_t delay = {
        .framework = "exchange",
        .component = "flood",
        .name = "batch_delay",
        .type = HNP_PARAM_DOUBLE,
        .default_value = "0",
        .help = "Seconds a process collects newly learnt entries "
                "before forwarding them to its spawn-tree neighbours. 0 "
                "forwards at the end of the current event-loop turn. A few "
                "milliseconds make a process with many children (the HNP "
                "under plm rsh) send fewer, larger messages, at the cost of "
                "that much delay at each level of the tree.",
        .level = 6,
        .storage = &exchange_flood_batch_delay,
    };

    const hnp_param_desc_t min_nodes = {
        .framework = "exchange",
        .component = "flood",
        .name = "min_nodes",
        .type = HNP_PARAM_UNSIGNED,
        .default_value = EXCHANGE_FLOOD_MIN_NODES_DEFAULT,
        .help = "From this many daemons on, flood is chosen over "
                "gather_scatter when no exchange is named and the spawn "
                "tree is not flat (plm prsh): the HNP then holds "
                "connections to its tree neighbours only, not one per "
                "daemon. Below it, flood is chosen where gather_scatter's "
                "connections would take more than a quarter of the HNP's "
                "descriptor limit. 0: only when named (--mca exchange "
                "flood). hnp --plan shows the choice.",
        .level = 4,
        .storage = &exchange_flood_min_nodes,
    };

    (void)self;
    int rc = hnp_param_register(params, &delay, err, sizeof(err));
    if (rc == HNP_SUCCESS)
        rc = hnp_param_register(params, &min_nodes, err, sizeof(err));
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(hnp_log_stream("exchange"), "flood: %s", err);
    return rc;
}

/* A negative delay is a typo, not a request: refuse it, which fails the
 * selection before launch, rather than guess what was meant. */
static int flood_query(const hnp_mca_component_t *self, const void **module,
                       int *priority)
{
    (void)self;
    if (!(exchange_flood_batch_delay >= 0)) {
        HNP_ERROR_LOG(hnp_log_stream("exchange"),
                      "exchange_flood_batch_delay = %g: a delay cannot be "
                      "negative", exchange_flood_batch_delay);
        return HNP_ERR_BAD_PARAM;
    }
    *module = &exchange_flood_module;
    *priority = EXCHANGE_FLOOD_PRIORITY;
    return HNP_SUCCESS;
}

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_exchange_flood_component = {
    HNP_MCA_COMPONENT_INIT("exchange", "flood", HNP_EXCHANGE_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = flood_register_params,
    .query = flood_query,
    .tags = flood_tags,
};
