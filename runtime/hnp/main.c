/* SPDX-License-Identifier: BSD-3-Clause */
/* hnp: what the user runs. */
#include "config.h"

#include <event2/event.h>
#include <hwloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apphosts.h"
#include "args.h"
#include "dvm.h"
#include "job.h"
#include "ompi_params.h"
#include "plan.h"
#include "prelaunch.h"
#include "hosts/hostlist.h"
#include "procs/fdlimit.h"

/* No host given: this machine, with as many slots as it has cores. The
 * topology is loaded only here, where something needs it. */
static int local_node(hnp_nodelist_t *nodes, bool hwthreads)
{
    hwloc_topology_t topo;
    int cores = 1;
    char host[256] = "localhost";

    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
            if (cores <= 0 || hwthreads) /* --use-hwthread-cpus */
                cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        }
        hwloc_topology_destroy(topo);
    }
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    return hnp_nodelist_add(nodes, host, cores > 0 ? (uint32_t)cores : 1, true);
}

static void add_allocated(void *ctx, const char *node, uint32_t slots)
{
    hnp_nodelist_add(ctx, node, slots, slots > 0);
}

/* Hosts the user named must lie inside the batch allocation, if any. */
static int check_subset(const hnp_nodelist_t *nodes,
                        const hnp_nodelist_t *alloc, char *err, size_t errlen)
{
    for (size_t i = 0; i < nodes->count; i++) {
        size_t j = 0;
        while (j < alloc->count && strcmp(alloc->nodes[j].name,
                                          nodes->nodes[i].name) != 0)
            j++;
        if (j == alloc->count) {
            hnp_err_set(err, errlen, "node %s is not in the allocation (%zu "
                        "nodes, from %s to %s)", nodes->nodes[i].name,
                        alloc->count, alloc->nodes[0].name,
                        alloc->nodes[alloc->count - 1].name);
            return HNP_ERR_BAD_PARAM;
        }
    }
    return HNP_SUCCESS;
}

/* --hostfile, --host, or both (then --host picks among the hostfile's
 * nodes, as Open MPI's mpirun does); with several app contexts that name
 * different hosts, all of theirs. */
static int user_nodes(const hnp_args_t *args, hnp_nodelist_t *nodes,
                      char *err, size_t errlen)
{
    if (hnp_apphosts_per_context(args))
        return hnp_apphosts_union(args, nodes, err, errlen);
    return hnp_apphosts_parse(args->hosts, args->hostfile, nodes, err,
                              errlen);
}

/* The nodes: --hostfile and --host, else the batch allocation the plm
 * knows of (in @p alloc, the caller's to free), else --default-hostfile,
 * else this machine. */
static int gather_nodes(hnp_args_t *args, hnp_rte_t *rte, hnp_nodelist_t *nodes,
                        hnp_nodelist_t *alloc, uint32_t **fixed, uint32_t *np,
                        char *err, size_t errlen)
{
    int rc = user_nodes(args, nodes, err, errlen);

    if (rc == HNP_SUCCESS && rte->plm->allocated_nodes != NULL &&
        rte->plm->allocated_nodes(rte, add_allocated, alloc) == HNP_SUCCESS &&
        alloc->count > 0) {
        bool user_gave = nodes->count > 0;
        if (user_gave)
            rc = check_subset(nodes, alloc, err, errlen);
        for (size_t i = 0; !user_gave && rc == HNP_SUCCESS &&
                           i < alloc->count; i++)
            rc = hnp_nodelist_add(nodes, alloc->nodes[i].name,
                                  alloc->nodes[i].slots,
                                  alloc->nodes[i].slots_given);
    }
    /* --default-hostfile: the hosts when neither the user nor a batch
     * system named any, as Open MPI takes it. */
    if (rc == HNP_SUCCESS && nodes->count == 0 && args->default_hostfile)
        rc = hnp_nodelist_parse_hostfile(nodes, args->default_hostfile, err,
                                         errlen);
    /* A rankfile's hosts are the job's when nobody named any. */
    if (rc == HNP_SUCCESS && args->mapping.rankfile != NULL)
        rc = hnp_mapping_read_rankfile(args, nodes, nodes->count == 0, fixed,
                                       np, err, errlen);
    if (rc == HNP_SUCCESS && nodes->count == 0)
        rc = local_node(nodes, args->mapping.place.flags &
                                   HNP_PLACE_HWTHREAD_CPUS);
    return rc;
}

static int build_map(hnp_args_t *args, hnp_rte_t *rte, hnp_job_map_t *map,
                     char *err, size_t errlen)
{
    hnp_nodelist_t nodes = { NULL, 0, 0 }, alloc = { NULL, 0, 0 };
    uint32_t *fixed = NULL;
    int rc = hnp_mapping_node_capacity(args, rte->core->topo_file, err, errlen);
    hnp_map_request_t req = {
        .np = hnp_args_total_np(args), .npernode = args->npernode,
        .policy = args->map_by, .ranking = args->mapping.ranking,
        .oversubscribe = args->oversubscribe, .default_slots = 1,
    };

    char ppr_option[96];
    if (args->mapping.ppr > 0) { /* -N is the ranks ppr:N:OBJ makes */
        hnp_mapping_ppr_option(&args->mapping, ppr_option,
                               sizeof(ppr_option));
        req.npernode_option = ppr_option;
    }
    if (rc == HNP_SUCCESS)
        rc = gather_nodes(args, rte, &nodes, &alloc, &fixed, &req.np, err,
                          errlen);
    /* Each app context on its own hosts: its ranks are pinned to the
     * nodes its own mapping chose. */
    if (rc == HNP_SUCCESS && hnp_apphosts_per_context(args)) {
        if (fixed != NULL) {
            hnp_err_set(err, errlen, "--rankfile places every rank itself: "
                        "give the app contexts no --host or --hostfile of "
                        "their own");
            rc = HNP_ERR_BAD_PARAM;
        } else
            rc = hnp_apphosts_place(args, &nodes, &req, &fixed, err,
                                    errlen);
        req.ranking = HNP_RANK_DEFAULT;
    }
    req.fixed_node = fixed;
    /* daemons on the nodes without ranks too, for the job's spawns */
    req.keep_idle_nodes = !args->dvm && rte->core->daemons_on_all_nodes;
    if (rc == HNP_SUCCESS && args->mapping.display_allocation)
        hnp_mapping_print_allocation(&nodes, req.default_slots, stdout);
    if (rc == HNP_SUCCESS)
        rc = hnp_job_map_build(&nodes, &req, map, err, errlen);
    /* --host node3,node1 under srun: the ranks go where --host says, the
     * daemons are numbered as srun numbers them. */
    if (rc == HNP_SUCCESS && alloc.count > 0 &&
        (rte->plm->capabilities & HNP_PLM_CAP_ALLOCATION_ORDER) &&
        hnp_job_map_order_nodes(map, &alloc) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "out of memory ordering the nodes");
        rc = HNP_ERR_NOMEM;
    }
    if (rc == HNP_SUCCESS)
        HNP_VERBOSE(hnp_log_stream("rte"), 1, "%u process(es) mapped on %u "
                    "node(s)", map->nprocs, map->nnodes);
    free(fixed);
    /* Before the map is shown: it names each rank's app context. */
    if (rc == HNP_SUCCESS)
        hnp_apps_number(args, map->nprocs);
    if (rc == HNP_SUCCESS && args->mapping.display_map)
        hnp_mapping_print_map(args, map, stdout);
    if (rc == HNP_SUCCESS && args->stdin_target >= (int64_t)map->nprocs) {
        hnp_err_set(err, errlen, "--stdin %lld: the job has ranks 0 to %u",
                    (long long)args->stdin_target, map->nprocs - 1);
        rc = HNP_ERR_BAD_PARAM;
    }
    hnp_nodelist_free(&nodes);
    hnp_nodelist_free(&alloc);
    return rc;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    if (sig == SIGTSTP)
        hnp_job_stop(arg);
    else if (sig == SIGCONT)
        hnp_job_continue(arg);
    else
        hnp_job_signal(arg, (int)sig);
}

/* The job's daemons start the pmi components its programs use (the PMIx
 * server) once they have started their own daemons, while the launch is
 * on its way (pmi_base_start_early): the welcome names them. Not a DVM's,
 * whose daemons load every component before it is ready
 * (pmi_base_preload) and start them at the first job that uses them; nor
 * where a daemon runs no rank (plm_base_daemons_on_all_nodes), which
 * would start a server nobody uses. */
static void start_pmi_early(hnp_job_t *job)
{
    if (!job->rte->core->pmi_start_early)
        return;
    for (uint32_t n = 0; n < job->map.nnodes; n++)
        if (job->map.local_size[n] == 0)
            return;
    hnp_prelaunch_pmi_names(job->args, &job->rte->pmi, job->pmi_early,
                            sizeof(job->pmi_early));
    job->rte->pmi_early = job->pmi_early;
}

static int run_job(hnp_setup_t *setup, hnp_args_t *args)
{
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2,
                                   SIGTSTP, SIGCONT };
    struct event *sigev[7] = { NULL };
    hnp_dvm_t *dvm = NULL;
    hnp_job_t job;
    char err[1024] = "";
    int rc;

    memset(&job, 0, sizeof(job));
    job.args = args;
    job.jobid = 1;
    /* A DVM holds a daemon on every node of the allocation, each with its
     * pmi components loaded before the DVM is ready (unless told not to),
     * so that its first job starts as fast as the next. */
    if (args->dvm) {
        args->npernode = 1;
        args->map_by = HNP_MAP_BY_NODE;
        rc = hnp_param_set(hnp_mca_params(setup->mca), "pmi_base_preload",
                           "true", HNP_PARAM_SRC_SYSTEM_FILE, "hnp --dvm",
                           err, sizeof(err));
    } else {
        rc = HNP_SUCCESS;
    }
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_create(&job.rte, setup, true, 0, err, sizeof(err));
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_select_components(job.rte, err, sizeof(err));
    if (rc == HNP_SUCCESS && !args->dvm)
        rc = hnp_prelaunch_check(args, &job.rte->pmi, err, sizeof(err));
    if (rc == HNP_SUCCESS)
        rc = build_map(args, job.rte, &job.map, err, sizeof(err));
    if (rc == HNP_SUCCESS && !args->dvm)
        start_pmi_early(&job);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_select_exchange_for(job.rte, job.map.nnodes, err,
                                         sizeof(err));
    /* Before anything is launched: a refusal leaves nothing running. */
    if (rc == HNP_SUCCESS && args->plan == HNP_PLAN_NONE && !args->dvm)
        rc = hnp_job_output_init(&job, err, sizeof(err));
    if (rc == HNP_SUCCESS && args->dvm)
        rc = hnp_dvm_create(&dvm, &job, args, err, sizeof(err));
    /* its ranks may spawn jobs beside it (MPI_Comm_spawn) */
    else if (rc == HNP_SUCCESS && args->plan == HNP_PLAN_NONE)
        rc = hnp_dvm_create_family(&dvm, &job, err, sizeof(err));
    if (rc != HNP_SUCCESS) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "%s", err);
        hnp_rte_destroy(job.rte);
        hnp_job_release(&job);
        return 1;
    }
    if (args->plan != HNP_PLAN_NONE) {
        /* With a calibrated launch model, the plan is made for the
         * estimate the launch itself would use. */
        hnp_job_model_apply(&job, true);
        rc = hnp_plan_print(job.rte, &job.map, args->output_dir != NULL,
                            args->plan, stdout, err, sizeof(err));
        if (rc != HNP_SUCCESS)
            HNP_ERROR_LOG(hnp_log_stream("hnp"), "%s", err);
        hnp_rte_destroy(job.rte);
        hnp_job_release(&job);
        return rc != HNP_SUCCESS;
    }
    /* Job control is forwarded unless told not to: then SIGTSTP stops
     * hnp alone, as it would any program. */
    int nsignals = args->dvm ? 0 : job.rte->core->forward_job_control ? 7
                                                                        : 5;
    for (int i = 0; i < nsignals; i++) {
        sigev[i] = evsignal_new(job.rte->base, signals[i], on_signal, &job);
        evsignal_add(sigev[i], NULL);
    }
    rc = hnp_job_start(&job, err, sizeof(err));
    if (rc != HNP_SUCCESS && err[0] == '\0')
        snprintf(err, sizeof(err), "the launch could not start");
    if (rc != HNP_SUCCESS)
        hnp_job_abort(&job, 1, err);
    event_base_dispatch(job.rte->base);
    hnp_job_output_flush(&job); /* all of it, however slow the reader */
    if (args->timing && job.rte->oob != NULL)
        hnp_job_print_timing(&job);
    for (int i = 0; i < 7; i++)
        if (sigev[i] != NULL)
            event_free(sigev[i]);
    hnp_dvm_destroy(dvm);
    /* The job's timers and events live on the runtime's event base: they
     * go first. */
    hnp_job_release(&job);
    hnp_rte_destroy(job.rte);
    return job.exit_status != 0 ? job.exit_status : (rc != HNP_SUCCESS);
}

int main(int argc, char **argv)
{
    hnp_setup_t setup;
    hnp_args_t args;
    char err[1024] = "";
    hnp_setup_option_t *options = hnp_args_setup_options();
    char **words = NULL;
    int status;

    hnp_log_set_program("hnp");
    signal(SIGPIPE, SIG_IGN);
    /* The job's descriptors are planned against the most it may have. */
    (void)hnp_fd_limit_raise(NULL, NULL);
    /* The frameworks (and every component) are registered once the
     * command line says this hnp runs a job: a DVM client needs none. */
    status = options == NULL ? HNP_ERR_NOMEM
             : hnp_setup_init_core(&setup, &argc, argv, options, err,
                                   sizeof(err));
    free(options);
    if (status != HNP_SUCCESS) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "%s", err[0] ? err : "out of memory");
        return 1;
    }
    /* The words as given, for a DVM client (parsing cuts argv at ':'). */
    words = calloc((size_t)argc + 1, sizeof(*words));
    if (words != NULL)
        memcpy(words, argv, (size_t)argc * sizeof(*argv));
    if (words == NULL ||
        hnp_args_parse(&args, argc, argv, err, sizeof(err)) != HNP_SUCCESS ||
        hnp_ompi_params_forward(hnp_mca_params(setup.mca), &args, err,
                                sizeof(err)) != HNP_SUCCESS) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "%s", words ? err
                                                         : "out of memory");
        free(words);
        hnp_setup_fini(&setup);
        return 1;
    }
    if (!args.help && !args.version && !args.dvm &&
        (args.dvm_uri != NULL || args.dvm_jobs || args.dvm_stop ||
         getenv("HNP_DVM_URI") != NULL)) {
        status = hnp_dvm_client(&args, hnp_mca_params(setup.mca), argc,
                                words);
        goto out;
    }
    if (hnp_setup_register_frameworks(&setup, err, sizeof(err)) !=
        HNP_SUCCESS) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "%s", err);
        status = 1;
        goto out;
    }
    if (args.dvm && args.daemonize && (status = hnp_dvm_daemonize()) >= 0)
        goto out;
    if (args.help || args.version) {
        if (args.help)
            hnp_args_usage(stdout);
        else
            printf("hnp (hnp) %s\n", PACKAGE_VERSION);
        status = 0;
        goto out;
    }
    /* -v: hnp's own progress messages (the daemons' stay as their
     * parameters say). */
    if (args.verbose && hnp_log_stream("rte")->verbose < 1)
        hnp_log_stream("rte")->verbose = 1;
    status = run_job(&setup, &args);
out:
    hnp_args_free(&args);
    hnp_setup_fini(&setup);
    free(words);
    return status;
}
