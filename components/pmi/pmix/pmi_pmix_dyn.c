/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic processes (MPI_Comm_spawn): the server's spawn upcall becomes a
 * request of the runtime (hnp_rte_spawn()), neutral of PMIx: the apps'
 * programs, arguments, environment (Open MPI's OMPI_PARENT_PORT and
 * OMPI_MCA_*), counts and info keys (PMIX_HOST, PMIX_HOSTFILE,
 * PMIX_ADD_HOST, PMIX_ADD_HOSTFILE, PMIX_WDIR, PMIX_PREFIX), and the
 * job's (PMIX_MAPBY, PMIX_RANKBY, PMIX_BINDTO, PMIX_PPR, PMIX_DISPLAY_MAP,
 * PMIX_PREFIX). libpmix learns the new namespace once every child has
 * started, or the error.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

typedef struct spawn_app {
    char *cmd;
    char **argv;   /* after the program, NULL-terminated */
    char **env;
    uint32_t maxprocs;
    char *hosts, *hostfile, *add_hosts, *add_hostfile, *wdir, *prefix;
} spawn_app_t;

typedef struct spawn_op {
    pmi_pmix_call_t call;
    pmix_proc_t proc;
    char *map_by, *rank_by, *bind_to, *ppr, *prefix;
    bool display_map;
    size_t napps;
    spawn_app_t *apps;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
} spawn_op_t;

static char **copy_argv(char **v, size_t skip)
{
    size_t n = 0;
    char **out;

    while (v != NULL && v[n] != NULL)
        n++;
    if ((out = calloc(n + 1, sizeof(*out))) == NULL)
        return NULL;
    for (size_t i = skip; i < n; i++)
        if ((out[i - skip] = strdup(v[i])) == NULL)
            return out; /* freed by the caller, NULL-terminated */
    return out;
}

static void free_argv(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

static void spawn_op_free(spawn_op_t *op)
{
    for (size_t a = 0; op->apps != NULL && a < op->napps; a++) {
        spawn_app_t *app = &op->apps[a];
        free(app->cmd);
        free_argv(app->argv);
        free_argv(app->env);
        free(app->hosts);
        free(app->hostfile);
        free(app->add_hosts);
        free(app->add_hostfile);
        free(app->wdir);
        free(app->prefix);
    }
    free(op->apps);
    free(op->map_by);
    free(op->rank_by);
    free(op->bind_to);
    free(op->ppr);
    free(op->prefix);
    free(op);
}

/* The string value of @p info, copied into *@p out (the last one wins). */
static void take_string(const pmix_info_t *info, const char *key, char **out)
{
    if (!PMIX_CHECK_KEY(info, key) || info->value.type != PMIX_STRING ||
        info->value.data.string == NULL)
        return;
    free(*out);
    *out = strdup(info->value.data.string);
}

static bool info_true(const pmix_info_t *info)
{
    return info->value.type == PMIX_UNDEF ||
           (info->value.type == PMIX_BOOL && info->value.data.flag);
}

static void take_job_info(spawn_op_t *op, const pmix_info_t *info,
                          size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        take_string(&info[i], PMIX_MAPBY, &op->map_by);
        take_string(&info[i], PMIX_RANKBY, &op->rank_by);
        take_string(&info[i], PMIX_BINDTO, &op->bind_to);
        take_string(&info[i], PMIX_PPR, &op->ppr);
        take_string(&info[i], PMIX_PREFIX, &op->prefix);
        if (PMIX_CHECK_KEY(&info[i], PMIX_DISPLAY_MAP))
            op->display_map = info_true(&info[i]);
    }
}

static int take_app(spawn_app_t *out, const pmix_app_t *app)
{
    /* libpmix's argv begins with the program (Open MPI puts it there) */
    size_t skip = app->argv != NULL && app->argv[0] != NULL &&
                  app->cmd != NULL && strcmp(app->argv[0], app->cmd) == 0;

    out->cmd = strdup(app->cmd != NULL ? app->cmd
                      : app->argv != NULL && app->argv[0] != NULL
                          ? app->argv[0] : "");
    if (app->cmd == NULL)
        skip = 1;
    out->argv = copy_argv(app->argv, skip);
    out->env = copy_argv(app->env, 0);
    out->maxprocs = app->maxprocs > 0 ? (uint32_t)app->maxprocs : 0;
    for (size_t i = 0; i < app->ninfo; i++) {
        take_string(&app->info[i], PMIX_HOST, &out->hosts);
        take_string(&app->info[i], PMIX_HOSTFILE, &out->hostfile);
        take_string(&app->info[i], PMIX_ADD_HOST, &out->add_hosts);
        take_string(&app->info[i], PMIX_ADD_HOSTFILE, &out->add_hostfile);
        take_string(&app->info[i], PMIX_WDIR, &out->wdir);
        take_string(&app->info[i], PMIX_PREFIX, &out->prefix);
    }
    return out->cmd != NULL && out->argv != NULL && out->env != NULL
               ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

/* Whether the spawn is Open MPI's MPI_Comm_spawn that goes on into its
 * connect/accept: it hands every program the port in OMPI_PARENT_PORT. */
static bool from_ompi_comm_spawn(const spawn_op_t *op)
{
    static const char key[] = "OMPI_PARENT_PORT=";

    for (size_t a = 0; a < op->napps; a++)
        for (char **e = op->apps[a].env; e != NULL && *e != NULL; e++)
            if (strncmp(*e, key, sizeof(key) - 1) == 0)
                return true;
    return false;
}

/* A failed MPI_Comm_spawn of Open MPI 4 whose rank has others in its job
 * ends that job: the error reaches the spawn's root alone, while the
 * communicator's other ranks wait for the root in a broadcast (of the
 * children's names, in the connect/accept after the spawn) that the root
 * never sends, so they would hang until killed, as under mpirun. A spawn
 * over MPI_COMM_SELF cannot be told from a collective one here, and ends
 * the job too (mpirun ends it on a program that is not there), unless
 * pmi_pmix_spawn_failure_ends_job is off. A job of one rank, or another
 * PMIx client, gets the error and goes on. */
static void end_parent_job(const spawn_op_t *op)
{
    const pmi_pmix_job_t *pj = pmi_pmix_job_find(op->proc.nspace);
    unsigned others;
    char msg[512];

    if (!pmi_pmix_params.spawn_failure_ends_job || pj == NULL ||
        pj->job->nprocs < 2 || !from_ompi_comm_spawn(op))
        return;
    others = (unsigned)(pj->job->nprocs - 1);
    snprintf(msg, sizeof(msg), "hnp ends job %u for it: its MPI_Comm_spawn "
             "failed, and Open MPI 4 tells that to the spawn's root alone: "
             "the job's %u other rank%s would wait for it forever if the "
             "spawn was collective", (unsigned)pj->job->jobid, others,
             others == 1 ? "" : "s");
    /* as the rank's MPI_Abort: a DVM ends this job alone */
    hnp_rte_abort_job(pmi_pmix_server.rte, pj->job->jobid, op->proc.rank, 1,
                      msg);
}

/* The runtime's answer: the new namespace, or why not. */
static void spawned(hnp_rte_t *rte, int status, uint32_t jobid,
                    const char *name, const char *err, void *cbdata)
{
    spawn_op_t *op = cbdata;

    (void)rte;
    if (!pmi_pmix_live()) {
        spawn_op_free(op);
        return;
    }
    if (status == HNP_SUCCESS) {
        HNP_VERBOSE(pmi_pmix_log(), 1, "pmix: rank %u of %s spawned job %u "
                    "(%s)", (unsigned)op->proc.rank, op->proc.nspace,
                    (unsigned)jobid, name);
        op->cbfunc(PMIX_SUCCESS, (char *)name, op->cbdata);
    } else {
        /* hnp says why, once */
        HNP_VERBOSE(pmi_pmix_log(), 1, "pmix: the spawn of rank %u of %s "
                    "failed: %s", (unsigned)op->proc.rank, op->proc.nspace,
                    err != NULL ? err : hnp_strerror(status));
        op->cbfunc(status == HNP_ERR_NOT_FOUND ? PMIX_ERR_NOT_FOUND
                   : status == HNP_ERR_NOT_AVAILABLE ? PMIX_ERR_OUT_OF_RESOURCE
                   : PMIX_ERR_BAD_PARAM, NULL, op->cbdata);
        end_parent_job(op);
    }
    spawn_op_free(op);
}

/* The request the runtime takes, lending the op's strings. */
static int ask_runtime(spawn_op_t *op, const pmi_pmix_job_t *pj)
{
    hnp_spawn_app_t *apps = calloc(op->napps, sizeof(*apps));
    hnp_spawn_request_t req = {
        .napps = (uint32_t)op->napps, .apps = apps,
        .parent_rank = op->proc.rank, .map_by = op->map_by,
        .rank_by = op->rank_by, .bind_to = op->bind_to, .ppr = op->ppr,
        .display_map = op->display_map,
    };
    int rc;

    if (apps == NULL)
        return HNP_ERR_NOMEM;
    for (size_t a = 0; a < op->napps; a++) {
        const spawn_app_t *in = &op->apps[a];
        apps[a] = (hnp_spawn_app_t){
            .cmd = in->cmd, .argv = in->argv, .env = in->env,
            .maxprocs = in->maxprocs, .hosts = in->hosts,
            .hostfile = in->hostfile, .add_hosts = in->add_hosts,
            .add_hostfile = in->add_hostfile, .wdir = in->wdir,
            .prefix = in->prefix != NULL ? in->prefix : op->prefix,
        };
    }
    rc = hnp_rte_spawn(pmi_pmix_server.rte, pj->job->jobid, &req, spawned,
                       op);
    free(apps);
    return rc;
}

static void spawn_run(pmi_pmix_call_t *call)
{
    spawn_op_t *op = (spawn_op_t *)call;
    pmi_pmix_job_t *pj = pmi_pmix_job_find(op->proc.nspace);
    int rc = HNP_ERR_NOT_FOUND;

    if (!pmi_pmix_live()) {
        spawn_op_free(op);
        return;
    }
    if (pj != NULL)
        rc = ask_runtime(op, pj);
    if (rc != HNP_SUCCESS) {
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: rank %u of %s asked to spawn "
                      "%zu programs: %s", (unsigned)op->proc.rank,
                      op->proc.nspace, op->napps,
                      rc == HNP_ERR_BAD_PARAM ? "a program without a name "
                      "or a count of processes" : hnp_strerror(rc));
        op->cbfunc(rc == HNP_ERR_NOMEM ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM,
                   NULL, op->cbdata);
        spawn_op_free(op);
    }
}

pmix_status_t pmi_pmix_spawn(const pmix_proc_t *proc,
                             const pmix_info_t job_info[], size_t ninfo,
                             const pmix_app_t apps[], size_t napps,
                             pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    spawn_op_t *op;

    if (proc == NULL || napps == 0 || apps == NULL)
        return PMIX_ERR_BAD_PARAM;
    if ((op = calloc(1, sizeof(*op))) == NULL ||
        (op->apps = calloc(napps, sizeof(*op->apps))) == NULL) {
        free(op);
        return PMIX_ERR_NOMEM;
    }
    op->napps = napps;
    op->proc = *proc;
    op->cbfunc = cbfunc;
    op->cbdata = cbdata;
    take_job_info(op, job_info, ninfo);
    for (size_t a = 0; a < napps; a++)
        if (take_app(&op->apps[a], &apps[a]) != HNP_SUCCESS) {
            spawn_op_free(op);
            return PMIX_ERR_NOMEM;
        }
    pmi_pmix_queue_post(&pmi_pmix_server, &op->call, spawn_run);
    return PMIX_SUCCESS;
}
