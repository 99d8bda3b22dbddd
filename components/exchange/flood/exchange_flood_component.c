/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `flood` exchange component: descriptor, the parameter
 * `exchange_flood_batch_delay` and selection.
 */
#include "config.h"

#include "exchange_flood.h"
#include "hnp_log.h"

/*
 * Below gather_scatter (20), so that flood runs only when asked for by
 * name (--mca exchange flood). It pays off when the spawn tree is deep,
 * as plm prsh builds it: each process then talks to δ + 1 others and
 * sends O(N) bytes. Under plm rsh the spawn tree is flat, the HNP is
 * every daemon's parent, and flooding to the children already reported
 * costs the HNP up to one message per reported child per batch, where
 * gather_scatter sends each daemon a single table.
 */
#define EXCHANGE_FLOOD_PRIORITY 10

double exchange_flood_batch_delay = 0.0;

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

    (void)self;
    int rc = hnp_param_register(params, &delay, err, sizeof(err));
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
};
