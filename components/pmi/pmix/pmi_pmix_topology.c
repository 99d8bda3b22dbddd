/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpmix discovers the node's topology itself unless it is handed one,
 * and its discovery reads the PCI tree and loads hwloc's I/O plugins
 * (14-15 ms of CPU). The ranks need the processors and caches alone, so
 * the daemon loads a topology without I/O devices, once, and hands it over
 * (PMIX_TOPOLOGY2). Without the plugins either: hwloc loads every one it
 * finds (OpenGL, OpenCL, PCI, XML: 2-4 ms) at the first topology of a
 * process, unless they are listed in HWLOC_PLUGINS_BLACKLIST, which is
 * set for that moment only (the ranks must not inherit it); and without
 * binding the daemon to each processor in turn to read it (0.3 ms).
 */
#include "config.h"

#include <stdlib.h>

#include "pmi_pmix_internal.h"

#define PLUGINS_UNUSED "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml," \
                       "hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero"

static int topology_init(hwloc_topology_t *topology)
{
    const char *had = getenv("HWLOC_PLUGINS_BLACKLIST");
    int rc;

    /* a list of the user's own is theirs */
    if (had != NULL)
        return hwloc_topology_init(topology);
    setenv("HWLOC_PLUGINS_BLACKLIST", PLUGINS_UNUSED, 1);
    rc = hwloc_topology_init(topology);
    unsetenv("HWLOC_PLUGINS_BLACKLIST");
    return rc;
}

hwloc_topology_t pmi_pmix_topology_load(void)
{
    hwloc_topology_t topology;

    if (topology_init(&topology) != 0)
        return NULL;
    if (hwloc_topology_set_io_types_filter(topology,
                                           HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_flags(topology,
                                 HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING) != 0 ||
        hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        HNP_WARN(pmi_pmix_log(), "pmix: cannot load this node's topology; "
                 "libpmix discovers it itself");
        return NULL;
    }
    return topology;
}
