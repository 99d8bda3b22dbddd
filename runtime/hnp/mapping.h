/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mapping and binding options of mpirun (--map-by, -npersocket,
 * --rank-by, --bind-to, --cpus-per-proc, --use-hwthread-cpus, --cpu-list,
 * --rankfile, --report-bindings, --display-map, --display-allocation),
 * parsed apart from the rest of the command line (args.c's table names
 * them).
 *
 * Who decides what: the HNP decides how many ranks each node runs and
 * which (slots, -N, ppr, --rank-by node, a rankfile); each daemon places
 * its own ranks on its node's topology (sockets, NUMA nodes, cores,
 * hardware threads) and binds them (runtime/bind). For ppr over sockets or
 * NUMA nodes the HNP counts them on one topology, hwloc_base_topo_file's
 * or its own node's: the nodes are taken to be alike, as Open MPI does by
 * default.
 */
#ifndef HNP_MAPPING_H
#define HNP_MAPPING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hosts/hostlist.h"
#include "hosts/jobmap.h"
#include "wire/launch.h"

struct hnp_args;

typedef struct hnp_mapping {
    hnp_wire_placement_t place; /* what the daemons are told; cpu_list
                                   points into argv; specs owned */
    hnp_obj_t ppr_obj;          /* ppr:N:OBJ: N of them on each OBJ */
    uint32_t ppr;
    uint32_t cpus_per_proc;     /* --cpus-per-proc */
    bool map_given;             /* --map-by or -npersocket */
    bool npersocket;            /* it was -npersocket */
    bool bind_given;            /* --bind-to */
    bool rank_given;            /* --rank-by */
    hnp_rank_policy_t ranking;  /* the order of ranks over the nodes */
    const char *rankfile;       /* --rankfile; points into argv */
    bool display_map;
    bool display_allocation;
} hnp_mapping_t;

/** A flag of mapping.h's: 1 if @p opt was one, else 0. */
int hnp_mapping_parse_flag(struct hnp_args *args, const char *opt);
/** An option of mapping.h's with its value: 1 if it was one, 0 if not,
 *  < 0 on a bad value (@p err names the option and the value). */
int hnp_mapping_parse_valued(struct hnp_args *args, const char *opt,
                             char *value, char *err, size_t errlen);
/** Once every option is read: the defaults that depend on several (the
 *  binding a --map-by implies, --cpus-per-proc), and the combinations
 *  that contradict each other. */
int hnp_mapping_finish(struct hnp_args *args, char *err, size_t errlen);

/** The option that gave the ppr, as the user typed it ("-npersocket 2",
 *  "--map-by ppr:1:socket"), into @p out. */
void hnp_mapping_ppr_option(const hnp_mapping_t *m, char *out, size_t size);
/** Before mapping: ppr over objects of a node becomes ranks a node,
 *  counted on @p topo_file ("" or NULL: this node). */
int hnp_mapping_node_capacity(struct hnp_args *args, const char *topo_file,
                              char *err, size_t errlen);
/** Before mapping, with a rankfile: its hosts (added to @p nodes when the
 *  user named none, else checked against them), each rank's node index in
 *  @p nodes (*node_index, owned by the caller), and its slot= text into
 *  the placement. */
int hnp_mapping_read_rankfile(struct hnp_args *args, hnp_nodelist_t *nodes,
                              bool may_add, uint32_t **node_index,
                              uint32_t *nranks, char *err, size_t errlen);
/** --display-allocation, before mapping. */
void hnp_mapping_print_allocation(const hnp_nodelist_t *nodes,
                                  uint32_t default_slots, FILE *out);
/** --display-map, before launch. */
void hnp_mapping_print_map(const struct hnp_args *args,
                           const hnp_job_map_t *map, FILE *out);
void hnp_mapping_free(hnp_mapping_t *m);
/** "socket", "core", ... */
const char *hnp_mapping_obj_name(hnp_obj_t obj);

#endif /* HNP_MAPPING_H */
