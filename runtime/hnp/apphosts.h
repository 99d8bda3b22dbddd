/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hosts of each app context (apphosts.c): `hnp -n 1 -H a ./x : -n 2 -H
 * b:2 ./y` places x on a and y on b, as Open MPI's mpirun does. The job's
 * nodes are every context's together; a context that names none is placed
 * over all of them.
 */
#ifndef HNP_APPHOSTS_H
#define HNP_APPHOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "hosts/hostlist.h"
#include "hosts/jobmap.h"

/** The nodes of --host and --hostfile given together: --host picks among
 *  the hostfile's, as Open MPI's mpirun takes them. Either may be NULL. */
int hnp_apphosts_parse(const char *hosts, const char *hostfile,
                       hnp_nodelist_t *nodes, char *err, size_t errlen);

/** Whether the app contexts do not all name the same hosts (then each is
 *  placed by hnp_apphosts_place()). */
bool hnp_apphosts_per_context(const hnp_args_t *args);

/** Every context's hosts into @p nodes, each node once, in the order they
 *  are first named; a node named by several contexts has the most slots
 *  any of them gives it. */
int hnp_apphosts_union(const hnp_args_t *args, hnp_nodelist_t *nodes,
                       char *err, size_t errlen);

/**
 * Place each context's ranks on its own hosts (those of a context that
 * names none: @p nodes, the job's), by @p req's policy, in the slots the
 * contexts before it left; *@p fixed (malloc'd, [total ranks]) gets each
 * rank's index in @p nodes, for hnp_map_request_t.fixed_node. Errors name
 * the context.
 */
int hnp_apphosts_place(const hnp_args_t *args, const hnp_nodelist_t *nodes,
                       const hnp_map_request_t *req, uint32_t **fixed,
                       char *err, size_t errlen);

/* Ranks are consecutive over the app contexts; the only app context of a
 * job that gave no -n gets all @p nprocs ranks the map made. */
void hnp_apps_number(hnp_args_t *args, uint32_t nprocs);

#endif /* HNP_APPHOSTS_H */
