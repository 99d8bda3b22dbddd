/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpmix discovers the node's topology itself unless it is handed one,
 * and its discovery reads the PCI tree and loads hwloc's I/O plugins
 * (14-15 ms of CPU). The ranks need the processors and caches alone, so
 * the daemon loads a topology without I/O devices, once, and hands it over
 * (PMIX_TOPOLOGY2).
 */
#include "config.h"

#include "pmi_pmix_internal.h"

hwloc_topology_t pmi_pmix_topology_load(void)
{
    hwloc_topology_t topology;

    if (hwloc_topology_init(&topology) != 0)
        return NULL;
    if (hwloc_topology_set_io_types_filter(topology,
                                           HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        HNP_WARN(pmi_pmix_log(), "pmix: cannot load this node's topology; "
                 "libpmix discovers it itself");
        return NULL;
    }
    return topology;
}
