/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What --report-bindings says of a rank, in Open MPI's words:
 *
 *   bound to socket 0[core 1[hwt 0-1]], socket 0[core 2[hwt 0-1]]: [../BB/BB/..][../../../..]
 *   is not bound (or bound to all available processors)
 *
 * Cores are numbered inside their socket and hardware threads inside
 * their core; the map has one bracket a socket, '/' between cores, one
 * character a hardware thread.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef struct out {
    char *buf;
    size_t len, used;
} out_t;

static void put(out_t *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (o->used >= o->len)
        return;
    va_start(ap, fmt);
    n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->used += (size_t)n;
}

/* The sockets, or the whole node when hwloc found none. */
static hwloc_obj_t socket_at(bind_topo_t *bt, unsigned s)
{
    if (hwloc_get_nbobjs_by_type(bt->topo, HWLOC_OBJ_PACKAGE) <= 0)
        return s == 0 ? hwloc_get_root_obj(bt->topo) : NULL;
    return hwloc_get_obj_by_type(bt->topo, HWLOC_OBJ_PACKAGE, s);
}

static hwloc_obj_t core_at(bind_topo_t *bt, hwloc_obj_t sock, unsigned c)
{
    return hwloc_get_obj_inside_cpuset_by_type(bt->topo, sock->cpuset,
                                               HWLOC_OBJ_CORE, c);
}

static void put_range(out_t *o, bool *any, int first, int last)
{
    put(o, "%s%d", *any ? "," : "", first);
    if (last > first)
        put(o, "-%d", last);
    *any = true;
}

/* "hwt 0-1": the core's hardware threads in the set, numbered in it. */
static void put_hwts(out_t *o, bind_topo_t *bt, hwloc_obj_t core,
                     hwloc_const_bitmap_t set)
{
    hwloc_obj_t pu;
    int start = -1, t = 0;
    bool any = false;

    put(o, "hwt ");
    for (; (pu = hwloc_get_obj_inside_cpuset_by_type(
                bt->topo, core->cpuset, HWLOC_OBJ_PU, (unsigned)t)); t++) {
        bool in = hwloc_bitmap_isset(set, pu->os_index);
        if (in && start < 0)
            start = t;
        if (!in && start >= 0) {
            put_range(o, &any, start, t - 1);
            start = -1;
        }
    }
    if (start >= 0)
        put_range(o, &any, start, t - 1);
}

static void put_cores(out_t *o, bind_topo_t *bt, hwloc_const_bitmap_t set)
{
    hwloc_obj_t sock, core;
    bool any = false;

    for (unsigned s = 0; (sock = socket_at(bt, s)) != NULL; s++)
        for (unsigned c = 0; (core = core_at(bt, sock, c)) != NULL; c++) {
            if (!hwloc_bitmap_intersects(core->cpuset, set))
                continue;
            put(o, "%ssocket %u[core %u[", any ? ", " : "", s, c);
            put_hwts(o, bt, core, set);
            put(o, "]]");
            any = true;
        }
}

static void put_map(out_t *o, bind_topo_t *bt, hwloc_const_bitmap_t set)
{
    hwloc_obj_t sock, core, pu;

    for (unsigned s = 0; (sock = socket_at(bt, s)) != NULL; s++) {
        put(o, "[");
        for (unsigned c = 0; (core = core_at(bt, sock, c)) != NULL; c++) {
            put(o, c > 0 ? "/" : "");
            for (unsigned t = 0; (pu = hwloc_get_obj_inside_cpuset_by_type(
                                      bt->topo, core->cpuset, HWLOC_OBJ_PU,
                                      t)); t++)
                put(o, hwloc_bitmap_isset(set, pu->os_index) ? "B" : ".");
        }
        put(o, "]");
    }
}

void bind_describe(bind_topo_t *bt, hwloc_const_bitmap_t set, char *buf,
                   size_t len)
{
    out_t o = { buf, len, 0 };
    hwloc_bitmap_t all =
        hwloc_bitmap_dup(hwloc_topology_get_complete_cpuset(bt->topo));
    bool everywhere;

    buf[0] = '\0';
    if (all != NULL && !bt->simulated) /* what this node lets us use */
        hwloc_bitmap_and(all, all, bt->usable);
    everywhere = all == NULL || hwloc_bitmap_iszero(set) ||
                 hwloc_bitmap_isincluded(all, set);
    hwloc_bitmap_free(all);
    if (everywhere) {
        put(&o, "is not bound (or bound to all available processors)");
        return;
    }
    put(&o, "bound to ");
    put_cores(&o, bt, set);
    put(&o, ": ");
    put_map(&o, bt, set);
}
