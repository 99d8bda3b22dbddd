/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A daemon's side of dynamic jobs (hnp_rte_spawn() in hnp_rte.h): a pmi
 * component's spawn request goes to the HNP (wire/spawn.h), which maps,
 * launches and answers; the answer goes back to the component's callback.
 * A request of a job that ends here before its answer fails then, as the
 * job's other requests do (request.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "job.h"
#include "rte.h"
#include "wire/auth.h"
#include "wire/spawn.h"

typedef struct spawn_pending {
    struct spawn_pending *next;
    uint32_t reqid;
    uint32_t parent_jobid;
    hnp_rte_spawn_fn cb;
    void *cbdata;
} spawn_pending_t;

struct hnp_rte_spawns {
    spawn_pending_t *pending;
    uint32_t next_reqid;
    bool listening;
};

static spawn_pending_t *take_pending(hnp_rte_t *rte, uint32_t reqid,
                                     uint32_t jobid)
{
    struct hnp_rte_spawns *s = rte->spawns;

    for (spawn_pending_t **p = s != NULL ? &s->pending : NULL;
         p != NULL && *p != NULL; p = &(*p)->next)
        if ((reqid != 0 && (*p)->reqid == reqid) ||
            (reqid == 0 && (*p)->parent_jobid == jobid)) {
            spawn_pending_t *found = *p;
            *p = found->next;
            return found;
        }
    return NULL;
}

static void on_spawn_reply(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                           const void *data, size_t len, void *cbdata)
{
    hnp_wire_spawn_reply_t m;
    spawn_pending_t *p;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "spawn answer", hnp_wire_spawn_reply_unpack,
                        data, len, &m))
        return;
    if ((p = take_pending(rte, m.reqid, 0)) == NULL) {
        HNP_VERBOSE(rte->log, 1, "the answer to spawn request %u came after "
                    "its job ended here; dropped", m.reqid);
    } else {
        p->cb(rte, m.status, m.jobid, m.status == HNP_SUCCESS ? m.name : NULL,
              m.status == HNP_SUCCESS ? NULL : m.err, p->cbdata);
        free(p);
    }
    hnp_wire_spawn_reply_clear(&m);
}

static int spawns_ready(hnp_rte_t *rte)
{
    int rc;

    if (rte->spawns == NULL &&
        (rte->spawns = calloc(1, sizeof(*rte->spawns))) == NULL)
        return HNP_ERR_NOMEM;
    if (rte->spawns->listening)
        return HNP_SUCCESS;
    rc = hnp_rte_recv(rte, HNP_TAG_SPAWN_REPLY, on_spawn_reply, NULL);
    rte->spawns->listening = rc == HNP_SUCCESS;
    return rc;
}

static bool request_sound(const hnp_spawn_request_t *req)
{
    if (req == NULL || req->napps == 0 || req->apps == NULL ||
        req->napps > HNP_WIRE_SPAWN_MAX_APPS ||
        req->data_len > HNP_SPAWN_DATA_MAX ||
        (req->data_len > 0 && req->data == NULL))
        return false;
    for (uint32_t a = 0; a < req->napps; a++) {
        const hnp_spawn_app_t *app = &req->apps[a];
        if (app->cmd == NULL || app->cmd[0] == '\0' || app->maxprocs == 0 ||
            app->maxprocs > HNP_WIRE_SPAWN_MAX_PROCS)
            return false;
    }
    return true;
}

static uint32_t count_strings(char *const *v)
{
    uint32_t n = 0;

    while (v != NULL && v[n] != NULL)
        n++;
    return n;
}

/* The request as the wire carries it; it lends the caller's strings. */
static int pack_request(const hnp_spawn_request_t *req, uint32_t reqid,
                        uint32_t parent_jobid, hnp_buffer_t *buf)
{
    hnp_wire_spawn_app_t *apps = calloc(req->napps, sizeof(*apps));
    hnp_wire_spawn_request_t m = {
        .reqid = reqid, .parent_jobid = parent_jobid,
        .parent_rank = req->parent_rank,
        .parent_wdir = (char *)req->parent_wdir,
        .map_by = (char *)req->map_by, .rank_by = (char *)req->rank_by,
        .bind_to = (char *)req->bind_to, .ppr = (char *)req->ppr,
        .display_map = req->display_map ? 1 : 0,
        .component = (char *)req->component, .data = (void *)req->data,
        .data_len = req->data_len, .napps = req->napps, .apps = apps,
    };
    int rc;

    if (apps == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t a = 0; a < req->napps; a++) {
        const hnp_spawn_app_t *in = &req->apps[a];
        apps[a] = (hnp_wire_spawn_app_t){
            .cmd = (char *)in->cmd, .argc = count_strings(in->argv),
            .argv = (char **)in->argv, .nenv = count_strings(in->env),
            .env = (char **)in->env, .maxprocs = in->maxprocs,
            .hosts = (char *)in->hosts, .hostfile = (char *)in->hostfile,
            .add_hosts = (char *)in->add_hosts,
            .add_hostfile = (char *)in->add_hostfile,
            .wdir = (char *)in->wdir, .path = (char *)in->path,
            .prefix = (char *)in->prefix,
        };
    }
    rc = hnp_wire_spawn_request_pack(buf, &m);
    free(apps);
    return rc;
}

int hnp_rte_spawn(hnp_rte_t *rte, uint32_t parent_jobid,
                  const hnp_spawn_request_t *req, hnp_rte_spawn_fn cb,
                  void *cbdata)
{
    spawn_pending_t *p;
    hnp_buffer_t buf;
    int rc;

    if (rte == NULL || rte->is_hnp || cb == NULL || !request_sound(req) ||
        hnp_rte_job_find(rte, parent_jobid) == NULL)
        return HNP_ERR_BAD_PARAM;
    if ((rc = spawns_ready(rte)) != HNP_SUCCESS)
        return rc;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return HNP_ERR_NOMEM;
    if (++rte->spawns->next_reqid == 0) /* 0 names no request */
        rte->spawns->next_reqid = 1;
    *p = (spawn_pending_t){ .reqid = rte->spawns->next_reqid,
                            .parent_jobid = parent_jobid, .cb = cb,
                            .cbdata = cbdata };
    hnp_buffer_init(&buf);
    rc = pack_request(req, p->reqid, parent_jobid, &buf);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send(rte, 0, HNP_TAG_SPAWN, buf.data, buf.len);
    hnp_buffer_release(&buf);
    if (rc != HNP_SUCCESS) {
        free(p);
        return rc;
    }
    HNP_VERBOSE(rte->log, 1, "job %u rank %u asks for a new job (%u apps, "
                "request %u)", parent_jobid, req->parent_rank, req->napps,
                p->reqid);
    p->next = rte->spawns->pending;
    rte->spawns->pending = p;
    return HNP_SUCCESS;
}

void hnp_rte_spawns_job_end(hnp_rte_t *rte, uint32_t jobid)
{
    spawn_pending_t *p;

    while ((p = take_pending(rte, 0, jobid)) != NULL) {
        p->cb(rte, HNP_ERR_UNREACHABLE, 0, NULL,
              "the spawning job ended before the children started",
              p->cbdata);
        free(p);
    }
}

void hnp_rte_spawns_destroy(hnp_rte_t *rte)
{
    spawn_pending_t *p;

    if (rte->spawns == NULL)
        return;
    while ((p = rte->spawns->pending) != NULL) {
        rte->spawns->pending = p->next;
        free(p);
    }
    free(rte->spawns);
    rte->spawns = NULL;
}

/* ------------------------------------------------------------ job info */

int hnp_rte_job_set_nodes(hnp_rte_t *rte, uint32_t jobid, uint32_t nnodes,
                          char *const *names)
{
    hnp_rte_job_t *job = hnp_rte_job_find(rte, jobid);
    size_t size = 0, len;
    char **copy, *at;

    if (job == NULL || job->node_names != NULL || names == NULL)
        return HNP_ERR_BAD_PARAM;
    for (uint32_t n = 0; n < nnodes; n++)
        size += strlen(names[n] != NULL ? names[n] : "") + 1;
    /* one block for all the names (copy[0] its start): a daemon copies
     * every node's name for every job */
    copy = calloc(nnodes + 1, sizeof(*copy));
    at = size > 0 ? malloc(size) : NULL;
    if (copy == NULL || (size > 0 && at == NULL)) {
        free(copy);
        free(at);
        return HNP_ERR_NOMEM;
    }
    for (uint32_t n = 0; n < nnodes; n++) {
        len = strlen(names[n] != NULL ? names[n] : "");
        memcpy(at, names[n] != NULL ? names[n] : "", len + 1);
        copy[n] = at;
        at += len + 1;
    }
    job->node_names = copy;
    job->nnodes = nnodes;
    return HNP_SUCCESS;
}

typedef struct info_query {
    hnp_rte_t *rte;
    uint32_t jobid;
    char *name;
    hnp_rte_job_info_fn cb;
    void *cbdata;
    hnp_rte_timer_t *timer;
} info_query_t;

static hnp_rte_job_t *job_named(hnp_rte_t *rte, uint32_t jobid,
                                const char *name)
{
    char each[HNP_AUTH_JOB_NAME_LEN];

    if (jobid != 0)
        return hnp_rte_job_find(rte, jobid);
    for (hnp_rte_job_t *job = rte->jobs; job != NULL && name != NULL;
         job = job->next) {
        hnp_auth_job_name(rte->secret, job->jobid, each);
        if (strcmp(each, name) == 0)
            return job;
    }
    return NULL;
}

/* The job as hnp_rte_job_info_t tells it: nodes numbered from 1. */
static int answer_info(hnp_rte_t *rte, const hnp_rte_job_t *job,
                       hnp_rte_job_info_fn cb, void *cbdata)
{
    char name[HNP_AUTH_JOB_NAME_LEN];
    uint32_t *node_of = calloc(job->nprocs + 1, sizeof(*node_of));
    const char **names = calloc(job->nnodes + 2, sizeof(*names));
    hnp_rte_job_info_t info = {
        .jobid = job->jobid, .name = name, .nprocs = job->nprocs,
        .nnodes = job->nnodes, .node_of = node_of,
        .node_names = (const char *const *)names,
    };

    if (node_of == NULL || names == NULL) {
        free(node_of);
        free(names);
        return HNP_ERR_NOMEM;
    }
    hnp_auth_job_name(rte->secret, job->jobid, name);
    for (uint32_t r = 0; r < job->nprocs; r++)
        node_of[r] = job->node_of[r] + 1;
    for (uint32_t n = 0; n < job->nnodes; n++)
        names[n + 1] = job->node_names[n];
    cb(rte, HNP_SUCCESS, &info, cbdata);
    free(node_of);
    free(names);
    return HNP_SUCCESS;
}

static void info_due(hnp_rte_t *rte, void *cbdata)
{
    info_query_t *q = cbdata;
    const hnp_rte_job_t *job = job_named(rte, q->jobid, q->name);

    hnp_rte_timer_destroy(q->timer);
    if (job == NULL || job->node_names == NULL ||
        answer_info(rte, job, q->cb, q->cbdata) != HNP_SUCCESS)
        q->cb(rte, job == NULL ? HNP_ERR_NOT_FOUND : HNP_ERR_NOMEM, NULL,
              q->cbdata);
    free(q->name);
    free(q);
}

/* Every daemon holds every live job of the runtime (each launch reaches
 * all of them): the answer is this daemon's own, from the loop. */
int hnp_rte_job_info(hnp_rte_t *rte, uint32_t jobid, const char *name,
                     hnp_rte_job_info_fn cb, void *cbdata)
{
    info_query_t *q;

    if (rte == NULL || cb == NULL || (jobid == 0 && name == NULL))
        return HNP_ERR_BAD_PARAM;
    if ((q = calloc(1, sizeof(*q))) == NULL ||
        (name != NULL && (q->name = strdup(name)) == NULL)) {
        free(q);
        return HNP_ERR_NOMEM;
    }
    *q = (info_query_t){ .rte = rte, .jobid = jobid, .name = q->name,
                         .cb = cb, .cbdata = cbdata };
    if ((q->timer = hnp_rte_timer_create(rte, 0, info_due, q)) == NULL) {
        free(q->name);
        free(q);
        return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}
