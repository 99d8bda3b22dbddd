/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's driver of the active pmi components (hnp_pmi.h): those the
 * HNP chose for the job (they serve an interface one of its programs can
 * use) are loaded at launch; then each one's job_start, with the whole
 * node map, before each fork each
 * one's child_setup into the child's one hnp_pmi_fork_t, at each exit
 * child_exited, and at the job's end job_end, then its scratch directory
 * goes. Scratch directories live under one directory private to this
 * daemon ($TMPDIR or /tmp, hnp-UID-PID-XXXXXX), removed on every way out.
 */
#include "config.h"

#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

struct hnpd_pmi {
    hnp_pmi_job_t job;
    char name[64];
    uint32_t *local_ranks;
    hnp_pmi_app_t *apps;
    uint32_t *node_of;       /* [nprocs]: into node_names */
    const char **node_names; /* the nodes with ranks, and this one */
    uint32_t nnodes;
    void *state[HNP_PMI_MAX_ACTIVE];
    char *tmpdir[HNP_PMI_MAX_ACTIVE];
    bool started[HNP_PMI_MAX_ACTIVE]; /* its job_start succeeded */
    bool rte_job;            /* hnp_rte_job_begin() succeeded */
};

/* ------------------------------------------------------------ scratch */

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path)
{
    if (path != NULL)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* This daemon's private directory, made at the first job that needs it. */
static int make_root(hnpd_t *d, char *err, size_t errlen)
{
    const char *base = getenv("TMPDIR");
    char path[PATH_MAX];

    if (d->pmi_root != NULL)
        return HNP_SUCCESS;
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    if (snprintf(path, sizeof(path), "%s/hnp-%lu-%ld-XXXXXX", base,
                 (unsigned long)getuid(), (long)getpid()) >=
            (int)sizeof(path) ||
        mkdtemp(path) == NULL || (d->pmi_root = strdup(path)) == NULL) {
        hnp_err_set(err, errlen, "cannot make a private directory under %s: "
                    "%s", base, strerror(errno));
        return HNP_ERR_IO;
    }
    return HNP_SUCCESS;
}

static int make_tmpdir(hnpd_t *d, const char *component, char **out,
                       char *err, size_t errlen)
{
    char path[PATH_MAX];

    if (snprintf(path, sizeof(path), "%s/job%u-%s", d->pmi_root, d->jobid,
                 component) >= (int)sizeof(path) ||
        mkdir(path, 0700) != 0 || (*out = strdup(path)) == NULL) {
        hnp_err_set(err, errlen, "cannot make %s: %s", path, strerror(errno));
        return HNP_ERR_IO;
    }
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ the job */

/* The same on every daemon of this hnp run and unlike another run's: a
 * hash of the HNP's contact (host and port). */
static uint32_t run_id(const hnpd_t *d)
{
    uint32_t h = 2166136261u;

    for (const char *c = d->rte->hnp_uri; c != NULL && *c != '\0'; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    return h;
}

/* The job's nodes as the components see them: those with ranks (and
 * this one), numbered in order. A launch names every node of the runtime
 * (one that outlives its jobs has nodes a job does not use), and a node
 * without ranks is no node of the job to PMIx. */
static int job_nodes(struct hnpd_pmi *p, const hnp_wire_launch_t *m,
                     uint32_t my_node, uint32_t *compact_self)
{
    uint32_t *index = calloc(m->nnodes + 1, sizeof(*index));
    bool *used = calloc(m->nnodes + 1, sizeof(*used));
    int rc = HNP_ERR_NOMEM;

    p->node_of = calloc(m->nprocs + 1, sizeof(*p->node_of));
    p->node_names = calloc(m->nnodes + 1, sizeof(*p->node_names));
    if (index != NULL && used != NULL && p->node_of != NULL &&
        p->node_names != NULL) {
        for (uint32_t r = 0; r < m->nprocs; r++)
            used[m->node_of[r]] = true;
        used[my_node] = true;
        for (uint32_t n = 0; n < m->nnodes; n++)
            if (used[n]) {
                index[n] = p->nnodes;
                p->node_names[p->nnodes++] = m->node_names[n];
            }
        for (uint32_t r = 0; r < m->nprocs; r++)
            p->node_of[r] = index[m->node_of[r]];
        *compact_self = index[my_node];
        rc = HNP_SUCCESS;
    }
    free(index);
    free(used);
    return rc;
}

static int describe_job(hnpd_t *d, struct hnpd_pmi *p,
                        const hnp_wire_launch_t *m)
{
    hnp_pmi_job_t *job = &p->job;
    uint32_t my_node = d->rte->self - 1, compact_self = 0;

    if (my_node >= m->nnodes || job_nodes(p, m, my_node, &compact_self) !=
                                    HNP_SUCCESS)
        return my_node >= m->nnodes ? HNP_ERR_BAD_PARAM : HNP_ERR_NOMEM;
    p->local_ranks = calloc(d->nlocal + 1, sizeof(*p->local_ranks));
    p->apps = calloc(m->napps, sizeof(*p->apps));
    if (p->local_ranks == NULL || p->apps == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < d->nlocal; i++)
        p->local_ranks[i] = d->procs[i].rank;
    for (uint32_t a = 0; a < m->napps; a++)
        p->apps[a] = (hnp_pmi_app_t){ m->apps[a].first_rank, m->apps[a].np,
                                      m->apps[a].argv };
    snprintf(p->name, sizeof(p->name), "hnp-%08x-%u", run_id(d), m->jobid);
    *job = (hnp_pmi_job_t){
        .jobid = m->jobid, .name = p->name, .nprocs = m->nprocs,
        .universe_size = m->universe_size, .nnodes = p->nnodes,
        .node_of = p->node_of,
        .node_names = p->node_names,
        .my_node = compact_self, .local_ranks = p->local_ranks,
        .nlocal = d->nlocal, .slots = m->node_slots[my_node],
        .napps = m->napps, .apps = p->apps,
        /* a contribution must fit in one runtime message, with room */
        .max_allgather_bytes = hnp_rte_allgather_max(d->rte),
    };
    return HNP_SUCCESS;
}

/* Module @p i's job_start, in its own scratch directory. */
static int start_module(hnpd_t *d, struct hnpd_pmi *p, size_t i, char *err,
                        size_t errlen)
{
    const hnp_pmi_active_t *active = &d->rte->pmi;
    char why[256] = "";
    int rc = HNP_SUCCESS;

    if (active->modules[i]->needs & HNP_PMI_NEEDS_TMPDIR) {
        rc = make_root(d, why, sizeof(why));
        if (rc == HNP_SUCCESS)
            rc = make_tmpdir(d, active->names[i], &p->tmpdir[i], why,
                             sizeof(why));
    }
    p->job.tmpdir = p->tmpdir[i];
    /* A series of its own for each component in each job, so that the
     * all-gathers of a job that ended in the middle of one (an abort)
     * never meet the next job's: 1, 2, ... for job 1, the next ones for
     * job 2, around again after 65535. */
    p->job.series = (uint32_t)((((uint64_t)p->job.jobid - 1) *
                                    active->count + i) % 65535u) + 1;
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
 * every component the HNP has at its first job, and starts for each job
 * only those the job's launch names. */
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

static int job_start(hnpd_t *d, const hnp_wire_launch_t *m, char *err,
                     size_t errlen)
{
    const hnp_pmi_active_t *active = &d->rte->pmi;
    struct hnpd_pmi *p;
    int rc;

    if (m->pmi == NULL || m->pmi[0] == '\0')
        return HNP_SUCCESS;
    rc = load_components(d, m->pmi, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return HNP_ERR_NOMEM;
    d->pmi = p;
    /* A node without ranks serves nobody, but it is still one of the
     * job's daemons: it joins the job's all-gathers with nothing. */
    if (d->nlocal == 0) {
        rc = hnp_rte_job_begin(d->rte, m->jobid, m->nprocs, m->node_of, 0);
        p->rte_job = rc == HNP_SUCCESS;
        return rc;
    }
    rc = describe_job(d, p, m);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_job_begin(d->rte, m->jobid, m->nprocs, m->node_of,
                               d->nlocal);
    p->rte_job = rc == HNP_SUCCESS;
    for (size_t i = 0; rc == HNP_SUCCESS && i < active->count; i++) {
        if (!named_in(m->pmi, active->names[i]))
            continue;
        rc = start_module(d, p, i, err, errlen);
        p->started[i] = rc == HNP_SUCCESS;
    }
    if (rc == HNP_ERR_NOMEM && err[0] == '\0')
        hnp_err_set(err, errlen, "out of memory");
    return rc;
}

int hnpd_pmi_job_start(hnpd_t *d, const hnp_wire_launch_t *m, char *err,
                       size_t errlen)
{
    uint64_t before, rss_kb;
    int rc;

    hnp_daemon_stats_usage(&before, &rss_kb);
    rc = job_start(d, m, err, errlen);
    if (d->pmi != NULL && d->nlocal > 0)
        count_cpu(d, before);
    return rc;
}

static int child_setup(hnpd_t *d, const hnp_pmi_child_t *child,
                       hnp_pmi_fork_t *fork, char *err, size_t errlen)
{
    struct hnpd_pmi *p = d->pmi;

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

int hnpd_pmi_child_setup(hnpd_t *d, const hnp_pmi_child_t *child,
                         hnp_pmi_fork_t *fork, char *err, size_t errlen)
{
    uint64_t before, rss_kb;
    int rc;

    if (d->pmi == NULL)
        return HNP_SUCCESS;
    hnp_daemon_stats_usage(&before, &rss_kb);
    rc = child_setup(d, child, fork, err, errlen);
    count_cpu(d, before);
    return rc;
}

void hnpd_pmi_child_started(hnpd_t *d, uint32_t rank, pid_t pid)
{
    struct hnpd_pmi *p = d->pmi;

    for (size_t i = 0; p != NULL && i < HNP_PMI_MAX_ACTIVE; i++)
        if (p->started[i] && d->rte->pmi.modules[i]->child_started != NULL)
            d->rte->pmi.modules[i]->child_started(p->state[i], rank, pid);
}

void hnpd_pmi_child_exited(hnpd_t *d, uint32_t rank, int wait_status,
                           int exec_errno)
{
    struct hnpd_pmi *p = d->pmi;

    if (p == NULL)
        return;
    for (size_t i = 0; i < HNP_PMI_MAX_ACTIVE; i++)
        if (p->started[i] && d->rte->pmi.modules[i]->child_exited != NULL)
            d->rte->pmi.modules[i]->child_exited(p->state[i], rank,
                                                 wait_status, exec_errno);
    if (p->rte_job && hnp_rte_proc_unfinalized(d->rte, rank))
        hnp_rte_fail(d->rte, 1, "rank %u on node %s exited without "
                     "finalizing (MPI_Init was called, MPI_Finalize was not)",
                     rank, d->node);
}

void hnpd_pmi_job_end(hnpd_t *d)
{
    struct hnpd_pmi *p = d->pmi;

    if (p == NULL)
        return;
    d->pmi = NULL;
    for (size_t i = HNP_PMI_MAX_ACTIVE; i-- > 0;)
        if (p->started[i])
            d->rte->pmi.modules[i]->job_end(p->state[i]);
    if (p->rte_job)
        hnp_rte_job_end(d->rte);
    for (size_t i = 0; i < HNP_PMI_MAX_ACTIVE; i++) {
        remove_tree(p->tmpdir[i]);
        free(p->tmpdir[i]);
    }
    free(p->local_ranks);
    free(p->apps);
    free(p->node_of);
    free(p->node_names);
    free(p);
}

void hnpd_pmi_release(hnpd_t *d)
{
    hnpd_pmi_job_end(d);
    /* Each component leaves what it keeps between jobs (the PMIx server
     * and its directory). */
    for (size_t i = d->pmi_inited; i-- > 0;)
        if (d->rte->pmi.modules[i]->finalize != NULL)
            d->rte->pmi.modules[i]->finalize(d->rte);
    d->pmi_inited = 0;
    remove_tree(d->pmi_root);
    free(d->pmi_root);
    d->pmi_root = NULL;
}
