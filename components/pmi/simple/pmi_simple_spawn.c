/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `simple` component's spawns: a PMI spawn request (spawn.c) made
 * into the runtime's (hnp_rte_spawn()), and what a spawned job's daemons
 * give its ranks: the preput keys in its kvs (PARENT_ROOT_PORT_NAME),
 * PMI_SPAWNED=1 (PMI-1) and spawner-jobid (PMI-2 fullinit).
 *
 * MPICH's info keys: host and hosts (the nodes, comma separated), wdir,
 * path (where to look for the program), hostfile. Others are ignored, as
 * Hydra ignores them.
 *
 * The preput keys travel as the request's opaque bytes
 * (hnp_spawn_request_t::data): u32 count, then key and value strings
 * (hnp_buffer.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "hnp_rte.h"
#include "pmi_simple_internal.h"

typedef struct simple_spawn {
    simple_job_t *job;
    uint64_t ticket;
} simple_spawn_t;

static void spawned(hnp_rte_t *rte, int status, uint32_t jobid,
                    const char *name, const char *err, void *cbdata)
{
    simple_spawn_t *s = cbdata;

    (void)rte;
    (void)jobid;
    if (s->job->srv != NULL)
        pmi_simple_spawn_done(s->job->srv, s->ticket, status, name, err);
    simple_job_unref(s->job);
    free(s);
}

/* The info keys MPICH passes (and Hydra honours) into @p app. */
static void app_info(simple_job_t *job, const pmi_simple_spawn_app_t *a,
                     hnp_spawn_app_t *app)
{
    for (size_t i = 0; i < a->ninfo; i++) {
        const char *k = a->info[i].key, *v = a->info[i].value;
        if (strcmp(k, "host") == 0 || strcmp(k, "hosts") == 0)
            app->hosts = v;
        else if (strcmp(k, "wdir") == 0)
            app->wdir = v;
        else if (strcmp(k, "path") == 0)
            app->path = v;
        else if (strcmp(k, "hostfile") == 0)
            app->hostfile = v;
        else
            HNP_VERBOSE(hnp_log_stream("pmi"), 1, "simple: job %u: spawn "
                        "info key %s ignored", job->jobid, k);
    }
}

static int pack_preput(const pmi_simple_spawn_t *req, hnp_buffer_t *buf)
{
    hnp_pack_u32(buf, (uint32_t)req->npreput);
    for (size_t i = 0; i < req->npreput; i++) {
        hnp_pack_string(buf, req->preput[i].key);
        hnp_pack_string(buf, req->preput[i].value);
    }
    return hnp_buffer_status(buf);
}

static void refuse(simple_job_t *job, uint64_t ticket, int rc,
                   const char *why)
{
    pmi_simple_spawn_done(job->srv, ticket, rc, NULL, why);
}

void simple_rank_spawn(void *ctx, uint32_t rank,
                       const pmi_simple_spawn_t *req, uint64_t ticket)
{
    simple_job_t *job = ctx;
    hnp_spawn_app_t *apps = calloc(req->napps, sizeof(*apps));
    hnp_spawn_request_t sr = { .napps = (uint32_t)req->napps,
                               .parent_rank = rank, .component = "simple" };
    simple_spawn_t *s = malloc(sizeof(*s));
    hnp_buffer_t buf;
    int rc;

    hnp_buffer_init(&buf);
    if (apps == NULL || s == NULL || pack_preput(req, &buf) != HNP_SUCCESS) {
        rc = HNP_ERR_NOMEM;
        goto fail;
    }
    for (size_t i = 0; i < req->napps; i++) {
        apps[i] = (hnp_spawn_app_t){ .cmd = req->apps[i].cmd,
                                     .argv = req->apps[i].argv,
                                     .maxprocs = req->apps[i].maxprocs };
        app_info(job, &req->apps[i], &apps[i]);
    }
    sr.apps = apps;
    sr.data = buf.data;
    sr.data_len = buf.len;
    *s = (simple_spawn_t){ .job = job, .ticket = ticket };
    job->refs++;
    rc = hnp_rte_spawn(job->rte, job->jobid, &sr, spawned, s);
    if (rc == HNP_SUCCESS) {
        free(apps);
        hnp_buffer_release(&buf);
        return;
    }
    job->refs--;
fail:
    free(apps);
    free(s);
    hnp_buffer_release(&buf);
    refuse(job, ticket, rc, rc == HNP_ERR_NOMEM ? "out of memory"
                                                : "the spawn request was "
                                                  "refused (too large?)");
}

/* ------------------------------------------------------------ children */

void simple_spawned_free(simple_spawned_t *sp)
{
    for (size_t i = 0; i < sp->nattrs; i++) {
        free((char *)sp->attrs[i].key);
        free((char *)sp->attrs[i].value);
    }
    free(sp->attrs);
    memset(sp, 0, sizeof(*sp));
}

int simple_spawned_load(const hnp_pmi_job_t *pj, simple_spawned_t *sp,
                        char *err, size_t errlen)
{
    hnp_reader_t rd;
    uint32_t n;

    memset(sp, 0, sizeof(*sp));
    if (pj->parent_jobid == 0 || pj->spawn_component == NULL ||
        strcmp(pj->spawn_component, "simple") != 0 || pj->spawn_data_len == 0)
        return HNP_SUCCESS;
    hnp_reader_init(&rd, pj->spawn_data, pj->spawn_data_len);
    n = hnp_unpack_u32(&rd);
    if (hnp_reader_status(&rd) != HNP_SUCCESS ||
        n > hnp_reader_remaining(&rd) / 8) {
        hnp_err_set(err, errlen, "the spawn's preput keys are malformed");
        return HNP_ERR_BAD_PARAM;
    }
    if (n > 0 && (sp->attrs = calloc(n, sizeof(*sp->attrs))) == NULL)
        return HNP_ERR_NOMEM;
    for (; sp->nattrs < n; sp->nattrs++) {
        char *k = hnp_unpack_string(&rd), *v = hnp_unpack_string(&rd);
        sp->attrs[sp->nattrs] = (pmi_simple_attr_t){ k, v };
        if (k == NULL || v == NULL) {
            sp->nattrs++;
            simple_spawned_free(sp);
            hnp_err_set(err, errlen, "the spawn's preput keys are "
                        "malformed");
            return HNP_ERR_BAD_PARAM;
        }
    }
    return HNP_SUCCESS;
}
