/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A standalone hnp starts daemons where its job has ranks. A spawn whose
 * host keys name a node without one has a daemon started there first
 * (runtime/core/adding.c), as mpirun does: the request waits for it, then
 * goes on as if the node had had a daemon all along. PMIX_HOST and
 * PMIX_HOSTFILE pick among the allocation's nodes; PMIX_ADD_HOST and
 * PMIX_ADD_HOSTFILE may also name new ones, which join the allocation of
 * the family (in a DVM, the DVM, as PRRTE's does) with their daemons. A
 * daemon that cannot be started fails that spawn alone, at once.
 *
 * Spawns that need daemons while others are being started wait in line
 * (the core's growth_queue.c) and are asked again in their turn: nodes
 * the growth before started daemons on need none any more. A request
 * whose parent job ended or whose daemon was lost leaves the line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "apphosts.h"
#include "dvm_server.h"
#include "hnp_buffer.h"
#include "hosts/spawnhosts.h"
#include "wire/spawn.h"

/* A spawn request waiting for the daemons it needs: being started, or
 * in line for its turn. */
struct dvm_growing {
    struct dvm_growing *next; /* dvm->growing */
    hnp_dvm_t *dvm;
    hnp_vpid_t src;
    uint32_t parent_jobid;
    uint32_t parent_rank;
    void *data;              /* the request as it came */
    size_t len;
    struct timespec asked;   /* when it first came */
    hnp_nodelist_t nodes;    /* the nodes added, with their slots */
    hnp_rte_growth_waiter_t *waiter; /* in line; NULL: being started */
    bool dropped;            /* its requester went away: no replay */
    dvm_spawn_replay_fn replay;
};
typedef struct dvm_growing dvm_growing_t;

static void add_allocated(void *ctx, const char *node, uint32_t slots)
{
    (void)hnp_nodelist_add(ctx, node, slots, slots > 0);
}

/* The batch system's allocation (the plm's allocated_nodes), in its
 * order; empty outside one. */
static int batch_allocation(hnp_rte_t *rte, hnp_nodelist_t *alloc)
{
    int rc = HNP_SUCCESS;

    if (rte->plm->allocated_nodes != NULL)
        rc = rte->plm->allocated_nodes(rte, add_allocated, alloc);
    return rc == HNP_ERR_NOT_AVAILABLE ? HNP_SUCCESS : rc;
}

int dvm_allocation(const hnp_dvm_t *dvm, hnp_nodelist_t *alloc, char *err,
                   size_t errlen)
{
    const hnp_args_t *args = dvm->runtime->args;
    int rc = hnp_apphosts_parse(args->hosts, args->hostfile, alloc, err,
                                errlen);

    if (rc == HNP_SUCCESS && alloc->count == 0)
        rc = batch_allocation(dvm->rte, alloc);
    if (rc != HNP_SUCCESS && err[0] == '\0')
        hnp_err_set(err, errlen, "cannot read the allocation: %s",
                    hnp_strerror(rc));
    return rc;
}

static bool runs_daemon(const char *name, void *ctx)
{
    return hnp_dvm_runs_daemon(ctx, name);
}

/* The nodes @p key names (@p text: a host list, or for a hostfile key
 * the file's path from the spawning rank's directory) that run no daemon,
 * into @p out; a node outside @p alloc the key cannot add is refused,
 * naming it and the key. */
static int key_needs(hnp_dvm_t *dvm, const hnp_wire_spawn_request_t *req,
                     const hnp_wire_spawn_app_t *app,
                     const hnp_spawnhosts_key_t *key, bool file,
                     const hnp_nodelist_t *alloc, hnp_nodelist_t *out,
                     char *err, size_t errlen)
{
    hnp_nodelist_t named = { NULL, 0, 0 };
    char path[4096], why[1024] = "";
    int rc;

    if (key->text[0] == '\0')
        return HNP_SUCCESS;
    if (file) {
        dvm_spawn_host_path(dvm, req, app, key->text, path, sizeof(path));
        rc = hnp_nodelist_parse_hostfile(&named, path, why, sizeof(why));
    } else {
        rc = hnp_nodelist_parse_hosts(&named, key->text, why, sizeof(why));
    }
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "%s %s: %s", key->key, key->text, why);
    else
        rc = hnp_spawnhosts_without_daemon(&named, key, alloc,
                                           hnp_dvm_noun(dvm), runs_daemon,
                                           dvm, out, err, errlen);
    hnp_nodelist_free(&named);
    return rc;
}

/* The nodes each of @p app's four host keys needs a daemon on. */
static int app_needs(hnp_dvm_t *dvm, const hnp_wire_spawn_request_t *req,
                     const hnp_wire_spawn_app_t *app,
                     const hnp_nodelist_t *alloc, hnp_nodelist_t *out,
                     char *err, size_t errlen)
{
    const struct {
        hnp_spawnhosts_key_t key;
        bool file;
    } keys[] = {
        { { "PMIX_HOST", app->hosts, false, false }, false },
        { { "PMIX_HOSTFILE", app->hostfile, false, true }, true },
        { { "PMIX_ADD_HOST", app->add_hosts, true, true }, false },
        { { "PMIX_ADD_HOSTFILE", app->add_hostfile, true, true }, true },
    };
    int rc = HNP_SUCCESS;

    for (size_t k = 0; rc == HNP_SUCCESS && k < sizeof(keys) / sizeof(*keys);
         k++)
        rc = key_needs(dvm, req, app, &keys[k].key, keys[k].file, alloc, out,
                       err, errlen);
    return rc;
}

/* A request that names no node (nor adds one) and finds too few free
 * slots on the nodes with daemons takes the allocation's others, in its
 * order, as mpirun's daemons on every node would have given them (and
 * plm_base_daemons_on_all_nodes gives them: after the nodes with ranks).
 * With --oversubscribe it fits anyway. */
static bool wants_more_nodes(const hnp_dvm_t *dvm,
                             const hnp_wire_spawn_request_t *req)
{
    uint64_t want = 0, free_slots = 0;

    if (dvm->runtime->args->oversubscribe)
        return false;
    for (uint32_t a = 0; a < req->napps; a++) {
        const hnp_wire_spawn_app_t *app = &req->apps[a];
        if (app->hosts[0] != '\0' || app->hostfile[0] != '\0' ||
            app->add_hosts[0] != '\0' || app->add_hostfile[0] != '\0')
            return false;
        want += app->maxprocs;
    }
    for (uint32_t n = 0; n < dvm->runtime->map.nnodes; n++)
        if (!dvm->lost[n])
            free_slots += dvm->free_slots[n];
    return want > free_slots;
}

static int every_node_without_daemon(hnp_dvm_t *dvm,
                                     const hnp_nodelist_t *alloc,
                                     hnp_nodelist_t *out)
{
    int rc = HNP_SUCCESS;

    for (size_t k = 0; rc == HNP_SUCCESS && k < alloc->count; k++) {
        const hnp_node_t *node = &alloc->nodes[k];
        if (!hnp_dvm_runs_daemon(dvm, node->name) &&
            hnp_nodelist_find(out, node->name) == NULL)
            rc = hnp_nodelist_add(out, node->name,
                                  node->slots > 0 ? node->slots : 1,
                                  node->slots_given);
    }
    return rc;
}

/* @p nodes against a batch system's allocation (the plm's, plm slurm's
 * srun), read once: a node outside it is refused, naming it, rather than
 * left for the launcher to fail; and a launcher that numbers daemons in
 * its allocation's order (HNP_PLM_CAP_ALLOCATION_ORDER: srun's
 * SLURM_NODEID) numbers the added ones so too: @p nodes, which take the
 * next vpids in their order, are put in it. */
static int fit_batch(hnp_dvm_t *dvm, hnp_nodelist_t *nodes, char *err,
                     size_t errlen)
{
    hnp_nodelist_t batch = { NULL, 0, 0 };
    bool ordered = dvm->rte->plm->capabilities & HNP_PLM_CAP_ALLOCATION_ORDER;
    size_t next = 0;
    int rc = nodes->count > 0 ? batch_allocation(dvm->rte, &batch)
                              : HNP_SUCCESS;

    for (size_t i = 0; rc == HNP_SUCCESS && batch.count > 0 &&
                       i < nodes->count; i++)
        if (hnp_nodelist_find(&batch, nodes->nodes[i].name) == NULL) {
            hnp_err_set(err, errlen, "node %s is outside the batch "
                        "system's allocation, where plm %s cannot start a "
                        "daemon", nodes->nodes[i].name,
                        dvm->rte->selected[0]);
            rc = HNP_ERR_BAD_PARAM;
        }
    for (size_t b = 0; rc == HNP_SUCCESS && ordered && b < batch.count; b++)
        for (size_t j = next; j < nodes->count; j++) {
            if (strcmp(nodes->nodes[j].name, batch.nodes[b].name) != 0)
                continue;
            hnp_node_t held = nodes->nodes[next];
            nodes->nodes[next++] = nodes->nodes[j];
            nodes->nodes[j] = held;
            break;
        }
    hnp_nodelist_free(&batch);
    return rc;
}

int dvm_grow_needed(hnp_dvm_t *dvm, const hnp_wire_spawn_request_t *req,
                    hnp_nodelist_t *out, char *err, size_t errlen)
{
    hnp_nodelist_t alloc = { NULL, 0, 0 };
    int rc = HNP_SUCCESS;

    /* a DVM's allocation is its daemons' nodes */
    if (dvm->family_only)
        rc = dvm_allocation(dvm, &alloc, err, errlen);
    for (uint32_t a = 0; rc == HNP_SUCCESS && a < req->napps; a++)
        rc = app_needs(dvm, req, &req->apps[a], &alloc, out, err, errlen);
    if (rc == HNP_SUCCESS && dvm->family_only && wants_more_nodes(dvm, req))
        rc = every_node_without_daemon(dvm, &alloc, out);
    if (rc == HNP_SUCCESS)
        rc = fit_batch(dvm, out, err, errlen);
    hnp_nodelist_free(&alloc);
    return rc;
}

/* @p map takes node @p node as a new last one, without ranks. */
static int map_add_node(hnp_job_map_t *map, const hnp_node_t *node)
{
    uint32_t n = map->nnodes;
    char **names = realloc(map->node_names, (n + 1) * sizeof(*names));
    uint32_t *size = NULL, *slots = NULL;

    if (names != NULL)
        map->node_names = names;
    if (names == NULL ||
        (size = realloc(map->local_size, (n + 1) * sizeof(*size))) == NULL)
        return HNP_ERR_NOMEM;
    map->local_size = size;
    if ((slots = realloc(map->node_slots, (n + 1) * sizeof(*slots))) == NULL)
        return HNP_ERR_NOMEM;
    map->node_slots = slots;
    if ((names[n] = strdup(node->name)) == NULL)
        return HNP_ERR_NOMEM;
    size[n] = 0;
    slots[n] = node->slots;
    map->nnodes = n + 1;
    return HNP_SUCCESS;
}

/* The DVM's tables take node @p node (a new last one, without ranks), and
 * so do the maps of the jobs running on its nodes: a job's node index is
 * a daemon's vpid, and an added daemon must find itself in the map of
 * every job it is told of (a parent a spawned job connects to). */
static int add_node(hnp_dvm_t *dvm, const hnp_node_t *node)
{
    hnp_job_map_t *map = &dvm->runtime->map;
    uint32_t n = map->nnodes;
    int rc = dvm_grow_node_tables(dvm, n + 1);

    if (rc == HNP_SUCCESS)
        rc = map_add_node(map, node);
    for (dvm_conn_t *c = dvm->conns; rc == HNP_SUCCESS && c != NULL;
         c = c->next) {
        hnp_job_map_t *own;
        if (!c->running)
            continue;
        own = &hnp_dvm_job_of(c->job)->map;
        if (own->nnodes == n)
            rc = map_add_node(own, node);
    }
    if (rc != HNP_SUCCESS)
        return rc;
    dvm->free_slots[n] = node->slots;
    dvm->lost[n] = false;
    dvm->alive++;
    return HNP_SUCCESS;
}

/* The jobs running in the runtime reach the added daemons as they
 * reached the others: they hold them without ranks, join their
 * all-gathers and know their namespaces. */
static void tell_running_jobs(hnp_dvm_t *dvm, hnp_vpid_t vpid)
{
    hnp_job_send_launch_to(dvm->runtime, vpid);
    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next)
        if (c->running)
            hnp_job_send_launch_to(hnp_dvm_job_of(c->job), vpid);
}

static void growing_unlink(dvm_growing_t *g)
{
    for (dvm_growing_t **at = &g->dvm->growing; *at != NULL;
         at = &(*at)->next)
        if (*at == g) {
            *at = g->next;
            break;
        }
}

static void growing_free(dvm_growing_t *g)
{
    growing_unlink(g);
    hnp_nodelist_free(&g->nodes);
    free(g->data);
    free(g);
}

/* Whether @p g's requester is still there to be answered: its parent
 * job runs, and its daemon does. */
static bool requester_gone(hnp_dvm_t *dvm, const dvm_growing_t *g)
{
    hnp_job_t *parent = dvm_family_job(dvm, g->parent_jobid);
    uint32_t node = g->src - 1;

    return g->dropped || parent == NULL || parent->ending ||
           (g->src > 0 && node < dvm->runtime->map.nnodes &&
            dvm->lost[node]);
}

static void added(hnp_rte_t *rte, int status, const char *why, void *ctx)
{
    dvm_growing_t *g = ctx;
    hnp_dvm_t *dvm = g->dvm;
    hnp_vpid_t first = rte->nprocs - (uint32_t)g->nodes.count;

    for (size_t i = 0; status == HNP_SUCCESS && i < g->nodes.count; i++)
        status = add_node(dvm, &g->nodes.nodes[i]);
    if (status == HNP_SUCCESS) {
        for (size_t i = 0; i < g->nodes.count; i++)
            tell_running_jobs(dvm, first + (hnp_vpid_t)i);
        dvm_announce_collectives(dvm);
        why = NULL;
    } else if (why == NULL) {
        why = "out of memory adding the nodes";
    }
    growing_unlink(g);
    if (!requester_gone(dvm, g))
        g->replay(dvm, g->src, g->data, g->len, why, &g->asked);
    growing_free(g);
}

/* @p ctx's turn: the request again, which asks again what it needs. */
static void turn_taken(hnp_rte_t *rte, void *ctx)
{
    dvm_growing_t *g = ctx;
    hnp_dvm_t *dvm = g->dvm;

    (void)rte;
    g->waiter = NULL; /* the core forgets it */
    growing_unlink(g);
    if (requester_gone(dvm, g))
        HNP_VERBOSE(dvm->rte->log, 1, "the spawn of rank %u of job %u left "
                    "the line: its job or its daemon is gone",
                    g->parent_rank, g->parent_jobid);
    else
        g->replay(dvm, g->src, g->data, g->len, NULL, &g->asked);
    growing_free(g);
}

static dvm_growing_t *growing_new(hnp_dvm_t *dvm, hnp_vpid_t src,
                                  const hnp_wire_spawn_request_t *req,
                                  const void *data, size_t len,
                                  const struct timespec *asked,
                                  dvm_spawn_replay_fn replay)
{
    dvm_growing_t *g = calloc(1, sizeof(*g));

    if (g == NULL || (g->data = malloc(len + 1)) == NULL) {
        free(g);
        return NULL;
    }
    memcpy(g->data, data, len);
    g->dvm = dvm;
    g->src = src;
    g->parent_jobid = req->parent_jobid;
    g->parent_rank = req->parent_rank;
    g->len = len;
    g->asked = *asked;
    g->replay = replay;
    g->next = dvm->growing;
    dvm->growing = g;
    return g;
}

/* In line behind the growth under way (and those waiting before). */
static int wait_in_line(dvm_growing_t *g, char *err, size_t errlen)
{
    hnp_rte_t *rte = g->dvm->rte;
    uint32_t ahead = hnp_rte_growth_waiting(rte);
    int rc = hnp_rte_growth_wait(rte, turn_taken, g, &g->waiter);

    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "out of memory");
        return rc;
    }
    HNP_VERBOSE(rte->log, 1, "the spawn of rank %u of job %u waits for the "
                "daemons being started (%u requests before it)",
                g->parent_rank, g->parent_jobid, ahead);
    return HNP_SUCCESS;
}

int dvm_grow_then_replay(hnp_dvm_t *dvm, hnp_vpid_t src,
                         const hnp_wire_spawn_request_t *req,
                         const void *data, size_t len,
                         const struct timespec *asked, hnp_nodelist_t *nodes,
                         dvm_spawn_replay_fn replay, char *err, size_t errlen)
{
    dvm_growing_t *g = growing_new(dvm, src, req, data, len, asked, replay);
    char **names = NULL;
    int rc = HNP_ERR_NOMEM;

    if (g != NULL && hnp_rte_growth_busy(dvm->rte)) {
        rc = wait_in_line(g, err, errlen);
        if (rc != HNP_SUCCESS)
            growing_free(g);
        return rc;
    }
    if (g != NULL && (names = calloc(nodes->count + 1, sizeof(*names))) !=
                         NULL) {
        g->nodes = *nodes;
        *nodes = (hnp_nodelist_t){ NULL, 0, 0 };
        for (size_t i = 0; i < g->nodes.count; i++)
            names[i] = g->nodes.nodes[i].name;
        rc = hnp_rte_add_daemons(dvm->rte, names, (uint32_t)g->nodes.count,
                                 added, g, err, errlen);
        if (rc != HNP_SUCCESS)
            growing_free(g);
    } else if (g != NULL) {
        growing_free(g);
    }
    free(names);
    if (rc == HNP_ERR_NOMEM && err[0] == '\0')
        hnp_err_set(err, errlen, "out of memory");
    return rc;
}

/* @p g's requester went away: out of line, or its growth goes on
 * unheard of (its daemons still join the runtime). */
static void drop(dvm_growing_t *g)
{
    if (g->waiter != NULL) {
        hnp_rte_growth_unwait(g->dvm->rte, g->waiter);
        growing_free(g);
    } else {
        g->dropped = true;
    }
}

void dvm_grow_drop_job(hnp_dvm_t *dvm, uint32_t jobid)
{
    for (dvm_growing_t *g = dvm->growing, *next; g != NULL; g = next) {
        next = g->next;
        if (g->parent_jobid == jobid)
            drop(g);
    }
}

void dvm_grow_drop_lost(hnp_dvm_t *dvm)
{
    for (dvm_growing_t *g = dvm->growing, *next; g != NULL; g = next) {
        next = g->next;
        if (requester_gone(dvm, g))
            drop(g);
    }
}

void dvm_grow_release(hnp_dvm_t *dvm)
{
    while (dvm->growing != NULL) {
        dvm_growing_t *g = dvm->growing;
        if (g->waiter != NULL)
            hnp_rte_growth_unwait(dvm->rte, g->waiter);
        else
            hnp_rte_growth_abandon(dvm->rte, g);
        growing_free(g);
    }
}
