/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What libpmix is told of a job (PMIx_server_register_nspace): the job's
 * sizes, this node's peers, leader and size, each app, each local rank's
 * local rank, node rank, node, host and app, and every other rank's
 * host. No node map or proc map (PMIX_NODE_MAP, PMIX_PROC_MAP), and
 * no other node's info: libpmix 4.2's server expands the maps into a
 * record of every rank and of every node of the job, and then, at each
 * rank's PMIx_Init, copies every node's record into a reply and never
 * frees the copy (some 2.7 kB a node for each rank that connects): with
 * the maps a daemon grew by some 7 kB a rank of an Open MPI job. The
 * shared store (gds ds21) still wants an entry for every rank of the job
 * (its set-up fails at the first client otherwise): each other rank gets
 * its host, which is what Open MPI asks of a peer. That entry is most of
 * what a daemon pays a rank of the job (1.75 kB with libpmix 4.2.2,
 * whatever the key: its record of a rank is a 128-slot array, 1 kB, and a
 * 0.4 kB table entry), and it cannot wait for a rank of the job to
 * connect: libpmix 4.2 tells the host of a connection (client_connected,
 * with no callback) only after it has handed the rank the job's data.
 * Open MPI's
 * MPI_Init fails without the local and node ranks, and silently drops
 * shared memory for TCP without the local peers or with a server host
 * name that is not this node's: this node is named
 * job->node_names[job->my_node] in both. Node and app info go under
 * PMIX_NODE_INFO_ARRAY and PMIX_APP_INFO_ARRAY, the keys libpmix reads
 * them from (PMIX_NODE_INFO and PMIX_APP_INFO only qualify a query).
 *
 * hnp numbers a job's nodes as the runtime's daemons; a runtime that
 * outlives its jobs has nodes where a job has no rank. PMIx is told only
 * of the nodes with ranks (and this one), numbered from 0 in hnp's order:
 * its node count is the job's, as Open MPI expects.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

/* A growing string (the maps and the peer lists). */
typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text_t;

static void text_add(text_t *t, const char *piece)
{
    size_t n = strlen(piece);

    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap > 0 ? t->cap * 2 : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *grown = realloc(t->s, cap);
        if (grown == NULL) {
            t->failed = true;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, piece, n + 1);
    t->len += n;
}

static void text_add_rank(text_t *t, bool first, uint32_t rank)
{
    char num[16];

    snprintf(num, sizeof(num), "%s%u", first ? "" : ",", (unsigned)rank);
    text_add(t, num);
}

/* Where the ranks of the job are: per node its count, leader and peers
 * (ascending), per rank its local rank on its node. */
typedef struct layout {
    uint32_t *count;      /* [nnodes] */
    uint32_t *leader;     /* [nnodes] lowest rank, UINT32_MAX if none */
    uint16_t *local_rank; /* [nprocs] */
    text_t *peers;        /* [nnodes] "r,r,r" */
    uint32_t *pmix_id;    /* [nnodes] the node's id to PMIx, or UINT32_MAX
                             for a node of no rank of the job */
    uint32_t nlisted;     /* the nodes PMIx is told of */
} layout_t;

static void layout_free(layout_t *l, uint32_t nnodes)
{
    if (l->peers != NULL)
        for (uint32_t n = 0; n < nnodes; n++)
            free(l->peers[n].s);
    free(l->peers);
    free(l->count);
    free(l->leader);
    free(l->local_rank);
    free(l->pmix_id);
}

static int layout_build(layout_t *l, const hnp_pmi_job_t *job)
{
    l->count = calloc(job->nnodes, sizeof(*l->count));
    l->leader = calloc(job->nnodes, sizeof(*l->leader));
    l->local_rank = calloc(job->nprocs, sizeof(*l->local_rank));
    l->peers = calloc(job->nnodes, sizeof(*l->peers));
    l->pmix_id = calloc(job->nnodes, sizeof(*l->pmix_id));
    if (l->count == NULL || l->leader == NULL || l->local_rank == NULL ||
        l->peers == NULL || l->pmix_id == NULL)
        return HNP_ERR_NOMEM;
    if (job->my_node == 0 || job->my_node > job->nnodes)
        return HNP_ERR_BAD_PARAM;
    for (uint32_t n = 0; n < job->nnodes; n++)
        l->leader[n] = UINT32_MAX;
    for (uint32_t r = 0; r < job->nprocs; r++) {
        uint32_t n = job->node_of[r] - 1; /* hnp numbers nodes from 1 */
        if (n >= job->nnodes)
            return HNP_ERR_BAD_PARAM;
        if (l->count[n] == 0)
            l->leader[n] = r;
        l->local_rank[r] = (uint16_t)l->count[n];
        text_add_rank(&l->peers[n], l->count[n] == 0, r);
        l->count[n]++;
    }
    for (uint32_t n = 0; n < job->nnodes; n++) {
        if (l->peers[n].failed)
            return HNP_ERR_NOMEM;
        /* a job registered here with no rank here (for a connect) is
         * told of its own nodes alone: an empty one breaks the map */
        bool listed = l->count[n] > 0 ||
                      (n + 1 == job->my_node && job->nlocal > 0);
        l->pmix_id[n] = listed ? l->nlisted++ : UINT32_MAX;
    }
    return HNP_SUCCESS;
}

/* An info whose value is an array of @p n infos (filled by the caller). */
static pmix_info_t *info_array(pmix_info_t *info, const char *key, size_t n)
{
    pmix_data_array_t *darray;

    PMIX_DATA_ARRAY_CREATE(darray, n, PMIX_INFO);
    PMIX_LOAD_KEY(info->key, key);
    info->value.type = PMIX_DATA_ARRAY;
    info->value.data.darray = darray;
    return darray->array;
}

static void node_info(pmix_info_t *info, const hnp_pmi_job_t *job,
                      const layout_t *l, uint32_t n)
{
    pmix_info_t *a = info_array(info, PMIX_NODE_INFO_ARRAY,
                                l->count[n] > 0 ? 6 : 3);
    uint32_t size = l->count[n];

    PMIx_Info_load(&a[0], PMIX_NODEID, &l->pmix_id[n], PMIX_UINT32);
    PMIx_Info_load(&a[1], PMIX_HOSTNAME, job->node_names[n + 1], PMIX_STRING);
    PMIx_Info_load(&a[2], PMIX_LOCAL_SIZE, &size, PMIX_UINT32);
    if (size == 0)
        return;
    PMIx_Info_load(&a[3], PMIX_NODE_SIZE, &size, PMIX_UINT32);
    PMIx_Info_load(&a[4], PMIX_LOCAL_PEERS, l->peers[n].s, PMIX_STRING);
    PMIx_Info_load(&a[5], PMIX_LOCALLDR, &l->leader[n], PMIX_PROC_RANK);
}

static void app_info(pmix_info_t *info, const hnp_pmi_app_t *app,
                     uint32_t appnum)
{
    pmix_info_t *a = info_array(info, PMIX_APP_INFO_ARRAY, 3);

    PMIx_Info_load(&a[0], PMIX_APPNUM, &appnum, PMIX_UINT32);
    PMIx_Info_load(&a[1], PMIX_APP_SIZE, &app->nprocs, PMIX_UINT32);
    PMIx_Info_load(&a[2], PMIX_APPLDR, &app->first_rank, PMIX_PROC_RANK);
}

static uint32_t app_of(const hnp_pmi_job_t *job, uint32_t rank)
{
    for (uint32_t a = 0; a < job->napps; a++)
        if (rank - job->apps[a].first_rank < job->apps[a].nprocs)
            return a;
    return 0;
}

static void proc_info(pmix_info_t *info, const hnp_pmi_job_t *job,
                      const layout_t *l, uint32_t rank)
{
    pmix_info_t *a = info_array(info, PMIX_PROC_DATA, 8);
    uint32_t node = job->node_of[rank] - 1; /* hnp's node - 1 */
    uint32_t appnum = app_of(job, rank);
    uint32_t app_rank = job->napps > 0 ? rank - job->apps[appnum].first_rank
                                       : rank;

    PMIx_Info_load(&a[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_load(&a[1], PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_load(&a[2], PMIX_LOCAL_RANK, &l->local_rank[rank], PMIX_UINT16);
    PMIx_Info_load(&a[3], PMIX_NODE_RANK, &l->local_rank[rank], PMIX_UINT16);
    PMIx_Info_load(&a[4], PMIX_NODEID, &l->pmix_id[node], PMIX_UINT32);
    PMIx_Info_load(&a[5], PMIX_HOSTNAME, job->node_names[node + 1],
                   PMIX_STRING);
    PMIx_Info_load(&a[6], PMIX_APPNUM, &appnum, PMIX_UINT32);
    PMIx_Info_load(&a[7], PMIX_APP_RANK, &app_rank, PMIX_PROC_RANK);
}

/* Another node's rank: its host. (Its node id would cost libpmix a key
 * more to file, some 1 us a rank of the job at set-up, and no rank of
 * this node can read it from the shared store.) */
static void peer_info(pmix_info_t *info, const hnp_pmi_job_t *job,
                      uint32_t rank)
{
    pmix_info_t *a = info_array(info, PMIX_PROC_DATA, 2);
    uint32_t node = job->node_of[rank] - 1; /* hnp's node - 1 */

    PMIx_Info_load(&a[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_load(&a[1], PMIX_HOSTNAME, job->node_names[node + 1],
                   PMIX_STRING);
}

/* "node0,node1,...": the job's nodes, in PMIx's numbering. */
static char *node_list(const hnp_pmi_job_t *job, const layout_t *l)
{
    text_t nodes = { 0 };

    for (uint32_t n = 0; n < job->nnodes; n++) {
        if (l->pmix_id[n] == UINT32_MAX)
            continue;
        if (l->pmix_id[n] > 0)
            text_add(&nodes, ",");
        text_add(&nodes, job->node_names[n + 1]);
    }
    if (nodes.failed) {
        free(nodes.s);
        return NULL;
    }
    return nodes.s;
}

/* The job-wide keys: 9 entries. */
#define NSPACE_JOB_KEYS 9

static void job_info(pmix_info_t *info, const hnp_pmi_job_t *job,
                     const layout_t *l, char *nodes)
{
    uint32_t napps = job->napps;

    PMIx_Info_load(&info[0], PMIX_JOBID, job->name, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_JOB_SIZE, &job->nprocs, PMIX_UINT32);
    PMIx_Info_load(&info[2], PMIX_UNIV_SIZE, &job->universe_size, PMIX_UINT32);
    PMIx_Info_load(&info[3], PMIX_MAX_PROCS, &job->universe_size, PMIX_UINT32);
    PMIx_Info_load(&info[4], PMIX_NUM_NODES, &l->nlisted, PMIX_UINT32);
    PMIx_Info_load(&info[5], PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    PMIx_Info_load(&info[6], PMIX_TMPDIR, job->tmpdir, PMIX_STRING);
    PMIx_Info_load(&info[7], PMIX_NSDIR, job->tmpdir, PMIX_STRING);
    PMIx_Info_load(&info[8], PMIX_NODE_LIST, nodes, PMIX_STRING);
}

/* Everything registered of the job: its keys, this node's info, each
 * app's, each rank's; NULL without memory. */
static pmix_info_t *infos_build(const hnp_pmi_job_t *job, const layout_t *l,
                                char *nodes, size_t *ninfo)
{
    pmix_info_t *info;
    size_t i = NSPACE_JOB_KEYS;

    *ninfo = NSPACE_JOB_KEYS + 1 + job->napps + job->nprocs;
    PMIX_INFO_CREATE(info, *ninfo);
    if (info == NULL)
        return NULL;
    job_info(info, job, l, nodes);
    node_info(&info[i++], job, l, job->my_node - 1);
    for (uint32_t a = 0; a < job->napps; a++)
        app_info(&info[i++], &job->apps[a], a);
    for (uint32_t r = 0; r < job->nprocs; r++) {
        if (job->node_of[r] == job->my_node)
            proc_info(&info[i++], job, l, r);
        else
            peer_info(&info[i++], job, r);
    }
    return info;
}

int pmi_pmix_nspace_register(const pmi_pmix_job_t *pj, char *err,
                             size_t errlen)
{
    const hnp_pmi_job_t *job = pj->job;
    layout_t l = { 0 };
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    char *nodes = NULL;
    int rc = layout_build(&l, job);

    if (rc == HNP_SUCCESS && (nodes = node_list(job, &l)) == NULL)
        rc = HNP_ERR_NOMEM;
    if (rc != HNP_SUCCESS) {
        snprintf(err, errlen, "pmix: job %s: %s", job->name,
                 rc == HNP_ERR_BAD_PARAM ? "a rank's node or this node is "
                                           "out of range"
                                         : "out of memory");
        goto out;
    }
    info = infos_build(job, &l, nodes, &ninfo);
    if (info == NULL) {
        snprintf(err, errlen, "pmix: job %s: out of memory", job->name);
        rc = HNP_ERR_NOMEM;
        goto out;
    }
    pmi_pmix_sync_t *sync = pmi_pmix_sync_create();
    pmix_status_t prc = sync == NULL ? PMIX_ERR_NOMEM
        : PMIx_server_register_nspace(pj->nspace, (int)job->nlocal, info,
                                      ninfo, pmi_pmix_sync_cb, sync);
    bool handed = prc == PMIX_SUCCESS;
    if (sync != NULL)
        prc = pmi_pmix_sync_wait(sync, prc);
    if (prc != PMIX_SUCCESS) {
        snprintf(err, errlen, "pmix: registering job %s with libpmix: %s",
                 job->name, pmi_pmix_status_string(prc));
        rc = HNP_ERROR;
    }
    /* libpmix reads the array from its own thread until it calls back:
     * when the wait ended before that, the array is left to it. */
    if (handed && prc == PMIX_ERR_TIMEOUT)
        info = NULL;
out:
    if (info != NULL)
        PMIX_INFO_FREE(info, ninfo);
    free(nodes);
    layout_free(&l, job->nnodes);
    /* Registering a job leaves libpmix's temporaries (the packed job
     * data, the info arrays: some 2 kB a rank of the job, freed) in
     * the heap's middle, where free() keeps them resident for the rest of
     * the daemon's life: hand them back now. */
    malloc_trim(0);
    return rc;
}
