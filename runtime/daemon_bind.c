/*
 * --bind-to core: local rank i runs on core i of its node. The topology is
 * loaded only when binding is asked for (a daemon's start-up stays cheap),
 * and a binding that cannot be done ends the job with the reason: binding
 * never fails silently.
 */
#include "config.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>

#include "daemon.h"

int hnpd_bind_prepare(hnpd_t *d, uint32_t nlocal, char *err, size_t errlen)
{
    hwloc_topology_t topo;
    int cores;

    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
        hnp_err_set(err, errlen, "cannot read the node's topology with hwloc");
        return HNP_ERROR;
    }
    cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (cores <= 0 || (uint32_t)cores < nlocal) {
        hnp_err_set(err, errlen, "--bind-to core: %u processes but %d cores",
                    nlocal, cores);
        hwloc_topology_destroy(topo);
        return HNP_ERR_NOT_AVAILABLE;
    }
    d->topology = topo;
    return HNP_SUCCESS;
}

static hwloc_obj_t core_of(const hnpd_t *d, uint32_t local_rank)
{
    return hwloc_get_obj_by_type(d->topology, HWLOC_OBJ_CORE, local_rank);
}

int hnpd_bind_cpuset(const hnpd_t *d, uint32_t local_rank, cpu_set_t *set)
{
    hwloc_obj_t core = core_of(d, local_rank);

    if (core == NULL ||
        hwloc_cpuset_to_glibc_sched_affinity(d->topology, core->cpuset, set,
                                             sizeof(*set)) != 0)
        return HNP_ERR_NOT_FOUND;
    return HNP_SUCCESS;
}

void hnpd_bind_describe(const hnpd_t *d, uint32_t local_rank, char *buf,
                        size_t len)
{
    hwloc_obj_t core = core_of(d, local_rank);
    char cpus[256] = "?";

    if (core != NULL)
        hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), core->cpuset);
    snprintf(buf, len, "core %u [cpus %s]", local_rank, cpus);
}

void hnpd_bind_release(hnpd_t *d)
{
    if (d->topology != NULL)
        hwloc_topology_destroy(d->topology);
    d->topology = NULL;
}
