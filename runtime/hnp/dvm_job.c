/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One job submitted into a persistent runtime (dvm.h): its command line
 * read as hnp reads one, in the client's directory and environment; its
 * map onto the nodes the DVM holds (node i stays daemon i + 1, a node
 * without ranks gets none), first over all of the DVM's slots (whether it
 * could ever run), then over the slots other jobs leave free (whether it
 * runs now); its launch, its output and hnp's messages about it written
 * to its client's stdout and stderr, its stdin read from the client's;
 * its conclusion and release.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apphosts.h"
#include "dvm.h"
#include "prelaunch.h"
#include "wire/dvm.h"

extern char **environ;

struct hnp_dvm_job {
    hnp_job_t job;
    hnp_dvm_t *dvm;
    hnp_args_t args;
    bool parsed;
    hnp_wire_dvm_request_t req; /* owns the words args points into */
    char **argv;                /* "hnp", the request's words, NULL */
    int fds[3];                 /* the client's stdin, stdout, stderr */
    FILE *err_file;             /* fds[2], for hnp's messages */
    bool released;              /* hnp_job_release() done */
    bool needs_pmi;             /* its processes use the pmi components */
    uint32_t pmi_needs;         /* HNP_PMI_NEEDS_* of those it starts */
    bool *eligible;             /* [DVM nodes]: --host, --hostfile allow */
    uint32_t total_slots;       /* of the eligible nodes */
    char *output_dir;           /* --output-filename made absolute */
    struct timespec submitted;
    double mapped_at;
};

hnp_job_t *hnp_dvm_job_of(hnp_dvm_job_t *j)
{
    return &j->job;
}

uint32_t hnp_dvm_job_ranks(const hnp_dvm_job_t *j)
{
    return j->job.map.nprocs;
}

bool hnp_dvm_job_uses_node(const hnp_dvm_job_t *j, uint32_t node)
{
    return node < j->job.map.nnodes && j->job.map.local_size != NULL &&
           j->job.map.local_size[node] > 0;
}

/* The DVM's nodes still served, with their slots, as a node list. */
static int served_nodes(hnp_dvm_t *dvm, hnp_nodelist_t *pool)
{
    const hnp_job_map_t *all = hnp_dvm_nodes(dvm);
    int rc = HNP_SUCCESS;

    for (uint32_t n = 0; rc == HNP_SUCCESS && n < all->nnodes; n++)
        if (!hnp_dvm_node_lost(dvm, n))
            rc = hnp_nodelist_add(pool, all->node_names[n],
                                  all->node_slots[n], true);
    return rc;
}

static uint32_t dvm_node_index(hnp_dvm_t *dvm, const char *name)
{
    const hnp_job_map_t *all = hnp_dvm_nodes(dvm);
    uint32_t d = 0;

    while (d < all->nnodes && strcmp(all->node_names[d], name) != 0)
        d++;
    return d;
}

/* Of @p pool, the slots @p free says are free, and only nodes with some. */
static void keep_free(hnp_dvm_t *dvm, hnp_nodelist_t *pool,
                      const uint32_t *avail)
{
    size_t kept = 0;

    for (size_t i = 0; i < pool->count; i++) {
        hnp_node_t *node = &pool->nodes[i];
        uint32_t d = dvm_node_index(dvm, node->name);
        uint32_t n = d < hnp_dvm_nodes(dvm)->nnodes ? avail[d] : 0;
        if (n == 0) {
            free(node->name);
            continue;
        }
        if (node->slots == 0 || node->slots > n)
            node->slots = n;
        pool->nodes[kept++] = *node;
    }
    pool->count = kept;
}

/* --host and --hostfile of a submitted job choose among the DVM's nodes;
 * with @p free, of their slots only those free. */
static int job_nodes(hnp_dvm_job_t *j, hnp_nodelist_t *pool,
                     const uint32_t *avail, char *err, size_t errlen)
{
    hnp_nodelist_t wanted = { NULL, 0, 0 };
    int rc = served_nodes(j->dvm, pool);

    if (rc == HNP_SUCCESS && pool->count == 0) {
        hnp_err_set(err, errlen, "%s has no node left",
                    hnp_dvm_noun(j->dvm));
        return HNP_ERR_NOT_AVAILABLE;
    }
    /* app contexts with hosts of their own (an MPMD line, or the
     * commands of MPI_Comm_spawn_multiple): all of theirs */
    if (rc == HNP_SUCCESS && hnp_apphosts_per_context(&j->args))
        rc = hnp_apphosts_union(&j->args, &wanted, err, errlen);
    else if (rc == HNP_SUCCESS && j->args.hostfile != NULL)
        rc = hnp_nodelist_parse_hostfile(&wanted, j->args.hostfile, err,
                                         errlen);
    if (rc == HNP_SUCCESS && j->args.hosts != NULL &&
        !hnp_apphosts_per_context(&j->args))
        rc = hnp_nodelist_parse_hosts(&wanted, j->args.hosts, err, errlen);
    if (rc == HNP_SUCCESS && wanted.count > 0)
        rc = hnp_nodelist_filter(pool, &wanted,
                                 hnp_dvm_is_family(j->dvm)
                                     ? "the allocation" : "the DVM's nodes",
                                 err, errlen);
    hnp_nodelist_free(&wanted);
    if (rc == HNP_SUCCESS && avail != NULL)
        keep_free(j->dvm, pool, avail);
    return rc;
}

/* Which of the DVM's nodes the job may use, and their slots. */
static int note_eligible(hnp_dvm_job_t *j, const hnp_nodelist_t *pool)
{
    const hnp_job_map_t *all = hnp_dvm_nodes(j->dvm);

    j->eligible = calloc(all->nnodes + 1, sizeof(bool));
    if (j->eligible == NULL)
        return HNP_ERR_NOMEM;
    for (size_t i = 0; i < pool->count; i++) {
        uint32_t d = dvm_node_index(j->dvm, pool->nodes[i].name);
        if (d < all->nnodes && !j->eligible[d]) {
            j->eligible[d] = true;
            j->total_slots += all->node_slots[d];
        }
    }
    return HNP_SUCCESS;
}

/* The map the mapper made over the job's nodes, renumbered onto all of
 * the DVM's nodes: daemon vpid v serves node v - 1 of every job. */
static int onto_dvm_nodes(hnp_dvm_t *dvm, hnp_job_map_t *map, char *err,
                          size_t errlen)
{
    const hnp_job_map_t *all = hnp_dvm_nodes(dvm);
    uint32_t *index = calloc(map->nnodes + 1, sizeof(*index));
    uint32_t *size = calloc(all->nnodes, sizeof(*size));
    uint32_t *slots = calloc(all->nnodes, sizeof(*slots));
    char **names = calloc(all->nnodes + 1, sizeof(*names));
    int rc = index && size && slots && names ? HNP_SUCCESS : HNP_ERR_NOMEM;

    for (uint32_t n = 0; rc == HNP_SUCCESS && n < map->nnodes; n++) {
        uint32_t d = 0;
        while (d < all->nnodes && strcmp(all->node_names[d],
                                         map->node_names[n]) != 0)
            d++;
        index[n] = d;
        if (d < all->nnodes)
            size[d] = map->local_size[n];
        else
            rc = HNP_ERR_NOT_FOUND;
    }
    for (uint32_t d = 0; rc == HNP_SUCCESS && d < all->nnodes; d++) {
        slots[d] = all->node_slots[d];
        if ((names[d] = strdup(all->node_names[d])) == NULL)
            rc = HNP_ERR_NOMEM;
    }
    if (rc == HNP_SUCCESS) {
        hnp_job_map_adopt_nodes(map, index, all->nnodes, names, size, slots);
        names = NULL;
        size = slots = NULL;
    } else {
        hnp_err_set(err, errlen, "cannot place the job on the DVM's nodes: %s",
                    hnp_strerror(rc));
    }
    for (uint32_t d = 0; names != NULL && d < all->nnodes; d++)
        free(names[d]);
    free(names);
    free(size);
    free(slots);
    free(index);
    return rc;
}

/* The map of @p pool's nodes; each app context that names hosts of its
 * own has its ranks placed on them (apphosts.h), in the slots @p pool
 * gives. */
static int build_over(hnp_dvm_job_t *j, const hnp_nodelist_t *pool,
                      hnp_map_request_t *req, hnp_job_map_t *map, char *err,
                      size_t errlen)
{
    uint32_t *fixed = NULL;
    int rc = HNP_SUCCESS;

    if (hnp_apphosts_per_context(&j->args)) {
        rc = hnp_apphosts_place(&j->args, pool, req, &fixed, err, errlen);
        req->ranking = HNP_RANK_DEFAULT;
        req->fixed_node = fixed;
    }
    if (rc == HNP_SUCCESS)
        rc = hnp_job_map_build(pool, req, map, err, errlen);
    req->fixed_node = NULL;
    free(fixed);
    return rc;
}

static int map_job(hnp_dvm_job_t *j, char *err, size_t errlen)
{
    hnp_rte_t *rte = hnp_dvm_rte(j->dvm);
    hnp_nodelist_t pool = { NULL, 0, 0 };
    hnp_args_t *args = &j->args;
    hnp_map_request_t req = {
        .np = hnp_args_total_np(args), .npernode = args->npernode,
        .policy = args->map_by, .ranking = args->mapping.ranking,
        .oversubscribe = args->oversubscribe, .default_slots = 1,
    };
    int rc = HNP_SUCCESS;

    if (args->mapping.rankfile != NULL) {
        hnp_err_set(err, errlen, "--rankfile is not taken by a job of a DVM "
                    "(use --host and --map-by)");
        return HNP_ERR_BAD_PARAM;
    }
    rc = hnp_mapping_node_capacity(args, rte->core->topo_file, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = job_nodes(j, &pool, NULL, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = note_eligible(j, &pool);
    if (rc == HNP_SUCCESS && !req.oversubscribe && req.np > j->total_slots) {
        hnp_err_set(err, errlen, "job %u needs %u slots and can never run: "
                    "%s has %u slots on the nodes it may use "
                    "(--oversubscribe allows more ranks than slots)",
                    j->job.jobid, req.np, hnp_dvm_noun(j->dvm),
                    j->total_slots);
        rc = HNP_ERR_NOT_AVAILABLE;
    }
    if (rc == HNP_SUCCESS)
        rc = build_over(j, &pool, &req, &j->job.map, err, errlen);
    hnp_nodelist_free(&pool);
    if (rc == HNP_SUCCESS)
        rc = onto_dvm_nodes(j->dvm, &j->job.map, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    hnp_apps_number(args, j->job.map.nprocs);
    if (args->stdin_target >= (int64_t)j->job.map.nprocs) {
        hnp_err_set(err, errlen, "--stdin %lld: the job has ranks 0 to %u",
                    (long long)args->stdin_target, j->job.map.nprocs - 1);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static int refuse_dvm_options(const hnp_args_t *args, char *err,
                              size_t errlen)
{
    if (args->dvm || args->dvm_stop || args->dvm_jobs ||
        args->plan != HNP_PLAN_NONE || args->report_uri != NULL) {
        hnp_err_set(err, errlen, "a job submitted into a DVM takes a "
                    "program to run, not --dvm, --report-uri, --dvm-stop, "
                    "--dvm-jobs or --plan");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* What hnp would make of the command line in the client's directory and
 * environment: relative paths, PATH, -x NAME are the client's. */
static int read_command_line(hnp_dvm_job_t *j, char *err, size_t errlen)
{
    char **own = environ;
    int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = HNP_SUCCESS;

    if (here < 0 || (j->req.cwd[0] != '\0' && chdir(j->req.cwd) != 0)) {
        hnp_err_set(err, errlen, "working directory %s is not reachable "
                    "from the DVM's node", j->req.cwd);
        rc = HNP_ERR_NOT_FOUND;
    }
    environ = j->req.env;
    if (rc == HNP_SUCCESS)
        rc = hnp_args_parse(&j->args, (int)j->req.argc + 1, j->argv, err,
                            errlen);
    j->parsed = rc == HNP_SUCCESS;
    if (rc == HNP_SUCCESS)
        rc = refuse_dvm_options(&j->args, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_dvm_job_params(hnp_mca_params(hnp_dvm_rte(j->dvm)->setup->mca),
                                &j->req, &j->args, err, errlen);
    /* the HNP writes the files from its own directory */
    if (rc == HNP_SUCCESS && j->args.output_dir != NULL &&
        j->args.output_dir[0] != '/') {
        if (asprintf(&j->output_dir, "%s/%s", j->req.cwd,
                     j->args.output_dir) < 0) {
            j->output_dir = NULL;
            rc = HNP_ERR_NOMEM;
        } else {
            j->args.output_dir = j->output_dir;
        }
    }
    if (rc == HNP_SUCCESS)
        rc = hnp_prelaunch_check(&j->args, &hnp_dvm_rte(j->dvm)->pmi, err,
                                 errlen);
    if (rc == HNP_SUCCESS)
        rc = map_job(j, err, errlen);
    environ = own;
    if (here >= 0) {
        if (fchdir(here) != 0)
            HNP_WARN(hnp_log_stream("hnp"), "cannot return to the DVM's "
                     "working directory");
        close(here);
    }
    return rc;
}

hnp_dvm_job_t *hnp_dvm_job_create(hnp_dvm_t *dvm, uint32_t jobid,
                                  hnp_wire_dvm_request_t *req,
                                  const int fds[3], char *err, size_t errlen)
{
    hnp_dvm_job_t *j = calloc(1, sizeof(*j));

    if (j == NULL || (j->argv = calloc(req->argc + 2, sizeof(char *))) ==
                         NULL) {
        free(j);
        hnp_err_set(err, errlen, "out of memory");
        return NULL;
    }
    j->dvm = dvm;
    j->req = *req;
    memset(req, 0, sizeof(*req));
    memcpy(j->fds, fds, sizeof(j->fds));
    clock_gettime(CLOCK_MONOTONIC, &j->submitted);
    j->argv[0] = "hnp";
    memcpy(j->argv + 1, j->req.argv, j->req.argc * sizeof(char *));
    j->job.jobid = jobid;
    j->job.dvm = dvm;
    j->job.rte = hnp_dvm_rte(dvm);
    j->job.args = &j->args;
    j->job.start = j->submitted;
    for (int i = 0; i < 3; i++) /* the client may have closed one */
        if (j->fds[i] < 0)
            j->fds[i] = open("/dev/null", (i == 0 ? O_RDONLY : O_WRONLY) |
                                              O_CLOEXEC);
    j->job.stdio = j->fds;
    if (j->fds[2] >= 0 && (j->err_file = fdopen(dup(j->fds[2]), "w")) != NULL)
        setvbuf(j->err_file, NULL, _IOLBF, 0);
    j->job.log_file = j->err_file;
    if (read_command_line(j, err, errlen) != HNP_SUCCESS) {
        hnp_dvm_job_destroy(j);
        return NULL;
    }
    char pmi[256] = "";
    hnp_prelaunch_pmi_names(&j->args, &hnp_dvm_rte(dvm)->pmi, pmi,
                            sizeof(pmi));
    j->needs_pmi = pmi[0] != '\0';
    j->pmi_needs = hnp_prelaunch_pmi_needs(&j->args, &hnp_dvm_rte(dvm)->pmi);
    j->mapped_at = hnp_job_now(&j->job);
    return j;
}

void hnp_dvm_job_log_to(const hnp_dvm_job_t *j)
{
    static FILE *own;       /* the HNP's, put back after */
    static unsigned depth;

    if (j != NULL) {
        if (depth++ == 0)
            own = hnp_log_get_file();
        if (j->err_file != NULL)
            hnp_log_set_file(j->err_file);
        return;
    }
    if (depth > 0 && --depth == 0)
        hnp_log_set_file(own);
}

char *const *hnp_dvm_job_env(const hnp_dvm_job_t *j)
{
    return j->req.env;
}

const char *hnp_dvm_job_cwd(const hnp_dvm_job_t *j)
{
    return j->req.cwd;
}

bool hnp_dvm_job_needs_pmi(const hnp_dvm_job_t *j)
{
    return j->needs_pmi;
}

bool hnp_dvm_job_oversubscribes(const hnp_dvm_job_t *j)
{
    return j->args.oversubscribe;
}

bool hnp_dvm_job_runs_apart(const hnp_dvm_job_t *j)
{
    return (j->pmi_needs & HNP_PMI_NEEDS_JOBS_APART) != 0;
}

const char *hnp_dvm_job_apart_by(const hnp_dvm_job_t *j)
{
    const char *name = hnp_prelaunch_pmi_needing(
        &j->args, &hnp_dvm_rte(j->dvm)->pmi, HNP_PMI_NEEDS_JOBS_APART);

    return name != NULL ? name : "?";
}

bool hnp_dvm_job_leaves_daemons_out(const hnp_dvm_job_t *j)
{
    const hnp_job_t *job = &j->job;

    for (uint32_t n = 0; j->needs_pmi && n < job->map.nnodes; n++)
        if (job->map.local_size[n] == 0 && !hnp_dvm_node_lost(j->dvm, n))
            return true;
    return false;
}

FILE *hnp_dvm_job_err_file(const hnp_dvm_job_t *j)
{
    return j->err_file;
}

void hnp_dvm_job_free_slots(const hnp_dvm_job_t *j, const uint32_t *avail,
                            uint32_t *nfree, uint32_t *total)
{
    *nfree = 0;
    *total = j->total_slots;
    for (uint32_t d = 0; d < hnp_dvm_nodes(j->dvm)->nnodes; d++)
        if (j->eligible[d])
            *nfree += avail[d];
}

int hnp_dvm_job_place(hnp_dvm_job_t *j, const uint32_t *avail)
{
    hnp_args_t *args = &j->args;
    hnp_nodelist_t pool = { NULL, 0, 0 };
    hnp_job_map_t map = { 0 };
    hnp_map_request_t req = {
        .np = j->job.map.nprocs, .npernode = args->npernode,
        .policy = args->map_by, .ranking = args->mapping.ranking,
        .oversubscribe = args->oversubscribe, .default_slots = 1,
    };
    char err[512];
    int rc = job_nodes(j, &pool, avail, err, sizeof(err));

    if (rc == HNP_SUCCESS && pool.count == 0)
        rc = HNP_ERR_NOT_AVAILABLE;
    if (rc == HNP_SUCCESS)
        rc = build_over(j, &pool, &req, &map, err, sizeof(err));
    hnp_nodelist_free(&pool);
    if (rc == HNP_SUCCESS)
        rc = onto_dvm_nodes(j->dvm, &map, err, sizeof(err));
    if (rc != HNP_SUCCESS) {
        hnp_job_map_free(&map);
        return rc;
    }
    hnp_job_map_free(&j->job.map);
    j->job.map = map;
    return HNP_SUCCESS;
}

/* --display-map, to the client's stdout. */
static void display_map(hnp_dvm_job_t *j)
{
    int fd = dup(j->fds[1]);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

    if (out == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    hnp_mapping_print_map(&j->args, &j->job.map, out);
    fclose(out);
}

int hnp_dvm_job_launch(hnp_dvm_job_t *j, char *err, size_t errlen)
{
    hnp_job_t *job = &j->job;
    int rc;

    job->ndaemons = hnp_dvm_daemons_alive(j->dvm);
    job->wdir = strdup(j->req.cwd[0] != '\0' ? j->req.cwd : "/");
    if (job->wdir == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    rc = hnp_job_output_init(job, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if (j->args.mapping.display_map)
        display_map(j);
    hnp_job_register_io(job);
    hnp_job_register_launch_reports(job);
    /* daemons without ranks hear of the job's all-gathers from the HNP */
    if (hnp_dvm_job_leaves_daemons_out(j))
        job->rte->announce_collectives = true;
    hnp_job_arm_timeout(job);
    hnp_job_send_launch(job);
    return HNP_SUCCESS;
}

static void print_timing(const hnp_dvm_job_t *j)
{
    static const struct { enum hnp_phase_mark mark; const char *name; }
        marks[] = {
            { HNP_MARK_LAUNCH_SENT, "launch message sent" },
            { HNP_MARK_PROCS_STARTED, "all processes started" },
            { HNP_MARK_PROCS_EXITED, "all processes exited" },
        };
    const hnp_job_t *job = &j->job;
    FILE *out = j->err_file;
    uint32_t used = 0;

    if (out == NULL)
        return;
    for (uint32_t n = 0; n < job->map.nnodes; n++)
        used += job->map.local_size[n] > 0;
    fprintf(out, "hnp: timing for job %u of the DVM, %u processes on %u "
            "of its %u nodes (seconds since submission):\n", job->jobid,
            job->map.nprocs, used, job->map.nnodes);
    fprintf(out, "hnp:   %-36s %9.3f\n", "submitted", 0.0);
    fprintf(out, "hnp:   %-36s %9.3f\n", "mapped", j->mapped_at);
    for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
        if (job->marks[marks[m].mark] > 0)
            fprintf(out, "hnp:   %-36s %9.3f\n", marks[m].name,
                    job->marks[marks[m].mark]);
        else
            fprintf(out, "hnp:   %-36s %9s\n", marks[m].name, "-");
    }
}

int hnp_dvm_job_conclude(hnp_dvm_job_t *j)
{
    hnp_job_t *job = &j->job;
    int status = job->exit_status;

    if (job->output != NULL) {
        hnp_job_output_flush(job);
        if (j->args.timing)
            print_timing(j);
    }
    hnp_job_release(job);
    j->released = true;
    return status;
}

void hnp_dvm_job_describe(const hnp_dvm_job_t *j, const char *state,
                          double now, char *buf, size_t len)
{
    const hnp_job_t *job = &j->job;
    double submitted = (double)j->submitted.tv_sec +
                       (double)j->submitted.tv_nsec / 1e9;
    uint32_t used = 0;
    size_t at;

    for (uint32_t n = 0; n < job->map.nnodes; n++)
        used += job->map.local_size != NULL && job->map.local_size[n] > 0;
    at = (size_t)snprintf(buf, len, "%-8u %6u %6u %-8s %7.1fs ", job->jobid,
                          job->map.nprocs, used, state, now - submitted);
    for (uint32_t w = 0; w < j->req.argc && at < len; w++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", w ? " " : "",
                               j->req.argv[w]);
}

void hnp_dvm_job_destroy(hnp_dvm_job_t *j)
{
    if (j == NULL)
        return;
    if (!j->released)
        hnp_job_release(&j->job);
    for (int i = 0; i < 3; i++)
        if (j->fds[i] >= 0)
            close(j->fds[i]);
    if (j->parsed)
        hnp_args_free(&j->args);
    if (j->err_file != NULL)
        fclose(j->err_file);
    free(j->eligible);
    hnp_wire_dvm_request_clear(&j->req);
    free(j->output_dir);
    free(j->argv);
    free(j);
}
