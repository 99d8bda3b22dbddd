/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpmix discovers the node's topology itself unless it is handed one,
 * and its discovery reads the PCI tree and loads hwloc's I/O plugins
 * (14-15 ms of CPU). The daemon loads one, once, and hands it over
 * (PMIX_TOPOLOGY2). libpmix keeps it to itself (it shares a topology with
 * the ranks only when told to, PMIX_SERVER_SHARE_TOPOLOGY, which hnp does
 * not: an Open MPI rank reads its node's topology itself), so the
 * processors, cores, packages and memory nodes are all it gets: no I/O
 * devices, no caches, no distances, memory attributes or CPU kinds, whose
 * reading is most of a load's CPU after the processors' (some 60 files of
 * sysfs on a 2-core node; 0.52 ms -> 0.45 ms here). Without hwloc's
 * plugins either: hwloc loads every one it finds (OpenGL, OpenCL, PCI,
 * XML: 2-4 ms) at the first topology of a process, unless they are listed
 * in HWLOC_PLUGINS_BLACKLIST, which is set for that moment only (the
 * ranks must not inherit it); and without binding the daemon to each
 * processor in turn to read it (0.3 ms).
 */
#include "config.h"

#include <stdlib.h>

#include "pmi_pmix_internal.h"

#define PLUGINS_UNUSED "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml," \
                       "hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero"

/* What is not read: hwloc 2.8 has the flags that skip the attributes. */
#if HWLOC_API_VERSION >= 0x00020800
#define TOPOLOGY_FLAGS (HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING | \
                        HWLOC_TOPOLOGY_FLAG_NO_DISTANCES | \
                        HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS | \
                        HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS)
#else
#define TOPOLOGY_FLAGS HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING
#endif

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
        hwloc_topology_set_cache_types_filter(topology,
                                              HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_icache_types_filter(topology,
                                               HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_flags(topology, TOPOLOGY_FLAGS) != 0 ||
        hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        HNP_WARN(pmi_pmix_log(), "pmix: cannot load this node's topology; "
                 "libpmix discovers it itself");
        return NULL;
    }
    return topology;
}
