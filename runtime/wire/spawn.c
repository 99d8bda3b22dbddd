/* SPDX-License-Identifier: BSD-3-Clause */
/* A spawn request and its answer (see spawn.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "spawn.h"

static void pack_strings(hnp_buffer_t *buf, char *const *v, uint32_t n)
{
    hnp_pack_u32(buf, n);
    for (uint32_t i = 0; i < n; i++)
        hnp_pack_string(buf, v[i]);
}

static void pack_app(hnp_buffer_t *buf, const hnp_wire_spawn_app_t *app)
{
    hnp_pack_string(buf, app->cmd);
    pack_strings(buf, app->argv, app->argc);
    pack_strings(buf, app->env, app->nenv);
    hnp_pack_u32(buf, app->maxprocs);
    hnp_pack_string(buf, app->hosts);
    hnp_pack_string(buf, app->hostfile);
    hnp_pack_string(buf, app->add_hosts);
    hnp_pack_string(buf, app->add_hostfile);
    hnp_pack_string(buf, app->wdir);
    hnp_pack_string(buf, app->path);
    hnp_pack_string(buf, app->prefix);
}

int hnp_wire_spawn_request_pack(hnp_buffer_t *buf,
                                const hnp_wire_spawn_request_t *m)
{
    hnp_pack_u32(buf, m->reqid);
    hnp_pack_u32(buf, m->parent_jobid);
    hnp_pack_u32(buf, m->parent_rank);
    hnp_pack_string(buf, m->parent_wdir);
    hnp_pack_string(buf, m->map_by);
    hnp_pack_string(buf, m->rank_by);
    hnp_pack_string(buf, m->bind_to);
    hnp_pack_string(buf, m->ppr);
    hnp_pack_u8(buf, m->display_map);
    hnp_pack_string(buf, m->component);
    hnp_pack_blob(buf, m->data, m->data_len);
    hnp_pack_u32(buf, m->napps);
    for (uint32_t a = 0; a < m->napps; a++)
        pack_app(buf, &m->apps[a]);
    return hnp_buffer_status(buf);
}

/* A count of strings, then the strings, into a new NULL-terminated
 * vector: a count no message could hold (4 bytes a string at least) is
 * refused before anything is allocated. */
static int unpack_strings(hnp_reader_t *rd, uint32_t *n, char ***out)
{
    char **v;

    *n = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS ||
        *n > hnp_reader_remaining(rd) / 4) {
        *n = 0;
        return HNP_ERR_TRUNCATED;
    }
    v = calloc((size_t)*n + 1, sizeof(*v));
    if (v == NULL) {
        *n = 0;
        return HNP_ERR_NOMEM;
    }
    *out = v;
    for (uint32_t i = 0; i < *n; i++)
        v[i] = hnp_unpack_string(rd);
    return hnp_reader_status(rd);
}

static void free_strings(char **v, uint32_t n)
{
    for (uint32_t i = 0; v != NULL && i < n; i++)
        free(v[i]);
    free(v);
}

static int unpack_app(hnp_reader_t *rd, hnp_wire_spawn_app_t *app)
{
    int rc;

    app->cmd = hnp_unpack_string(rd);
    rc = unpack_strings(rd, &app->argc, &app->argv);
    if (rc == HNP_SUCCESS)
        rc = unpack_strings(rd, &app->nenv, &app->env);
    if (rc != HNP_SUCCESS)
        return rc;
    app->maxprocs = hnp_unpack_u32(rd);
    app->hosts = hnp_unpack_string(rd);
    app->hostfile = hnp_unpack_string(rd);
    app->add_hosts = hnp_unpack_string(rd);
    app->add_hostfile = hnp_unpack_string(rd);
    app->wdir = hnp_unpack_string(rd);
    app->path = hnp_unpack_string(rd);
    app->prefix = hnp_unpack_string(rd);
    rc = hnp_reader_status(rd);
    if (rc == HNP_SUCCESS &&
        (app->cmd[0] == '\0' || app->maxprocs == 0 ||
         app->maxprocs > HNP_WIRE_SPAWN_MAX_PROCS))
        rc = HNP_ERR_BAD_PARAM;
    return rc;
}

static int unpack_head(hnp_reader_t *rd, hnp_wire_spawn_request_t *m)
{
    const void *data;

    m->reqid = hnp_unpack_u32(rd);
    m->parent_jobid = hnp_unpack_u32(rd);
    m->parent_rank = hnp_unpack_u32(rd);
    m->parent_wdir = hnp_unpack_string(rd);
    m->map_by = hnp_unpack_string(rd);
    m->rank_by = hnp_unpack_string(rd);
    m->bind_to = hnp_unpack_string(rd);
    m->ppr = hnp_unpack_string(rd);
    m->display_map = hnp_unpack_u8(rd);
    m->component = hnp_unpack_string(rd);
    data = hnp_unpack_blob(rd, &m->data_len);
    if (hnp_reader_status(rd) != HNP_SUCCESS)
        return HNP_ERR_TRUNCATED;
    if (m->data_len > HNP_WIRE_SPAWN_MAX_DATA || m->display_map > 1)
        return HNP_ERR_BAD_PARAM;
    if (m->data_len > 0) {
        if ((m->data = malloc(m->data_len)) == NULL)
            return HNP_ERR_NOMEM;
        memcpy(m->data, data, m->data_len);
    }
    return HNP_SUCCESS;
}

int hnp_wire_spawn_request_unpack(hnp_reader_t *rd,
                                  hnp_wire_spawn_request_t *m)
{
    int rc;

    memset(m, 0, sizeof(*m));
    rc = unpack_head(rd, m);
    if (rc == HNP_SUCCESS) {
        m->napps = hnp_unpack_u32(rd);
        rc = hnp_reader_status(rd);
    }
    if (rc == HNP_SUCCESS &&
        (m->napps == 0 || m->napps > HNP_WIRE_SPAWN_MAX_APPS))
        rc = HNP_ERR_BAD_PARAM;
    /* an app takes 44 bytes at least: eight strings, three counts */
    if (rc == HNP_SUCCESS && m->napps > hnp_reader_remaining(rd) / 44)
        rc = HNP_ERR_TRUNCATED;
    if (rc == HNP_SUCCESS &&
        (m->apps = calloc(m->napps, sizeof(*m->apps))) == NULL)
        rc = HNP_ERR_NOMEM;
    for (uint32_t a = 0; rc == HNP_SUCCESS && a < m->napps; a++)
        rc = unpack_app(rd, &m->apps[a]);
    if (rc != HNP_SUCCESS)
        hnp_wire_spawn_request_clear(m);
    return rc;
}

static void app_clear(hnp_wire_spawn_app_t *app)
{
    free(app->cmd);
    free_strings(app->argv, app->argc);
    free_strings(app->env, app->nenv);
    free(app->hosts);
    free(app->hostfile);
    free(app->add_hosts);
    free(app->add_hostfile);
    free(app->wdir);
    free(app->path);
    free(app->prefix);
}

void hnp_wire_spawn_request_clear(hnp_wire_spawn_request_t *m)
{
    for (uint32_t a = 0; m->apps != NULL && a < m->napps; a++)
        app_clear(&m->apps[a]);
    free(m->apps);
    free(m->parent_wdir);
    free(m->map_by);
    free(m->rank_by);
    free(m->bind_to);
    free(m->ppr);
    free(m->component);
    free(m->data);
    memset(m, 0, sizeof(*m));
}

int hnp_wire_spawn_reply_pack(hnp_buffer_t *buf,
                              const hnp_wire_spawn_reply_t *m)
{
    hnp_pack_u32(buf, m->reqid);
    hnp_pack_i32(buf, m->status);
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_string(buf, m->name);
    hnp_pack_string(buf, m->err);
    return hnp_buffer_status(buf);
}

int hnp_wire_spawn_reply_unpack(hnp_reader_t *rd, hnp_wire_spawn_reply_t *m)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->reqid = hnp_unpack_u32(rd);
    m->status = hnp_unpack_i32(rd);
    m->jobid = hnp_unpack_u32(rd);
    m->name = hnp_unpack_string(rd);
    m->err = hnp_unpack_string(rd);
    rc = hnp_reader_status(rd);
    if (rc == HNP_SUCCESS && m->status > 0)
        rc = HNP_ERR_BAD_PARAM;
    if (rc != HNP_SUCCESS)
        hnp_wire_spawn_reply_clear(m);
    return rc;
}

void hnp_wire_spawn_reply_clear(hnp_wire_spawn_reply_t *m)
{
    free(m->name);
    free(m->err);
    memset(m, 0, sizeof(*m));
}
