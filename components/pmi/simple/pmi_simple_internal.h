/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the `simple` component's hooks: a job on this node
 * (pmi_simple_module.c) and its spawns (pmi_simple_spawn.c).
 */
#ifndef PMI_SIMPLE_COMPONENT_INTERNAL_H
#define PMI_SIMPLE_COMPONENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_pmi.h"
#include "hnp_rte.h"
#include "server.h"

/* A job on this node. Fences, name requests and spawns in flight hold a
 * reference: their answer may come after the job ended here. */
typedef struct simple_job {
    hnp_rte_t *rte;
    pmi_simple_server_t *srv;   /* NULL once the job ended */
    char *node;              /* this node's name, for messages */
    uint32_t jobid;
    uint32_t series;
    bool spawned;            /* started by a spawn (PMI_SPAWNED=1) */
    unsigned refs;
} simple_job_t;

void simple_job_unref(simple_job_t *job);

/* The spawn_request callback of the server. */
void simple_rank_spawn(void *ctx, uint32_t rank,
                       const pmi_simple_spawn_t *req, uint64_t ticket);

/* What a spawned job's ranks find in their kvs: the preput keys. */
typedef struct simple_spawned {
    pmi_simple_attr_t *attrs;   /* owned strings */
    size_t nattrs;
} simple_spawned_t;

/* The preput keys the spawning component sent for job @p pj (none for
 * a job not spawned by this component). */
int simple_spawned_load(const hnp_pmi_job_t *pj, simple_spawned_t *sp,
                        char *err, size_t errlen);
void simple_spawned_free(simple_spawned_t *sp);

#endif /* PMI_SIMPLE_COMPONENT_INTERNAL_H */
