/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names the HNP holds for MPI_Publish_name and MPI_Lookup_name
 * (names_table.c), and the service over the runtime's messages that
 * reaches them from the daemons (names.c, hnp_rte_name_*() of hnp_rte.h).
 *
 * A name lives in a scope: the family of jobs of its publisher (a job and
 * the jobs it spawned, named by the family's first job) or, scope 0, the
 * whole session (every job of the runtime). A lookup sees its own
 * family's names and the session's. A name goes with its publisher's job
 * unless it was published to persist; an unpublish removes it at once.
 */
#ifndef HNP_CORE_NAMES_H
#define HNP_CORE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hnp_names hnp_names_t;

/** One name as the table holds it; valid until the table changes. */
typedef struct hnp_names_entry {
    const char *key;
    const void *value;
    size_t len;
    uint32_t jobid;   /**< its publisher */
    uint32_t rank;
} hnp_names_entry_t;

/** One name to publish. */
typedef struct hnp_names_put {
    const char *key;
    const void *value;
    size_t len;
} hnp_names_put_t;

int hnp_names_create(hnp_names_t **out);
void hnp_names_destroy(hnp_names_t *t);

/** Job @p jobid belongs to the family of @p parent's (spawned by it);
 *  a job nobody named this way is a family of its own. */
int hnp_names_set_family(hnp_names_t *t, uint32_t jobid, uint32_t parent);
/** The family of @p jobid: its first job's id. */
uint32_t hnp_names_family(const hnp_names_t *t, uint32_t jobid);

/**
 * Publish @p count names in @p scope (a family, or 0: the session) for
 * rank @p rank of job @p jobid; @p persist: they outlive the job. All or
 * nothing: HNP_ERR_EXISTS when one of the keys is there already in that
 * scope (or twice in @p puts), HNP_ERR_BAD_PARAM for an empty key.
 */
int hnp_names_publish(hnp_names_t *t, uint32_t scope, uint32_t jobid,
                      uint32_t rank, const hnp_names_put_t *puts,
                      size_t count, bool persist);
/**
 * What @p family sees of @p keys: its own names first, then the
 * session's. @p found[i] is the entry of keys[i] (zeroed, key NULL, when
 * absent). Returns how many were found.
 */
size_t hnp_names_lookup(const hnp_names_t *t, uint32_t family,
                        const char *const *keys, size_t count,
                        hnp_names_entry_t *found);
/**
 * Unpublish @p keys as seen from @p family (its own name first, else the
 * session's); @p count 0: every name rank @p rank of job @p jobid
 * published. HNP_ERR_NOT_FOUND when a key is not there (the others are
 * removed), or when @p count is 0 and the rank published nothing.
 */
int hnp_names_unpublish(hnp_names_t *t, uint32_t family, uint32_t jobid,
                        uint32_t rank, const char *const *keys, size_t count);
/** Job @p jobid has ended: the names it published go, unless they
 *  persist, and its family link is forgotten. */
void hnp_names_job_end(hnp_names_t *t, uint32_t jobid);
/** Names held. */
size_t hnp_names_count(const hnp_names_t *t);

#endif /* HNP_CORE_NAMES_H */
