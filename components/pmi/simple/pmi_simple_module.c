/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `simple` pmi component's hooks: one PMI server a job on this node,
 * one socketpair a rank, fences over the runtime's all-gather.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "hnp_rte.h"
#include "pmi_simple.h"
#include "pmi_simple_internal.h"
#include "server.h"

typedef struct simple_fence {
    simple_job_t *job;
    uint32_t seq;
} simple_fence_t;

void simple_job_unref(simple_job_t *job)
{
    if (--job->refs > 0)
        return;
    free(job->node);
    free(job);
}

/* ------------------------------------------------------------ fences */

static void fence_learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                          size_t len)
{
    simple_fence_t *f = cbdata;
    char err[256] = "";

    if (f->job->srv == NULL)
        return;
    if (pmi_simple_fence_merge(f->job->srv, f->seq, data, len, err,
                               sizeof(err)) != HNP_SUCCESS)
        hnp_rte_fail_job(f->job->rte, f->job->jobid, 1, "node %s: the "
                         "key-value data of vpid %u in PMI fence %u: %s",
                         f->job->node, vpid, f->seq, err);
}

static void fence_complete(void *cbdata, int status)
{
    simple_fence_t *f = cbdata;

    if (f->job->srv != NULL)
        pmi_simple_fence_complete(f->job->srv, f->seq, status);
    simple_job_unref(f->job);
    free(f);
}

static void fence_ready(void *ctx, uint32_t seq, const void *blob, size_t len)
{
    simple_job_t *job = ctx;
    simple_fence_t *f = malloc(sizeof(*f));
    hnp_exchange_callbacks_t cb = { fence_learned, fence_complete, f };

    if (f == NULL) {
        hnp_rte_fail_job(job->rte, job->jobid, 1, "node %s: out of memory "
                         "in PMI fence %u", job->node, seq);
        return;
    }
    f->job = job;
    f->seq = seq;
    job->refs++;
    if (hnp_rte_allgather(job->rte, job->jobid, job->series, seq, blob, len,
                          &cb) != HNP_SUCCESS) {
        job->refs--;
        free(f);
        hnp_rte_fail_job(job->rte, job->jobid, 1, "node %s: cannot start "
                         "PMI fence %u", job->node, seq);
    }
}

/* ------------------------------------------------------------ ranks */

static void rank_abort(void *ctx, uint32_t rank, int exit_code,
                       const char *msg)
{
    simple_job_t *job = ctx;

    hnp_rte_abort_job(job->rte, job->jobid, rank, exit_code, msg);
}

static void rank_error(void *ctx, uint32_t rank, int code, const char *msg)
{
    simple_job_t *job = ctx;

    hnp_rte_fail_job(job->rte, job->jobid, 1, "rank %u on node %s: PMI: %s "
                     "(%s)", rank, job->node,
                     msg != NULL ? msg : "protocol error",
                     hnp_strerror(code));
}

static void rank_initialized(void *ctx, uint32_t rank)
{
    simple_job_t *job = ctx;

    hnp_rte_proc_state(job->rte, job->jobid, rank, HNP_RTE_PROC_CONNECTED);
}

static void rank_finalized(void *ctx, uint32_t rank)
{
    simple_job_t *job = ctx;

    hnp_rte_proc_state(job->rte, job->jobid, rank, HNP_RTE_PROC_FINALIZED);
}

/* Said once per rank (the server calls this at its first refused put), to
 * the user: the rank's library got the error answer and may well end the
 * job with a message of its own that does not say why. */
static void rank_kvs_limit(void *ctx, uint32_t rank, size_t limit)
{
    simple_job_t *job = ctx;

    hnp_rte_report(job->rte, "rank %u on node %s: PMI put refused: the "
                   "rank's keys and values would take more than "
                   "pmi_simple_max_kvs_bytes = %zu bytes; its puts past "
                   "that fail. Raise pmi_simple_max_kvs_bytes (--mca "
                   "pmi_simple_max_kvs_bytes SIZE, 0: no limit) if the "
                   "application needs more", rank, job->node, limit);
}

/* ------------------------------------------------------------ names */

/* A name request on its way to the HNP; holds a reference to the job,
 * whose server may be gone when the answer comes. */
typedef struct simple_name {
    simple_job_t *job;
    uint64_t ticket;
} simple_name_t;

static void name_answered(hnp_rte_t *rte, int status,
                          const hnp_rte_name_t *names, size_t count,
                          void *cbdata)
{
    simple_name_t *n = cbdata;
    char *port = NULL;

    (void)rte;
    if (status == HNP_SUCCESS && count > 0 && names[0].value != NULL) {
        /* the value as a string: a port name never holds a NUL; one that
         * does is a PMIx rank's bytes or value of another type, which a
         * PMI line cannot carry */
        if (memchr(names[0].value, '\0', names[0].len) != NULL)
            status = HNP_ERR_BAD_PARAM;
        else if ((port = strndup(names[0].value, names[0].len)) == NULL)
            status = HNP_ERR_NOMEM;
    }
    if (n->job->srv != NULL)
        pmi_simple_name_done(n->job->srv, n->ticket, status, port);
    free(port);
    simple_job_unref(n->job);
    free(n);
}

static void rank_name(void *ctx, uint32_t rank, pmi_simple_name_op_t op,
                      const char *name, const char *port, uint64_t ticket)
{
    simple_job_t *job = ctx;
    simple_name_t *n = malloc(sizeof(*n));
    hnp_rte_name_t put = { .key = name, .value = port,
                           .len = port != NULL ? strlen(port) : 0 };
    int rc = HNP_ERR_NOMEM;

    if (n != NULL) {
        *n = (simple_name_t){ .job = job, .ticket = ticket };
        job->refs++;
        if (op == PMI_SIMPLE_NAME_PUBLISH)
            rc = hnp_rte_name_publish(job->rte, job->jobid, rank, &put, 1, 0,
                                      name_answered, n);
        else if (op == PMI_SIMPLE_NAME_LOOKUP)
            rc = hnp_rte_name_lookup(job->rte, job->jobid, rank, &name, 1, 0,
                                     0, name_answered, n);
        else
            rc = hnp_rte_name_unpublish(job->rte, job->jobid, rank, &name, 1,
                                        0, name_answered, n);
    }
    if (rc == HNP_SUCCESS)
        return;
    if (n != NULL) {
        job->refs--;
        free(n);
    }
    pmi_simple_name_done(job->srv, ticket, rc, NULL);
}

/* ------------------------------------------------------------ hooks */

static int simple_job_start(hnp_rte_t *rte, const hnp_pmi_job_t *pj,
                            void **state, char *err, size_t errlen)
{
    pmi_simple_callbacks_t cb = {
        .fence_ready = fence_ready, .abort = rank_abort,
        .client_error = rank_error, .initialized = rank_initialized,
        .finalized = rank_finalized, .spawn_request = simple_rank_spawn,
        .kvs_limit = rank_kvs_limit, .name = rank_name,
    };
    simple_job_t *job = calloc(1, sizeof(*job));
    simple_spawned_t spawned = { 0 };
    int rc = HNP_ERR_NOMEM;

    if (job == NULL)
        return rc;
    job->rte = rte;
    job->jobid = pj->jobid;
    job->series = pj->series;
    job->spawned = pj->parent_jobid != 0;
    job->refs = 1;
    job->node = strdup(pj->node_names[pj->my_node]);
    cb.ctx = job;
    if (job->node != NULL)
        rc = HNP_SUCCESS;
    /* a spawned job: its parent's preput keys are job attributes */
    if (rc == HNP_SUCCESS)
        rc = simple_spawned_load(pj, &spawned, err, errlen);
    if (rc == HNP_SUCCESS) {
        pmi_simple_config_t cfg = {
            .size = pj->nprocs, .universe_size = pj->universe_size,
            .kvsname = pj->name, .node_of_rank = pj->node_of,
            .local_ranks = pj->local_ranks, .nlocal = pj->nlocal,
            .job_attrs = spawned.attrs, .njob_attrs = spawned.nattrs,
            .max_fence_bytes = pj->max_allgather_bytes,
            .max_kvs_bytes = pmi_simple_max_kvs_bytes,
            .spawner_jobid = pj->parent_jobid != 0 ? pj->parent_name : NULL,
        };
        rc = pmi_simple_server_create(&job->srv, rte, &cfg, &cb, err, errlen);
    }
    simple_spawned_free(&spawned);
    if (rc != HNP_SUCCESS) {
        simple_job_unref(job);
        return rc;
    }
    *state = job;
    return HNP_SUCCESS;
}

static int simple_child_setup(void *state, const hnp_pmi_child_t *child,
                              hnp_pmi_fork_t *fork, char *err, size_t errlen)
{
    simple_job_t *job = state;
    char *env[PMI_SIMPLE_ENV_COUNT] = { NULL };
    int fds[2];
    int rc;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        hnp_err_set(err, errlen, "cannot make the PMI socket of rank %u",
                    child->rank);
        return HNP_ERR_IO;
    }
    /* The server owns fds[0] from here on, whatever the outcome. */
    rc = pmi_simple_server_add_client(job->srv, fds[0], child->rank,
                                      (int32_t)child->appnum);
    if (rc == HNP_SUCCESS)
        rc = pmi_simple_client_env(job->srv, child->rank, fds[1], env);
    for (int i = 0; rc >= 0 && i < PMI_SIMPLE_ENV_COUNT; i++) {
        char *eq = strchr(env[i], '=');
        *eq = '\0';
        rc = hnp_pmi_fork_setenv(fork, env[i], eq + 1);
    }
    for (int i = 0; i < PMI_SIMPLE_ENV_COUNT; i++)
        free(env[i]);
    /* MPICH's PMI-1 client learns it was spawned from its environment */
    if (rc >= 0 && job->spawned)
        rc = hnp_pmi_fork_setenv(fork, "PMI_SPAWNED", "1");
    if (rc >= 0)
        return hnp_pmi_fork_keep_fd(fork, fds[1]);
    close(fds[1]);
    hnp_err_set(err, errlen, "cannot serve PMI to rank %u (%s)", child->rank,
                hnp_strerror(rc));
    return rc;
}

static void simple_job_end(void *state)
{
    simple_job_t *job = state;

    pmi_simple_server_destroy(job->srv);
    job->srv = NULL;
    simple_job_unref(job);
}

const hnp_pmi_module_t pmi_simple_module = {
    .serves = HNP_PMI_SERVES_PMI1 | HNP_PMI_SERVES_PMI2,
    .job_start = simple_job_start,
    .child_setup = simple_child_setup,
    .job_end = simple_job_end,
};
