/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file pmi_simple.h
 * @brief The `simple` pmi component: the PMI-1 and PMI-2 wire protocols
 * that MPICH (and MVAPICH, Intel MPI) speak to their process manager.
 *
 * Each local rank gets one end of a socketpair (PMI_FD) and the variables
 * MPICH's client reads; the daemon's end is served by the server of
 * server.h on the daemon's event loop. A fence is one all-gather of the
 * component's series (hnp_rte_allgather()); PMI_Abort ends the job with
 * the rank's code (hnp_rte_abort_job()); init and finalize of a rank are
 * told to the runtime (hnp_rte_proc_state()). What one rank may store is
 * bounded by the parameter pmi_simple_max_kvs_bytes.
 */
#ifndef PMI_SIMPLE_H
#define PMI_SIMPLE_H

#include <stddef.h>

#include "hnp_pmi.h"

extern const hnp_pmi_module_t pmi_simple_module;

/** pmi_simple_max_kvs_bytes: what one rank may store (0: no bound). */
extern size_t pmi_simple_max_kvs_bytes;

#endif /* PMI_SIMPLE_H */
