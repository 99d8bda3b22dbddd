/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A node's ranks on its topology, as Open MPI 4.1 places them: each local
 * rank first gets a place (the whole node for --map-by slot|node, else a
 * socket, NUMA node, core or hardware thread: round robin over them, one
 * object filled after another, or N on each for ppr), then a binding:
 * the object of the --bind-to kind that holds its place, or, when that
 * kind is smaller than the place, the first such object inside it that
 * the fewest ranks are bound to yet; with PE=n, n CPUs inside the place.
 * More ranks on an object than it has CPUs is an error unless the
 * binding allows overload.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "objtype.h"

static const char *name_of(hnp_obj_t obj)
{
    static const char *const names[] = {
        [HNP_OBJ_NUMA] = "numa", [HNP_OBJ_SOCKET] = "socket",
        [HNP_OBJ_CORE] = "core", [HNP_OBJ_HWTHREAD] = "hwthread",
    };
    return obj >= HNP_OBJ_NUMA && obj <= HNP_OBJ_HWTHREAD ? names[obj] : "node";
}

/* The place of each local rank: an object of the mapping kind. */
static void map_ranks(bind_topo_t *bt, const hnp_wire_placement_t *p,
                      uint32_t nlocal, hwloc_obj_t *where)
{
    hwloc_obj_t root = hwloc_get_root_obj(bt->topo);
    hwloc_obj_type_t type = hnp_obj_hwloc_type(p->map_obj);
    int n = p->map_obj > HNP_OBJ_MACHINE
                ? hwloc_get_nbobjs_by_type(bt->topo, type) : 0;

    for (uint32_t i = 0; i < nlocal; i++) {
        uint32_t o;
        if (n <= 0) {
            where[i] = root;
            continue;
        }
        uint32_t nobj = (uint32_t)n;
        if (p->ppr > 0)
            o = (i / p->ppr) % nobj;
        else if (p->span || nlocal <= nobj)
            o = i % nobj;
        else { /* fill: as many on each as round robin, consecutively */
            uint32_t base = nlocal / nobj, extra = nlocal % nobj;
            uint32_t big = extra * (base + 1);
            o = i < big ? i / (base + 1) : extra + (i - big) / base;
        }
        where[i] = hwloc_get_obj_by_type(bt->topo,
                                         hnp_obj_hwloc_type(p->map_obj), o);
    }
}

/* CPUs of an object: its units (at least one). */
static unsigned cpus_of(bind_topo_t *bt, hwloc_obj_type_t unit, hwloc_obj_t o)
{
    int n = hwloc_get_nbobjs_inside_cpuset_by_type(bt->topo, o->cpuset, unit);
    return n > 0 ? (unsigned)n : 1;
}

typedef struct binder {
    bind_topo_t *bt;
    const hnp_wire_placement_t *p;
    hwloc_obj_type_t type;   /* the --bind-to kind, or the PE unit */
    unsigned *used;          /* ranks bound, by the kind's logical index */
    unsigned nobj;
    uint32_t nlocal;
} binder_t;

/* The least used object of the binder's kind inside @p place. */
static hwloc_obj_t least_used_inside(binder_t *b, hwloc_obj_t place)
{
    hwloc_obj_t best = NULL, o;

    for (unsigned k = 0; (o = hwloc_get_obj_inside_cpuset_by_type(
                              b->bt->topo, place->cpuset, b->type, k)) != NULL;
         k++)
        if (best == NULL || b->used[o->logical_index] <
                                b->used[best->logical_index])
            best = o;
    return best;
}

static int overloaded(binder_t *b, hwloc_obj_t o, char *err, size_t errlen)
{
    unsigned cpus = b->p->pe > 1 ? 1 : cpus_of(b->bt, bind_unit_type(b->p), o);
    const char *kind = name_of((hnp_obj_t)b->p->bind_obj);
    char pe[32] = "";

    if ((b->p->flags & HNP_PLACE_OVERLOAD) || b->used[o->logical_index] <= cpus)
        return 0;
    if (b->p->pe > 1)
        snprintf(pe, sizeof(pe), " of %u CPUs each", b->p->pe);
    snprintf(err, errlen, "--bind-to %s: %u processes%s but %u %s%s (%s %u "
             "would hold %u of them%s; add :overload-allowed to share)",
             kind, b->nlocal, pe, b->nobj, kind, b->nobj == 1 ? "" : "s",
             kind, o->logical_index, b->used[o->logical_index],
             cpus > 1 ? ", more than its CPUs" : "");
    return -1;
}

/* PE=n: n units inside the place, the least used first. */
static int bind_pe(binder_t *b, hwloc_obj_t place, hwloc_bitmap_t set,
                   char *err, size_t errlen)
{
    for (uint32_t k = 0; k < b->p->pe; k++) {
        hwloc_obj_t best = NULL, o;
        for (unsigned j = 0; (o = hwloc_get_obj_inside_cpuset_by_type(
                                  b->bt->topo, place->cpuset, b->type, j));
             j++)
            if (!hwloc_bitmap_isincluded(o->cpuset, set) &&
                (best == NULL || b->used[o->logical_index] <
                                     b->used[best->logical_index]))
                best = o;
        if (best == NULL) {
            snprintf(err, errlen, "PE=%u: the %s a rank is placed on has "
                     "fewer CPUs", b->p->pe, name_of(b->p->map_obj));
            return -1;
        }
        b->used[best->logical_index]++;
        hwloc_bitmap_or(set, set, best->cpuset);
        if (overloaded(b, best, err, errlen) != 0)
            return -1;
    }
    return 0;
}

static int bind_one(binder_t *b, hwloc_obj_t place, hwloc_bitmap_t set,
                    char *err, size_t errlen)
{
    hwloc_obj_t o;

    if (b->p->pe > 1)
        return bind_pe(b, place, set, err, errlen);
    o = hwloc_get_next_obj_covering_cpuset_by_type(b->bt->topo, place->cpuset,
                                                   b->type, NULL);
    if (o == NULL || o->type != b->type || place->type == HWLOC_OBJ_MACHINE)
        o = least_used_inside(b, place);
    if (o == NULL) {
        snprintf(err, errlen, "--bind-to %s: this node has no %s",
                 name_of(b->p->bind_obj), name_of(b->p->bind_obj));
        return -1;
    }
    b->used[o->logical_index]++;
    hwloc_bitmap_copy(set, o->cpuset);
    return overloaded(b, o, err, errlen);
}

static int bind_objects(bind_topo_t *bt, const hnp_wire_placement_t *p,
                        uint32_t nlocal, hwloc_bitmap_t *sets, char *err,
                        size_t errlen)
{
    hwloc_obj_t *where = calloc(nlocal + 1, sizeof(*where));
    binder_t b = { bt, p,
                   p->pe > 1 ? bind_unit_type(p)
                             : hnp_obj_hwloc_type((hnp_obj_t)p->bind_obj),
                   NULL, 0, nlocal };
    int n = hwloc_get_nbobjs_by_type(bt->topo, b.type), rc = 0;

    b.nobj = n > 0 ? (unsigned)n : 0;
    b.used = calloc(b.nobj + 1, sizeof(*b.used));
    if (where == NULL || b.used == NULL) {
        snprintf(err, errlen, "out of memory placing %u processes", nlocal);
        rc = -1;
    }
    if (rc == 0)
        map_ranks(bt, p, nlocal, where);
    for (uint32_t i = 0; rc == 0 && i < nlocal; i++) {
        if ((sets[i] = hwloc_bitmap_alloc()) == NULL)
            rc = -1;
        else
            rc = bind_one(&b, where[i], sets[i], err, errlen);
    }
    free(where);
    free(b.used);
    return rc;
}

static int bind_cpu_list(bind_topo_t *bt, const hnp_wire_placement_t *p,
                         uint32_t nlocal, hwloc_bitmap_t *sets, char *err,
                         size_t errlen)
{
    hwloc_obj_type_t unit = bind_unit_type(p);

    for (uint32_t i = 0; i < nlocal; i++) {
        if ((sets[i] = hwloc_bitmap_alloc()) == NULL)
            return -1;
        int rc = (p->flags & HNP_PLACE_ORDERED)
                     ? bind_nth_unit(bt, unit, p->cpu_list, i, sets[i])
                     : bind_parse_units(bt, unit, p->cpu_list, sets[i], err,
                                        errlen);
        if (rc != 0) {
            if (p->flags & HNP_PLACE_ORDERED)
                snprintf(err, errlen, "--cpu-list %s: no CPU for local "
                         "rank %u", p->cpu_list, i);
            return -1;
        }
    }
    return 0;
}

static int bind_rankfile(bind_topo_t *bt, const hnp_wire_placement_t *p,
                         uint32_t nlocal, char *const *specs,
                         hwloc_bitmap_t *sets, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < nlocal; i++) {
        if (specs[i] == NULL || specs[i][0] == '\0')
            continue;
        if ((sets[i] = hwloc_bitmap_alloc()) == NULL ||
            bind_parse_slot(bt, bind_unit_type(p), specs[i], sets[i], err,
                            errlen) != 0)
            return -1;
    }
    return 0;
}

int bind_place(bind_topo_t *bt, const hnp_wire_placement_t *p,
               uint32_t nlocal, char *const *specs, hwloc_bitmap_t *sets,
               char *err, size_t errlen)
{
    if (specs != NULL)
        return bind_rankfile(bt, p, nlocal, specs, sets, err, errlen);
    if (p->bind_obj == HNP_OBJ_NONE)
        return 0;
    if (p->bind_obj == HNP_OBJ_CPULIST)
        return bind_cpu_list(bt, p, nlocal, sets, err, errlen);
    return bind_objects(bt, p, nlocal, sets, err, errlen);
}
