/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each app context on its own hosts (apphosts.h). A context is mapped as a
 * job of its own would be, over its hosts with the slots that the contexts
 * before it left, and its ranks are then pinned to those nodes of the job
 * (hnp_map_request_t.fixed_node), so that the job's map, its daemons and
 * everything after it see one job.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apphosts.h"
#include "hnp_errors.h"

int hnp_apphosts_parse(const char *hosts, const char *hostfile,
                       hnp_nodelist_t *nodes, char *err, size_t errlen)
{
    hnp_nodelist_t wanted = { NULL, 0, 0 };
    char pool_name[512];
    int rc = HNP_SUCCESS;

    if (hostfile != NULL)
        rc = hnp_nodelist_parse_hostfile(nodes, hostfile, err, errlen);
    if (rc != HNP_SUCCESS || hosts == NULL)
        return rc;
    if (hostfile == NULL)
        return hnp_nodelist_parse_hosts(nodes, hosts, err, errlen);
    rc = hnp_nodelist_parse_hosts(&wanted, hosts, err, errlen);
    snprintf(pool_name, sizeof(pool_name), "hostfile %s", hostfile);
    if (rc == HNP_SUCCESS)
        rc = hnp_nodelist_filter(nodes, &wanted, pool_name, err, errlen);
    hnp_nodelist_free(&wanted);
    return rc;
}

static bool same_text(const char *a, const char *b)
{
    return (a == NULL && b == NULL) ||
           (a != NULL && b != NULL && strcmp(a, b) == 0);
}

bool hnp_apphosts_per_context(const hnp_args_t *args)
{
    for (size_t a = 1; a < args->napps; a++)
        if (!same_text(args->apps[a].hosts, args->apps[0].hosts) ||
            !same_text(args->apps[a].hostfile, args->apps[0].hostfile))
            return true;
    return false;
}

static bool names_hosts(const hnp_app_t *app)
{
    return app->hosts != NULL || app->hostfile != NULL;
}

static size_t find_node(const hnp_nodelist_t *nodes, const char *name)
{
    size_t i = 0;

    while (i < nodes->count && strcmp(nodes->nodes[i].name, name) != 0)
        i++;
    return i;
}

/* @p from's nodes into @p into: new ones after, known ones with the most
 * slots either gives. */
static int merge_nodes(hnp_nodelist_t *into, const hnp_nodelist_t *from)
{
    for (size_t i = 0; i < from->count; i++) {
        const hnp_node_t *n = &from->nodes[i];
        size_t at = find_node(into, n->name);
        if (at == into->count) {
            int rc = hnp_nodelist_add(into, n->name, n->slots,
                                      n->slots_given);
            if (rc != HNP_SUCCESS)
                return rc;
        } else if (n->slots_given) {
            hnp_node_t *known = &into->nodes[at];
            if (!known->slots_given || n->slots > known->slots)
                known->slots = n->slots;
            known->slots_given = true;
        }
    }
    return HNP_SUCCESS;
}

int hnp_apphosts_union(const hnp_args_t *args, hnp_nodelist_t *nodes,
                       char *err, size_t errlen)
{
    int rc = HNP_SUCCESS;

    for (size_t a = 0; rc == HNP_SUCCESS && a < args->napps; a++) {
        const hnp_app_t *app = &args->apps[a];
        hnp_nodelist_t own = { NULL, 0, 0 };
        if (!names_hosts(app))
            continue;
        rc = hnp_apphosts_parse(app->hosts, app->hostfile, &own, err,
                                errlen);
        if (rc == HNP_SUCCESS && merge_nodes(nodes, &own) != HNP_SUCCESS) {
            hnp_err_set(err, errlen, "out of memory gathering the hosts");
            rc = HNP_ERR_NOMEM;
        }
        hnp_nodelist_free(&own);
    }
    return rc;
}

/* The context's hosts with the slots still free on each: @p used counts
 * the ranks placed on each node of the job so far. */
static int free_slots(const hnp_app_t *app, const hnp_nodelist_t *nodes,
                      const uint32_t *used, uint32_t default_slots,
                      hnp_nodelist_t *out, char *err, size_t errlen)
{
    hnp_nodelist_t own = { NULL, 0, 0 };
    const hnp_nodelist_t *pool = nodes;
    int rc = HNP_SUCCESS;

    if (names_hosts(app)) {
        rc = hnp_apphosts_parse(app->hosts, app->hostfile, &own, err,
                                errlen);
        pool = &own;
    }
    for (size_t i = 0; rc == HNP_SUCCESS && i < pool->count; i++) {
        size_t at = find_node(nodes, pool->nodes[i].name);
        const hnp_node_t *n = &nodes->nodes[at];
        uint32_t slots;
        if (at == nodes->count) /* none of it free (a DVM's busy node) */
            continue;
        slots = n->slots_given ? n->slots : default_slots;
        slots = slots > used[at] ? slots - used[at] : 0;
        rc = hnp_nodelist_add(out, n->name, slots, true);
        if (rc != HNP_SUCCESS)
            hnp_err_set(err, errlen, "out of memory placing the contexts");
    }
    hnp_nodelist_free(&own);
    return rc;
}

/* One context: mapped over its free slots; its ranks' job nodes into
 * @p fixed, counted in @p used. */
static int place_context(const hnp_app_t *app, size_t index,
                         const hnp_nodelist_t *nodes,
                         const hnp_map_request_t *req, uint32_t *used,
                         uint32_t *fixed, char *err, size_t errlen)
{
    hnp_nodelist_t own = { NULL, 0, 0 };
    hnp_map_request_t sub = *req;
    hnp_job_map_t map = { 0 };
    char why[768] = "";
    uint32_t dflt = req->default_slots > 0 ? req->default_slots : 1;
    int rc = free_slots(app, nodes, used, dflt, &own, why, sizeof(why));

    sub.np = app->np;
    sub.fixed_node = NULL;
    if (rc == HNP_SUCCESS)
        rc = hnp_job_map_build(&own, &sub, &map, why, sizeof(why));
    for (uint32_t r = 0; rc == HNP_SUCCESS && r < map.nprocs; r++) {
        size_t at = find_node(nodes, map.node_names[map.node_of[r]]);
        fixed[r] = (uint32_t)at;
        used[at]++;
    }
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "app context %zu (%s): %s", index + 1,
                    app->argv != NULL && app->argv[0] != NULL
                        ? app->argv[0] : "?", why);
    hnp_job_map_free(&map);
    hnp_nodelist_free(&own);
    return rc;
}

int hnp_apphosts_place(const hnp_args_t *args, const hnp_nodelist_t *nodes,
                       const hnp_map_request_t *req, uint32_t **fixed,
                       char *err, size_t errlen)
{
    uint32_t total = hnp_args_total_np(args), first = 0;
    uint32_t *used = calloc(nodes->count > 0 ? nodes->count : 1,
                            sizeof(*used));
    uint32_t *out = calloc(total > 0 ? total : 1, sizeof(*out));
    int rc = used == NULL || out == NULL ? HNP_ERR_NOMEM : HNP_SUCCESS;

    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory placing the contexts");
    for (size_t a = 0; rc == HNP_SUCCESS && a < args->napps; a++) {
        rc = place_context(&args->apps[a], a, nodes, req, used, out + first,
                           err, errlen);
        first += args->apps[a].np;
    }
    free(used);
    if (rc != HNP_SUCCESS) {
        free(out);
        return rc;
    }
    *fixed = out;
    return HNP_SUCCESS;
}

void hnp_apps_number(hnp_args_t *args, uint32_t nprocs)
{
    uint32_t next = 0;

    if (args->napps == 1 && args->apps[0].np == 0)
        args->apps[0].np = nprocs;
    for (size_t a = 0; a < args->napps; a++) {
        args->apps[a].first_rank = next;
        next += args->apps[a].np;
    }
}
