/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU lists as Open MPI 4.1 reads them, in logical numbers: units (cores,
 * or hardware threads with --use-hwthread-cpus) for --cpu-list and a
 * rankfile's "slot=0,2-3"; "slot=S:C" for core(s) C of socket S, with
 * '*' for all of them and ';' between sockets.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *unit_name(hwloc_obj_type_t unit)
{
    return unit == HWLOC_OBJ_PU ? "hwthread" : "core";
}

/* Calls @p each for every number of "0,2-3" (up to the end or ';'); the
 * text after the list is in *rest. 0, or -1 on bad text. */
static int for_each_number(const char *text, const char **rest,
                           int (*each)(unsigned, void *), void *ctx)
{
    const char *p = text;

    for (;;) {
        char *end;
        errno = 0;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (end == p || errno != 0 || a > 65535)
            return -1;
        p = end;
        if (*p == '-') {
            b = strtoul(p + 1, &end, 10);
            if (end == p + 1 || b < a || b > 65535)
                return -1;
            p = end;
        }
        for (unsigned long k = a; k <= b; k++)
            if (each((unsigned)k, ctx) != 0)
                return -1;
        if (*p != ',')
            break;
        p++;
    }
    *rest = p;
    return 0;
}

typedef struct units_ctx {
    bind_topo_t *bt;
    hwloc_obj_type_t unit;
    hwloc_obj_t within;   /* NULL: the whole node */
    hwloc_bitmap_t set;
    unsigned missing;     /* the number that does not exist, + 1 */
    unsigned count, want; /* for the n-th */
    bool nth;
} units_ctx_t;

static int add_unit(unsigned k, void *arg)
{
    units_ctx_t *c = arg;
    hwloc_obj_t o = c->within != NULL
        ? hwloc_get_obj_inside_cpuset_by_type(c->bt->topo, c->within->cpuset,
                                              c->unit, k)
        : hwloc_get_obj_by_type(c->bt->topo, c->unit, k);

    if (o == NULL) {
        c->missing = k + 1;
        return -1;
    }
    if (!c->nth || c->count == c->want)
        hwloc_bitmap_or(c->set, c->set, o->cpuset);
    c->count++;
    return 0;
}

static void no_such(const units_ctx_t *c, const char *text, char *err,
                    size_t errlen)
{
    if (c->missing > 0)
        snprintf(err, errlen, "\"%s\": %s %u does not exist on this node "
                 "(%d %ss)", text, unit_name(c->unit), c->missing - 1,
                 hwloc_get_nbobjs_by_type(c->bt->topo, c->unit),
                 unit_name(c->unit));
    else
        snprintf(err, errlen, "\"%s\": expected CPU numbers such as 0,2-3 "
                 "or socket:cores such as 1:0-2", text);
}

int bind_parse_units(bind_topo_t *bt, hwloc_obj_type_t unit, const char *text,
                     hwloc_bitmap_t set, char *err, size_t errlen)
{
    units_ctx_t c = { bt, unit, NULL, set, 0, 0, 0, false };
    const char *rest = text;

    if (strcmp(text, "*") == 0) {
        hwloc_bitmap_copy(set, hwloc_topology_get_complete_cpuset(bt->topo));
        return 0;
    }
    if (for_each_number(text, &rest, add_unit, &c) != 0 || *rest != '\0') {
        no_such(&c, text, err, errlen);
        return -1;
    }
    return 0;
}

int bind_nth_unit(bind_topo_t *bt, hwloc_obj_type_t unit, const char *text,
                  uint32_t k, hwloc_bitmap_t set)
{
    units_ctx_t c = { bt, unit, NULL, set, 0, 0, k, true };
    const char *rest = text;

    hwloc_bitmap_zero(set);
    if (for_each_number(text, &rest, add_unit, &c) != 0 || *rest != '\0' ||
        hwloc_bitmap_iszero(set))
        return -1;
    return 0;
}

/* "S:C" parts separated by ';'. */
static int parse_socket_cores(bind_topo_t *bt, const char *text,
                              hwloc_bitmap_t set, char *err, size_t errlen)
{
    const char *p = text;

    while (*p != '\0') {
        char *end;
        unsigned long s = strtoul(p, &end, 10);
        hwloc_obj_t sock = end != p && *end == ':'
            ? hwloc_get_obj_by_type(bt->topo, HWLOC_OBJ_PACKAGE, (unsigned)s)
            : NULL;
        if (sock == NULL) {
            snprintf(err, errlen, "slot=%s: no socket %.*s on this node", text,
                     (int)strcspn(p, ":;"), p);
            return -1;
        }
        p = end + 1;
        units_ctx_t c = { bt, HWLOC_OBJ_CORE, sock, set, 0, 0, 0, false };
        if (*p == '*') {
            hwloc_bitmap_or(set, set, sock->cpuset);
            p++;
        } else if (for_each_number(p, &p, add_unit, &c) != 0) {
            no_such(&c, text, err, errlen);
            return -1;
        }
        if (*p != ';' && *p != '\0') {
            no_such(&c, text, err, errlen);
            return -1;
        }
        p += *p == ';';
    }
    return 0;
}

int bind_parse_slot(bind_topo_t *bt, hwloc_obj_type_t unit, const char *text,
                    hwloc_bitmap_t set, char *err, size_t errlen)
{
    if (strchr(text, ':') != NULL)
        return parse_socket_cores(bt, text, set, err, errlen);
    return bind_parse_units(bt, unit, text, set, err, errlen);
}
