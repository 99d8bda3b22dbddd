/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime core's own parameters. Registered by every program at
 * start-up (so hnp-info lists them) and read by the runtime.
 */
#ifndef HNP_CORE_PARAMS_H
#define HNP_CORE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "hnp_param.h"

typedef struct hnp_core_params {
    char *rsh_agent;             /* plm_rsh_agent */
    char *rsh_args;              /* plm_rsh_args */
    unsigned rsh_num_concurrent; /* plm_rsh_num_concurrent */
    unsigned rsh_retries;        /* plm_rsh_retries */
    double launch_timeout;       /* plm_base_launch_timeout */
    double launch_warn;          /* plm_base_launch_warn */
    char *secret_dir;            /* plm_base_secret_dir */
    char *if_include;            /* oob_tcp_if_include */
    char *if_exclude;            /* oob_tcp_if_exclude */
    size_t max_frame;            /* oob_tcp_max_frame */
    double handshake_timeout;    /* oob_tcp_handshake_timeout */
    unsigned max_handshakes;     /* oob_tcp_max_handshakes */
    char *test_stall;            /* oob_tcp_test_stall, "VPID:SECONDS" */
    unsigned test_stall_vpid;    /* ...read: the vpid (0: none) */
    double test_stall_seconds;   /* ...and the seconds */
    double kill_grace;           /* rte_kill_grace */
    bool abort_on_nonzero;       /* rte_abort_on_nonzero */
    double heartbeat_interval;   /* rte_heartbeat_interval */
    unsigned heartbeat_misses;   /* rte_heartbeat_misses */
    char *topo_file;             /* hwloc_base_topo_file */
    size_t iof_window;           /* rte_iof_window */
    size_t iof_buffer;           /* rte_iof_buffer */
    bool forward_job_control;    /* rte_forward_job_control */
    bool daemons_on_all_nodes;   /* plm_base_daemons_on_all_nodes */
    unsigned daemon_log_rate;    /* rte_daemon_log_rate */
    int dvm_on_daemon_loss;      /* dvm_on_daemon_loss: HNP_DVM_LOSS_* */
    int name_scope;              /* pmi_base_name_scope: HNP_NAME_SCOPE_* */
    bool pmi_preload;            /* pmi_base_preload */
    bool pmi_start_early;        /* pmi_base_start_early */
} hnp_core_params_t;

/* What a persistent runtime (hnp --dvm) does when a daemon dies. */
enum { HNP_DVM_LOSS_CONTINUE, HNP_DVM_LOSS_STOP };
/* Who sees a published name (MPI_Publish_name). */
enum { HNP_NAME_SCOPE_FAMILY, HNP_NAME_SCOPE_SESSION };

int hnp_core_params_register(hnp_params_t *params, hnp_core_params_t *core,
                             char *err, size_t errlen);

#endif /* HNP_CORE_PARAMS_H */
