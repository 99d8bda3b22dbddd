/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEMPORARY placeholders of the application-job services (hnp_rte.h,
 * section "application jobs") and of the core's job hooks (rte.h), until
 * the core implements them: the all-gather forwards to the exchange under
 * the id the core will use, abort sends the PMI abort message to the HNP,
 * the wire-up state of the ranks is kept here. Requests are not served.
 */
#include "config.h"

#include <stdlib.h>

#include "hnp_buffer.h"
#include "rte.h"
#include "wire/pmi_abort.h"

/* Placeholder state: one job a daemon. */
static uint8_t *stub_state;
static uint32_t stub_nprocs;

int hnp_rte_job_begin(hnp_rte_t *rte, uint32_t jobid, uint32_t nprocs,
                      const uint32_t *node_of, uint32_t nlocal)
{
    (void)rte;
    (void)jobid;
    (void)node_of;
    (void)nlocal;
    free(stub_state);
    stub_state = calloc(nprocs + 1, 1);
    stub_nprocs = nprocs;
    return stub_state != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

void hnp_rte_job_end(hnp_rte_t *rte)
{
    (void)rte;
    free(stub_state);
    stub_state = NULL;
    stub_nprocs = 0;
}

bool hnp_rte_proc_unfinalized(const hnp_rte_t *rte, uint32_t rank)
{
    (void)rte;
    return stub_state != NULL && rank < stub_nprocs &&
           stub_state[rank] == HNP_RTE_PROC_CONNECTED;
}

void hnp_rte_proc_state(hnp_rte_t *rte, uint32_t rank,
                        hnp_rte_proc_state_t state)
{
    (void)rte;
    if (stub_state != NULL && rank < stub_nprocs &&
        (unsigned)state > stub_state[rank])
        stub_state[rank] = (uint8_t)state;
}

int hnp_rte_allgather(hnp_rte_t *rte, uint32_t series, uint32_t seq,
                      const void *data, size_t len,
                      const hnp_exchange_callbacks_t *cb)
{
    return rte->exchange->allgather(rte, series * 65536u + seq + 1, data, len,
                                    cb);
}

int hnp_rte_serve(hnp_rte_t *rte, uint32_t service, hnp_rte_serve_fn fn,
                  void *cbdata)
{
    (void)rte;
    (void)service;
    (void)fn;
    (void)cbdata;
    return HNP_ERR_NOT_AVAILABLE;
}

int hnp_rte_request(hnp_rte_t *rte, uint32_t service, uint32_t rank,
                    const void *data, size_t len, hnp_rte_reply_fn fn,
                    void *cbdata)
{
    (void)rte;
    (void)service;
    (void)rank;
    (void)data;
    (void)len;
    (void)fn;
    (void)cbdata;
    return HNP_ERR_NOT_AVAILABLE;
}

void hnp_rte_reply(hnp_rte_request_t *req, int status, const void *data,
                   size_t len)
{
    (void)req;
    (void)status;
    (void)data;
    (void)len;
}

void hnp_rte_abort_job(hnp_rte_t *rte, uint32_t rank, int code,
                       const char *msg)
{
    hnp_wire_pmi_abort_t req = { .rank = rank, .code = code,
                                 .words = (char *)msg };
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    if (hnp_wire_pmi_abort_pack(&buf, &req) == HNP_SUCCESS)
        hnp_rte_send(rte, 0, HNP_TAG_PMI_ABORT, buf.data, buf.len);
    hnp_buffer_release(&buf);
}
