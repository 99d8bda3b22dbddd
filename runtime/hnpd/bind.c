/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --bind-to core: local rank i runs on core i of its node. hwloc and its
 * topology are loaded only when binding is asked for (bind.h), so that a
 * daemon's start-up stays cheap, and a binding that cannot be done ends the
 * job with the reason: binding never fails silently.
 */
#include "config.h"

#include <stdio.h>

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

int hnpd_bind_prepare(hnpd_t *d, uint32_t nlocal, char *err, size_t errlen)
{
    if (d->bind == NULL && find_bind_ops(d, err, errlen) != HNP_SUCCESS)
        return HNP_ERR_NOT_AVAILABLE;
    if (d->topology == NULL &&
        d->bind->load(&d->topology, nlocal, err, errlen) != 0)
        return HNP_ERR_NOT_AVAILABLE;
    return HNP_SUCCESS;
}

int hnpd_bind_cpuset(const hnpd_t *d, uint32_t local_rank, cpu_set_t *set)
{
    if (d->topology == NULL || d->bind->cpuset(d->topology, local_rank, set) != 0)
        return HNP_ERR_NOT_FOUND;
    return HNP_SUCCESS;
}

void hnpd_bind_describe(const hnpd_t *d, uint32_t local_rank, char *buf,
                        size_t len)
{
    if (d->topology != NULL)
        d->bind->describe(d->topology, local_rank, buf, len);
    else
        snprintf(buf, len, "core %u [cpus ?]", local_rank);
}

void hnpd_bind_release(hnpd_t *d)
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
