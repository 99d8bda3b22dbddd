/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pmix component's hooks: the daemon's PMIx server is started at its
 * first job (so a daemon that never runs one pays nothing), or before
 * that job's launch arrives when the HNP says the job uses it
 * (start_early: the server's start leaves the job's), and stopped
 * when the daemon leaves: libpmix 4.2 cannot start a server again in the
 * same process (its listener thread crashes). Its own scratch directory
 * is therefore the daemon's, made at the start and removed at the end;
 * each job's namespace keeps its files under the job's private directory.
 * Each job is one namespace; each rank a registered client, whose
 * environment libpmix writes (PMIx_server_setup_fork).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "pmi_pmix_internal.h"

pmi_pmix_server_t pmi_pmix_server = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake_fd = -1,
};

/* The keys of PMIx_server_init: 8 at most. */
#define SERVER_INIT_KEYS 8
/* This daemon's listening sockets before libpmix's, at most. */
#define LISTENERS_MAX 64

static void scratch_remove(pmi_pmix_server_t *srv)
{
    hnp_rte_scratch_remove(srv->rte, srv->store);
    free(srv->store);
    srv->store = NULL;
    hnp_rte_scratch_remove(srv->rte, srv->scratch);
    free(srv->scratch);
    srv->scratch = NULL;
}

/* The server's directory (its contact files), and the one of the job data
 * store that libpmix's ds21/ds12 share with the ranks of the node: memory
 * segments, so in memory (/dev/shm where there is one), not on a disk. */
static int scratch_make(pmi_pmix_server_t *srv, char *err, size_t errlen)
{
    int rc = hnp_rte_scratch_make(srv->rte, "pmix", 0, &srv->scratch, err,
                                  errlen);

    if (rc == HNP_SUCCESS)
        rc = hnp_rte_scratch_make(srv->rte, "pmix-store",
                                  HNP_RTE_SCRATCH_MEMORY, &srv->store, err,
                                  errlen);
    if (rc != HNP_SUCCESS)
        scratch_remove(srv);
    return rc;
}

static void server_stop(void);

/* The sizes of the shared store's segments, read by libpmix's server at
 * init and by each rank's at PMIx_Init: the two must agree. */
#define STORE_META_ENV "NS_META_SEG_SIZE"
#define STORE_DATA_ENV "NS_DATA_SEG_SIZE"

static void store_size_text(size_t bytes, char *buf, size_t len)
{
    snprintf(buf, len, "%zu", bytes);
}

static void store_sizes_setenv(void)
{
    char meta[32], data[32];

    store_size_text(pmi_pmix_params.store_meta, meta, sizeof(meta));
    store_size_text(pmi_pmix_params.store_data, data, sizeof(data));
    setenv(STORE_META_ENV, meta, 1);
    setenv(STORE_DATA_ENV, data, 1);
}

static int store_sizes_fork(hnp_pmi_fork_t *fork)
{
    char meta[32], data[32];

    store_size_text(pmi_pmix_params.store_meta, meta, sizeof(meta));
    store_size_text(pmi_pmix_params.store_data, data, sizeof(data));
    int rc = hnp_pmi_fork_setenv(fork, STORE_META_ENV, meta);
    if (rc == HNP_SUCCESS)
        rc = hnp_pmi_fork_setenv(fork, STORE_DATA_ENV, data);
    return rc;
}

/* Connections to the server are checked (pmi_pmix_guard.c), and the
 * connections libpmix accepts inherit a receive timeout from its
 * listening socket, so that its blocking read of a hello ends. */
static int guard_start(pmi_pmix_server_t *srv, const uint64_t *listeners,
                       size_t nlisteners, char *err, size_t errlen)
{
    /* how long libpmix's thread may wait for a connection's hello (its
     * recv is blocking): a silent stranger holds the server this long */
    double wait = pmi_pmix_params.hello_timeout > 0.001
                      ? pmi_pmix_params.hello_timeout : 0.001;
    struct timeval hello = {
        .tv_sec = (time_t)wait,
        .tv_usec = (suseconds_t)((wait - (double)(time_t)wait) * 1e6),
    };
    int rc = pmi_pmix_guard_start(&srv->guard, srv->rte, listeners,
                                  nlisteners, err, errlen);

    if (rc == HNP_SUCCESS &&
        setsockopt(srv->guard.listen_fd, SOL_SOCKET, SO_RCVTIMEO, &hello,
                   sizeof(hello)) != 0) {
        snprintf(err, errlen, "pmix: a receive timeout on the PMIx server's "
                 "socket: %s", strerror(errno));
        rc = HNP_ERR_IO;
    }
    return rc;
}

/* On node @p node, the server this daemon keeps for all its jobs. */
static int server_start(hnp_rte_t *rte, const char *node, char *err,
                        size_t errlen)
{
    pmi_pmix_server_t *srv = &pmi_pmix_server;
    pmix_info_t info[SERVER_INIT_KEYS];
    pmix_topology_t topo = { .source = "hwloc" };
    pmix_rank_t my_rank = hnp_rte_my_vpid(rte);
    bool no = false;
    uint64_t listeners[LISTENERS_MAX];
    size_t n = 0;

    srv->rte = rte;
    /* The server's files, in directories only this user reaches (0700),
     * removed with the daemon however it ends. */
    int rc = scratch_make(srv, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    rc = pmi_pmix_queue_open(srv, err, errlen);
    if (rc != HNP_SUCCESS) {
        scratch_remove(srv);
        return rc;
    }
    if (pmi_pmix_params.share_topology && srv->topology == NULL)
        srv->topology = pmi_pmix_topology_load();
    /* Read by libpmix's server at init, and by the ranks it serves. */
    if (pmi_pmix_params.gds != NULL && pmi_pmix_params.gds[0] != '\0')
        setenv("PMIX_MCA_gds", pmi_pmix_params.gds, 0);
    store_sizes_setenv();
    for (size_t i = 0; i < SERVER_INIT_KEYS; i++)
        PMIX_INFO_CONSTRUCT(&info[i]);
    PMIx_Info_load(&info[n++], PMIX_SERVER_TMPDIR, srv->scratch, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_SYSTEM_TMPDIR, srv->scratch, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_DSTPATH, srv->store, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_SERVER_RANK, &my_rank, PMIX_PROC_RANK);
    PMIx_Info_load(&info[n++], PMIX_HOSTNAME, node, PMIX_STRING);
    /* Its ranks only: no tools, no connections from other hosts. */
    PMIx_Info_load(&info[n++], PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
    PMIx_Info_load(&info[n++], PMIX_SERVER_REMOTE_CONNECTIONS, &no, PMIX_BOOL);
    /* libpmix keeps the topology's pointer for its life (and never
     * destroys it: it is the caller's), so the info holds ours itself.
     * PMIx_Info_load would hand over a copy, which the destruct below would
     * destroy under libpmix. Ours goes after PMIx_server_finalize. */
    size_t topo_at = n;
    if (srv->topology != NULL) {
        topo.topology = srv->topology;
        PMIX_LOAD_KEY(info[n].key, PMIX_TOPOLOGY2);
        info[n].value.type = PMIX_TOPO;
        info[n++].value.data.topo = &topo;
    }
    size_t nlisteners = pmi_pmix_guard_listeners(listeners, LISTENERS_MAX);
    pmix_status_t prc = PMIx_server_init(&pmi_pmix_server_module, info, n);
    if (topo_at < n)
        info[topo_at].value.type = PMIX_UNDEF; /* not libpmix's to free */
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (prc != PMIX_SUCCESS) {
        snprintf(err, errlen, "pmix: starting the PMIx server: %s",
                 PMIx_Error_string(prc));
        pmi_pmix_queue_close(srv);
        scratch_remove(srv);
        return HNP_ERROR;
    }
    srv->running = true;
    rc = guard_start(srv, listeners, nlisteners, err, errlen);
    if (rc != HNP_SUCCESS) {
        server_stop();
        return rc;
    }
    if (!srv->serving &&
        hnp_rte_serve(rte, PMI_PMIX_SERVICE_DMODEX, pmi_pmix_dmodex_serve,
                      NULL) == HNP_SUCCESS)
        srv->serving = true;
    return HNP_SUCCESS;
}

static void server_stop(void)
{
    pmi_pmix_server_t *srv = &pmi_pmix_server;

    if (!srv->running)
        return;
    /* Answer what libpmix already handed over while it can take answers;
     * what comes after is dropped (pmi_pmix_live()). */
    pmi_pmix_queue_drain(srv);
    pmi_pmix_dmodex_release_held(NULL, false);
    pmi_pmix_foreign_release(0);
    pmi_pmix_cards_forget(&srv->cards, NULL);
    srv->running = false;
    pmi_pmix_guard_stop(&srv->guard);
    if (srv->serving)
        hnp_rte_serve(srv->rte, PMI_PMIX_SERVICE_DMODEX, NULL, NULL);
    srv->serving = false;
    /* A libpmix that missed a deadline may never let its threads be
     * joined: the daemon is leaving, its files go all the same. */
    pmix_status_t prc = srv->stuck ? PMIX_SUCCESS : PMIx_server_finalize();
    if (prc != PMIX_SUCCESS)
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: stopping the PMIx server: %s",
                      PMIx_Error_string(prc));
    pmi_pmix_queue_close(srv);
    /* A stuck libpmix's thread may still answer: its asks stay. */
    if (!srv->stuck) {
        pmi_pmix_connect_cards_stop();
        pmi_pmix_hops_drop(srv);
    }
    scratch_remove(srv);
}

bool pmi_pmix_live(void)
{
    return pmi_pmix_server.running;
}

static void job_free(pmi_pmix_job_t *pj)
{
    hnp_rte_scratch_remove(pmi_pmix_server.rte, pj->shm_dir);
    free(pj->shm_dir);
    free(pj->pids);
    free(pj->registered);
    free(pj);
}

static int pmix_job_start(hnp_rte_t *rte, const hnp_pmi_job_t *job,
                          void **state, char *err, size_t errlen)
{
    pmi_pmix_job_t *pj;

    if (strlen(job->name) > PMIX_MAX_NSLEN) {
        snprintf(err, errlen, "pmix: job name '%s' is longer than a PMIx "
                 "namespace (%d characters)", job->name, PMIX_MAX_NSLEN);
        return HNP_ERR_BAD_PARAM;
    }
    pj = calloc(1, sizeof(*pj));
    if (pj == NULL ||
        (pj->registered = calloc(job->nprocs, sizeof(bool))) == NULL ||
        (pj->pids = calloc(job->nprocs, sizeof(pid_t))) == NULL) {
        if (pj != NULL)
            free(pj->registered);
        free(pj);
        snprintf(err, errlen, "pmix: out of memory");
        return HNP_ERR_NOMEM;
    }
    pj->job = job;
    PMIX_LOAD_NSPACE(pj->nspace, job->name);
    int rc = pmi_pmix_server.running
                 ? HNP_SUCCESS
                 : server_start(rte, job->node_names[job->my_node], err,
                                errlen);
    char shm_name[32];
    snprintf(shm_name, sizeof(shm_name), "job%u-pmix-shm", (unsigned)job->jobid);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_scratch_make(rte, shm_name, HNP_RTE_SCRATCH_MEMORY,
                                  &pj->shm_dir, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = pmi_pmix_nspace_register(pj, err, errlen);
    if (rc != HNP_SUCCESS) {
        job_free(pj);
        return rc;
    }
    pj->next = pmi_pmix_server.jobs;
    pmi_pmix_server.jobs = pj;
    *state = pj;
    pmi_pmix_dmodex_release_held(pj->nspace, true);
    return HNP_SUCCESS;
}

/* Every "NAME=VALUE" libpmix wrote for the rank. */
static int fork_setenv_all(hnp_pmi_fork_t *fork, char **env, char *err,
                           size_t errlen)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        char *eq = strchr(env[i], '=');
        if (eq == NULL || eq == env[i])
            continue;
        *eq = '\0';
        int rc = hnp_pmi_fork_setenv(fork, env[i], eq + 1);
        *eq = '=';
        if (rc != HNP_SUCCESS) {
            snprintf(err, errlen, "pmix: setting %s: %s", env[i],
                     hnp_strerror(rc));
            return rc;
        }
    }
    return HNP_SUCCESS;
}

/*
 * What Open MPI 4.1 needs beyond libpmix's variables: its `schizo orte`
 * takes a process no mpirun started for a singleton, so it is excluded
 * (ess pmi is then chosen); its shared-memory segments (btl vader, 4 MB a
 * rank, in /dev/shm by default, left there when a rank is killed) go to
 * the job's directory in memory, which goes with the job even when its
 * daemon is killed (its session directories are under PMIX_NSDIR, the
 * job's directory, already); and ranks that outnumber the node's slots
 * must yield when idle, or they busy-poll each other into the ground.
 */
static int fork_setenv_ompi(const pmi_pmix_job_t *pj, hnp_pmi_fork_t *fork)
{
    int rc = hnp_pmi_fork_setenv(fork, "OMPI_MCA_schizo", "^orte");

    if (rc == HNP_SUCCESS)
        rc = hnp_pmi_fork_setenv(fork, "OMPI_MCA_btl_vader_backing_directory",
                                 pj->shm_dir);
    /* The binding is the launcher's (--bind-to; none by default): Open
     * MPI's MPI_Init must neither bind the rank after its own policy (an
     * hwloc_base_binding_policy from the site's files) nor load the node's
     * topology to decide whether to (14 ms of CPU a rank, measured). */
    if (rc == HNP_SUCCESS)
        rc = hnp_pmi_fork_setenv(fork, "OMPI_MCA_orte_bound_at_launch", "1");

    if (rc == HNP_SUCCESS && pj->job->nlocal > pj->job->slots)
        rc = hnp_pmi_fork_setenv(fork, "OMPI_MCA_mpi_yield_when_idle", "1");
    return rc;
}

static int pmix_child_setup(void *state, const hnp_pmi_child_t *child,
                            hnp_pmi_fork_t *fork, char *err, size_t errlen)
{
    pmi_pmix_job_t *pj = state;
    pmix_proc_t proc;
    char **env = NULL;

    if (child->rank >= pj->job->nprocs) {
        snprintf(err, errlen, "pmix: rank %u is not in job %s (%u ranks)",
                 (unsigned)child->rank, pj->job->name,
                 (unsigned)pj->job->nprocs);
        return HNP_ERR_BAD_PARAM;
    }
    PMIX_LOAD_PROCID(&proc, pj->nspace, child->rank);
    if (!pj->registered[child->rank]) {
        pmi_pmix_sync_t *sync = pmi_pmix_sync_create();
        pmix_status_t prc = sync == NULL ? PMIX_ERR_NOMEM
            : PMIx_server_register_client(&proc, getuid(), getgid(), NULL,
                                          pmi_pmix_sync_cb, sync);
        if (sync != NULL)
            prc = pmi_pmix_sync_wait(sync, prc);
        if (prc != PMIX_SUCCESS) {
            snprintf(err, errlen, "pmix: registering rank %u: %s",
                     (unsigned)child->rank, pmi_pmix_status_string(prc));
            return HNP_ERROR;
        }
        pj->registered[child->rank] = true;
    }
    pmix_status_t prc = PMIx_server_setup_fork(&proc, &env);
    if (prc != PMIX_SUCCESS) {
        snprintf(err, errlen, "pmix: the environment of rank %u: %s",
                 (unsigned)child->rank, PMIx_Error_string(prc));
        PMIX_ARGV_FREE(env);
        return HNP_ERROR;
    }
    int rc = fork_setenv_all(fork, env, err, errlen);
    PMIX_ARGV_FREE(env);
    if (rc == HNP_SUCCESS && (rc = store_sizes_fork(fork)) != HNP_SUCCESS)
        snprintf(err, errlen, "pmix: the store's segment sizes: %s",
                 hnp_strerror(rc));
    if (rc == HNP_SUCCESS && (rc = fork_setenv_ompi(pj, fork)) != HNP_SUCCESS)
        snprintf(err, errlen, "pmix: setting Open MPI's variables: %s",
                 hnp_strerror(rc));
    return rc;
}

typedef struct deregistration {
    pmi_pmix_sync_t *sync;
    pmix_nspace_t nspace;
} deregistration_t;

/* libpmix's thread, right after its purge of the namespace. */
static void deregistered(pmix_status_t status, void *cbdata)
{
    deregistration_t *d = cbdata;

    pmi_pmix_dmodex_purge_queued(&pmi_pmix_server, d->nspace);
    pmi_pmix_sync_cb(status, d->sync);
    free(d);
}

pmix_status_t pmi_pmix_deregister(const char *nspace)
{
    deregistration_t *d = calloc(1, sizeof(*d));

    if (d == NULL || (d->sync = pmi_pmix_sync_create()) == NULL) {
        free(d);
        return PMIX_ERR_NOMEM; /* kept by libpmix: nothing freed early */
    }
    pmi_pmix_dmodex_forget(nspace);
    pmi_pmix_dmodex_served_end(nspace);
    PMIX_LOAD_NSPACE(d->nspace, nspace);
    pmi_pmix_sync_t *sync = d->sync;
    PMIx_server_deregister_nspace(nspace, deregistered, d);
    pmix_status_t rc = pmi_pmix_sync_wait(sync, PMIX_SUCCESS);
    if (rc != PMIX_ERR_TIMEOUT) /* done: libpmix answers none of them now */
        pmi_pmix_dmodex_served_dropped(nspace);
    return rc;
}

/* Release the namespace in libpmix; a wait past the deadline marks the
 * server stuck, and later releases are not waited for. */
static void release_wait(const pmi_pmix_job_t *pj)
{
    if (pmi_pmix_deregister(pj->nspace) == PMIX_ERR_TIMEOUT)
        HNP_ERROR_LOG(pmi_pmix_log(), "pmix: job %s: libpmix did not "
                      "release the job within %g s (pmi_pmix_call_timeout); "
                      "the daemon no longer waits for it", pj->job->name,
                      pmi_pmix_params.call_timeout);
}

/*
 * The job's ranks here are gone: its namespace is released, which
 * releases the ranks registered in it. The ranks are not deregistered
 * one by one: libpmix 4.2 closes a rank's socket there without taking it
 * out of its event loop, and when the rank's end had not been read yet
 * (a rank that exited or was killed just before), the next connection
 * given that descriptor number is never read, and its process waits in
 * PMIx_Init for good (a spawned child, the next job of a DVM). Read to
 * its end, the connection is closed by libpmix the right way.
 */
static void pmix_job_end(void *state)
{
    pmi_pmix_job_t *pj = state;

    release_wait(pj);
    pmi_pmix_dmodex_release_held(pj->nspace, false);
    pmi_pmix_foreign_release(pj->job->jobid);
    pmi_pmix_cards_forget(&pmi_pmix_server.cards, pj->nspace);
    for (pmi_pmix_job_t **p = &pmi_pmix_server.jobs; *p != NULL;
         p = &(*p)->next) {
        if (*p == pj) {
            *p = pj->next;
            break;
        }
    }
    job_free(pj);
}

/* Its process group (the rank leads one) may hold connections to the
 * server from now on. */
static void pmix_child_started(void *state, uint32_t rank, pid_t pid)
{
    pmi_pmix_job_t *pj = state;

    if (rank < pj->job->nprocs)
        pj->pids[rank] = pid;
}

static void pmix_child_exited(void *state, uint32_t rank, int wait_status,
                              int exec_errno)
{
    pmi_pmix_job_t *pj = state;

    (void)wait_status;
    (void)exec_errno;
    if (rank < pj->job->nprocs)
        pj->pids[rank] = 0;
}

/* The daemon's first job will use the server: up before its launch. */
static int pmix_start_early(hnp_rte_t *rte, const char *node, char *err,
                            size_t errlen)
{
    return pmi_pmix_server.running ? HNP_SUCCESS
                                   : server_start(rte, node, err, errlen);
}

static void pmix_finalize(hnp_rte_t *rte)
{
    (void)rte;
    server_stop();
    if (pmi_pmix_server.topology != NULL)
        hwloc_topology_destroy(pmi_pmix_server.topology);
    pmi_pmix_server.topology = NULL;
}

const hnp_pmi_module_t pmi_pmix_module = {
    .serves = HNP_PMI_SERVES_PMIX,
    .needs = HNP_PMI_NEEDS_TMPDIR,
    .job_start = pmix_job_start,
    .child_setup = pmix_child_setup,
    .child_started = pmix_child_started,
    .child_exited = pmix_child_exited,
    .job_end = pmix_job_end,
    .finalize = pmix_finalize,
    .start_early = pmix_start_early,
};
