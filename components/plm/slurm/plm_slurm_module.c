/* SPDX-License-Identifier: BSD-3-Clause */
/* The `slurm` plm module: the allocation's nodes, and one srun. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_log.h"
#include "hnp_rte.h"
#include "plm_slurm.h"

#define SRUN_FIXED_WORDS 9

/* "2(x3),1": 2 slots on each of three nodes, then 1. */
int plm_slurm_tasks_per_node(const char *text, uint32_t *slots, size_t count)
{
    size_t filled = 0;
    const char *p = text;

    while (p != NULL && *p != '\0') {
        char *end;
        unsigned long n = strtoul(p, &end, 10), times = 1;
        if (end == p || n > UINT32_MAX)
            return HNP_ERR_BAD_PARAM;
        if (strncmp(end, "(x", 2) == 0) {
            times = strtoul(end + 2, &end, 10);
            if (*end++ != ')' || times == 0)
                return HNP_ERR_BAD_PARAM;
        }
        for (; times > 0; times--, filled++)
            if (filled < count)
                slots[filled] = (uint32_t)n;
        p = *end == ',' ? end + 1 : (*end == '\0' ? end : NULL);
    }
    return p != NULL && filled == count ? HNP_SUCCESS : HNP_ERR_BAD_PARAM;
}

static int plm_slurm_allocated_nodes(struct hnp_rte *rte,
                                     void (*add)(void *, const char *, uint32_t),
                                     void *ctx)
{
    const char *list = getenv("SLURM_JOB_NODELIST");
    const char *tasks = getenv("SLURM_TASKS_PER_NODE");
    hnp_log_stream_t *log = hnp_log_stream("plm");
    char **names = NULL, err[256] = "";
    size_t count = 0;
    uint32_t *slots;

    (void)rte;
    if (list == NULL)
        return HNP_ERR_NOT_AVAILABLE;
    if (hnp_rte_expand_hostlist(list, &names, &count, err, sizeof(err)) != HNP_SUCCESS) {
        HNP_ERROR_LOG(log, "slurm: SLURM_JOB_NODELIST: %s", err);
        return HNP_ERR_BAD_PARAM;
    }
    slots = calloc(count + 1, sizeof(*slots));
    if (slots != NULL && tasks != NULL &&
        plm_slurm_tasks_per_node(tasks, slots, count) != HNP_SUCCESS) {
        HNP_WARN(log, "slurm: SLURM_TASKS_PER_NODE \"%s\" does not describe "
                 "%zu nodes; one slot each", tasks, count);
        memset(slots, 0, count * sizeof(*slots));
    }
    for (size_t i = 0; slots != NULL && i < count; i++)
        add(ctx, names[i], slots[i] > 0 ? slots[i] : 1);
    free(slots);
    hnp_rte_free_hostlist(names, count);
    return HNP_SUCCESS;
}

/* "node1,node2,...": the nodes of daemons @p first .. @p first + @p count
 * - 1, in vpid order. */
static char *daemon_nodelist(struct hnp_rte *rte, hnp_vpid_t first,
                             uint32_t count)
{
    size_t len = 1;
    char *list;

    for (hnp_vpid_t v = first; v < first + count; v++)
        len += strlen(hnp_rte_node_name(rte, v)) + 1;
    list = calloc(1, len);
    for (hnp_vpid_t v = first; list != NULL && v < first + count; v++) {
        if (v > first)
            strcat(list, ",");
        strcat(list, hnp_rte_node_name(rte, v));
    }
    return list;
}

/* srun and its fixed options, then plm_slurm_args, then the daemon. The
 * daemons stay srun's tasks for the life of the job (no detaching), are not
 * bound to CPUs, and all read the secret from srun's stdin. A step of
 * daemons added to the running job shares its nodes' resources with the
 * job's other steps (--overlap): it must never wait for them. */
static char **srun_argv(bool added, char *nodes_opt, char *ntasks,
                        char *nnodes, char *args_copy, char **daemon)
{
    size_t nd = 0, n = 0;
    char **argv;

    while (daemon[nd] != NULL)
        nd++;
    argv = calloc(SRUN_FIXED_WORDS + strlen(args_copy) / 2 + nd + 2,
                  sizeof(*argv));
    if (argv == NULL)
        return NULL;
    argv[n++] = "srun";
    argv[n++] = ntasks;
    argv[n++] = nnodes;
    argv[n++] = "--ntasks-per-node=1";
    argv[n++] = nodes_opt;
    argv[n++] = "--kill-on-bad-exit=1";
    argv[n++] = "--cpu-bind=none";
    argv[n++] = "--input=all";
    if (added)
        argv[n++] = "--overlap";
    for (char *w = strtok(args_copy, " \t"); w != NULL; w = strtok(NULL, " \t"))
        argv[n++] = w;
    for (size_t i = 0; i < nd; i++)
        argv[n++] = daemon[i];
    return argv;
}

/* One srun step for daemons @p first .. @p first + @p count - 1: the
 * first launch's (from 1), or those added to the running job. */
static int run_step(struct hnp_rte *rte, hnp_vpid_t first, uint32_t count,
                    bool added)
{
    char ntasks[32], nnodes[32], *opt = NULL;
    char *nodes = daemon_nodelist(rte, first, count);
    char *args = strdup(plm_slurm_args != NULL ? plm_slurm_args : "");
    char **daemon = added ? hnp_rte_added_daemon_command(rte, first)
                          : hnp_rte_daemon_command(rte, NULL);
    char **argv = NULL;
    int rc = HNP_ERR_NOMEM;

    snprintf(ntasks, sizeof(ntasks), "--ntasks=%u", count);
    snprintf(nnodes, sizeof(nnodes), "--nodes=%u", count);
    if (nodes != NULL && args != NULL && daemon != NULL &&
        asprintf(&opt, "--nodelist=%s", nodes) >= 0 &&
        (argv = srun_argv(added, opt, ntasks, nnodes, args, daemon)) != NULL)
        rc = added ? hnp_rte_spawn_added_command(rte, first, argv, nodes)
                   : hnp_rte_spawn_command(rte, argv, "the Slurm allocation");
    free(argv);
    free(opt);
    free(nodes);
    free(args);
    hnp_rte_free_argv(daemon);
    return rc;
}

static int plm_slurm_launch_daemons(struct hnp_rte *rte)
{
    return run_step(rte, 1, hnp_rte_num_procs(rte) - 1, false);
}

/* Daemons a spawn needs on nodes of the allocation without one: one more
 * step over those nodes, which the HNP numbered in the allocation's order
 * (HNP_PLM_CAP_ALLOCATION_ORDER), as srun numbers SLURM_NODEID; each
 * daemon adds first - 1 to SLURM_NODEID + 1. */
static int plm_slurm_launch_added(struct hnp_rte *rte, hnp_vpid_t first,
                                  uint32_t count)
{
    if (first < 1 || count == 0 || first + count > hnp_rte_num_procs(rte))
        return HNP_ERR_BAD_PARAM;
    return run_step(rte, first, count, true);
}

/* Under srun, SLURM_NODEID numbers the step's nodes from 0 in the
 * allocation's order, whatever the order of --nodelist; the HNP numbers
 * the daemons in that order too (HNP_PLM_CAP_ALLOCATION_ORDER), so
 * vpid = SLURM_NODEID + 1. */
int plm_slurm_daemon_identity(hnp_vpid_t *vpid, char *node, size_t len,
                              char *err, size_t errlen)
{
    const char *id = getenv("SLURM_NODEID");
    const char *name = getenv("SLURMD_NODENAME");
    char *end = NULL;
    unsigned long index = 0;

    if (id != NULL && *id != '\0') {
        errno = 0;
        index = strtoul(id, &end, 10);
    }
    if (id == NULL || end == NULL || *end != '\0' || errno != 0 ||
        index >= HNP_VPID_INVALID - 1 || name == NULL || name[0] == '\0') {
        hnp_err_set(err, errlen, "not a task of srun: SLURM_NODEID is %s%s%s "
                    "and SLURMD_NODENAME is %s%s%s",
                    id != NULL ? "\"" : "", id != NULL ? id : "unset",
                    id != NULL ? "\"" : "", name != NULL ? "\"" : "",
                    name != NULL ? name : "unset", name != NULL ? "\"" : "");
        return HNP_ERR_NOT_FOUND;
    }
    if ((size_t)snprintf(node, len, "%s", name) >= len) {
        hnp_err_set(err, errlen, "SLURMD_NODENAME is longer than %zu bytes",
                    len - 1);
        return HNP_ERR_TRUNCATED;
    }
    *vpid = (hnp_vpid_t)index + 1;
    return HNP_SUCCESS;
}

/* No spawn_tree: the flat one (srun does the fan-out). The secret goes on
 * srun's stdin, which --input=all hands to every daemon. */
const hnp_plm_module_t plm_slurm_module = {
    .capabilities = HNP_PLM_CAP_ALLOCATION_ORDER,
    .secret = HNP_PLM_SECRET_STDIN,
    .launch_daemons = plm_slurm_launch_daemons,
    .allocated_nodes = plm_slurm_allocated_nodes,
    .daemon_identity = plm_slurm_daemon_identity,
    .explain_failure = plm_slurm_explain_failure,
    .launch_added = plm_slurm_launch_added,
};
