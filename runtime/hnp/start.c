/* SPDX-License-Identifier: BSD-3-Clause */
/* Setting a job up in the HNP: the runtime's processes, the daemon's
 * path, the trees, the handlers; then phase 1. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"

/* hnpd lives beside hnp (or in PREFIX/bin): started by absolute path, so a
 * non-interactive remote shell needs no PATH. */
static char *find_daemon_path(const char *prefix, char *err, size_t errlen)
{
    char self[PATH_MAX], path[PATH_MAX + 16];
    ssize_t n;

    if (prefix != NULL) {
        snprintf(path, sizeof(path), "%s/bin/hnpd", prefix);
        return strdup(path);
    }
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        hnp_err_set(err, errlen, "cannot find where hnp runs from; use "
                    "--prefix DIR");
        return NULL;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(path, sizeof(path), "%s/hnpd", self);
    return strdup(path);
}

static int set_runtime_procs(hnp_job_t *job)
{
    uint32_t nprocs = job->map.nnodes + 1;
    char **names = calloc(nprocs, sizeof(*names));
    char host[256] = "localhost";
    int rc;

    if (names == NULL)
        return HNP_ERR_NOMEM;
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    names[0] = host;
    /* agents started from here know which node launches them */
    setenv("HNP_NODE_NAME", host, 1);
    for (uint32_t i = 0; i < job->map.nnodes; i++)
        names[i + 1] = job->map.node_names[i];
    rc = hnp_rte_set_procs(job->rte, nprocs, names);
    free(names);
    job->ndaemons = job->map.nnodes;
    return rc;
}

static int build_trees(hnp_rte_t *rte, char *err, size_t errlen)
{
    int rc = hnp_rte_build_trees(rte);

    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "cannot build the spawn and routing trees "
                    "for %u processes", rte->nprocs);
    return rc;
}

static void register_handlers(hnp_job_t *job)
{
    hnp_job_register_handlers(job);
    hnp_job_register_io(job);
    hnp_rte_accept_joins(job->rte);
}

int hnp_job_start(hnp_job_t *job, char *err, size_t errlen)
{
    hnp_rte_t *rte = job->rte;
    char cwd[PATH_MAX];
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &job->start);
    job->wdir = strdup(getcwd(cwd, sizeof(cwd)) != NULL ? cwd : "/");
    rte->daemon_path = find_daemon_path(job->args->prefix, err, errlen);
    if (job->wdir == NULL || rte->daemon_path == NULL)
        return HNP_ERROR;
    if ((rc = set_runtime_procs(job)) != HNP_SUCCESS ||
        (rc = hnp_secret_generate(rte->secret)) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "cannot set the job up: %s", hnp_strerror(rc));
        return rc;
    }
    hnp_secret_to_hex(rte->secret, rte->secret_hex);
    hnp_job_model_apply(job, false);
    if ((rc = build_trees(rte, err, errlen)) != HNP_SUCCESS ||
        (rc = hnp_rte_start_oob(rte, rte->nprocs, err, errlen)) != HNP_SUCCESS ||
        (rc = hnp_job_plan_fds(job, err, errlen)) != HNP_SUCCESS)
        return rc;
    rte->hnp_uri = strdup(hnp_rte_my_uri(rte));
    register_handlers(job);
    if ((rc = rte->exchange->init(rte)) != HNP_SUCCESS ||
        (rte->plm->init != NULL && (rc = rte->plm->init(rte)) != HNP_SUCCESS)) {
        hnp_err_set(err, errlen, "cannot prepare the launch: %s",
                    hnp_strerror(rc));
        return rc;
    }
    if ((rc = hnp_job_progress_start(job)) != HNP_SUCCESS)
        return rc;
    hnp_job_arm_launch_timer(job);
    hnp_job_arm_timeout(job);
    hnp_job_start_heartbeats(job);
    return rte->plm->launch_daemons(rte);
}

void hnp_job_release(hnp_job_t *job)
{
    hnp_rte_timer_destroy(job->launch_timer);
    hnp_rte_timer_destroy(job->end_timer);
    hnp_rte_timer_destroy(job->timeout_timer);
    hnp_rte_timer_destroy(job->stop_timer);
    hnp_job_output_release(job);
    hnp_job_progress_release(job);
    hnp_job_notes_release(job);
    hnp_job_stdin_release(job);
    hnp_job_state_release(job);
    hnp_job_map_free(&job->map);
    free(job->wdir);
    free(job->end_message);
    job->end_message = NULL;
    free(job->startup_cpu_us);
    free(job->pmi_cpu_us);
    free(job->pmi_early_cpu_us);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* The median of the daemons' start-up CPU @p us (one figure a report),
 * beside the worst: on one machine that many daemons share, the worst
 * mostly measures contention. */
static double median_of(uint64_t *us, uint32_t n)
{
    qsort(us, n, sizeof(uint64_t), compare_u64);
    if (n == 0)
        return 0;
    return (n % 2 == 1 ? (double)us[n / 2]
                       : (us[n / 2 - 1] + us[n / 2]) / 2.0) / 1e3;
}

static double median_ms(const hnp_job_t *job, uint64_t *us)
{
    return median_of(us, job->stats_reports < job->ndaemons
                             ? job->stats_reports : job->ndaemons);
}

/* The phases in the order they ended: they overlap (the launch message
 * goes down while the contact exchange runs), so the table's order is not
 * the clock's. Those that did not end come last, in the table's order. */
static void order_marks(const hnp_job_t *job, int order[HNP_MARK_COUNT])
{
    for (int m = 0; m < HNP_MARK_COUNT; m++) {
        int at = m;
        double t = job->marks[m];
        /* insertion: an unended mark (0) sorts after every ended one */
        while (at > 0 && t > 0 &&
               (job->marks[order[at - 1]] <= 0 ||
                job->marks[order[at - 1]] > t)) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = m;
    }
}

void hnp_job_print_timing(const hnp_job_t *job)
{
    static const char *const names[HNP_MARK_COUNT] = {
        "all daemons up", "contact table complete everywhere",
        "launch message sent", "all processes started",
        "all processes exited", "all daemons exited",
    };
    const hnp_wire_stats_t *w = &job->worst;
    int order[HNP_MARK_COUNT];

    fprintf(stderr, "hnp: timing for %u daemons, %u processes (seconds since "
            "start, in the order the phases ended):\n", job->ndaemons,
            job->map.nprocs);
    order_marks(job, order);
    for (int i = 0; i < HNP_MARK_COUNT; i++) {
        int m = order[i];
        if (job->marks[m] > 0)
            fprintf(stderr, "hnp:   %-36s %9.3f\n", names[m], job->marks[m]);
        else if (m == HNP_MARK_TABLE_EVERYWHERE)
            /* Phase 2 overlaps the job: a short one can end before every
             * daemon has the table, and nobody waits for it then. */
            fprintf(stderr, "hnp:   %-36s %9s (%u of %u daemons had it when "
                    "the job ended)\n", names[m], "-", job->reports[m],
                    job->ndaemons);
        else if (m == HNP_MARK_PROCS_STARTED)
            fprintf(stderr, "hnp:   %-36s %9s (%u of %u daemons reported)\n",
                    names[m], "-", job->reports[m], job->ndaemons);
        else
            fprintf(stderr, "hnp:   %-36s %9s\n", names[m], "-");
    }
    fprintf(stderr, "hnp:   %-36s %9u\n", "connections held by the HNP (max)",
            hnp_oob_max_connections(job->rte->oob));
    /* Proving the secret and deriving the keys, not the frames' MACs. */
    fprintf(stderr, "hnp:   %-36s %9.2f ms CPU (%u handshakes)\n",
            "handshakes of the HNP",
            hnp_oob_handshake_cpu_us(job->rte->oob) / 1e3,
            hnp_oob_handshakes(job->rte->oob));
    hnp_job_print_slowest(job);
    if (job->stats_reports == 0)
        return;
    fprintf(stderr, "hnp:   %-36s %9u (vpid %u, node %s)\n",
            "connections held by a daemon (max)", w->max_connections,
            job->most_connected,
            hnp_rte_node_name(job->rte, job->most_connected));
    fprintf(stderr, "hnp:   %-36s %9.1f ms CPU, %llu kB RSS (max of %u)\n",
            "daemon start-up (exec to joined)", w->startup_cpu_us / 1e3,
            (unsigned long long)w->startup_rss_kb, job->stats_reports);
    if (job->startup_cpu_us != NULL) {
        fprintf(stderr, "hnp:   %-36s %9.1f ms CPU\n",
                "daemon start-up (median)",
                median_ms(job, job->startup_cpu_us));
        /* The launch targets' measure: before the welcome is applied. */
        fprintf(stderr, "hnp:   %-36s %9.1f ms CPU (max %.1f ms)\n",
                "daemon exec to connected (median)",
                median_ms(job, job->startup_cpu_us + job->ndaemons),
                w->connected_cpu_us / 1e3);
    }
    /* What serving the ranks' MPI libraries cost, where it was needed:
     * before the launch (off the job's start), and at the launch. */
    if (job->pmi_early_reports > 0)
        fprintf(stderr, "hnp:   %-36s %9.1f ms CPU (max %.1f ms, %u "
                "daemons)\n", "pmi set-up before the launch (median)",
                median_of(job->pmi_early_cpu_us, job->pmi_early_reports),
                w->pmi_early_cpu_us / 1e3, job->pmi_early_reports);
    if (job->pmi_reports > 0)
        fprintf(stderr, "hnp:   %-36s %9.1f ms CPU (max %.1f ms, %u "
                "daemons)\n", "pmi set-up (median)",
                median_of(job->pmi_cpu_us, job->pmi_reports),
                w->pmi_cpu_us / 1e3, job->pmi_reports);
    fprintf(stderr, "hnp:   %-36s %9.2f ms CPU (max %.2f ms, %llu "
            "handshakes)\n", "daemons' handshakes (sum)",
            job->daemons_handshake_cpu_us / 1e3, w->handshake_cpu_us / 1e3,
            (unsigned long long)job->daemons_handshakes);
    fprintf(stderr, "hnp:   %-36s %9.1f ms CPU (max %.1f ms)\n",
            "daemons' CPU over the job (sum)", job->daemons_cpu_us / 1e3,
            w->total_cpu_us / 1e3);
    fprintf(stderr, "hnp:   %-36s %9llu kB\n", "daemon peak RSS (max)",
            (unsigned long long)w->peak_rss_kb);
}
