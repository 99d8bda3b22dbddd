/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Placement and binding on a node's topology through hwloc, kept in a
 * module of its own (hnp_bind_hwloc.so, beside the components) that a
 * daemon loads only when a job needs the topology (--bind-to, a mapping
 * inside the node, --report-bindings, a rankfile): every other daemon
 * starts without hwloc and the libraries it pulls in, which would cost
 * each of them a third of a millisecond of CPU at exec. With
 * --disable-dlopen it is linked into hnpd. Private to hnpd.
 */
#ifndef HNP_BIND_H
#define HNP_BIND_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_export.h"
#include "wire/launch.h"

#define HNP_BIND_MODULE "hnp_bind_hwloc"
#define HNP_BIND_SYMBOL "hnp_bind_hwloc_ops"

/* Where one local rank goes. */
typedef struct hnp_bind_result {
    bool apply;        /**< bind the rank to @c cpus */
    cpu_set_t cpus;
    char report[512];  /**< "bound to socket 0[core 1[hwt 0]]: [./B]", or
                            "is not bound (or bound to all available
                            processors)": Open MPI's words */
} hnp_bind_result_t;

typedef struct hnp_bind_ops {
    /** Read the node's topology, or @p xml_file's ("" or NULL: the
     *  node's). With a file, bindings are computed and reported on it
     *  and applied only to the CPUs of it this machine lets the daemon
     *  use. */
    int (*load)(void **topo, const char *xml_file, char *err, size_t errlen);
    /** Place the node's @p nlocal ranks (local rank order) as @p p says;
     *  @p specs: each local rank's rankfile slot= text, or NULL. Fails,
     *  with the reason, on a binding that cannot be done. */
    int (*place)(void *topo, const hnp_wire_placement_t *p, uint32_t nlocal,
                 char *const *specs, hnp_bind_result_t *out, char *err,
                 size_t errlen);
    void (*release)(void *topo);
} hnp_bind_ops_t;

/* The module's one export, looked up by name; hidden when it is part of
 * hnpd. */
#ifdef HNP_BIND_BUILTIN
#define HNP_BIND_EXPORT
#else
#define HNP_BIND_EXPORT HNP_EXPORT
#endif

HNP_BIND_EXPORT
extern const hnp_bind_ops_t hnp_bind_hwloc_ops;

#endif /* HNP_BIND_H */
