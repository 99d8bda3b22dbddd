/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application jobs of the runtime services (job.c) and their
 * all-gathers (collective.c), inside the core.
 *
 * All-gather ids: 0 is the contact exchange of phase 2; all-gather seq of
 * series s (1..65535) is s * 65536 + seq + 1, seq < 65535. A job owns
 * nseries series (one a pmi component), hnp_rte_job_series(); two live
 * jobs never own the same one.
 */
#ifndef HNP_CORE_JOB_H
#define HNP_CORE_JOB_H

#include "rte.h"

#define HNP_RTE_SERIES_SPAN 65536u
#define HNP_RTE_SERIES_LAST 65535u
/* What this process heard of the all-gathers of a series it does not
 * hold (yet, or any more) is kept for this many jobs, then forgotten. */
#define HNP_RTE_SERIES_KEEP 64u

/* How far this process went in one series of all-gathers. */
typedef struct hnp_rte_series {
    uint32_t series;
    uint32_t seen;   /* the highest seq heard of, plus one */
    uint32_t joined; /* the highest seq joined, plus one */
    uint32_t born;   /* rte->job_serial when it was heard of, or ended */
    bool ended;      /* its job has ended here */
} hnp_rte_series_t;

struct hnp_rte_job {
    struct hnp_rte_job *next;  /* rte->jobs */
    uint32_t jobid;
    uint32_t serial;           /* rte->job_serial at its begin */
    uint32_t nprocs;
    uint32_t nlocal;
    uint32_t *node_of;         /* [nprocs] */
    uint8_t *state;            /* [nprocs] HNP_RTE_PROC_* bits, this
                                  node's ranks */
    uint32_t nseries;
    hnp_rte_series_t *series;  /* [nseries] */
    uint32_t nnodes;           /* the launch's nodes (hnp_rte_job_set_nodes) */
    char **node_names;         /* [nnodes], owned, the names in one block
                                  (node_names[0] its start); NULL until
                                  set */
};
typedef struct hnp_rte_job hnp_rte_job_t;

/** The job @p jobid held here, or NULL. */
hnp_rte_job_t *hnp_rte_job_find(const hnp_rte_t *rte, uint32_t jobid);
/** The live job that owns @p series here, or NULL. */
hnp_rte_job_t *hnp_rte_series_owner(const hnp_rte_t *rte, uint32_t series);
/** A job begins: what was heard of its all-gathers becomes its own (a
 *  job without ranks here joins them with nothing). */
void hnp_rte_collectives_adopt(hnp_rte_t *rte, hnp_rte_job_t *job);
/** A job ends: its all-gathers that others may still wait for are joined
 *  with nothing, and what it went through is kept a while (late
 *  messages of its all-gathers are not taken for a new one's). */
void hnp_rte_collectives_job_end(hnp_rte_t *rte, hnp_rte_job_t *job);
/** Free what collective.c holds (hnp_rte_destroy). */
void hnp_rte_collectives_destroy(hnp_rte_t *rte);
/** The job ends (request.c): its requests waiting for an answer fail,
 *  those held for a service are refused. */
void hnp_rte_requests_job_end(hnp_rte_t *rte, const hnp_rte_job_t *job);

#endif /* HNP_CORE_JOB_H */
