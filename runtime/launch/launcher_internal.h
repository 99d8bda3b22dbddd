/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launcher's requests and state, shared by launcher.c (the queue, the
 * agents, their outcomes) and daemons.c (what the runtime asks about, or
 * of, one daemon's request). Private to runtime/launch.
 */
#ifndef HNP_LAUNCHER_INTERNAL_H
#define HNP_LAUNCHER_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include <event2/event.h>

#include "agent.h"
#include "launcher.h"

typedef enum {
    REQ_QUEUED,
    REQ_RUNNING,
    REQ_BACKOFF,
    REQ_JOINED,
    REQ_FINISHED,
} req_state_t;

typedef struct launch_req launch_req_t;

struct launch_req {
    hnp_launcher_t *l;
    launch_req_t *next_all;      /* every request, newest first */
    launch_req_t *next_queued;
    req_state_t state;
    bool cancelled;              /* running at cancel_all: no callback */
    bool local;
    bool daemon;                 /* hnpd itself, not a command (srun) */
    bool joined;                 /* its daemon has called back */
    bool quiet;                  /* a kill: no callbacks, never retried */
    pid_t daemon_pid;            /* the daemon's own, on its node (0:
                                    unknown) */
    bool kill_sent;              /* a kill of it went through an agent */
    hnp_vpid_t vpid;
    char *secret_file;           /* the secret goes here, not on stdin;
                                    removed unless the daemon did */
    char *node;
    launch_words_t words;        /* argv freed once finished */
    unsigned attempt;            /* retries done so far */
    struct timespec started;     /* the last fork of its agent (monotonic) */
    pid_t pid;
    int out_fd;                  /* agent's stdout and stderr */
    int errno_fd;
    struct event *out_ev;
    struct event *retry_ev;
    launch_capture_t *capture;   /* only while running */
    char *last_words;            /* the agent's last lines, kept from the
                                    capture of its latest run */
};

struct hnp_launcher {
    struct event_base *base;
    hnp_children_t *children;
    char **agent_argv;           /* NULL: local launches only */
    char *daemon_path;
    char *secret_line;           /* the secret and a newline */
    char *secret_base;           /* where secret_dir is made; NULL: TMPDIR */
    char *secret_dir;            /* private (0700), made when first needed */
    unsigned max_concurrent;
    unsigned retries;
    double retry_delay;
    hnp_launch_callbacks_t cb;
    hnp_log_stream_t *log;
    launch_req_t *all;
    launch_req_t **by_vpid;      /* [vpid]: its newest request, or NULL */
    size_t nby_vpid;
    launch_req_t *queue_head, *queue_tail;
    size_t queued, running, backing_off;
    struct event *pump;          /* starts queued agents from the loop */
    unsigned char *chunk;
};

/* A daemon's newest request, or NULL. */
static inline launch_req_t *req_of(const hnp_launcher_t *l, hnp_vpid_t vpid)
{
    return vpid < l->nby_vpid ? l->by_vpid[vpid] : NULL;
}

/* Whether @p r's agent has not been reaped yet. */
static inline bool agent_alive(const launch_req_t *r)
{
    return r->state == REQ_RUNNING || r->state == REQ_JOINED;
}

/* Queue a request whose program is @p program with @p args (local) or the
 * daemon through the agent (not local). @p daemon: it starts hnpd, whose
 * secret goes into @p secret_file when that is not NULL. */
launch_req_t *launch_submit_req(hnp_launcher_t *l, hnp_vpid_t vpid,
                                const char *node, const char *program,
                                char *const *args, bool local, bool daemon,
                                bool indexed, const char *secret_file);

/* Remove @p r's secret file, if the daemon did not. */
void launch_req_drop_secret(launch_req_t *r);

/* Start queued agents from the loop, as slots allow. */
void launch_schedule_pump(hnp_launcher_t *l);

#endif /* HNP_LAUNCHER_INTERNAL_H */
