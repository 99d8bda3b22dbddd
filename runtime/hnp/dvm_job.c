/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One job submitted into a persistent runtime (dvm.h): its command line
 * read as hnp reads one, in the client's directory and environment; its
 * map onto the nodes the DVM holds (node i stays daemon i + 1, a node
 * without ranks gets none); its launch with the client's stdio in place
 * of the HNP's; its conclusion and release.
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
    bool stdio_taken;           /* they are the HNP's 0, 1, 2 now */
    bool released;              /* hnp_job_release() done */
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

/* --host and --hostfile of a submitted job choose among the DVM's nodes. */
static int job_nodes(hnp_dvm_job_t *j, hnp_nodelist_t *pool, char *err,
                     size_t errlen)
{
    hnp_nodelist_t wanted = { NULL, 0, 0 };
    int rc = served_nodes(j->dvm, pool);

    if (rc == HNP_SUCCESS && pool->count == 0) {
        hnp_err_set(err, errlen, "the DVM has no node left");
        return HNP_ERR_NOT_AVAILABLE;
    }
    if (rc == HNP_SUCCESS && j->args.hostfile != NULL)
        rc = hnp_nodelist_parse_hostfile(&wanted, j->args.hostfile, err,
                                         errlen);
    if (rc == HNP_SUCCESS && j->args.hosts != NULL)
        rc = hnp_nodelist_parse_hosts(&wanted, j->args.hosts, err, errlen);
    if (rc == HNP_SUCCESS && wanted.count > 0)
        rc = hnp_nodelist_filter(pool, &wanted, "the DVM's nodes", err,
                                 errlen);
    hnp_nodelist_free(&wanted);
    return rc;
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
        for (uint32_t r = 0; r < map->nprocs; r++)
            map->node_of[r] = index[map->node_of[r]];
        for (uint32_t n = 0; n < map->nnodes; n++)
            free(map->node_names[n]);
        free(map->node_names);
        free(map->local_size);
        free(map->node_slots);
        map->node_names = names;
        map->local_size = size;
        map->node_slots = slots;
        map->nnodes = all->nnodes;
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
        rc = job_nodes(j, &pool, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = hnp_job_map_build(&pool, &req, &j->job.map, err, errlen);
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
    if (read_command_line(j, err, errlen) != HNP_SUCCESS) {
        hnp_dvm_job_destroy(j);
        return NULL;
    }
    j->mapped_at = hnp_job_now(&j->job);
    return j;
}

/* The client's stdin, stdout and stderr become the HNP's while the job
 * runs: the output code writes the job's output and hnp's messages to
 * them as a standalone hnp would to its own. */
static int take_stdio(hnp_dvm_job_t *j)
{
    for (int i = 0; i < 3; i++)
        if (j->fds[i] >= 0 && dup2(j->fds[i], i) < 0)
            return HNP_ERR_IO;
    j->stdio_taken = true;
    return HNP_SUCCESS;
}

static void give_back_stdio(hnp_dvm_job_t *j)
{
    const int *saved = hnp_dvm_saved_stdio(j->dvm);

    if (!j->stdio_taken)
        return;
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < 3; i++)
        if (saved[i] >= 0)
            dup2(saved[i], i);
    j->stdio_taken = false;
}

int hnp_dvm_job_launch(hnp_dvm_job_t *j, char *err, size_t errlen)
{
    hnp_job_t *job = &j->job;
    int rc = take_stdio(j);

    job->ndaemons = hnp_dvm_daemons_alive(j->dvm);
    job->wdir = strdup(j->req.cwd[0] != '\0' ? j->req.cwd : "/");
    if (rc != HNP_SUCCESS || job->wdir == NULL) {
        hnp_err_set(err, errlen, "cannot take the client's stdio");
        return rc != HNP_SUCCESS ? rc : HNP_ERR_NOMEM;
    }
    rc = hnp_job_output_init(job, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if (j->args.mapping.display_map)
        hnp_mapping_print_map(&j->args, &job->map, stdout);
    hnp_job_register_io(job);
    hnp_job_register_launch_reports(job);
    /* daemons without ranks hear of the job's all-gathers from the HNP */
    job->rte->announce_collectives = false;
    for (uint32_t n = 0; n < job->map.nnodes; n++)
        if (job->map.local_size[n] == 0 && !hnp_dvm_node_lost(j->dvm, n))
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
    uint32_t used = 0;

    for (uint32_t n = 0; n < job->map.nnodes; n++)
        used += job->map.local_size[n] > 0;
    fprintf(stderr, "hnp: timing for job %u of the DVM, %u processes on %u "
            "of its %u nodes (seconds since submission):\n", job->jobid,
            job->map.nprocs, used, job->map.nnodes);
    fprintf(stderr, "hnp:   %-36s %9.3f\n", "submitted", 0.0);
    fprintf(stderr, "hnp:   %-36s %9.3f\n", "mapped", j->mapped_at);
    for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
        if (job->marks[marks[m].mark] > 0)
            fprintf(stderr, "hnp:   %-36s %9.3f\n", marks[m].name,
                    job->marks[marks[m].mark]);
        else
            fprintf(stderr, "hnp:   %-36s %9s\n", marks[m].name, "-");
    }
}

int hnp_dvm_job_conclude(hnp_dvm_job_t *j)
{
    hnp_job_t *job = &j->job;
    int status = job->exit_status;

    if (j->stdio_taken) {
        hnp_job_output_flush(job);
        if (j->args.timing)
            print_timing(j);
    }
    hnp_job_release(job);
    j->released = true;
    hnp_dvm_between_jobs(j->dvm);
    give_back_stdio(j);
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
    give_back_stdio(j);
    if (!j->released)
        hnp_job_release(&j->job);
    for (int i = 0; i < 3; i++)
        if (j->fds[i] >= 0)
            close(j->fds[i]);
    if (j->parsed)
        hnp_args_free(&j->args);
    hnp_wire_dvm_request_clear(&j->req);
    free(j->output_dir);
    free(j->argv);
    free(j);
}
