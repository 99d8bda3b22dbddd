/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launch message (HNP_TAG_LAUNCH, in a broadcast): phase 3. Where every
 * rank of the job runs, every node's name and slots (the pmi components
 * need the whole node map, a daemon knows only its subtree's), what each app context runs, and how (environment,
 * directory, binding, who gets stdin). Every daemon starts the ranks of its
 * own node from it. The directory and the variables are each app
 * context's own (`-n 1 --wdir /a a : -n 1 b` runs b in hnp's directory).
 *
 *   jobid u32 | nprocs u32 | nnodes u32 | nprocs x node u32 |
 *   nnodes x (name string | slots u32) | universe_size u32 |
 *   placement (below) | stdin_target i32 | output u8 |
 *   napps u32 | napps x (first_rank u32 | np u32 | argc u32 |
 *                        argc x string | wdir string | nenv u32 |
 *                        nenv x "NAME=value" string) | pmi string |
 *   parent_jobid u32 | spawn_component string | spawn_data blob
 *
 * placement: map_obj u8 | span u8 | ppr u32 | pe u32 | bind_obj u8 |
 *   flags u8 | cpu_list string | nspecs u32 | nspecs x string
 *
 * Contract of runtime/wire: see join.h. A struct filled in for packing
 * only lends its arrays and strings: clear only what an unpack filled.
 */
#ifndef HNP_WIRE_LAUNCH_H
#define HNP_WIRE_LAUNCH_H

#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_launch_app {
    uint32_t first_rank; /**< the app's ranks start here */
    uint32_t np;
    uint32_t argc;       /**< at least 1 */
    char **argv;         /**< [argc], NULL-terminated once unpacked */
    char *wdir;          /**< "" (or NULL when packing): the daemon's own */
    uint32_t nenv;
    char **env;          /**< [nenv], NULL-terminated once unpacked */
} hnp_wire_launch_app_t;

/* The objects of a node's topology that ranks are spread over or bound
 * to (runtime/bind). */
typedef enum hnp_obj {
    HNP_OBJ_NONE,     /**< bind_obj: not bound */
    HNP_OBJ_MACHINE,  /**< map_obj: the whole node (--map-by slot|node) */
    HNP_OBJ_NUMA,
    HNP_OBJ_SOCKET,
    HNP_OBJ_CORE,
    HNP_OBJ_HWTHREAD,
    HNP_OBJ_CPULIST,  /**< bind_obj: the CPUs of cpu_list */
} hnp_obj_t;

/* placement flags */
#define HNP_PLACE_OVERLOAD 0x01      /**< :overload-allowed */
#define HNP_PLACE_IF_SUPPORTED 0x02  /**< :if-supported */
#define HNP_PLACE_ORDERED 0x04       /**< cpu-list:ordered */
#define HNP_PLACE_HWTHREAD_CPUS 0x08 /**< --use-hwthread-cpus */
#define HNP_PLACE_REPORT 0x10        /**< --report-bindings */

/* output flags: how the ranks' stdio is set up, and how long the daemons
 * stay */
#define HNP_LAUNCH_MERGE_STDERR 0x01 /**< --merge-stderr-to-stdout: a
                                          rank's fd 2 is its stdout pipe */
#define HNP_LAUNCH_PERSISTENT 0x02   /**< the daemons outlive the job (hnp
                                          --dvm): HNP_TAG_JOB_END ends it */

/* Where a node places its ranks and what it binds them to: the node-level
 * map is the HNP's (node_of), the rest is done on the node's topology. */
typedef struct hnp_wire_placement {
    uint8_t map_obj;   /**< hnp_obj_t the node's ranks are spread over */
    uint8_t span;      /**< 1: round robin over those objects; 0: fill
                            each in turn */
    uint32_t ppr;      /**< ranks on each map_obj; 0: spread evenly */
    uint32_t pe;       /**< CPUs a rank (:PE=n); 0 or 1: one */
    uint8_t bind_obj;  /**< hnp_obj_t */
    uint8_t flags;     /**< HNP_PLACE_* */
    char *cpu_list;    /**< --cpu-list; "" or NULL: none */
    uint32_t nspecs;   /**< 0, or nprocs with a rankfile */
    char **specs;      /**< [nspecs] a rank's slot=... ("": unbound) */
} hnp_wire_placement_t;

/** Whether a node needs its topology (hwloc) to place its ranks. */
int hnp_wire_placement_needs_topology(const hnp_wire_placement_t *p);

typedef struct hnp_wire_launch {
    uint32_t jobid;
    uint32_t nprocs;
    uint32_t nnodes;
    uint32_t *node_of;     /**< [nprocs]: the node index of each rank */
    char **node_names;     /**< [nnodes], NULL-terminated once unpacked:
                                then one block, node_names[0] its start */
    uint32_t *node_slots;  /**< [nnodes] */
    uint32_t universe_size; /**< the job's slots */
    hnp_wire_placement_t place;
    int32_t stdin_target;  /**< a rank, HNP_STDIN_NONE or HNP_STDIN_ALL */
    uint8_t output;        /**< HNP_LAUNCH_MERGE_STDERR, _PERSISTENT */
    uint32_t napps;        /**< at least 1 */
    hnp_wire_launch_app_t *apps; /**< [napps] */
    /** The pmi components the daemons set up for this job, "a,b" in the
     *  HNP's order ("" or NULL: none): those that serve an interface
     *  one of its programs can use. */
    char *pmi;
    /** A job started by a rank's spawn (MPI_Comm_spawn): its parent job,
     *  0 for any other; the requesting pmi component's name and its
     *  opaque bytes for the new job's daemons ("" and none otherwise). */
    uint32_t parent_jobid;
    char *spawn_component;
    void *spawn_data;       /**< [spawn_data_len], owned once unpacked */
    size_t spawn_data_len;
} hnp_wire_launch_t;

int hnp_wire_launch_pack(hnp_buffer_t *buf, const hnp_wire_launch_t *m);
/** Also fails (HNP_ERR_BAD_PARAM) on a launch without an app or an app
 *  without a program. */
int hnp_wire_launch_unpack(hnp_reader_t *rd, hnp_wire_launch_t *m);
void hnp_wire_launch_clear(hnp_wire_launch_t *m);

#endif /* HNP_WIRE_LAUNCH_H */
