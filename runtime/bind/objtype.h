/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hwloc object type of a placement object (wire/launch.h): one table
 * for the HNP, which maps ranks on a node's topology, and the binding
 * module, which places them there. Header only: the HNP does not load the
 * binding module.
 */
#ifndef HNP_BIND_OBJTYPE_H
#define HNP_BIND_OBJTYPE_H

#include <hwloc.h>

#include "wire/launch.h"

/** hwloc's type for @p obj; a hardware thread for anything finer. */
static inline hwloc_obj_type_t hnp_obj_hwloc_type(hnp_obj_t obj)
{
    switch (obj) {
    case HNP_OBJ_NUMA:
        return HWLOC_OBJ_NUMANODE;
    case HNP_OBJ_SOCKET:
        return HWLOC_OBJ_PACKAGE;
    case HNP_OBJ_CORE:
        return HWLOC_OBJ_CORE;
    default:
        return HWLOC_OBJ_PU;
    }
}

#endif /* HNP_BIND_OBJTYPE_H */
