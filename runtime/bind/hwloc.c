/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bind-to core with hwloc: local rank i runs on core i of its node (see
 * bind.h for why this is a module of its own).
 */
#include "config.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>

#include "bind.h"

static int load(void **out, uint32_t nlocal, char *err, size_t errlen)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) != 0)
        goto unreadable;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        goto unreadable;
    }
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (cores <= 0 || (uint32_t)cores < nlocal) {
        snprintf(err, errlen, "--bind-to core: %u processes but %d cores",
                 nlocal, cores);
        hwloc_topology_destroy(topo);
        return -1;
    }
    *out = topo;
    return 0;
unreadable:
    snprintf(err, errlen, "cannot read the node's topology with hwloc");
    return -1;
}

static int cpuset(void *topo, uint32_t local_rank, cpu_set_t *set)
{
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, local_rank);

    if (core == NULL ||
        hwloc_cpuset_to_glibc_sched_affinity(topo, core->cpuset, set,
                                             sizeof(*set)) != 0)
        return -1;
    return 0;
}

static void describe(void *topo, uint32_t local_rank, char *buf, size_t len)
{
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, local_rank);
    char cpus[256] = "?";

    if (core != NULL)
        hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), core->cpuset);
    snprintf(buf, len, "core %u [cpus %s]", local_rank, cpus);
}

static void release(void *topo)
{
    hwloc_topology_destroy(topo);
}

const hnp_bind_ops_t hnp_bind_hwloc_ops = {
    .load = load, .cpuset = cpuset, .describe = describe, .release = release,
};
