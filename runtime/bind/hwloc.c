/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The binding module's entry points (see bind.h for why it is a module):
 * the topology, read from the node or from an XML file, and each local
 * rank's binding as the daemon applies and reports it.
 */
#include "config.h"

#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

hwloc_obj_type_t bind_unit_type(const hnp_wire_placement_t *p)
{
    return (p->flags & HNP_PLACE_HWTHREAD_CPUS) ? HWLOC_OBJ_PU
                                                : HWLOC_OBJ_CORE;
}

static void release(void *topo)
{
    bind_topo_t *bt = topo;

    if (bt == NULL)
        return;
    if (bt->topo != NULL)
        hwloc_topology_destroy(bt->topo);
    hwloc_bitmap_free(bt->usable);
    free(bt);
}

/* The CPUs this process may use, read on the real machine even when the
 * topology comes from a file. */
static hwloc_bitmap_t usable_cpus(void)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    cpu_set_t mask;

    if (set == NULL)
        return NULL;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0)
        return set;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mask))
            hwloc_bitmap_set(set, (unsigned)c);
    return set;
}

static int load(void **out, const char *xml_file, char *err, size_t errlen)
{
    bind_topo_t *bt = calloc(1, sizeof(*bt));
    bool from_file = xml_file != NULL && xml_file[0] != '\0';

    if (bt == NULL || (bt->usable = usable_cpus()) == NULL ||
        hwloc_topology_init(&bt->topo) != 0) {
        snprintf(err, errlen, "out of memory reading the topology");
        goto fail;
    }
    if (from_file && hwloc_topology_set_xml(bt->topo, xml_file) != 0) {
        snprintf(err, errlen, "hwloc_base_topo_file %s: not an XML topology "
                 "hwloc can read", xml_file);
        goto fail;
    }
    if (hwloc_topology_load(bt->topo) != 0) {
        snprintf(err, errlen, "cannot read the node's topology with hwloc");
        goto fail;
    }
    bt->simulated = from_file;
    *out = bt;
    return 0;
fail:
    if (bt != NULL && bt->topo != NULL) {
        hwloc_topology_destroy(bt->topo);
        bt->topo = NULL;
    }
    release(bt);
    return -1;
}

/* What the kernel is told: the binding, or with a file's topology the
 * part of it this machine has. */
static void fill_result(bind_topo_t *bt, hwloc_const_bitmap_t set,
                        hnp_bind_result_t *r)
{
    hwloc_bitmap_t applied = hwloc_bitmap_dup(set);

    r->apply = false;
    CPU_ZERO(&r->cpus);
    if (applied == NULL)
        return;
    if (bt->simulated)
        hwloc_bitmap_and(applied, applied, bt->usable);
    if (!hwloc_bitmap_iszero(applied))
        for (int c = hwloc_bitmap_first(applied); c >= 0 && c < CPU_SETSIZE;
             c = hwloc_bitmap_next(applied, c)) {
            CPU_SET(c, &r->cpus);
            r->apply = true;
        }
    hwloc_bitmap_free(applied);
}

/* An unbound rank runs where the daemon may: on a node, that is what is
 * reported (all of it reads as "not bound"). */
static void report_unbound(bind_topo_t *bt, hnp_bind_result_t *r)
{
    r->apply = false;
    if (bt->simulated)
        bind_describe(bt, hwloc_topology_get_complete_cpuset(bt->topo),
                      r->report, sizeof(r->report));
    else
        bind_describe(bt, bt->usable, r->report, sizeof(r->report));
}

static int place(void *topo, const hnp_wire_placement_t *p, uint32_t nlocal,
                 char *const *specs, hnp_bind_result_t *out, char *err,
                 size_t errlen)
{
    bind_topo_t *bt = topo;
    hwloc_bitmap_t *sets = calloc(nlocal + 1, sizeof(*sets));
    int rc;

    if (sets == NULL) {
        snprintf(err, errlen, "out of memory placing %u processes", nlocal);
        return -1;
    }
    rc = bind_place(bt, p, nlocal, specs, sets, err, errlen);
    bool placed = rc == 0;
    if (rc != 0 && (p->flags & HNP_PLACE_IF_SUPPORTED))
        rc = 0; /* bind if it can be done, else run unbound */
    for (uint32_t i = 0; i < nlocal; i++) {
        if (placed && sets[i] != NULL) {
            fill_result(bt, sets[i], &out[i]);
            bind_describe(bt, sets[i], out[i].report, sizeof(out[i].report));
        } else
            report_unbound(bt, &out[i]);
        hwloc_bitmap_free(sets[i]);
    }
    free(sets);
    return rc;
}

const hnp_bind_ops_t hnp_bind_hwloc_ops = {
    .load = load, .place = place, .release = release,
};
