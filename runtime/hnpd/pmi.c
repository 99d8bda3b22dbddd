/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI programs find their peers through the PMI wire protocol this daemon
 * serves on a socket handed to each process (PMI_FD). A fence is an
 * all-gather over the selected exchange component: this node's puts travel
 * as one contribution, and every node's come back into the local store.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hnp_buffer.h"
#include "daemon.h"
#include "pmi/pmi.h"
#include "wire/pmi_abort.h"

/* All-gather ids of the fences: 0 is the contact exchange of phase 2. */
#define PMI_FENCE_ID_BASE 1

typedef struct pmi_fence {
    hnpd_t *d;
    uint32_t seq;
} pmi_fence_t;

static void fence_learned(void *cbdata, hnp_vpid_t vpid, const void *data,
                          size_t len)
{
    pmi_fence_t *f = cbdata;
    char err[256] = "";

    if (f->d->pmi == NULL)
        return;
    if (hnp_pmi_fence_merge(f->d->pmi, f->seq, data, len, err,
                            sizeof(err)) != HNP_SUCCESS)
        hnp_rte_fail(f->d->rte, 1, "node %s: the key-value data of vpid %u in "
                     "fence %u: %s", f->d->node, vpid, f->seq, err);
}

static void fence_complete(void *cbdata, int status)
{
    pmi_fence_t *f = cbdata;

    if (f->d->pmi != NULL)
        hnp_pmi_fence_complete(f->d->pmi, f->seq, status);
    free(f);
}

static void fence_ready(void *ctx, uint32_t seq, const void *blob, size_t len)
{
    hnpd_t *d = ctx;
    pmi_fence_t *f = malloc(sizeof(*f));
    hnp_exchange_callbacks_t cb = { fence_learned, fence_complete, f };

    if (f == NULL) {
        hnp_rte_fail(d->rte, 1, "node %s: out of memory in a PMI fence", d->node);
        return;
    }
    f->d = d;
    f->seq = seq;
    if (d->rte->exchange->allgather(d->rte, PMI_FENCE_ID_BASE + seq, blob, len,
                                    &cb) != HNP_SUCCESS) {
        free(f);
        hnp_rte_fail(d->rte, 1, "node %s: cannot start PMI fence %u", d->node,
                     seq);
    }
}

/* PMI_Abort: the job ends with the process's code and words. */
static void pmi_abort(void *ctx, uint32_t rank, int exit_code, const char *msg)
{
    hnpd_t *d = ctx;
    hnp_wire_pmi_abort_t req = { .rank = rank, .code = exit_code,
                                 .words = (char *)msg };
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    if (hnp_wire_pmi_abort_pack(&buf, &req) == HNP_SUCCESS)
        hnp_rte_send(d->rte, 0, HNP_TAG_PMI_ABORT, buf.data, buf.len);
    hnp_buffer_release(&buf);
}

static void pmi_client_error(void *ctx, uint32_t rank, int code,
                             const char *msg)
{
    hnpd_t *d = ctx;

    hnp_rte_fail(d->rte, 1, "rank %u on node %s: PMI: %s (%s)", rank, d->node,
                 msg != NULL ? msg : "protocol error", hnp_strerror(code));
}

int hnpd_pmi_start(hnpd_t *d, uint32_t nprocs, const uint32_t *node_of,
                   char *err, size_t errlen)
{
    hnp_pmi_callbacks_t cb = { fence_ready, pmi_abort, pmi_client_error,
                               NULL, d };
    char kvsname[64];
    int rc;

    snprintf(kvsname, sizeof(kvsname), "hnp_job_%u", d->jobid);
    d->local_ranks = calloc(d->nlocal + 1, sizeof(uint32_t));
    if (d->local_ranks == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < d->nlocal; i++)
        d->local_ranks[i] = d->procs[i].rank;
    rc = hnp_pmi_process_mapping(node_of, nprocs, &d->pmi_mapping);
    if (rc != HNP_SUCCESS)
        return rc;
    hnp_pmi_config_t cfg = {
        .size = nprocs, .kvsname = kvsname,
        .process_mapping = d->pmi_mapping,
        .local_ranks = d->local_ranks, .nlocal = d->nlocal,
        /* a fence's data must fit in one runtime message, with room */
        .max_fence_bytes = hnp_oob_max_frame(d->rte->oob) / 2,
    };
    return hnp_pmi_server_create(&d->pmi, d->rte->base, &cfg, &cb, err, errlen);
}

int hnpd_pmi_connect(hnpd_t *d, uint32_t rank, int32_t appnum, int *child_fd,
                     char **env)
{
    int fds[2];
    int rc;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        return HNP_ERR_IO;
    rc = hnp_pmi_server_add_client(d->pmi, fds[0], rank, appnum);
    if (rc != HNP_SUCCESS) { /* fds[0] is the server's, closed */
        close(fds[1]);
        return rc;
    }
    rc = hnp_pmi_client_env(d->pmi, rank, fds[1], env);
    if (rc < 0) { /* else the number of variables */
        close(fds[1]);
        return rc;
    }
    *child_fd = fds[1];
    return HNP_SUCCESS;
}

void hnpd_pmi_release(hnpd_t *d)
{
    if (d->pmi != NULL)
        hnp_pmi_server_destroy(d->pmi);
    d->pmi = NULL;
    free(d->pmi_mapping);
    free(d->local_ranks);
    d->pmi_mapping = NULL;
    d->local_ranks = NULL;
}
