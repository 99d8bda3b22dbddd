/* SPDX-License-Identifier: BSD-3-Clause */
/* The persistent runtime's server state, shared by its files (dvm.c:
 * clients and jobs; dvm_loss.c: failures and lost daemons). Private to
 * hnp. */
#ifndef HNP_DVM_SERVER_H
#define HNP_DVM_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "dvm.h"
#include "dvm_proto.h"

struct event;

typedef enum { CONN_HELLO, CONN_PROOF, CONN_READY } conn_state_t;

typedef struct dvm_conn {
    struct dvm_conn *next;      /* dvm->conns */
    struct dvm_conn *next_wait; /* dvm->queue */
    hnp_dvm_t *dvm;
    int fd;                     /* -1: the client went away */
    struct event *ev;
    conn_state_t state;
    hnp_auth_transcript_t t;
    dvm_inbuf_t in;
    int fds[HNP_DVM_MAX_FDS];   /* came with the submission */
    int nfds;
    hnp_rte_timer_t *deadline;  /* the handshake's */
    hnp_dvm_job_t *job;         /* submitted: waiting or running */
    bool end_sent, end_sent_now;
    hnp_rte_timer_t *end_timer; /* its processes did not all report */
} dvm_conn_t;

struct hnp_dvm {
    hnp_job_t *runtime;
    hnp_rte_t *rte;
    const hnp_args_t *args;
    char *dir;                  /* private: the socket lives in it */
    char *socket_path;
    char *report_path;          /* written, removed at the end */
    int listen_fd;
    struct event *listen_ev;
    struct event *sigev[3];
    bool ready, stopping;
    uint32_t last_jobid;
    bool *lost;                 /* [nnodes] */
    uint32_t alive;
    dvm_conn_t *conns;
    dvm_conn_t *running;
    dvm_conn_t *queue;
    hnp_rte_timer_t *conclude_timer;
    int saved[3];               /* the HNP's own stdin, stdout, stderr */
};

#endif
