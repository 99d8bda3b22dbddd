/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's driver of the active pmi components (hnp_pmi.h): those the
 * HNP chose for the job (they serve an interface one of its programs can
 * use) are loaded at launch; then each one's job_start, with the whole
 * node map, before each fork each
 * one's child_setup into the child's one hnp_pmi_fork_t, at each exit
 * child_exited, and at the job's end job_end, then its scratch directory
 * goes. Scratch directories are the runtime's (hnp_rte_scratch_make()),
 * under one root private to this daemon, removed on every way out.
 *
 * A daemon of a runtime that outlives its jobs holds any number of jobs
 * with the components at once (struct hnpd_pmi a job, the components'
 * state a job); the runtime services keep each job's all-gathers,
 * requests and states apart (hnp_rte_job_begin()).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "wire/auth.h"

struct hnpd_pmi {
    hnp_pmi_job_t job;
    char name[HNP_AUTH_JOB_NAME_LEN];
    char parent_name[HNP_AUTH_JOB_NAME_LEN];
    char *spawn_component;    /* the launch's, kept for the job's life */
    void *spawn_data;
    uint32_t *local_ranks;
    uint32_t *node_of;        /* [nprocs] node numbers, from 1 */
    const char **node_names;  /* [nnodes + 1], [0] NULL */
    hnp_pmi_app_t *apps;
    void *state[HNP_PMI_MAX_ACTIVE];
    char *tmpdir[HNP_PMI_MAX_ACTIVE];
    bool started[HNP_PMI_MAX_ACTIVE]; /* its job_start succeeded */
    bool rte_job;            /* hnp_rte_job_begin() succeeded */
};

/* Module @p i's directory for the job: job<N>-<component>. */
static int make_tmpdir(hnpd_job_t *j, const char *component, char **out,
                       char *err, size_t errlen)
{
    char name[64 + HNP_MCA_NAME_LEN];

    snprintf(name, sizeof(name), "job%u-%s", j->jobid, component);
    return hnp_rte_scratch_make(j->daemon->rte, name, 0, out, err, errlen);
}

/* ------------------------------------------------------------ the job */

/* The job map in hnp's one numbering of nodes (hnp_pmi.h): node n is
 * daemon n's, from 1; the launch message indexes its arrays from 0. */
static int number_nodes(struct hnpd_pmi *p, const hnp_wire_launch_t *m)
{
    p->node_of = calloc(m->nprocs + 1, sizeof(*p->node_of));
    p->node_names = calloc(m->nnodes + 1, sizeof(*p->node_names));
    if (p->node_of == NULL || p->node_names == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t r = 0; r < m->nprocs; r++)
        p->node_of[r] = m->node_of[r] + 1;
    for (uint32_t n = 0; n < m->nnodes; n++)
        p->node_names[n + 1] = m->node_names[n];
    return HNP_SUCCESS;
}

/* A spawned job's parent, and what its requester left for the job. */
static int describe_parent(struct hnpd_pmi *p, const hnp_wire_launch_t *m,
                           const uint8_t *secret)
{
    if (m->parent_jobid != 0)
        hnp_auth_job_name(secret, m->parent_jobid, p->parent_name);
    if (m->spawn_component != NULL && m->spawn_component[0] != '\0' &&
        (p->spawn_component = strdup(m->spawn_component)) == NULL)
        return HNP_ERR_NOMEM;
    if (m->spawn_data_len > 0) {
        if ((p->spawn_data = malloc(m->spawn_data_len)) == NULL)
            return HNP_ERR_NOMEM;
        memcpy(p->spawn_data, m->spawn_data, m->spawn_data_len);
    }
    return HNP_SUCCESS;
}

static int describe_job(hnpd_job_t *j, struct hnpd_pmi *p,
                        const hnp_wire_launch_t *m)
{
    hnpd_t *d = j->daemon;
    hnp_pmi_job_t *job = &p->job;
    uint32_t my_node = d->rte->self;

    if (my_node < 1 || my_node > m->nnodes)
        return HNP_ERR_BAD_PARAM;
    p->local_ranks = calloc(j->nlocal + 1, sizeof(*p->local_ranks));
    p->apps = calloc(m->napps, sizeof(*p->apps));
    if (p->local_ranks == NULL || p->apps == NULL ||
        number_nodes(p, m) != HNP_SUCCESS)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < j->nlocal; i++)
        p->local_ranks[i] = j->procs[i].rank;
    for (uint32_t a = 0; a < m->napps; a++)
        p->apps[a] = (hnp_pmi_app_t){ m->apps[a].first_rank, m->apps[a].np,
                                      m->apps[a].argv };
    /* Derived from the secret: a stranger cannot name the job to its
     * PMIx server, as it could a name made from public data. */
    hnp_auth_job_name(d->rte->secret, m->jobid, p->name);
    if (describe_parent(p, m, d->rte->secret) != HNP_SUCCESS)
        return HNP_ERR_NOMEM;
    *job = (hnp_pmi_job_t){
        .jobid = m->jobid, .name = p->name, .nprocs = m->nprocs,
        .universe_size = m->universe_size, .nnodes = m->nnodes,
        .node_of = p->node_of, .node_names = p->node_names,
        .my_node = my_node, .local_ranks = p->local_ranks,
        .nlocal = j->nlocal, .slots = m->node_slots[my_node - 1],
        .napps = m->napps, .apps = p->apps,
        /* a contribution must fit in one runtime message, with room */
        .max_allgather_bytes = hnp_rte_allgather_max(d->rte),
        .parent_jobid = m->parent_jobid,
        .parent_name = m->parent_jobid != 0 ? p->parent_name : NULL,
        .spawn_component = p->spawn_component,
        .spawn_data = p->spawn_data,
        .spawn_data_len = p->spawn_data != NULL ? m->spawn_data_len : 0,
    };
    return HNP_SUCCESS;
}

/* Module @p i's job_start, in its own scratch directory. */
static int start_module(hnpd_job_t *j, struct hnpd_pmi *p, size_t i,
                        char *err, size_t errlen)
{
    hnpd_t *d = j->daemon;
    const hnp_pmi_active_t *active = &d->rte->pmi;
    char why[256] = "";
    int rc = HNP_SUCCESS;

    if (active->modules[i]->needs & HNP_PMI_NEEDS_TMPDIR)
        rc = make_tmpdir(j, active->names[i], &p->tmpdir[i], why,
                         sizeof(why));
    p->job.tmpdir = p->tmpdir[i];
    /* A series of its own for each component in each job, so that the
     * all-gathers of jobs side by side, or of a job that ended in the
     * middle of one (an abort) and the next, never meet: 1, 2, ... for
     * job 1, the next ones for job 2, around again after 65535. */
    p->job.series = hnp_rte_job_series(p->job.jobid, (uint32_t)active->count,
                                       (uint32_t)i);
    if (rc == HNP_SUCCESS)
        rc = active->modules[i]->job_start(d->rte, &p->job, &p->state[i], why,
                                           sizeof(why));
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "pmi component %s: %s", active->names[i],
                    why[0] != '\0' ? why : hnp_strerror(rc));
    return rc;
}

/* The components of the job's launch message (the HNP's choice, from its
 * programs: those that serve an interface one of them can use), loaded
 * then, each one's init once: a daemon that only runs /bin/true loads no
 * libpmix. A daemon of a runtime that outlives its jobs (hnp --dvm) loads
 * every component the HNP has, before the runtime is ready
 * (pmi_base_preload, hnpd_pmi_preload()) or else at its first job, and
 * starts for each job only those the job's launch names. */
static int load_components(hnpd_t *d, const char *names, char *err,
                           size_t errlen)
{
    const hnp_pmi_active_t *active = &d->rte->pmi;
    int rc;

    if (d->pmi_loaded)
        return HNP_SUCCESS;
    if (d->persistent && d->pmi_wanted != NULL && d->pmi_wanted[0] != '\0')
        names = d->pmi_wanted;
    rc = hnp_param_set(hnp_mca_params(d->setup->mca), "pmi", names,
                       HNP_PARAM_SRC_FORWARDED, "the HNP's choice for the job",
                       err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_select_pmi(d->rte, names, err, errlen);
    for (size_t i = 0; rc == HNP_SUCCESS && i < active->count; i++) {
        char why[256] = "";

        if (active->modules[i]->init != NULL &&
            (rc = active->modules[i]->init(d->rte, why, sizeof(why))) !=
                HNP_SUCCESS)
            hnp_err_set(err, errlen, "pmi component %s: %s", active->names[i],
                        why[0] != '\0' ? why : hnp_strerror(rc));
        else
            d->pmi_inited = i + 1;
    }
    d->pmi_loaded = rc == HNP_SUCCESS;
    return rc;
}

/* The CPU the pmi components cost this daemon (--timing), counted from
 * @p before. */
static void count_cpu(hnpd_t *d, uint64_t before)
{
    uint64_t now, rss_kb;

    hnp_daemon_stats_usage(&now, &rss_kb);
    /* never 0 once counted: 0 says no component served here */
    d->stats.pmi_cpu_us += now > before ? now - before : 1;
}

int hnpd_pmi_preload(hnpd_t *d, char *err, size_t errlen)
{
    uint64_t before, rss_kb;
    int rc;

    if (d->pmi_wanted == NULL || d->pmi_wanted[0] == '\0')
        return HNP_SUCCESS;
    hnp_daemon_stats_usage(&before, &rss_kb);
    rc = load_components(d, d->pmi_wanted, err, errlen);
    count_cpu(d, before);
    return rc;
}

/* Whether the list "a,b" of a launch names component @p name. */
static bool named_in(const char *list, const char *name)
{
    size_t len = strlen(name);

    for (const char *p = list; p != NULL && *p != '\0';) {
        size_t word = strcspn(p, ",");
        if (word == len && strncmp(p, name, len) == 0)
            return true;
        p += word + (p[word] == ',');
    }
    return false;
}

/* ------------------------------------------- before the first launch */

/* The components the HNP named for the first job, loaded, and each one's
 * start_early (the PMIx server up), on the daemon's node. */
static int start_early(hnpd_t *d, char *err, size_t errlen)
{
    const hnp_pmi_active_t *active = &d->rte->pmi;
    int rc = load_components(d, d->pmi_early, err, errlen);

    for (size_t i = 0; rc == HNP_SUCCESS && i < active->count; i++) {
        char why[256] = "";

        if (active->modules[i]->start_early == NULL ||
            !named_in(d->pmi_early, active->names[i]))
            continue;
        rc = active->modules[i]->start_early(d->rte, d->node, why,
                                             sizeof(why));
        if (rc != HNP_SUCCESS)
            hnp_err_set(err, errlen, "pmi component %s: %s", active->names[i],
                        why[0] != '\0' ? why : hnp_strerror(rc));
    }
    return rc;
}

/* Its CPU is counted apart (--timing: the set-up before the launch). A
 * failure is kept for the job, which fails with it when it starts here:
 * that is where a user looks for it, and where it was told before. */
static void start_early_due(hnp_rte_t *rte, void *cbdata)
{
    hnpd_t *d = cbdata;
    char err[512] = "";
    uint64_t before, after, rss_kb;
    int rc;

    (void)rte;
    hnp_rte_timer_destroy(d->pmi_early_timer);
    d->pmi_early_timer = NULL;
    if (d->ending || d->pmi_loaded)
        return;
    hnp_daemon_stats_usage(&before, &rss_kb);
    rc = start_early(d, err, sizeof(err));
    hnp_daemon_stats_usage(&after, &rss_kb);
    d->stats.pmi_early_cpu_us += after > before ? after - before : 1;
    if (rc == HNP_SUCCESS) {
        HNP_VERBOSE(hnp_log_stream("pmi"), 1, "node %s: pmi %s started "
                    "before the launch (%.2f ms CPU)", d->node, d->pmi_early,
                    (double)d->stats.pmi_early_cpu_us / 1e3);
        return;
    }
    d->pmi_early_rc = rc;
    d->pmi_early_err = strdup(err[0] != '\0' ? err : hnp_strerror(rc));
    HNP_VERBOSE(hnp_log_stream("pmi"), 1, "node %s: starting pmi %s before "
                "the launch failed (the job fails with it): %s", d->node,
                d->pmi_early, err);
}

void hnpd_pmi_start_early(hnpd_t *d)
{
    if (d->pmi_early == NULL || d->pmi_early[0] == '\0' ||
        d->rte->core->pmi_preload || d->pmi_early_timer != NULL)
        return;
    /* A daemon that relays for others (the contact exchange, the launch)
     * stays free for them: busy with libpmix, it would hold up every
     * daemon below it. It starts them at the launch, as without this. */
    if (d->rte->routed != NULL && hnp_rte_route_children(d->rte, NULL, 0) > 0)
        return;
    /* From the loop: the sends and the agents' forks queued by now (its
     * report, its daemons' agents) go first. */
    d->pmi_early_timer = hnp_rte_timer_create(d->rte, 0.0, start_early_due,
                                              d);
}

/* The launch has come: an early start still due is dropped (the job's
 * start does it all now, as without one); one that failed fails the job. */
static int early_outcome(hnpd_t *d, char *err, size_t errlen)
{
    if (d->pmi_early_timer != NULL) {
        hnp_rte_timer_destroy(d->pmi_early_timer);
        d->pmi_early_timer = NULL;
    }
    if (d->pmi_early_rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "%s", d->pmi_early_err != NULL
                                           ? d->pmi_early_err
                                           : hnp_strerror(d->pmi_early_rc));
    return d->pmi_early_rc;
}

/* ------------------------------------------------------- the job's start */

static int job_start(hnpd_job_t *j, const hnp_wire_launch_t *m, char *err,
                     size_t errlen)
{
    hnpd_t *d = j->daemon;
    const hnp_pmi_active_t *active = &d->rte->pmi;
    struct hnpd_pmi *p;
    int rc;

    if (m->pmi == NULL || m->pmi[0] == '\0')
        return HNP_SUCCESS;
    HNP_VERBOSE(hnp_log_stream("pmi"), 1, "node %s: job %u launched: pmi %s%s",
                d->node, m->jobid, m->pmi,
                d->stats.pmi_early_cpu_us > 0 && d->pmi_early_rc == HNP_SUCCESS
                    ? ", started before the launch" : "");
    rc = early_outcome(d, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = load_components(d, m->pmi, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return HNP_ERR_NOMEM;
    j->pmi = p;
    /* A node without ranks serves nobody, but it is still one of the
     * job's daemons: it joins the job's all-gathers with nothing. */
    if (j->nlocal == 0) {
        rc = hnp_rte_job_begin(d->rte, m->jobid, m->nprocs, m->node_of, 0,
                               (uint32_t)active->count);
        p->rte_job = rc == HNP_SUCCESS;
        if (rc == HNP_SUCCESS)
            rc = hnp_rte_job_set_nodes(d->rte, m->jobid, m->nnodes,
                                       m->node_names);
        return rc;
    }
    rc = describe_job(j, p, m);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_job_begin(d->rte, m->jobid, m->nprocs, m->node_of,
                               j->nlocal, (uint32_t)active->count);
    p->rte_job = rc == HNP_SUCCESS;
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_job_set_nodes(d->rte, m->jobid, m->nnodes,
                                   m->node_names);
    for (size_t i = 0; rc == HNP_SUCCESS && i < active->count; i++) {
        if (!named_in(m->pmi, active->names[i]))
            continue;
        rc = start_module(j, p, i, err, errlen);
        p->started[i] = rc == HNP_SUCCESS;
    }
    if (rc == HNP_ERR_NOMEM && err[0] == '\0')
        hnp_err_set(err, errlen, "out of memory");
    return rc;
}

int hnpd_pmi_job_start(hnpd_job_t *j, const hnp_wire_launch_t *m, char *err,
                       size_t errlen)
{
    uint64_t before, rss_kb;
    int rc;

    hnp_daemon_stats_usage(&before, &rss_kb);
    rc = job_start(j, m, err, errlen);
    if (j->pmi != NULL && j->nlocal > 0)
        count_cpu(j->daemon, before);
    return rc;
}

static int child_setup(hnpd_job_t *j, const hnp_pmi_child_t *child,
                       hnp_pmi_fork_t *fork, char *err, size_t errlen)
{
    hnpd_t *d = j->daemon;
    struct hnpd_pmi *p = j->pmi;

    for (size_t i = 0; p != NULL && i < HNP_PMI_MAX_ACTIVE; i++) {
        char why[256] = "";
        if (!p->started[i])
            continue;
        int rc = d->rte->pmi.modules[i]->child_setup(p->state[i], child, fork,
                                                     why, sizeof(why));
        if (rc != HNP_SUCCESS) {
            hnp_err_set(err, errlen, "pmi component %s: %s",
                        d->rte->pmi.names[i],
                        why[0] != '\0' ? why : hnp_strerror(rc));
            return rc;
        }
    }
    return HNP_SUCCESS;
}

int hnpd_pmi_child_setup(hnpd_job_t *j, const hnp_pmi_child_t *child,
                         hnp_pmi_fork_t *fork, char *err, size_t errlen)
{
    uint64_t before, rss_kb;
    int rc;

    if (j->pmi == NULL)
        return HNP_SUCCESS;
    hnp_daemon_stats_usage(&before, &rss_kb);
    rc = child_setup(j, child, fork, err, errlen);
    count_cpu(j->daemon, before);
    return rc;
}

void hnpd_pmi_child_started(hnpd_job_t *j, uint32_t rank, pid_t pid)
{
    hnpd_t *d = j->daemon;
    struct hnpd_pmi *p = j->pmi;

    for (size_t i = 0; p != NULL && i < HNP_PMI_MAX_ACTIVE; i++)
        if (p->started[i] && d->rte->pmi.modules[i]->child_started != NULL)
            d->rte->pmi.modules[i]->child_started(p->state[i], rank, pid);
}

/* A rank that called MPI_Init and not MPI_Finalize fails the job. How it
 * ended comes first (a signal is 128 + its number, as for any rank, an
 * exit status its own); the wire-up state is a detail added to it. */
static void fail_unfinalized(hnpd_job_t *j, uint32_t rank, pid_t pid,
                             int wait_status)
{
    static const char detail[] = "after MPI_Init, without MPI_Finalize";
    hnpd_t *d = j->daemon;

    if (WIFSIGNALED(wait_status))
        hnp_rte_fail_job(d->rte, j->jobid, 128 + WTERMSIG(wait_status),
                         "rank %u (pid %d) on node %s was killed by signal "
                         "%d (%s) %s", rank, (int)pid, d->node,
                         WTERMSIG(wait_status),
                         strsignal(WTERMSIG(wait_status)), detail);
    else if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0)
        hnp_rte_fail_job(d->rte, j->jobid, WEXITSTATUS(wait_status),
                         "rank %u (pid %d) on node %s exited with status %d "
                         "%s", rank, (int)pid, d->node,
                         WEXITSTATUS(wait_status), detail);
    else
        hnp_rte_fail_job(d->rte, j->jobid, 1, "rank %u on node %s exited "
                         "without finalizing (MPI_Init was called, "
                         "MPI_Finalize was not)", rank, d->node);
}

void hnpd_pmi_child_exited(hnpd_job_t *j, uint32_t rank, pid_t pid,
                           int wait_status, int exec_errno)
{
    hnpd_t *d = j->daemon;
    struct hnpd_pmi *p = j->pmi;

    if (p == NULL)
        return;
    for (size_t i = 0; i < HNP_PMI_MAX_ACTIVE; i++)
        if (p->started[i] && d->rte->pmi.modules[i]->child_exited != NULL)
            d->rte->pmi.modules[i]->child_exited(p->state[i], rank,
                                                 wait_status, exec_errno);
    if (p->rte_job && hnp_rte_proc_unfinalized(d->rte, j->jobid, rank))
        fail_unfinalized(j, rank, pid, wait_status);
}

void hnpd_pmi_job_end(hnpd_job_t *j)
{
    hnpd_t *d = j->daemon;
    struct hnpd_pmi *p = j->pmi;

    if (p == NULL)
        return;
    j->pmi = NULL;
    for (size_t i = HNP_PMI_MAX_ACTIVE; i-- > 0;)
        if (p->started[i])
            d->rte->pmi.modules[i]->job_end(p->state[i]);
    if (p->rte_job)
        hnp_rte_job_end(d->rte, j->jobid);
    for (size_t i = 0; i < HNP_PMI_MAX_ACTIVE; i++) {
        hnp_rte_scratch_remove(d->rte, p->tmpdir[i]);
        free(p->tmpdir[i]);
    }
    free(p->local_ranks);
    free(p->node_of);
    free(p->node_names);
    free(p->spawn_component);
    free(p->spawn_data);
    free(p->apps);
    free(p);
}

void hnpd_pmi_release(hnpd_t *d)
{
    for (hnpd_job_t *j = d->jobs; j != NULL; j = j->next)
        hnpd_pmi_job_end(j);
    /* The daemon's directories go before the components stop: libpmix's
     * finalize joins its threads, time that a batch system ending the
     * step (Slurm kills what is left of it, sentinel included) may not
     * give. The jobs are over, no rank uses them any more. */
    hnp_rte_scratch_empty(d->rte);
    /* Each component leaves what it keeps between jobs (the PMIx server). */
    for (size_t i = d->pmi_inited; i-- > 0;)
        if (d->rte->pmi.modules[i]->finalize != NULL)
            d->rte->pmi.modules[i]->finalize(d->rte);
    d->pmi_inited = 0;
    /* and again: libpmix's thread, still running a moment ago, wrote to
     * its store after the first pass had read the directory (an empty
     * pmix-store was seen left behind) */
    hnp_rte_scratch_release(d->rte);
}
