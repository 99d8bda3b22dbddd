/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Placement and binding of this node's ranks on its topology (bind.h).
 * hwloc and the topology are loaded only when the job needs them, so
 * that a daemon's start-up stays cheap, and a binding that cannot be done
 * ends the job with the reason: binding never fails silently.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "bind/bind.h"
#include "daemon.h"
#include "hnp_mca_base.h"
#include "core/startup.h"

static int find_bind_ops(hnpd_t *d, char *err, size_t errlen)
{
#ifdef HNP_BIND_BUILTIN
    (void)err;
    (void)errlen;
    d->bind = &hnp_bind_hwloc_ops;
    return HNP_SUCCESS;
#else
    void *sym;
    int rc = hnp_mca_open_module(d->setup->mca, HNP_BIND_MODULE,
                                 HNP_BIND_SYMBOL, &d->bind_module, &sym,
                                 err, errlen);

    if (rc == HNP_SUCCESS)
        d->bind = sym;
    return rc;
#endif
}

/* Each local rank's rankfile text, or NULL without a rankfile. */
static char **local_specs(const hnpd_job_t *j, const hnp_wire_launch_t *m)
{
    char **specs;

    if (m->place.nspecs == 0)
        return NULL;
    specs = calloc(j->nlocal + 1, sizeof(*specs));
    for (uint32_t i = 0; specs != NULL && i < j->nlocal; i++)
        specs[i] = m->place.specs[j->procs[i].rank];
    return specs;
}

int hnpd_bind_prepare(hnpd_job_t *j, const hnp_wire_launch_t *m, char *err,
                      size_t errlen)
{
    hnpd_t *d = j->daemon;
    char **specs = NULL;
    int rc = HNP_ERR_NOT_AVAILABLE;

    if (d->bind == NULL && find_bind_ops(d, err, errlen) != HNP_SUCCESS)
        return HNP_ERR_NOT_AVAILABLE;
    if (d->topology == NULL &&
        d->bind->load(&d->topology, d->setup->core.topo_file, err,
                      errlen) != 0)
        return HNP_ERR_NOT_AVAILABLE;
    j->placed = calloc(j->nlocal + 1, sizeof(*j->placed));
    specs = local_specs(j, m);
    if (j->placed == NULL || (m->place.nspecs > 0 && specs == NULL))
        snprintf(err, errlen, "out of memory placing the ranks");
    else if (d->bind->place(d->topology, &m->place, j->nlocal, specs,
                            j->placed, err, errlen) == 0)
        rc = HNP_SUCCESS;
    free(specs);
    return rc;
}

const cpu_set_t *hnpd_bind_cpuset(const hnpd_job_t *j, uint32_t local_rank)
{
    if (j->placed == NULL || local_rank >= j->nlocal ||
        !j->placed[local_rank].apply)
        return NULL;
    return &j->placed[local_rank].cpus;
}

const char *hnpd_bind_describe(const hnpd_job_t *j, uint32_t local_rank)
{
    if (j->placed == NULL || local_rank >= j->nlocal)
        return "is not bound (or bound to all available processors)";
    return j->placed[local_rank].report;
}

void hnpd_bind_release(hnpd_job_t *j)
{
    free(j->placed);
    j->placed = NULL;
}

void hnpd_bind_unload(hnpd_t *d)
{
    if (d->topology != NULL)
        d->bind->release(d->topology);
    d->topology = NULL;
#ifndef HNP_BIND_BUILTIN
    hnp_mca_close_module(d->bind_module);
    d->bind_module = NULL;
    d->bind = NULL;
#endif
}
