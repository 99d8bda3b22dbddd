/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nodes a spawn adds to the allocation (PMIX_ADD_HOST,
 * PMIX_ADD_HOSTFILE; Open MPI's "add-host" and "add-hostfile" info keys).
 * As Open MPI's mpirun and PRRTE take them, the added nodes join the
 * nodes the family (in a DVM: the DVM) may use and, for a program that
 * names no host or hostfile of its own, are where its children go. A node
 * added that runs no daemon, inside the allocation or outside it, has one
 * started first (dvm_grow.c), and keeps it: later spawns, and in a DVM
 * later jobs, may use the node. Only a launcher that cannot start daemons
 * once the runtime runs (one that starts them with a command of its own,
 * as srun) leaves such a node without one: it is refused, naming it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvm_server.h"
#include "hosts/hostlist.h"
#include "wire/spawn.h"

/* @p path as the spawning rank meant it: from its working directory. */
static void resolve_path(const char *path, const char *wdir, char *out,
                         size_t len)
{
    if (path[0] == '/' || wdir == NULL || wdir[0] == '\0')
        snprintf(out, len, "%s", path);
    else
        snprintf(out, len, "%s/%s", wdir, path);
}

/* Each node of @p nodes, which @p key adds, holds a daemon (dvm_grow.c
 * started one where it could): else why not, naming it. */
static int check_added(const hnp_dvm_t *dvm, const char *key,
                       const hnp_nodelist_t *nodes, char *err, size_t errlen)
{
    for (size_t i = 0; i < nodes->count; i++) {
        if (hnp_dvm_runs_daemon(dvm, nodes->nodes[i].name))
            continue;
        hnp_err_set(err, errlen, "cannot add node %s (%s) to %s: it runs "
                    "no daemon, and plm %s starts none once the runtime "
                    "runs", nodes->nodes[i].name, key, hnp_dvm_noun(dvm),
                    dvm->rte->selected[0]);
        return HNP_ERR_NOT_AVAILABLE;
    }
    return HNP_SUCCESS;
}

/* The nodes @p key adds (@p text: a host list, or a hostfile's path from
 * @p wdir), checked, into @p added. */
static int parse_added(const hnp_dvm_t *dvm, const char *key,
                       const char *text, const char *wdir,
                       hnp_nodelist_t *added, char *err, size_t errlen)
{
    hnp_nodelist_t nodes = { NULL, 0, 0 };
    char path[4096];
    int rc;

    if (strcmp(key, "PMIX_ADD_HOSTFILE") == 0) {
        resolve_path(text, wdir, path, sizeof(path));
        rc = hnp_nodelist_parse_hostfile(&nodes, path, err, errlen);
    } else {
        rc = hnp_nodelist_parse_hosts(&nodes, text, err, errlen);
    }
    if (rc == HNP_SUCCESS && nodes.count == 0) {
        hnp_err_set(err, errlen, "%s %s names no node", key, text);
        rc = HNP_ERR_BAD_PARAM;
    }
    if (rc == HNP_SUCCESS)
        rc = check_added(dvm, key, &nodes, err, errlen);
    for (size_t i = 0; rc == HNP_SUCCESS && i < nodes.count; i++)
        if (hnp_nodelist_add(added, nodes.nodes[i].name, 0, false) !=
            HNP_SUCCESS) {
            hnp_err_set(err, errlen, "out of memory");
            rc = HNP_ERR_NOMEM;
        }
    hnp_nodelist_free(&nodes);
    return rc;
}

/* "a,b,c": the names of @p added, malloc'd. */
static char *join_names(const hnp_nodelist_t *added)
{
    size_t len = 1, at = 0;
    char *text;

    for (size_t i = 0; i < added->count; i++)
        len += strlen(added->nodes[i].name) + 1;
    if ((text = malloc(len)) == NULL)
        return NULL;
    text[0] = '\0';
    for (size_t i = 0; i < added->count; i++)
        at += (size_t)snprintf(text + at, len - at, "%s%s", i > 0 ? "," : "",
                               added->nodes[i].name);
    return text;
}

static int add_hosts_of(hnp_dvm_t *dvm, hnp_wire_spawn_app_t *app,
                        const char *wdir, char *err, size_t errlen)
{
    hnp_nodelist_t added = { NULL, 0, 0 };
    int rc = HNP_SUCCESS;
    char *hosts;

    if (app->add_hosts[0] != '\0')
        rc = parse_added(dvm, "PMIX_ADD_HOST", app->add_hosts, wdir, &added,
                         err, errlen);
    if (rc == HNP_SUCCESS && app->add_hostfile[0] != '\0')
        rc = parse_added(dvm, "PMIX_ADD_HOSTFILE", app->add_hostfile, wdir,
                         &added, err, errlen);
    /* the program runs across the nodes it adds, unless it names its own */
    if (rc == HNP_SUCCESS && app->hosts[0] == '\0' &&
        app->hostfile[0] == '\0') {
        if ((hosts = join_names(&added)) == NULL) {
            hnp_err_set(err, errlen, "out of memory");
            rc = HNP_ERR_NOMEM;
        } else {
            free(app->hosts);
            app->hosts = hosts;
        }
    }
    hnp_nodelist_free(&added);
    return rc;
}

/* The directory a relative hostfile of a spawn is read from: the app's
 * (Open MPI gives its parent's), the parent's, or its job's. */
static const char *hostfile_dir(hnp_dvm_t *dvm,
                                const hnp_wire_spawn_request_t *req,
                                const hnp_wire_spawn_app_t *app)
{
    dvm_conn_t *c;

    if (app->wdir[0] != '\0')
        return app->wdir;
    if (req->parent_wdir[0] != '\0')
        return req->parent_wdir;
    if ((c = dvm_running_job(dvm, req->parent_jobid)) != NULL)
        return hnp_dvm_job_cwd(c->job);
    return dvm->runtime->wdir;
}

void dvm_spawn_host_path(hnp_dvm_t *dvm, const hnp_wire_spawn_request_t *req,
                         const hnp_wire_spawn_app_t *app, const char *path,
                         char *out, size_t len)
{
    resolve_path(path, hostfile_dir(dvm, req, app), out, len);
}

/* @p app's PMIX_HOSTFILE as the spawning rank meant it, whatever
 * directory its children start in. */
static int own_hostfile(hnp_dvm_t *dvm, const hnp_wire_spawn_request_t *req,
                        hnp_wire_spawn_app_t *app, char *err, size_t errlen)
{
    char path[4096], *copy;

    if (app->hostfile[0] == '\0' || app->hostfile[0] == '/')
        return HNP_SUCCESS;
    dvm_spawn_host_path(dvm, req, app, app->hostfile, path, sizeof(path));
    if ((copy = strdup(path)) == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    free(app->hostfile);
    app->hostfile = copy;
    return HNP_SUCCESS;
}

int dvm_spawn_add_hosts(hnp_dvm_t *dvm, hnp_wire_spawn_request_t *req,
                        char *err, size_t errlen)
{
    for (uint32_t a = 0; a < req->napps; a++) {
        hnp_wire_spawn_app_t *app = &req->apps[a];
        int rc = own_hostfile(dvm, req, app, err, errlen);
        if (rc == HNP_SUCCESS &&
            (app->add_hosts[0] != '\0' || app->add_hostfile[0] != '\0'))
            rc = add_hosts_of(dvm, app, hostfile_dir(dvm, req, app), err,
                              errlen);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return HNP_SUCCESS;
}
