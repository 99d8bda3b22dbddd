/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hosts: Slurm-style ranges ("node[001-128,140]"), --host lists
 * ("a,b:4,c"), hostfiles ("name slots=N" lines, '#' comments). Names are
 * kept as the user wrote them: nothing is ever resolved.
 */
#ifndef HNP_HOSTLIST_H
#define HNP_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** More names than this, in one host list or in one hostfile or --host
 *  list (counted before names given twice are merged), is a typo, never a
 *  cluster: it is refused before it takes the machine's memory and time.
 *  (The fuzz target lowers both bounds, to reach them in milliseconds.) */
#ifndef HNP_HOSTLIST_MAX_NAMES
#define HNP_HOSTLIST_MAX_NAMES 1000000u
#endif
/** So are more bytes of names than this in one host list (a million names
 *  of 64 characters): a long name times a large range. */
#ifndef HNP_HOSTLIST_MAX_BYTES
#define HNP_HOSTLIST_MAX_BYTES ((uint64_t)64 << 20)
#endif

/** The longest host name: a DNS name has at most 253 characters. A longer
 *  one is refused, showing its length and its beginning (the daemons get
 *  the name on their command line, and every message names it). */
#define HNP_HOST_NAME_MAX 255

typedef struct hnp_node {
    char *name;
    uint32_t slots;   /**< 0 when nobody said: the caller decides */
    bool slots_given; /**< slots came from the user */
} hnp_node_t;

typedef struct hnp_nodelist {
    hnp_node_t *nodes;
    size_t count;
    size_t capacity; /**< nodes allocated; 0 when the list did not grow it */
} hnp_nodelist_t;

/**
 * Expand one host expression with ranges and commas into names, in order:
 * "n[1-3,7]" -> n1 n2 n3 n7; "n[01-10]" keeps the zero padding; several
 * bracket groups multiply ("r[1-2]n[1-2]"); commas outside brackets separate
 * expressions. Errors name the expression and what is wrong.
 */
int hnp_hostlist_expand(const char *text, char ***names, size_t *count,
                        char *err, size_t errlen);
void hnp_hostlist_free(char **names, size_t count);

/** The node of @p list named @p name, or NULL. */
hnp_node_t *hnp_nodelist_find(const hnp_nodelist_t *list, const char *name);
/** Add a host; a name already present adds its slots to the existing entry
 *  (the parsers below count repeated names as Open MPI does instead). */
int hnp_nodelist_add(hnp_nodelist_t *list, const char *name, uint32_t slots,
                     bool slots_given);
/** --host "a,b:4,node[1-8]:2" (slots after a colon). A name given again
 *  counts as Open MPI 4.1 counts it: each mention without a count is one
 *  slot, and the sum is a given count ("a,a,b": a has 2 slots). IPv6
 *  addresses: "[fe80::1]:4" with slots, bare "fe80::1" without; the node
 *  is named without brackets. */
int hnp_nodelist_parse_hosts(hnp_nodelist_t *list, const char *text,
                             char *err, size_t errlen);
/** A hostfile: one host expression a line, optional "slots=N" (also
 *  "max_slots=N" is accepted and ignored), '#' comments, blank lines.
 *  A node on several lines has one slot a line (a PBS nodefile), after
 *  the count of its first line if it gave one; a count on a later line
 *  is refused, as Open MPI refuses it. IPv6 addresses as in --host, with
 *  slots=N. Errors name file:line. */
int hnp_nodelist_parse_hostfile(hnp_nodelist_t *list, const char *path,
                                char *err, size_t errlen);
/**
 * --host with --hostfile, as Open MPI reads them: keep only the nodes of
 * @p pool that @p wanted names, in @p wanted's order. A node @p wanted
 * gives slots to ("a:2", or "a,a") takes them; one it names once without
 * a count keeps @p pool's. A name @p pool lacks is HNP_ERR_NOT_FOUND,
 * naming it and @p pool_name ("hostfile H"); @p pool is then unchanged.
 */
int hnp_nodelist_filter(hnp_nodelist_t *pool, const hnp_nodelist_t *wanted,
                        const char *pool_name, char *err, size_t errlen);
void hnp_nodelist_free(hnp_nodelist_t *list);

#endif /* HNP_HOSTLIST_H */
