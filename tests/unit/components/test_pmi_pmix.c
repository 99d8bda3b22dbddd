/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pmix component serving real Open MPI ranks on one node: the test is
 * the daemon (the runtime's services are stand-ins, pmix_doubles.c), forks
 * 4 ranks of programs built with mpicc.openmpi, each with the environment
 * child_setup gave it, and turns the event loop until they are gone.
 * Skipped (77) without mpicc.openmpi.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../loop_helpers.h"
#include "hnp_log.h"
#include "../../../components/pmi/pmix/pmi_pmix_internal.h"
#include "pmix_doubles.h"

#define NRANKS 4
#define JOB_SECONDS 60.0

static char bindir[64];          /* the test programs */
static char hostname[256];
static char logged[8192];        /* the component's messages */

static void log_collect(void *ctx, hnp_log_severity_t sev,
                        const char *stream, const char *message)
{
    (void)ctx;
    (void)sev;
    (void)stream;
    size_t len = strlen(logged);
    snprintf(logged + len, sizeof(logged) - len, "%s\n", message);
}

typedef struct run {
    const char *program;        /* in bindir */
    const char *args[4];        /* NULL-terminated */
    uint32_t slots;
    const char *btl;            /* OMPI_MCA_btl for the ranks, or NULL */
    int status[NRANKS];         /* wait status */
    char out[NRANKS][512];      /* what each rank printed */
    bool tmpdir_empty;          /* after job_end */
} run_t;

static void rank_exec(const run_t *r, const hnp_pmi_fork_t *f,
                      const char *outfile)
{
    char path[128];
    char *argv[6] = { path };
    int fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    /* Each rank leads its process group, as the daemon's do: the
     * server's guard knows a rank's connections by it. */
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || setpgid(0, 0) != 0)
        _exit(126);
    for (size_t i = 0; i < f->count; i++)
        setenv(f->name[i], f->value[i], 1);
    if (r->btl != NULL)
        setenv("OMPI_MCA_btl", r->btl, 1);
    snprintf(path, sizeof(path), "%s/%s", bindir, r->program);
    for (int i = 0; i < 4 && r->args[i] != NULL; i++)
        argv[i + 1] = (char *)r->args[i];
    execv(path, argv);
    _exit(127);
}

static bool dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool empty = true;

    if (d == NULL)
        return true;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = false;
    closedir(d);
    return empty;
}

static void read_file(const char *path, char *buf, size_t len)
{
    FILE *fp = fopen(path, "r");
    size_t n = fp != NULL ? fread(buf, 1, len - 1, fp) : 0;

    buf[n] = '\0';
    if (fp != NULL)
        fclose(fp);
}

/* A new job: what the stand-ins recorded goes; the loop and the watch
 * of the daemon's server stay. */
static void doubles_reset(void)
{
    pmix_doubles_t kept = doubles;

    memset(&doubles, 0, sizeof(doubles));
    doubles.base = kept.base;
    doubles.watches = kept.watches;
    doubles.scratch_dirs = kept.scratch_dirs;
    doubles.service = kept.service;
    doubles.serve = kept.serve;
}

/* Start, serve and end a job of NRANKS ranks; every rank is reaped. */
static void run_job(run_t *r)
{
    static unsigned jobs;
    char tmpdir[] = "/tmp/hnp-pmix-test-XXXXXX";
    char name[64], err[512] = "", outfile[NRANKS][96];
    const char *names[2] = { NULL, hostname }; /* node 1 */
    uint32_t node_of[NRANKS] = { 1, 1, 1, 1 }, local[NRANKS];
    char *app_argv[] = { (char *)r->program, NULL };
    hnp_pmi_app_t app = { .first_rank = 0, .nprocs = NRANKS,
                          .argv = app_argv };
    pid_t pid[NRANKS];
    void *state = NULL;

    assert_non_null(mkdtemp(tmpdir));
    snprintf(name, sizeof(name), "hnp-test-%d-%u", (int)getpid(), ++jobs);
    for (uint32_t i = 0; i < NRANKS; i++)
        local[i] = i;
    hnp_pmi_job_t job = {
        .jobid = jobs, .name = name, .nprocs = NRANKS,
        .universe_size = NRANKS, .nnodes = 1, .node_of = node_of,
        .node_names = names, .my_node = 1, .local_ranks = local,
        .nlocal = NRANKS, .slots = r->slots, .napps = 1, .apps = &app,
        .tmpdir = tmpdir, .series = 3, .max_allgather_bytes = 1 << 20,
    };
    doubles_reset();
    doubles.jobid = job.jobid;
    doubles.series = job.series;
    logged[0] = '\0';
    assert_int_equal(pmi_pmix_module.job_start(NULL, &job, &state, err,
                                               sizeof(err)), HNP_SUCCESS);
    for (uint32_t rank = 0; rank < NRANKS; rank++) {
        hnp_pmi_fork_t f = { 0 };
        hnp_pmi_child_t child = { .rank = rank, .local_rank = rank,
                                  .node_rank = rank, .appnum = 0,
                                  .app_rank = rank };
        assert_int_equal(pmi_pmix_module.child_setup(state, &child, &f, err,
                                                     sizeof(err)),
                         HNP_SUCCESS);
        snprintf(outfile[rank], sizeof(outfile[rank]),
                 "%s-out.%u", tmpdir, (unsigned)rank);
        pid[rank] = fork();
        if (pid[rank] == 0)
            rank_exec(r, &f, outfile[rank]);
        pmix_doubles_fork_clear(&f);
        assert_true(pid[rank] > 0);
        pmi_pmix_module.child_started(state, rank, pid[rank]);
    }

    /* The daemon's loop: serve until every rank is gone; an abort ends
     * the job (the runtime kills the others); the deadline too. */
    struct event *tick = event_new(doubles.base, -1, EV_PERSIST, loop_tick,
                                   NULL);
    struct timeval tv = { 0, 20000 };
    event_add(tick, &tv);
    double deadline = loop_now() + JOB_SECONDS;
    int left = NRANKS;
    bool killed = false;
    while (left > 0) {
        event_base_loop(doubles.base, EVLOOP_ONCE);
        for (int i = 0; i < NRANKS; i++)
            if (pid[i] > 0 && waitpid(pid[i], &r->status[i], WNOHANG) > 0) {
                pid[i] = 0;
                left--;
            }
        if (!killed && (doubles.aborts > 0 || loop_now() > deadline)) {
            for (int i = 0; i < NRANKS; i++)
                if (pid[i] > 0)
                    kill(pid[i], SIGKILL);
            killed = true;
        }
    }
    /* what the ranks said last is on the queue */
    LOOP_UNTIL(doubles.base, 0.2, false);
    event_free(tick);
    pmi_pmix_module.job_end(state);
    r->tmpdir_empty = dir_empty(tmpdir);
    rmdir(tmpdir);
    for (int i = 0; i < NRANKS; i++) {
        read_file(outfile[i], r->out[i], sizeof(r->out[i]));
        unlink(outfile[i]);
    }
    assert_true(loop_now() < deadline); /* no rank hung */
}

static void test_ring_allreduce_barrier(void **unused)
{
    run_t r = { .program = "mpi_ring", .slots = NRANKS };
    char want[64];

    (void)unused;
    run_job(&r);
    for (int i = 0; i < NRANKS; i++) {
        snprintf(want, sizeof(want),
                 "rank %d of %d: ring ok, allreduce 6 ok\n", i, NRANKS);
        assert_string_equal(r.out[i], want);
        assert_true(WIFEXITED(r.status[i]) && WEXITSTATUS(r.status[i]) == 0);
        assert_int_equal(doubles.state[i],
                         HNP_RTE_PROC_CONNECTED | HNP_RTE_PROC_FINALIZED);
    }
    assert_int_equal(doubles.aborts, 0);
    assert_false(doubles.state_job_wrong);
    assert_true(r.tmpdir_empty);
}

/* With the shared-memory and self transports only, the ranks can talk
 * only if libpmix told them they share the node. */
static void test_shared_memory_within_node(void **unused)
{
    run_t r = { .program = "ompi_check", .args = { "shared" },
                .slots = NRANKS, .btl = "self,vader" };
    char want[64];

    (void)unused;
    run_job(&r);
    for (int i = 0; i < NRANKS; i++) {
        snprintf(want, sizeof(want), "rank %d of %d: %d on this node\n", i,
                 NRANKS, NRANKS);
        assert_string_equal(r.out[i], want);
    }
    assert_true(r.tmpdir_empty);
}

static void test_abort_reaches_the_runtime(void **unused)
{
    run_t r = { .program = "mpi_ring", .args = { "abort", "2", "7" },
                .slots = NRANKS };

    (void)unused;
    run_job(&r);
    assert_int_equal(doubles.aborts, 1);
    assert_int_equal(doubles.abort_rank, 2);
    assert_int_equal(doubles.abort_jobid, doubles.jobid);
    assert_int_equal(doubles.abort_code, 7);
    assert_true(r.tmpdir_empty);
}

static void test_exit_without_finalize(void **unused)
{
    run_t r = { .program = "ompi_check", .args = { "nofinalize" },
                .slots = NRANKS };

    (void)unused;
    run_job(&r);
    for (int i = 0; i < NRANKS; i++)
        assert_int_equal(doubles.state[i], HNP_RTE_PROC_CONNECTED);
    assert_true(r.tmpdir_empty);
}

/* A libpmix call whose callback never comes (libpmix's thread held up):
 * the wait ends at pmi_pmix_call_timeout with PMIX_ERR_TIMEOUT, marks the
 * server stuck (no further waits), and the callback may still come late. */
static void test_wait_on_libpmix_has_a_deadline(void **unused)
{
    (void)unused;
    double saved = pmi_pmix_params.call_timeout;
    struct timespec t0, t1;

    pmi_pmix_params.call_timeout = 0.2;
    pmi_pmix_sync_t *sync = pmi_pmix_sync_create();
    assert_non_null(sync);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(pmi_pmix_sync_wait(sync, PMIX_SUCCESS), PMIX_ERR_TIMEOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(pmi_pmix_server.stuck);
    /* generous: a starved machine may wake the waiter late */
    assert_true(t1.tv_sec - t0.tv_sec < 30);
    pmi_pmix_sync_cb(PMIX_SUCCESS, sync); /* late: frees it */
    /* stuck: the next wait does not wait */
    sync = pmi_pmix_sync_create();
    assert_int_equal(pmi_pmix_sync_wait(sync, PMIX_SUCCESS), PMIX_ERR_TIMEOUT);
    pmi_pmix_sync_cb(PMIX_SUCCESS, sync);
    /* a call that answered at once: no wait, no callback */
    sync = pmi_pmix_sync_create();
    assert_int_equal(pmi_pmix_sync_wait(sync, PMIX_OPERATION_SUCCEEDED),
                     PMIX_SUCCESS);
    pmi_pmix_server.stuck = false;
    pmi_pmix_params.call_timeout = saved;
}

static void test_spawn_fails_at_once_with_a_message(void **unused)
{
    run_t r = { .program = "ompi_check", .args = { "spawn" },
                .slots = NRANKS };

    (void)unused;
    run_job(&r);
    assert_non_null(strstr(r.out[0], "spawn refused"));
    /* Open MPI publishes its port before it spawns: without a name
     * service the publish is refused; with one, the spawn reaches the
     * runtime, whose stand-in refuses it. Either way the rank learns it
     * at once, and the daemon says why. */
    assert_true(doubles.spawns > 0 ||
                strstr(logged, "to publish a name") != NULL);
    if (doubles.spawns > 0)
        assert_non_null(strstr(logged, "asked to spawn 1 programs"));
}

/* CPU of every thread of the process (libpmix's too). */
static double cpu_seconds(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Open MPI's variables: schizo, and the yield hint on an oversubscribed
 * node only; libpmix's own (the namespace, the rank). */
static void test_child_environment(void **unused)
{
    char tmpdir[] = "/tmp/hnp-pmix-test-XXXXXX", err[512] = "";
    const char *names[2] = { NULL, hostname }; /* node 1 */
    uint32_t node_of[NRANKS] = { 1, 1, 1, 1 }, local[NRANKS] = { 0, 1, 2, 3 };

    (void)unused;
    assert_non_null(mkdtemp(tmpdir));
    for (uint32_t slots = 2; slots <= NRANKS; slots += 2) {
        hnp_pmi_job_t job = {
            .jobid = 9, .name = "hnp-test-env", .nprocs = NRANKS,
            .universe_size = NRANKS, .nnodes = 1, .node_of = node_of,
            .node_names = names, .my_node = 1, .local_ranks = local,
            .nlocal = NRANKS, .slots = slots, .tmpdir = tmpdir, .max_allgather_bytes = 1024,
        };
        hnp_pmi_child_t child = { .rank = 3, .local_rank = 3,
                                  .node_rank = 3, .app_rank = 3 };
        hnp_pmi_fork_t f = { 0 };
        void *state = NULL;
        doubles_reset();
        double cpu = cpu_seconds();
        assert_int_equal(pmi_pmix_module.job_start(NULL, &job, &state, err,
                                                   sizeof(err)),
                         HNP_SUCCESS);
        /* the first starts the server: what it costs a daemon */
        printf("# job_start%s: %.2f ms of CPU\n",
               slots == 2 ? " with the server's start" : "",
               (cpu_seconds() - cpu) * 1e3);
        assert_int_equal(pmi_pmix_module.child_setup(state, &child, &f, err,
                                                     sizeof(err)),
                         HNP_SUCCESS);
        assert_string_equal(pmix_doubles_getenv(&f, "OMPI_MCA_schizo"),
                            "^orte");
        assert_string_equal(pmix_doubles_getenv(&f, "PMIX_NAMESPACE"),
                            "hnp-test-env");
        assert_string_equal(pmix_doubles_getenv(&f, "PMIX_RANK"), "3");
        const char *yield =
            pmix_doubles_getenv(&f, "OMPI_MCA_mpi_yield_when_idle");
        if (slots < NRANKS)
            assert_string_equal(yield, "1");
        else
            assert_null(yield);
        pmix_doubles_fork_clear(&f);
        pmi_pmix_module.job_end(state);
        assert_true(dir_empty(tmpdir));
    }
    rmdir(tmpdir);
}

typedef struct fence_result {
    bool done;
    pmix_status_t status;
    char data[64];
    size_t len;
} fence_result_t;

static void fence_done(pmix_status_t status, const char *data, size_t ndata,
                       void *cbdata, pmix_release_cbfunc_t release,
                       void *release_cbdata)
{
    fence_result_t *res = cbdata;

    res->status = status;
    res->len = ndata < sizeof(res->data) ? ndata : sizeof(res->data);
    if (data != NULL)
        memcpy(res->data, data, res->len);
    if (release != NULL)
        release(release_cbdata);
    res->done = true;
}

/* libpmix's fence, called as its thread would: the blob is copied (the
 * caller's buffer is gone at once), all-gathered as number 0, 1, ... of
 * the job's series; one over part of the job is refused with a message. */
static void test_fence_is_an_allgather(void **unused)
{
    char tmpdir[] = "/tmp/hnp-pmix-test-XXXXXX", err[512] = "";
    const char *names[2] = { NULL, hostname }; /* node 1 */
    uint32_t node_of[NRANKS] = { 1, 1, 1, 1 }, local[NRANKS] = { 0, 1, 2, 3 };
    hnp_pmi_job_t job = {
        .jobid = 10, .name = "hnp-test-fence", .nprocs = NRANKS,
        .universe_size = NRANKS, .nnodes = 1, .node_of = node_of,
        .node_names = names, .my_node = 1, .local_ranks = local,
        .nlocal = NRANKS, .slots = NRANKS, .tmpdir = tmpdir, .series = 5,
        .max_allgather_bytes = 1024,
    };
    pmix_proc_t procs[2];
    void *state = NULL;

    (void)unused;
    assert_non_null(mkdtemp(tmpdir));
    doubles_reset();
    doubles.jobid = job.jobid;
    doubles.series = job.series;
    logged[0] = '\0';
    assert_int_equal(pmi_pmix_module.job_start(NULL, &job, &state, err,
                                               sizeof(err)), HNP_SUCCESS);
    for (uint32_t seq = 0; seq < 2; seq++) {
        fence_result_t res = { 0 };
        char blob[8];
        snprintf(blob, sizeof(blob), "blob%u", (unsigned)seq);
        PMIX_LOAD_PROCID(&procs[0], job.name, PMIX_RANK_WILDCARD);
        assert_int_equal(pmi_pmix_server_module.fence_nb(
                             procs, 1, NULL, 0, blob, strlen(blob),
                             fence_done, &res), PMIX_SUCCESS);
        memset(blob, 'x', sizeof(blob) - 1);
        assert_true(LOOP_UNTIL(doubles.base, 10.0, res.done));
        assert_int_equal(res.status, PMIX_SUCCESS);
        assert_int_equal(res.len, 5);
        assert_memory_equal(res.data, seq == 0 ? "blob0" : "blob1", 5);
    }
    assert_int_equal(doubles.fences, 2);
    assert_false(doubles.fence_order_wrong);

    fence_result_t part = { 0 };
    PMIX_LOAD_PROCID(&procs[0], job.name, 0);
    PMIX_LOAD_PROCID(&procs[1], job.name, 1);
    assert_int_equal(pmi_pmix_server_module.fence_nb(
                         procs, 2, NULL, 0, NULL, 0, fence_done, &part),
                     PMIX_SUCCESS);
    assert_true(LOOP_UNTIL(doubles.base, 10.0, part.done));
    assert_int_equal(part.status, PMIX_ERR_NOT_SUPPORTED);
    assert_int_equal(doubles.fences, 2);
    assert_non_null(strstr(logged, "fence over 2 of the job's 4 ranks"));
    pmi_pmix_module.job_end(state);
    assert_true(dir_empty(tmpdir));
    rmdir(tmpdir);
}

static bool build_programs(void)
{
    char cmd[512];

    if (system("command -v mpicc.openmpi >/dev/null 2>&1") != 0)
        return false;
    snprintf(bindir, sizeof(bindir), "/tmp/hnp-pmix-bin-XXXXXX");
    if (mkdtemp(bindir) == NULL)
        return false;
    const char *src = getenv("top_srcdir") ? getenv("top_srcdir") : ".";
    snprintf(cmd, sizeof(cmd),
             "mpicc.openmpi -o %s/mpi_ring %s/tests/mpi/mpi_ring.c && "
             "mpicc.openmpi -o %s/ompi_check %s/tests/mpi/ompi_check.c",
             bindir, src, bindir, src);
    if (system(cmd) != 0) {
        fprintf(stderr, "test_pmi_pmix: cannot build the Open MPI programs: "
                "%s\n", cmd);
        exit(1);
    }
    return true;
}

static void remove_programs(void)
{
    char path[128];

    snprintf(path, sizeof(path), "%s/mpi_ring", bindir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/ompi_check", bindir);
    unlink(path);
    rmdir(bindir);
}

/* Under LeakSanitizer: libpmix 4.2 keeps blocks of its own past
 * PMIx_server_finalize (none is allocated by the component); only a leak
 * with a frame of ours is reported. */
__attribute__((visibility("default"))) const char *
__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

/* A job of 1 rank on node 1 (this one), started, none of it forked. */
typedef struct quiet_job {
    char name[64];
    char tmpdir[40];
    uint32_t node_of[1], local[1];
    const char *names[2];
    hnp_pmi_job_t job;
    void *state;
} quiet_job_t;

static void quiet_job_start(quiet_job_t *q, uint32_t jobid)
{
    char err[512] = "";

    snprintf(q->tmpdir, sizeof(q->tmpdir), "/tmp/hnp-pmix-test-XXXXXX");
    assert_non_null(mkdtemp(q->tmpdir));
    snprintf(q->name, sizeof(q->name), "hnp-test-%d-q%u", (int)getpid(),
             (unsigned)jobid);
    q->node_of[0] = 1;
    q->local[0] = 0;
    q->names[0] = NULL;
    q->names[1] = hostname;
    q->job = (hnp_pmi_job_t){
        .jobid = jobid, .name = q->name, .nprocs = 1, .universe_size = 1,
        .nnodes = 1, .node_of = q->node_of, .node_names = q->names,
        .my_node = 1, .local_ranks = q->local, .nlocal = 1, .slots = 1,
        .tmpdir = q->tmpdir, .series = 1, .max_allgather_bytes = 1024,
    };
    assert_int_equal(pmi_pmix_module.job_start(NULL, &q->job, &q->state, err,
                                               sizeof(err)), HNP_SUCCESS);
}

static void quiet_job_end(quiet_job_t *q)
{
    pmi_pmix_module.job_end(q->state);
    rmdir(q->tmpdir);
}

static void connected(pmix_status_t status, void *cbdata)
{
    *(pmix_status_t *)cbdata = status;
}

/* The connect upcall for rank 0 of @p local and every rank of @p other. */
static void connect_with(const quiet_job_t *local, const char *other)
{
    pmix_proc_t procs[2];
    pmix_status_t status = PMIX_ERR_WOULD_BLOCK;

    PMIX_LOAD_PROCID(&procs[0], local->name, 0);
    PMIX_LOAD_PROCID(&procs[1], other, PMIX_RANK_WILDCARD);
    assert_int_equal(pmi_pmix_connect(procs, 2, NULL, 0, connected, &status),
                     PMIX_SUCCESS);
    LOOP_UNTIL(doubles.base, 10.0, status != PMIX_ERR_WOULD_BLOCK);
    assert_int_equal(status, PMIX_SUCCESS);
}

/* Two local jobs connect with a job on another node, whose namespace this
 * daemon registers for the first; it stays while either of them runs
 * (the second's ranks still talk to it), and goes with the last. */
static void test_foreign_namespace_held_by_each_job(void **unused)
{
    char other[64];
    quiet_job_t a, b;
    uint32_t jobid = 0;

    (void)unused;
    doubles_reset();
    snprintf(other, sizeof(other), "hnp-test-%d-other", (int)getpid());
    doubles.other_job = other;
    quiet_job_start(&a, 41);
    quiet_job_start(&b, 42);
    connect_with(&a, other);
    assert_true(pmi_pmix_foreign_jobid(other, &jobid));
    assert_int_equal(jobid, PMIX_DOUBLES_OTHER_JOBID);
    connect_with(&b, other);
    assert_int_equal(doubles.gathers_across, 2);
    quiet_job_end(&a);
    assert_true(pmi_pmix_foreign_jobid(other, &jobid));
    /* a connect of the job still running needs no new registration */
    connect_with(&b, other);
    quiet_job_end(&b);
    assert_false(pmi_pmix_foreign_jobid(other, &jobid));
    doubles.other_job = NULL;
}

/* The kernel names the other end of a local connection: its owner and
 * its inode, for IPv4 and IPv6; a connection that is gone is not found. */
static void test_peer_lookup(void **unused)
{
    (void)unused;
    for (int family = AF_INET; family != 0;
         family = family == AF_INET ? AF_INET6 : 0) {
        struct sockaddr_storage a = { .ss_family = (sa_family_t)family };
        struct sockaddr_storage self, peer;
        socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in)
                                          : sizeof(struct sockaddr_in6);
        if (family == AF_INET)
            ((struct sockaddr_in *)&a)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        else
            ((struct sockaddr_in6 *)&a)->sin6_addr = in6addr_loopback;
        int l = socket(family, SOCK_STREAM, 0);
        if (l < 0 || bind(l, (struct sockaddr *)&a, len) != 0) {
            if (l >= 0)
                close(l);
            continue; /* no IPv6 here */
        }
        socklen_t alen = sizeof(a);
        assert_int_equal(listen(l, 1), 0);
        assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
        int c = socket(family, SOCK_STREAM, 0);
        assert_int_equal(connect(c, (struct sockaddr *)&a, alen), 0);
        int s = accept(l, NULL, NULL);
        assert_true(s >= 0);
        socklen_t slen = sizeof(self), plen = sizeof(peer);
        assert_int_equal(getsockname(s, (struct sockaddr *)&self, &slen), 0);
        assert_int_equal(getpeername(s, (struct sockaddr *)&peer, &plen), 0);
        struct stat st;
        uid_t uid = (uid_t)-1;
        uint64_t inode = 0;
        assert_int_equal(fstat(c, &st), 0);
        assert_int_equal(pmi_pmix_peer_lookup(&peer, &self, &uid, &inode),
                         HNP_SUCCESS);
        assert_int_equal(uid, geteuid());
        assert_int_equal(inode, (uint64_t)st.st_ino);
        close(c);
        close(s);
        close(l);
        assert_int_equal(pmi_pmix_peer_lookup(&peer, &self, &uid, &inode),
                         HNP_ERR_NOT_FOUND);
    }
}

/* What the kernel answers, and what it does not. */
static void test_diag_answers(void **unused)
{
    union {
        struct nlmsghdr h;
        char bytes[256];
    } m;
    uid_t uid;
    uint64_t inode;

    (void)unused;
    memset(&m, 0, sizeof(m));
    m.h.nlmsg_type = NLMSG_ERROR;
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr));
    ((struct nlmsgerr *)NLMSG_DATA(&m.h))->error = -ENOENT;
    assert_int_equal(pmi_pmix_diag_answer(&m, m.h.nlmsg_len, &uid, &inode),
                     HNP_ERR_NOT_FOUND);
    ((struct nlmsgerr *)NLMSG_DATA(&m.h))->error = -EPERM;
    assert_int_equal(pmi_pmix_diag_answer(&m, m.h.nlmsg_len, &uid, &inode),
                     HNP_ERR_IO);
    memset(&m, 0, sizeof(m));
    m.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct inet_diag_msg));
    ((struct inet_diag_msg *)NLMSG_DATA(&m.h))->idiag_uid = 1234;
    ((struct inet_diag_msg *)NLMSG_DATA(&m.h))->idiag_inode = 5678;
    assert_int_equal(pmi_pmix_diag_answer(&m, m.h.nlmsg_len, &uid, &inode),
                     HNP_SUCCESS);
    assert_int_equal(uid, 1234);
    assert_int_equal(inode, 5678);
    /* cut short, or longer than what arrived */
    assert_int_equal(pmi_pmix_diag_answer(&m, 8, &uid, &inode),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(pmi_pmix_diag_answer(&m, m.h.nlmsg_len - 1, &uid,
                                          &inode), HNP_ERR_BAD_PARAM);
    m.h.nlmsg_len = NLMSG_LENGTH(4);
    assert_int_equal(pmi_pmix_diag_answer(&m, sizeof(m), &uid, &inode),
                     HNP_ERR_BAD_PARAM);
    /* a socket no process holds (closed, in time-wait) */
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct inet_diag_msg));
    ((struct inet_diag_msg *)NLMSG_DATA(&m.h))->idiag_inode = 0;
    assert_int_equal(pmi_pmix_diag_answer(&m, m.h.nlmsg_len, &uid, &inode),
                     HNP_ERR_NOT_FOUND);
}

/* The topology the daemon hands libpmix (which keeps it to itself) has
 * every processor this process may use, and no caches: reading them is
 * sysfs files for each cache of each processor, which libpmix never
 * looks at. */
static void test_topology_is_the_processors_alone(void **unused)
{
    (void)unused;
    hwloc_topology_t topology = pmi_pmix_topology_load();
    cpu_set_t mine;

    assert_non_null(topology);
    assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
    assert_true(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU) >=
                CPU_COUNT(&mine));
    assert_true(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) > 0);
    for (hwloc_obj_type_t t = HWLOC_OBJ_L1CACHE; t <= HWLOC_OBJ_L3ICACHE; t++)
        assert_int_equal(hwloc_get_nbobjs_by_type(topology, t), 0);
    hwloc_topology_destroy(topology);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_environment),
        cmocka_unit_test(test_fence_is_an_allgather),
        cmocka_unit_test(test_ring_allreduce_barrier),
        cmocka_unit_test(test_shared_memory_within_node),
        cmocka_unit_test(test_abort_reaches_the_runtime),
        cmocka_unit_test(test_exit_without_finalize),
        cmocka_unit_test(test_spawn_fails_at_once_with_a_message),
        cmocka_unit_test(test_wait_on_libpmix_has_a_deadline),
        cmocka_unit_test(test_foreign_namespace_held_by_each_job),
        cmocka_unit_test(test_peer_lookup),
        cmocka_unit_test(test_diag_answers),
        cmocka_unit_test(test_topology_is_the_processors_alone),
    };

    if (!build_programs()) {
        printf("SKIP: mpicc.openmpi not found (Debian's libopenmpi-dev)\n");
        return 77;
    }
    gethostname(hostname, sizeof(hostname) - 1);
    hnp_log_set_handler(log_collect, NULL);
    doubles.base = event_base_new();
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    pmi_pmix_module.finalize(NULL);
    if (doubles.watches != 0) {
        fprintf(stderr, "test_pmi_pmix: the server left its watch\n");
        failed++;
    }
    if (doubles.scratch_dirs != 0) {
        fprintf(stderr, "test_pmi_pmix: %d scratch directories were not "
                "removed\n", doubles.scratch_dirs);
        failed++;
    }
    pmix_doubles_scratch_clean();
    event_base_free(doubles.base);
    remove_programs();
    return failed;
}
