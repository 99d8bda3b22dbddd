/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Binding to cores through hwloc, kept in a module of its own
 * (hnp_bind_hwloc.so, beside the components) that a daemon loads only when
 * a job asks for --bind-to: every other daemon starts without hwloc and
 * the libraries it pulls in, which would cost each of them a third of a
 * millisecond of CPU at exec. With --disable-dlopen it is linked into
 * hnpd. Private to hnpd.
 */
#ifndef HNP_BIND_H
#define HNP_BIND_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_export.h"

#define HNP_BIND_MODULE "hnp_bind_hwloc"
#define HNP_BIND_SYMBOL "hnp_bind_hwloc_ops"

typedef struct hnp_bind_ops {
    /** Read the node's topology; fails, with the reason in @p err, when
     *  it has fewer cores than the @p nlocal processes to bind. */
    int (*load)(void **topo, uint32_t nlocal, char *err, size_t errlen);
    /** The CPUs of core @p local_rank; 0 or -1. */
    int (*cpuset)(void *topo, uint32_t local_rank, cpu_set_t *set);
    /** "core 3 [cpus 6,7]", for --report-bindings. */
    void (*describe)(void *topo, uint32_t local_rank, char *buf, size_t len);
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
