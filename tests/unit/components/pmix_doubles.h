/* SPDX-License-Identifier: BSD-3-Clause */
/* The runtime services' stand-ins of the pmix component's unit test. */
#ifndef PMIX_DOUBLES_H
#define PMIX_DOUBLES_H

#include <event2/event.h>
#include <stdbool.h>

#include "hnp_errors.h"
#include "hnp_pmi.h"
#include "hnp_rte.h"

#define PMIX_DOUBLES_MAX_RANKS 8
#define PMIX_DOUBLES_MAX_ENV 128

struct hnp_pmi_fork {
    size_t count;
    char *name[PMIX_DOUBLES_MAX_ENV];
    char *value[PMIX_DOUBLES_MAX_ENV];
};

typedef struct pmix_doubles {
    struct event_base *base;
    uint32_t jobid;           /* the job's, to check what names it */
    uint32_t series;          /* the job's, to check the all-gathers */
    uint32_t fences;          /* all-gathers so far */
    bool fence_order_wrong;   /* one came with another job, series or seq */
    uint32_t service;
    hnp_rte_serve_fn serve;
    int aborts, abort_code;
    uint32_t abort_rank, abort_jobid;
    bool state_job_wrong;     /* a rank's state named another job */
    unsigned state[PMIX_DOUBLES_MAX_RANKS]; /* HNP_RTE_PROC_* bits */
    int watches;              /* open fd watches */
    int scratch_dirs;         /* hnp_rte_scratch_make()'s, not removed */
    uint32_t spawns;          /* hnp_rte_spawn()'s, refused (none here) */
    int name_calls;           /* hnp_rte_name_*() calls */
    int name_lookup_waited;   /* lookups held for a publish (PMIX_WAIT) */
    const char *other_job;    /* a job on another node hnp_rte_job_info()
                               * knows (job PMIX_DOUBLES_OTHER_JOBID) */
    int gathers_across;       /* hnp_rte_gather_across()'s, answered */
} pmix_doubles_t;

#define PMIX_DOUBLES_OTHER_JOBID 100

extern pmix_doubles_t doubles;

const char *pmix_doubles_getenv(const hnp_pmi_fork_t *fork, const char *name);
void pmix_doubles_fork_clear(hnp_pmi_fork_t *fork);
/* Remove what the scratch stand-ins made (the test's end). */
void pmix_doubles_scratch_clean(void);
/* Forget the names and the waiting lookups. */
void pmix_doubles_names_clean(void);

#endif /* PMIX_DOUBLES_H */
