/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside the binding module: the topology and the steps of a placement. */
#ifndef HNP_BIND_INTERNAL_H
#define HNP_BIND_INTERNAL_H

#include <hwloc.h>
#include <stdbool.h>

#include "bind.h"

typedef struct bind_topo {
    hwloc_topology_t topo;
    bool simulated;       /* read from a file: apply only what exists */
    hwloc_bitmap_t usable; /* the CPUs this process may run on */
} bind_topo_t;

/* The CPUs a rank counts in: cores, or hardware threads. */
hwloc_obj_type_t bind_unit_type(const hnp_wire_placement_t *p);

/* cpuspec.c: "0,2-3" (units) and rankfile slot= texts ("1:0-2", "0:*",
 * "*"), into @p set. */
int bind_parse_units(bind_topo_t *bt, hwloc_obj_type_t unit, const char *text,
                     hwloc_bitmap_t set, char *err, size_t errlen);
int bind_parse_slot(bind_topo_t *bt, hwloc_obj_type_t unit, const char *text,
                    hwloc_bitmap_t set, char *err, size_t errlen);
/* The @p k-th unit of @p text's list, for cpu-list:ordered. */
int bind_nth_unit(bind_topo_t *bt, hwloc_obj_type_t unit, const char *text,
                  uint32_t k, hwloc_bitmap_t set);

/* report.c: Open MPI's way of saying where a rank is bound. */
void bind_describe(bind_topo_t *bt, hwloc_const_bitmap_t set, char *buf,
                   size_t len);

/* place.c */
int bind_place(bind_topo_t *bt, const hnp_wire_placement_t *p,
               uint32_t nlocal, char *const *specs, hwloc_bitmap_t *sets,
               char *err, size_t errlen);

#endif /* HNP_BIND_INTERNAL_H */
