/* SPDX-License-Identifier: BSD-3-Clause */
/* The launch message of phase 3 (see launch.h). */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "launch.h"

static void pack_strings(hnp_buffer_t *buf, char *const *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        hnp_pack_string(buf, v[i]);
}

int hnp_wire_placement_needs_topology(const hnp_wire_placement_t *p)
{
    return p->bind_obj != HNP_OBJ_NONE || p->nspecs > 0 ||
           (p->flags & HNP_PLACE_REPORT) != 0;
}

static void pack_placement(hnp_buffer_t *buf, const hnp_wire_placement_t *p)
{
    hnp_pack_u8(buf, p->map_obj);
    hnp_pack_u8(buf, p->span);
    hnp_pack_u32(buf, p->ppr);
    hnp_pack_u32(buf, p->pe);
    hnp_pack_u8(buf, p->bind_obj);
    hnp_pack_u8(buf, p->flags);
    hnp_pack_string(buf, p->cpu_list);
    hnp_pack_u32(buf, p->nspecs);
    pack_strings(buf, p->specs, p->nspecs);
}

int hnp_wire_launch_pack(hnp_buffer_t *buf, const hnp_wire_launch_t *m)
{
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_u32(buf, m->nprocs);
    hnp_pack_u32(buf, m->nnodes);
    for (uint32_t r = 0; r < m->nprocs; r++)
        hnp_pack_u32(buf, m->node_of[r]);
    for (uint32_t n = 0; n < m->nnodes; n++) {
        hnp_pack_string(buf, m->node_names[n]);
        hnp_pack_u32(buf, m->node_slots[n]);
    }
    hnp_pack_u32(buf, m->universe_size);
    pack_placement(buf, &m->place);
    hnp_pack_i32(buf, m->stdin_target);
    hnp_pack_u8(buf, m->output);
    hnp_pack_u32(buf, m->napps);
    for (uint32_t a = 0; a < m->napps; a++) {
        hnp_pack_u32(buf, m->apps[a].first_rank);
        hnp_pack_u32(buf, m->apps[a].np);
        hnp_pack_u32(buf, m->apps[a].argc);
        pack_strings(buf, m->apps[a].argv, m->apps[a].argc);
        hnp_pack_string(buf, m->apps[a].wdir);
        hnp_pack_u32(buf, m->apps[a].nenv);
        pack_strings(buf, m->apps[a].env, m->apps[a].nenv);
    }
    hnp_pack_string(buf, m->pmi);
    hnp_pack_u32(buf, m->parent_jobid);
    hnp_pack_string(buf, m->spawn_component);
    hnp_pack_blob(buf, m->spawn_data, m->spawn_data_len);
    return hnp_buffer_status(buf);
}

/* Whether @p count entries of at least @p size bytes each could still be
 * in the message: a count no message could hold is refused before
 * anything is allocated for it. */
static bool count_fits(const hnp_reader_t *rd, uint32_t count, size_t size)
{
    return hnp_reader_status(rd) == HNP_SUCCESS &&
           count <= hnp_reader_remaining(rd) / size;
}

/* @p n strings into *out, a new NULL-terminated vector. */
static int unpack_strings(hnp_reader_t *rd, uint32_t n, char ***out)
{
    char **v;

    if (!count_fits(rd, n, 4))
        return HNP_ERR_TRUNCATED;
    v = calloc((size_t)n + 1, sizeof(*v));
    if (v == NULL)
        return HNP_ERR_NOMEM;
    *out = v;
    for (uint32_t i = 0; i < n; i++)
        v[i] = hnp_unpack_string(rd);
    return hnp_reader_status(rd);
}

static void free_strings(char **v, uint32_t n)
{
    for (uint32_t i = 0; v != NULL && i < n; i++)
        free(v[i]);
    free(v);
}

static int unpack_node_of(hnp_reader_t *rd, hnp_wire_launch_t *m)
{
    if (!count_fits(rd, m->nprocs, 4))
        return HNP_ERR_TRUNCATED;
    m->node_of = calloc((size_t)m->nprocs + 1, sizeof(*m->node_of));
    if (m->node_of == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t r = 0; r < m->nprocs; r++)
        m->node_of[r] = hnp_unpack_u32(rd);
    return hnp_reader_status(rd);
}

static int unpack_placement(hnp_reader_t *rd, hnp_wire_placement_t *p,
                            uint32_t nprocs)
{
    p->map_obj = hnp_unpack_u8(rd);
    p->span = hnp_unpack_u8(rd);
    p->ppr = hnp_unpack_u32(rd);
    p->pe = hnp_unpack_u32(rd);
    p->bind_obj = hnp_unpack_u8(rd);
    p->flags = hnp_unpack_u8(rd);
    p->cpu_list = hnp_unpack_string(rd);
    p->nspecs = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS)
        return hnp_reader_status(rd);
    if (p->map_obj > HNP_OBJ_HWTHREAD || p->bind_obj > HNP_OBJ_CPULIST ||
        (p->nspecs != 0 && p->nspecs != nprocs))
        return HNP_ERR_BAD_PARAM;
    return unpack_strings(rd, p->nspecs, &p->specs);
}

/* The bytes the names of the nodes at @p rd take as C strings (each
 * with its NUL), read on a copy of the reader; 0 when they are malformed
 * (a NUL inside one, a length past the end). */
static size_t node_names_size(hnp_reader_t probe, uint32_t nnodes)
{
    size_t total = 0, len;

    for (uint32_t n = 0; n < nnodes; n++) {
        const char *name = hnp_unpack_blob(&probe, &len);
        if (name == NULL || memchr(name, '\0', len) != NULL)
            return 0;
        total += len + 1;
        (void)hnp_unpack_u32(&probe);
    }
    return hnp_reader_status(&probe) == HNP_SUCCESS ? total : 0;
}

/* A node takes at least 8 bytes: its name's length and its slots. The
 * names go into one block (node_names[0] is its start), not one
 * allocation each: every daemon unpacks every node's name for every job
 * (1,024 nodes: a million allocations a job across a DVM's daemons). */
static int unpack_nodes(hnp_reader_t *rd, hnp_wire_launch_t *m)
{
    size_t size = 0, len;
    char *at;

    if (!count_fits(rd, m->nnodes, 8) ||
        (m->nnodes > 0 && (size = node_names_size(*rd, m->nnodes)) == 0))
        return HNP_ERR_TRUNCATED;
    m->node_names = calloc((size_t)m->nnodes + 1, sizeof(*m->node_names));
    m->node_slots = calloc((size_t)m->nnodes + 1, sizeof(*m->node_slots));
    at = size > 0 ? malloc(size) : NULL;
    if (m->node_names == NULL || m->node_slots == NULL ||
        (size > 0 && at == NULL)) {
        free(at);
        return HNP_ERR_NOMEM;
    }
    for (uint32_t n = 0; n < m->nnodes; n++) {
        const char *name = hnp_unpack_blob(rd, &len);
        memcpy(at, name, len);
        at[len] = '\0';
        m->node_names[n] = at;
        at += len + 1;
        m->node_slots[n] = hnp_unpack_u32(rd);
    }
    m->universe_size = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS)
        return hnp_reader_status(rd);
    /* Every rank's node must be one of them. */
    for (uint32_t r = 0; r < m->nprocs; r++)
        if (m->node_of[r] >= m->nnodes)
            return HNP_ERR_BAD_PARAM;
    return HNP_SUCCESS;
}

/* An app takes at least 24 bytes: four counts and two strings. */
static int unpack_apps(hnp_reader_t *rd, hnp_wire_launch_t *m)
{
    int rc;

    m->napps = hnp_unpack_u32(rd);
    if (!count_fits(rd, m->napps, 24))
        return HNP_ERR_TRUNCATED;
    if (m->napps == 0)
        return HNP_ERR_BAD_PARAM;
    m->apps = calloc(m->napps, sizeof(*m->apps));
    if (m->apps == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t a = 0; a < m->napps; a++) {
        hnp_wire_launch_app_t *app = &m->apps[a];
        app->first_rank = hnp_unpack_u32(rd);
        app->np = hnp_unpack_u32(rd);
        app->argc = hnp_unpack_u32(rd);
        if (hnp_reader_status(rd) == HNP_SUCCESS && app->argc == 0)
            return HNP_ERR_BAD_PARAM;
        rc = unpack_strings(rd, app->argc, &app->argv);
        if (rc != HNP_SUCCESS)
            return rc;
        app->wdir = hnp_unpack_string(rd);
        app->nenv = hnp_unpack_u32(rd);
        rc = unpack_strings(rd, app->nenv, &app->env);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return HNP_SUCCESS;
}

/* What a spawned job's daemons learn of its parent and its requester. */
static int unpack_spawn(hnp_reader_t *rd, hnp_wire_launch_t *m)
{
    const void *data;

    m->parent_jobid = hnp_unpack_u32(rd);
    m->spawn_component = hnp_unpack_string(rd);
    data = hnp_unpack_blob(rd, &m->spawn_data_len);
    if (hnp_reader_status(rd) != HNP_SUCCESS)
        return HNP_ERR_TRUNCATED;
    if (m->spawn_data_len > 0) {
        if ((m->spawn_data = malloc(m->spawn_data_len)) == NULL)
            return HNP_ERR_NOMEM;
        memcpy(m->spawn_data, data, m->spawn_data_len);
    }
    return HNP_SUCCESS;
}

int hnp_wire_launch_unpack(hnp_reader_t *rd, hnp_wire_launch_t *m)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->jobid = hnp_unpack_u32(rd);
    m->nprocs = hnp_unpack_u32(rd);
    m->nnodes = hnp_unpack_u32(rd);
    rc = unpack_node_of(rd, m);
    if (rc == HNP_SUCCESS)
        rc = unpack_nodes(rd, m);
    if (rc == HNP_SUCCESS) {
        rc = unpack_placement(rd, &m->place, m->nprocs);
    }
    if (rc == HNP_SUCCESS) {
        m->stdin_target = hnp_unpack_i32(rd);
        m->output = hnp_unpack_u8(rd);
        rc = unpack_apps(rd, m);
    }
    if (rc == HNP_SUCCESS) {
        m->pmi = hnp_unpack_string(rd);
        rc = unpack_spawn(rd, m);
    }
    if (rc != HNP_SUCCESS)
        hnp_wire_launch_clear(m);
    return rc;
}

void hnp_wire_launch_clear(hnp_wire_launch_t *m)
{
    for (uint32_t a = 0; m->apps != NULL && a < m->napps; a++) {
        free_strings(m->apps[a].argv, m->apps[a].argc);
        free_strings(m->apps[a].env, m->apps[a].nenv);
        free(m->apps[a].wdir);
    }
    free(m->apps);
    free(m->node_of);
    if (m->node_names != NULL)
        free(m->node_names[0]); /* the block of all the names */
    free(m->node_names);
    free(m->node_slots);
    free(m->pmi);
    free(m->spawn_component);
    free(m->spawn_data);
    free(m->place.cpu_list);
    free_strings(m->place.specs, m->place.nspecs);
    memset(m, 0, sizeof(*m));
}
