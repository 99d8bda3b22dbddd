/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mapping and binding options, with Open MPI 4.1's meaning (see
 * mapping.h for who decides what, and hnp(1) for each option).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "hnp_errors.h"
#include "mapping.h"
#include "bind/objtype.h"

typedef struct obj_word {
    const char *word;
    hnp_obj_t obj;
} obj_word_t;

static const obj_word_t objects[] = {
    { "core", HNP_OBJ_CORE }, { "socket", HNP_OBJ_SOCKET },
    { "package", HNP_OBJ_SOCKET }, { "numa", HNP_OBJ_NUMA },
    { "hwthread", HNP_OBJ_HWTHREAD }, { NULL, HNP_OBJ_NONE },
};

static const char *const obj_names[] = {
    [HNP_OBJ_NONE] = "none", [HNP_OBJ_MACHINE] = "node",
    [HNP_OBJ_NUMA] = "numa", [HNP_OBJ_SOCKET] = "socket",
    [HNP_OBJ_CORE] = "core", [HNP_OBJ_HWTHREAD] = "hwthread",
    [HNP_OBJ_CPULIST] = "cpu-list",
};

/* "--map-by" and "-map-by" alike, as mpirun takes them; NULL: not long. */
static const char *long_name(const char *opt)
{
    if (strncmp(opt, "--", 2) == 0)
        return opt + 2;
    return opt[0] == '-' && strlen(opt) > 2 ? opt + 1 : NULL;
}

static bool named(const char *opt, const char *name)
{
    const char *n = long_name(opt);

    return n != NULL && strcmp(n, name) == 0;
}

static hnp_obj_t object_of(const char *word, size_t len)
{
    for (const obj_word_t *o = objects; o->word != NULL; o++)
        if (strlen(o->word) == len && strncasecmp(word, o->word, len) == 0)
            return o->obj;
    return HNP_OBJ_NONE;
}

static int positive(const char *text, uint32_t *out)
{
    char *end = NULL;
    unsigned long v;

    errno = 0;
    v = strtoul(text, &end, 10);
    if (!(*text >= '0' && *text <= '9') || (*end != '\0' && *end != ':' &&
        *end != ',') || errno != 0 || v == 0 || v > UINT32_MAX)
        return HNP_ERR_BAD_PARAM;
    *out = (uint32_t)v;
    return HNP_SUCCESS;
}

/* The modifiers after --map-by OBJ: PE=n, [NO]OVERSUBSCRIBE, DISPLAY,
 * separated by ':' or ','. */
static int map_modifiers(hnp_args_t *args, const char *mods, char *err,
                         size_t errlen)
{
    while (*mods != '\0') {
        size_t len = strcspn(mods, ":,");
        if (len > 3 && strncasecmp(mods, "PE=", 3) == 0) {
            if (positive(mods + 3, &args->mapping.place.pe) != HNP_SUCCESS)
                goto bad;
        } else if (len == 13 && strncasecmp(mods, "OVERSUBSCRIBE", 13) == 0)
            args->oversubscribe = true;
        else if (len == 15 && strncasecmp(mods, "NOOVERSUBSCRIBE", 15) == 0)
            args->oversubscribe = false;
        else if (len == 7 && strncasecmp(mods, "DISPLAY", 7) == 0)
            args->mapping.display_map = true;
        else
            goto bad;
        mods += len + (mods[len] != '\0');
    }
    return HNP_SUCCESS;
bad:
    hnp_err_set(err, errlen, "--map-by: unknown modifier \"%.*s\" (hnp takes "
                "PE=n, OVERSUBSCRIBE, NOOVERSUBSCRIBE and DISPLAY%s)",
                (int)strcspn(mods, ":,"), mods,
                isdigit((unsigned char)mods[0])
                    ? "; Hydra's OBJ:N is Open MPI's OBJ:PE=N" : "");
    return HNP_ERR_BAD_PARAM;
}

/* ppr:N:OBJ[:modifiers] */
static int map_ppr(hnp_args_t *args, const char *text, char *err,
                   size_t errlen)
{
    hnp_mapping_t *m = &args->mapping;
    const char *obj = strchr(text, ':');
    size_t len = obj != NULL ? strcspn(obj + 1, ":,") : 0;

    if (obj == NULL || positive(text, &m->ppr) != HNP_SUCCESS ||
        (size_t)(obj - text) != strspn(text, "0123456789")) {
        hnp_err_set(err, errlen, "--map-by ppr:%s: expected ppr:N:node, "
                    "ppr:N:socket, ppr:N:numa, ppr:N:core or ppr:N:hwthread",
                    text);
        return HNP_ERR_BAD_PARAM;
    }
    obj++;
    if (len == 4 && strncasecmp(obj, "node", 4) == 0)
        m->ppr_obj = HNP_OBJ_MACHINE;
    else if ((m->ppr_obj = object_of(obj, len)) == HNP_OBJ_NONE) {
        hnp_err_set(err, errlen, "--map-by ppr:%s: unknown object \"%.*s\" "
                    "(node, socket, numa, core or hwthread)", text, (int)len,
                    obj);
        return HNP_ERR_BAD_PARAM;
    }
    m->place.map_obj = m->ppr_obj;
    m->place.ppr = m->ppr_obj == HNP_OBJ_MACHINE ? 0 : m->ppr;
    args->map_by = HNP_MAP_BY_SLOT;
    return map_modifiers(args, obj + len + (obj[len] != '\0'), err, errlen);
}

static int parse_map_by(hnp_args_t *args, const char *text, char *err,
                        size_t errlen)
{
    hnp_mapping_t *m = &args->mapping;
    size_t len = strcspn(text, ":,");
    hnp_obj_t obj = object_of(text, len);

    if (m->npersocket) {
        hnp_err_set(err, errlen, "--map-by %s: -npersocket is given already "
                    "(it is --map-by ppr:N:socket; give one of them)", text);
        return HNP_ERR_BAD_PARAM;
    }
    m->map_given = true;
    if (strncasecmp(text, "ppr:", 4) == 0)
        return map_ppr(args, text + 4, err, errlen);
    if (len == 4 && strncasecmp(text, "slot", 4) == 0)
        args->map_by = HNP_MAP_BY_SLOT;
    else if (len == 4 && strncasecmp(text, "node", 4) == 0)
        args->map_by = HNP_MAP_BY_NODE;
    else if (obj != HNP_OBJ_NONE)
        args->map_by = HNP_MAP_BY_SLOT;
    else {
        hnp_err_set(err, errlen, "option --map-by expects slot, node, core, "
                    "socket, numa, hwthread or ppr:N:OBJ, got \"%s\"", text);
        return HNP_ERR_BAD_PARAM;
    }
    m->place.map_obj = obj != HNP_OBJ_NONE ? obj : HNP_OBJ_MACHINE;
    /* Open MPI ranks by the mapping object unless told otherwise. */
    m->place.span = obj == HNP_OBJ_SOCKET || obj == HNP_OBJ_NUMA;
    return map_modifiers(args, text + len + (text[len] != '\0'), err, errlen);
}

/* -npersocket N: --map-by ppr:N:socket, as Open MPI 4.1 takes it. */
static int parse_npersocket(hnp_args_t *args, const char *text, char *err,
                            size_t errlen)
{
    hnp_mapping_t *m = &args->mapping;
    uint32_t n;
    char ppr[32];

    if (positive(text, &n) != HNP_SUCCESS ||
        text[strspn(text, "0123456789")] != '\0') {
        hnp_err_set(err, errlen, "option -npersocket expects a positive "
                    "number of processes a socket, got \"%s\"", text);
        return HNP_ERR_BAD_PARAM;
    }
    if (m->map_given && !m->npersocket) {
        hnp_err_set(err, errlen, "-npersocket %s: --map-by is given already "
                    "(-npersocket is --map-by ppr:N:socket; give one of "
                    "them)", text);
        return HNP_ERR_BAD_PARAM;
    }
    snprintf(ppr, sizeof(ppr), "%u:socket", n);
    m->map_given = true;
    m->npersocket = true;
    return map_ppr(args, ppr, err, errlen);
}

static int bind_qualifiers(hnp_mapping_t *m, const char *q, char *err,
                           size_t errlen)
{
    while (*q != '\0') {
        size_t len = strcspn(q, ":,");
        if (len == 16 && strncasecmp(q, "overload-allowed", len) == 0)
            m->place.flags |= HNP_PLACE_OVERLOAD;
        else if (len == 12 && strncasecmp(q, "if-supported", len) == 0)
            m->place.flags |= HNP_PLACE_IF_SUPPORTED;
        else if (len == 7 && strncasecmp(q, "ordered", len) == 0)
            m->place.flags |= HNP_PLACE_ORDERED;
        else {
            hnp_err_set(err, errlen, "--bind-to: unknown qualifier \"%.*s\" "
                        "(overload-allowed, if-supported or ordered%s)",
                        (int)len, q, isdigit((unsigned char)q[0])
                            ? "; for Hydra's OBJ:N, N objects a process, "
                              "give --bind-to OBJ with --cpus-per-proc N"
                            : "");
            return HNP_ERR_BAD_PARAM;
        }
        q += len + (q[len] != '\0');
    }
    return HNP_SUCCESS;
}

static int parse_bind_to(hnp_mapping_t *m, const char *text, char *err,
                         size_t errlen)
{
    size_t len = strcspn(text, ":,");
    hnp_obj_t obj = object_of(text, len);

    m->bind_given = true;
    if (len == 4 && strncasecmp(text, "none", 4) == 0)
        obj = HNP_OBJ_NONE;
    else if (len == 8 && strncasecmp(text, "cpu-list", 8) == 0)
        obj = HNP_OBJ_CPULIST;
    else if (obj == HNP_OBJ_NONE) {
        hnp_err_set(err, errlen, "option --bind-to expects none, hwthread, "
                    "core, socket, numa or cpu-list, got \"%s\"%s", text,
                    len == 4 && strncasecmp(text, "user", 4) == 0
                        ? " (for Hydra's user:A+B, give --cpu-list A,B "
                          "--bind-to cpu-list)" : "");
        return HNP_ERR_BAD_PARAM;
    }
    m->place.bind_obj = (uint8_t)obj;
    return bind_qualifiers(m, text + len + (text[len] != '\0'), err, errlen);
}

static int parse_rank_by(hnp_mapping_t *m, const char *text, char *err,
                         size_t errlen)
{
    hnp_obj_t obj = object_of(text, strlen(text));

    m->rank_given = true;
    if (strcasecmp(text, "node") == 0)
        m->ranking = HNP_RANK_SPAN;
    else if (strcasecmp(text, "slot") == 0 || obj != HNP_OBJ_NONE)
        m->ranking = HNP_RANK_FILL;
    else {
        hnp_err_set(err, errlen, "option --rank-by expects slot, node, core, "
                    "socket, numa or hwthread, got \"%s\"", text);
        return HNP_ERR_BAD_PARAM;
    }
    /* On a node: one socket (NUMA node) in turn, or fill each. */
    m->place.span = obj == HNP_OBJ_SOCKET || obj == HNP_OBJ_NUMA;
    return HNP_SUCCESS;
}

/* "0,2,4-7": logical CPU numbers, checked here, read by the daemons. */
static int parse_cpu_list(hnp_mapping_t *m, char *text, char *err,
                          size_t errlen)
{
    const char *p = text;

    while (*p >= '0' && *p <= '9') {
        p += strspn(p, "0123456789");
        if (*p == '-' && p[1] >= '0' && p[1] <= '9')
            p += 1 + strspn(p + 1, "0123456789");
        if (*p != ',' || p[1] == '\0')
            break;
        p++;
    }
    if (p == text || *p != '\0') {
        hnp_err_set(err, errlen, "option --cpu-list expects CPU numbers and "
                    "ranges such as 0,2,4-7, got \"%s\"", text);
        return HNP_ERR_BAD_PARAM;
    }
    m->place.cpu_list = text;
    return HNP_SUCCESS;
}

int hnp_mapping_parse_flag(hnp_args_t *args, const char *opt)
{
    hnp_mapping_t *m = &args->mapping;

    if (named(opt, "report-bindings"))
        m->place.flags |= HNP_PLACE_REPORT;
    else if (named(opt, "use-hwthread-cpus"))
        m->place.flags |= HNP_PLACE_HWTHREAD_CPUS;
    else if (named(opt, "display-map"))
        m->display_map = true;
    else if (named(opt, "display-allocation"))
        m->display_allocation = true;
    else
        return 0;
    return 1;
}

int hnp_mapping_parse_valued(hnp_args_t *args, const char *opt, char *value,
                             char *err, size_t errlen)
{
    hnp_mapping_t *m = &args->mapping;
    int rc;

    if (named(opt, "map-by"))
        rc = parse_map_by(args, value, err, errlen);
    else if (named(opt, "bind-to"))
        rc = parse_bind_to(m, value, err, errlen);
    else if (named(opt, "npersocket"))
        rc = parse_npersocket(args, value, err, errlen);
    else if (named(opt, "rank-by"))
        rc = parse_rank_by(m, value, err, errlen);
    else if (named(opt, "cpus-per-proc") || named(opt, "cpus-per-rank")) {
        rc = positive(value, &m->cpus_per_proc);
        if (rc != HNP_SUCCESS || value[strspn(value, "0123456789")] != '\0') {
            hnp_err_set(err, errlen, "option %s expects a positive number, "
                        "got \"%s\"", opt, value);
            rc = HNP_ERR_BAD_PARAM;
        }
    } else if (named(opt, "cpu-list"))
        rc = parse_cpu_list(m, value, err, errlen);
    else if (named(opt, "rankfile") || strcmp(opt, "-rf") == 0) {
        m->rankfile = value;
        rc = HNP_SUCCESS;
    } else
        return 0;
    return rc < 0 ? rc : 1;
}

static int refuse(char *err, size_t errlen, const char *what)
{
    hnp_err_set(err, errlen, "%s", what);
    return HNP_ERR_BAD_PARAM;
}

/* The binding a job gets when --bind-to is not given. Open MPI binds
 * every job (to cores or sockets); hnp binds only when a mapping option
 * places ranks inside a node, so that a job that asked for nothing of the
 * kind never loads hwloc (hnp(1) says so). */
static hnp_obj_t implied_binding(const hnp_mapping_t *m)
{
    if (m->place.cpu_list != NULL)
        return HNP_OBJ_CPULIST;
    if (m->place.pe > 1)
        return (m->place.flags & HNP_PLACE_HWTHREAD_CPUS) ? HNP_OBJ_HWTHREAD
                                                         : HNP_OBJ_CORE;
    if (m->place.map_obj > HNP_OBJ_MACHINE)
        return (hnp_obj_t)m->place.map_obj;
    return HNP_OBJ_NONE;
}

int hnp_mapping_finish(hnp_args_t *args, char *err, size_t errlen)
{
    hnp_mapping_t *m = &args->mapping;

    if (m->place.map_obj == HNP_OBJ_NONE)
        m->place.map_obj = HNP_OBJ_MACHINE;
    if (m->cpus_per_proc > 0 && m->place.pe > 0 &&
        m->cpus_per_proc != m->place.pe)
        return refuse(err, errlen, "--cpus-per-proc and --map-by ...:PE= "
                      "give different numbers of CPUs a rank");
    if (m->cpus_per_proc > 0) {
        m->place.pe = m->cpus_per_proc;
        if (!m->map_given) /* Open MPI: --map-by numa:PE=n */
            m->place.map_obj = HNP_OBJ_NUMA;
    }
    if (m->place.pe > 1 && (m->place.map_obj == HNP_OBJ_CORE ||
                            m->place.map_obj == HNP_OBJ_HWTHREAD))
        return refuse(err, errlen, "--map-by core or hwthread cannot give a "
                      "rank several CPUs (PE=n): map by slot, socket or numa");
    if (m->rankfile != NULL && m->map_given)
        return refuse(err, errlen, "--rankfile places every rank itself: it "
                      "cannot be combined with --map-by");
    if (m->place.bind_obj == HNP_OBJ_CPULIST && m->place.cpu_list == NULL)
        return refuse(err, errlen, "--bind-to cpu-list needs --cpu-list");
    if (!m->bind_given)
        m->place.bind_obj = (uint8_t)implied_binding(m);
    if (m->place.pe > 1 && m->place.bind_obj != HNP_OBJ_CORE &&
        m->place.bind_obj != HNP_OBJ_HWTHREAD)
        return refuse(err, errlen, "PE=n binds each rank to its n CPUs: "
                      "--bind-to must be core or hwthread with it");
    return HNP_SUCCESS;
}

/* ppr:N:OBJ puts N on every OBJ of a node: N times their number ranks a
 * node (-N), counted on one node's topology. */
int hnp_mapping_node_capacity(hnp_args_t *args, const char *topo_file,
                              char *err, size_t errlen)
{
    hnp_mapping_t *m = &args->mapping;
    hwloc_topology_t topo;
    int count = -1;

    if (m->ppr == 0)
        return HNP_SUCCESS;
    if (m->ppr_obj == HNP_OBJ_MACHINE) {
        args->npernode = m->ppr;
        return HNP_SUCCESS;
    }
    if (hwloc_topology_init(&topo) == 0) {
        if ((topo_file == NULL || topo_file[0] == '\0' ||
             hwloc_topology_set_xml(topo, topo_file) == 0) &&
            hwloc_topology_load(topo) == 0)
            count = hwloc_get_nbobjs_by_type(
                topo, hnp_obj_hwloc_type(m->ppr_obj));
        hwloc_topology_destroy(topo);
    }
    if (count <= 0) {
        hnp_err_set(err, errlen, "--map-by ppr:%u:%s: cannot count the %ss "
                    "of a node%s%s", m->ppr, hnp_mapping_obj_name(m->ppr_obj),
                    hnp_mapping_obj_name(m->ppr_obj),
                    topo_file != NULL && topo_file[0] != '\0' ? " in " : "",
                    topo_file != NULL ? topo_file : "");
        return HNP_ERR_NOT_AVAILABLE;
    }
    args->npernode = m->ppr * (uint32_t)count;
    return HNP_SUCCESS;
}

void hnp_mapping_ppr_option(const hnp_mapping_t *m, char *out, size_t size)
{
    if (m->npersocket)
        snprintf(out, size, "-npersocket %u", m->ppr);
    else
        snprintf(out, size, "--map-by ppr:%u:%s", m->ppr,
                 hnp_mapping_obj_name(m->ppr_obj));
}

const char *hnp_mapping_obj_name(hnp_obj_t obj)
{
    return obj <= HNP_OBJ_CPULIST ? obj_names[obj] : "?";
}

void hnp_mapping_free(hnp_mapping_t *m)
{
    for (uint32_t r = 0; m->place.specs != NULL && r < m->place.nspecs; r++)
        free(m->place.specs[r]);
    free(m->place.specs);
    m->place.specs = NULL;
    m->place.nspecs = 0;
}
