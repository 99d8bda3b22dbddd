/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --display-allocation and --display-map: what the HNP knows of the nodes
 * and of the map before the launch, laid out as mpirun lays it out. Where
 * a rank is bound inside its node is decided by the node's daemon, which
 * --report-bindings shows.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "mapping.h"

#define RULE "================================================================="

void hnp_mapping_print_allocation(const hnp_nodelist_t *nodes,
                                  uint32_t default_slots, FILE *out)
{
    fprintf(out, "\n======================   ALLOCATED NODES   "
            "======================\n");
    for (size_t i = 0; i < nodes->count; i++) {
        const hnp_node_t *n = &nodes->nodes[i];
        fprintf(out, "\t%s: slots=%u max_slots=0 slots_inuse=0 state=UP%s\n",
                n->name, n->slots_given ? n->slots : default_slots,
                n->slots_given ? "" : " (slots not given)");
    }
    fprintf(out, "%s\n", RULE);
    fflush(out);
}

static void print_binding(const hnp_mapping_t *m, FILE *out)
{
    if (m->place.nspecs > 0)
        fprintf(out, "Bound: by rankfile");
    else if (m->place.bind_obj == HNP_OBJ_NONE)
        fprintf(out, "Bound: N/A");
    else
        fprintf(out, "Bound: %s%s (on the node)",
                m->place.pe > 1 ? "PE " : "",
                hnp_mapping_obj_name((hnp_obj_t)m->place.bind_obj));
}

void hnp_mapping_print_map(const hnp_args_t *args, const hnp_job_map_t *map,
                           FILE *out)
{
    uint32_t *ranks = calloc(map->nprocs + 1, sizeof(*ranks));

    fprintf(out, "\n ========================   JOB MAP   "
            "========================\n");
    for (uint32_t n = 0; ranks != NULL && n < map->nnodes; n++) {
        uint32_t k = hnp_job_map_ranks_on(map, n, ranks);
        fprintf(out, "\n Data for node: %s\tNum slots: %u\tMax slots: 0\t"
                "Num procs: %u\n", map->node_names[n], map->node_slots[n], k);
        for (uint32_t i = 0; i < k; i++) {
            const hnp_app_t *app = hnp_args_app_of(args, ranks[i]);
            fprintf(out, " \tProcess jobid: [hnp,1] App: %zu Process rank: "
                    "%u ", (size_t)(app - args->apps), ranks[i]);
            print_binding(&args->mapping, out);
            fprintf(out, "\n");
        }
    }
    fprintf(out, "\n =============================================================\n");
    fflush(out);
    free(ranks);
}
