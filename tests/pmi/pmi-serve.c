/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi-serve: run N copies of a program on this machine as one job, served
 * by the PMI server alone, the way hnpd will serve a node's processes. It
 * checks the server against real PMI clients (MPICH's libmpi, Slurm's
 * libpmi2) without the rest of the runtime; tests/pmi/mpich.sh uses it.
 *
 *   pmi-serve [-n N] [-v LEVEL] [-t SECONDS] PROGRAM [ARG...]
 *
 * Each process gets a socketpair end as PMI_FD with PMI_RANK, PMI_SIZE and
 * PMI_JOBID; the job is a single node, so every fence completes as soon as
 * the node's blob is ready. -v sets the verbosity of the "pmi" log stream
 * (4 shows every request and answer on the wire).
 *
 * What MPICH 4.0.2's PMI-1 client (Debian's libmpich, ch4:ucx) sends, seen
 * with -v 4 for rank 1 of 2 (K is the kvs name):
 *   cmd=init pmi_version=1 pmi_subversion=1
 *   cmd=get_maxes
 *   cmd=get_appnum
 *   cmd=get_my_kvsname
 *   cmd=get kvsname=K key=PMI_process_mapping
 *   cmd=barrier_in
 *   cmd=barrier_in                        (rank 0 put -bcast-1-0 before it:
 *   cmd=get kvsname=K key=-bcast-1-0       a shared-memory name, in hex)
 *   cmd=put kvsname=K key=-allgather-shm-1-1 value=HEX  (its UCX address,
 *   cmd=barrier_in                                       430 hex digits)
 *   cmd=get kvsname=K key=-allgather-shm-1-1
 *   cmd=barrier_in                        (MPI_Finalize)
 *   cmd=finalize
 * and for MPI_Abort(comm, 7) just "cmd=abort exitcode=7" before it exits
 * (the message goes to stderr, not to the server). Slurm's libpmi2 opens
 * with "cmd=init pmi_version=2 pmi_subversion=0" in PMI-1 and goes on with
 * "cmd=fullinit;pmijobid=K;pmirank=R;threaded=FALSE;" framed in PMI-2.
 *
 * Exit status: 0 when every process exited 0 and the server saw nothing
 * wrong, 1 otherwise, 2 for a usage error.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "procs/children.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "pmi/simple/server.h"
#include "rte.h"

extern char **environ;

typedef struct job {
    hnp_setup_t setup;
    hnp_rte_t *rte;          /* the event loop the server watches on */
    struct event_base *base;
    hnp_children_t *children;
    pmi_simple_server_t *srv;
    pid_t *pids;
    uint32_t size, alive;
    int status;      /* the exit status of pmi-serve */
} job_t;

static void fail_job(job_t *job, const char *why)
{
    fprintf(stderr, "pmi-serve: %s\n", why);
    job->status = 1;
    for (uint32_t r = 0; r < job->size; r++)
        if (job->pids[r] > 0)
            kill(job->pids[r], SIGTERM);
}

/* One node: its blob is the whole job's, so the fence is over at once. */
static void on_fence_ready(void *ctx, uint32_t seq, const void *blob,
                           size_t len)
{
    job_t *job = ctx;
    char err[256];

    if (pmi_simple_fence_merge(job->srv, seq, blob, len, err, sizeof(err)) != 0 ||
        pmi_simple_fence_complete(job->srv, seq, HNP_SUCCESS) != 0)
        fail_job(job, "the server refused its own fence blob");
}

static void on_abort(void *ctx, uint32_t rank, int code, const char *msg)
{
    char why[512];

    snprintf(why, sizeof(why), "rank %u aborted the job (exit code %d): %s",
             rank, code, msg);
    fail_job(ctx, why);
}

static void on_client_error(void *ctx, uint32_t rank, int code,
                            const char *msg)
{
    char why[512];

    snprintf(why, sizeof(why), "rank %u: %s (%s)", rank, msg,
             hnp_strerror(code));
    fail_job(ctx, why);
}

static void on_exit_status(void *ctx, pid_t pid, int wait_status)
{
    job_t *job = ctx;

    for (uint32_t r = 0; r < job->size; r++) {
        if (job->pids[r] != pid)
            continue;
        job->pids[r] = 0;
        if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
            fprintf(stderr, "pmi-serve: rank %u exited with status 0x%x\n",
                    r, (unsigned)wait_status);
            job->status = 1;
        }
    }
    if (--job->alive == 0)
        event_base_loopbreak(job->base);
}

/* A job that hangs (a fence nobody completes, say) must not hang the
 * test: kill it outright. */
static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    job_t *job = arg;

    (void)fd;
    (void)what;
    fail_job(job, "timed out");
    for (uint32_t r = 0; r < job->size; r++)
        if (job->pids[r] > 0)
            kill(job->pids[r], SIGKILL);
}

/* In the child: the daemon's environment plus the PMI variables, then the
 * program. Only async-signal-safe work after fork would be stricter; this
 * process is single-threaded, so malloc is safe here. */
static void exec_rank(job_t *job, uint32_t rank, int fd, char **argv)
{
    size_t n = 0;
    char **env;

    while (environ[n] != NULL)
        n++;
    env = calloc(n + PMI_SIMPLE_ENV_COUNT + 1, sizeof(*env));
    if (env == NULL || fcntl(fd, F_SETFD, 0) != 0)
        _exit(127);
    memcpy(env, environ, n * sizeof(*env));
    if (pmi_simple_client_env(job->srv, rank, fd, env + n) < 0)
        _exit(127);
    execvpe(argv[0], argv, env);
    fprintf(stderr, "pmi-serve: %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static int launch(job_t *job, char **argv)
{
    for (uint32_t r = 0; r < job->size; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            return HNP_ERR_IO;
        pid_t pid = fork();
        if (pid == 0)
            exec_rank(job, r, sv[1], argv);
        close(sv[1]);
        if (pid < 0) {
            close(sv[0]);
            return HNP_ERR_IO;
        }
        job->pids[r] = pid;
        job->alive++;
        if (hnp_children_watch(job->children, pid, on_exit_status, job) != 0 ||
            pmi_simple_server_add_client(job->srv, sv[0], r, 0) != 0)
            return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

static int setup_server(job_t *job)
{
    pmi_simple_callbacks_t cb = { .fence_ready = on_fence_ready,
                               .abort = on_abort,
                               .client_error = on_client_error, .ctx = job };
    uint32_t *ranks = calloc(job->size, sizeof(*ranks));
    char kvsname[64], *mapping = NULL, err[256];
    int rc = ranks != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;

    for (uint32_t r = 0; rc == HNP_SUCCESS && r < job->size; r++)
        ranks[r] = r;
    if (rc == HNP_SUCCESS) {
        uint32_t *nodes = calloc(job->size, sizeof(*nodes));   /* all 0 */
        rc = nodes != NULL
                 ? pmi_simple_process_mapping(nodes, job->size, &mapping)
                 : HNP_ERR_NOMEM;
        free(nodes);
    }
    snprintf(kvsname, sizeof(kvsname), "kvs_%ld", (long)getpid());
    pmi_simple_config_t cfg = { .size = job->size, .kvsname = kvsname,
                             .process_mapping = mapping,
                             .local_ranks = ranks, .nlocal = job->size };
    if (rc == HNP_SUCCESS)
        rc = pmi_simple_server_create(&job->srv, job->rte, &cfg, &cb, err,
                                      sizeof(err));
    if (rc != HNP_SUCCESS)
        fprintf(stderr, "pmi-serve: %s\n", hnp_strerror(rc));
    free(ranks);
    free(mapping);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: pmi-serve [-n N] [-v LEVEL] [-t SECONDS] "
            "PROGRAM [ARG...]\n");
    return 2;
}

int main(int argc, char **argv)
{
    job_t job = { .size = 2 };
    struct timeval limit = { 60, 0 };
    struct event *timer;
    int opt;

    while ((opt = getopt(argc, argv, "+n:v:t:")) != -1) {
        if (opt == 'n' && atoi(optarg) > 0)
            job.size = (uint32_t)atoi(optarg);
        else if (opt == 'v')
            hnp_log_stream("pmi")->verbose = atoi(optarg);
        else if (opt == 't' && atoi(optarg) > 0)
            limit.tv_sec = atoi(optarg);
        else
            return usage();
    }
    if (optind >= argc)
        return usage();
    signal(SIGPIPE, SIG_IGN);
    char err[256];
    if (hnp_rte_create(&job.rte, &job.setup, false, 1, err, sizeof(err)) != 0)
        return 1;
    job.base = job.rte->base;
    job.pids = calloc(job.size, sizeof(*job.pids));
    if (job.pids == NULL ||
        (job.children = job.rte->children) == NULL ||
        setup_server(&job) != 0)
        return 1;
    timer = evtimer_new(job.base, on_timeout, &job);
    evtimer_add(timer, &limit);
    if (launch(&job, argv + optind) != HNP_SUCCESS)
        fail_job(&job, "cannot start the processes");
    if (job.alive > 0)
        event_base_dispatch(job.base);
    pmi_simple_server_destroy(job.srv);
    event_free(timer);
    hnp_rte_destroy(job.rte);
    free(job.pids);
    return job.status;
}
