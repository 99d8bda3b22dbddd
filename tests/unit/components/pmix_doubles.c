/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stand-ins for the runtime services the pmix component calls, for a
 * one-node job on a libevent base of the test's: an all-gather that gives
 * back this daemon's own blob, requests served by this daemon, watches on
 * the base, and a record of aborts, failed jobs, wire-up states and the children's
 * variables.
 */
#include "config.h"

#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"
#include "pmix_doubles.h"

pmix_doubles_t doubles;

hnp_vpid_t hnp_rte_my_vpid(const hnp_rte_t *rte)
{
    (void)rte;
    return 1;
}

typedef struct gather {
    void *data;
    size_t len;
    hnp_exchange_callbacks_t cb;
} gather_t;

static void gather_deliver(evutil_socket_t fd, short what, void *arg)
{
    gather_t *g = arg;

    (void)fd;
    (void)what;
    g->cb.learned(g->cb.cbdata, 1, g->data, g->len);
    g->cb.complete(g->cb.cbdata, HNP_SUCCESS);
    free(g->data);
    free(g);
}

int hnp_rte_allgather(hnp_rte_t *rte, uint32_t jobid, uint32_t series,
                      uint32_t seq, const void *data, size_t len,
                      const hnp_exchange_callbacks_t *cb)
{
    gather_t *g = calloc(1, sizeof(*g));

    (void)rte;
    if (jobid != doubles.jobid || series != doubles.series ||
        seq != doubles.fences)
        doubles.fence_order_wrong = true;
    doubles.fences++;
    g->data = malloc(len > 0 ? len : 1);
    memcpy(g->data, data, len);
    g->len = len;
    g->cb = *cb;
    return event_base_once(doubles.base, -1, EV_TIMEOUT, gather_deliver, g,
                           NULL) == 0 ? HNP_SUCCESS : HNP_ERROR;
}

struct hnp_rte_request {
    hnp_rte_reply_fn fn;
    void *cbdata;
};

int hnp_rte_serve(hnp_rte_t *rte, uint32_t service, hnp_rte_serve_fn fn,
                  void *cbdata)
{
    (void)rte;
    (void)cbdata;
    doubles.service = service;
    doubles.serve = fn;
    return HNP_SUCCESS;
}

int hnp_rte_request(hnp_rte_t *rte, uint32_t service, uint32_t jobid,
                    uint32_t rank, const void *data, size_t len,
                    hnp_rte_reply_fn fn, void *cbdata)
{
    hnp_rte_request_t *req = calloc(1, sizeof(*req));

    if (service != doubles.service || doubles.serve == NULL) {
        free(req);
        return HNP_ERR_NOT_FOUND;
    }
    req->fn = fn;
    req->cbdata = cbdata;
    doubles.serve(rte, req, 1, jobid, rank, data, len, NULL);
    return HNP_SUCCESS;
}

void hnp_rte_reply(hnp_rte_request_t *req, int status, const void *data,
                   size_t len)
{
    req->fn(NULL, status, data, len, req->cbdata);
    free(req);
}

void hnp_rte_abort_job(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                       int code, const char *msg)
{
    (void)rte;
    (void)msg;
    doubles.aborts++;
    doubles.abort_jobid = jobid;
    doubles.abort_rank = rank;
    doubles.abort_code = code;
}

void hnp_rte_proc_state(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                        hnp_rte_proc_state_t state)
{
    (void)rte;
    if (jobid != doubles.jobid)
        doubles.state_job_wrong = true;
    if (rank < PMIX_DOUBLES_MAX_RANKS)
        doubles.state[rank] |= (unsigned)state;
}

struct hnp_rte_fd_watch {
    struct event *ev;
    hnp_rte_fd_fn fn;
    void *cbdata;
};

static void watch_ready(evutil_socket_t fd, short what, void *arg)
{
    hnp_rte_fd_watch_t *w = arg;

    (void)what;
    w->fn(NULL, fd, HNP_RTE_FD_READ, w->cbdata);
}

hnp_rte_fd_watch_t *hnp_rte_fd_watch_create(hnp_rte_t *rte, int fd,
                                            unsigned events, hnp_rte_fd_fn fn,
                                            void *cbdata)
{
    hnp_rte_fd_watch_t *w = calloc(1, sizeof(*w));

    (void)rte;
    (void)events;
    w->fn = fn;
    w->cbdata = cbdata;
    w->ev = event_new(doubles.base, fd, EV_READ | EV_PERSIST, watch_ready, w);
    event_add(w->ev, NULL);
    doubles.watches++;
    return w;
}

void hnp_rte_fd_watch_destroy(hnp_rte_fd_watch_t *watch)
{
    if (watch == NULL)
        return;
    event_free(watch->ev);
    free(watch);
    doubles.watches--;
}

struct hnp_rte_timer {
    struct event *ev;
    hnp_rte_timer_fn fn;
    void *cbdata;
};

static void timer_fired(evutil_socket_t fd, short what, void *arg)
{
    hnp_rte_timer_t *t = arg;

    (void)fd;
    (void)what;
    t->fn(NULL, t->cbdata);
}

hnp_rte_timer_t *hnp_rte_timer_create(hnp_rte_t *rte, double seconds,
                                      hnp_rte_timer_fn fn, void *cbdata)
{
    hnp_rte_timer_t *t = calloc(1, sizeof(*t));
    struct timeval tv = { (time_t)seconds,
                          (suseconds_t)((seconds - (double)(time_t)seconds) *
                                        1e6) };

    (void)rte;
    t->fn = fn;
    t->cbdata = cbdata;
    t->ev = evtimer_new(doubles.base, timer_fired, t);
    evtimer_add(t->ev, &tv);
    return t;
}

void hnp_rte_timer_destroy(hnp_rte_timer_t *timer)
{
    if (timer == NULL)
        return;
    event_free(timer->ev);
    free(timer);
}

int hnp_pmi_fork_setenv(hnp_pmi_fork_t *fork, const char *name,
                        const char *value)
{
    if (name[0] == '\0' || strchr(name, '=') != NULL ||
        fork->count == PMIX_DOUBLES_MAX_ENV)
        return HNP_ERR_BAD_PARAM;
    for (size_t i = 0; i < fork->count; i++) {
        if (strcmp(fork->name[i], name) == 0) {
            free(fork->value[i]);
            fork->value[i] = strdup(value);
            return HNP_SUCCESS;
        }
    }
    fork->name[fork->count] = strdup(name);
    fork->value[fork->count++] = strdup(value);
    return HNP_SUCCESS;
}

int hnp_pmi_fork_keep_fd(hnp_pmi_fork_t *fork, int fd)
{
    (void)fork;
    (void)fd;
    return HNP_ERR_BAD_PARAM;
}

const char *pmix_doubles_getenv(const hnp_pmi_fork_t *fork, const char *name)
{
    for (size_t i = 0; i < fork->count; i++)
        if (strcmp(fork->name[i], name) == 0)
            return fork->value[i];
    return NULL;
}

void pmix_doubles_fork_clear(hnp_pmi_fork_t *fork)
{
    for (size_t i = 0; i < fork->count; i++) {
        free(fork->name[i]);
        free(fork->value[i]);
    }
    fork->count = 0;
}

/* Scratch directories: under one directory of the test's, removed at its
 * end (pmix_doubles_scratch_clean); the count of those alive is kept. */
static char scratch_base[64];

int hnp_rte_scratch_make(hnp_rte_t *rte, const char *name, unsigned flags,
                         char **path, char *err, size_t errlen)
{
    char dir[256];

    (void)rte;
    (void)flags;
    if (scratch_base[0] == '\0') {
        snprintf(scratch_base, sizeof(scratch_base),
                 "/tmp/hnp-pmix-doubles-%ld", (long)getpid());
        if (mkdir(scratch_base, 0700) != 0 && errno != EEXIST)
            return HNP_ERR_IO;
    }
    snprintf(dir, sizeof(dir), "%s/%s", scratch_base, name);
    if (mkdir(dir, 0700) != 0 || (*path = strdup(dir)) == NULL) {
        snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
        return HNP_ERR_IO;
    }
    doubles.scratch_dirs++;
    return HNP_SUCCESS;
}

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

void hnp_rte_scratch_remove(hnp_rte_t *rte, const char *path)
{
    (void)rte;
    if (path == NULL)
        return;
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    doubles.scratch_dirs--;
}

void pmix_doubles_scratch_clean(void)
{
    if (scratch_base[0] != '\0')
        nftw(scratch_base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* No job is spawned here: the request is refused, as the runtime refuses
 * one of a job it does not hold. */
int hnp_rte_spawn(hnp_rte_t *rte, uint32_t parent_jobid,
                  const hnp_spawn_request_t *req, hnp_rte_spawn_fn cb,
                  void *cbdata)
{
    (void)rte, (void)parent_jobid, (void)req, (void)cb, (void)cbdata;
    doubles.spawns++;
    return HNP_ERR_BAD_PARAM;
}

/* A collective across jobs: this node's part is the whole (the other
 * job's ranks are counted elsewhere), answered from the loop. */
typedef struct later {
    hnp_rte_gather_fn gather_cb;
    hnp_rte_job_info_fn info_cb;
    void *cbdata;
} later_t;

static void gather_answer(evutil_socket_t fd, short what, void *arg)
{
    later_t *l = arg;

    (void)fd, (void)what;
    doubles.gathers_across++;
    l->gather_cb(NULL, HNP_SUCCESS, NULL, 0, l->cbdata);
    free(l);
}

int hnp_rte_gather_across(hnp_rte_t *rte, const hnp_rte_member_t *members,
                          uint32_t nmembers, uint32_t nlocal,
                          const void *data, size_t len, hnp_rte_gather_fn cb,
                          void *cbdata)
{
    later_t *l = calloc(1, sizeof(*l));

    (void)rte, (void)members, (void)nmembers, (void)nlocal, (void)data;
    (void)len;
    if (l == NULL)
        return HNP_ERR_NOMEM;
    *l = (later_t){ .gather_cb = cb, .cbdata = cbdata };
    return event_base_once(doubles.base, -1, EV_TIMEOUT, gather_answer, l,
                           NULL) == 0 ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

/* doubles.other_job: 2 ranks on node 2 (another host). */
static void info_answer(evutil_socket_t fd, short what, void *arg)
{
    static const char *const names[3] = { NULL, "node-one",
                                          "pmix-doubles-node-two" };
    static const uint32_t node_of[2] = { 2, 2 };
    later_t *l = arg;
    hnp_rte_job_info_t info = {
        .jobid = PMIX_DOUBLES_OTHER_JOBID, .name = doubles.other_job,
        .nprocs = 2, .nnodes = 2, .node_of = node_of, .node_names = names,
    };

    (void)fd, (void)what;
    l->info_cb(NULL, HNP_SUCCESS, &info, l->cbdata);
    free(l);
}

/* The test's jobs are here; another is known when doubles.other_job
 * names it. */
int hnp_rte_job_info(hnp_rte_t *rte, uint32_t jobid, const char *name,
                     hnp_rte_job_info_fn cb, void *cbdata)
{
    later_t *l;

    (void)rte;
    if (doubles.other_job == NULL ||
        (jobid != 0 && jobid != PMIX_DOUBLES_OTHER_JOBID) ||
        (jobid == 0 && (name == NULL || strcmp(name, doubles.other_job))))
        return HNP_ERR_NOT_FOUND;
    if ((l = calloc(1, sizeof(*l))) == NULL)
        return HNP_ERR_NOMEM;
    *l = (later_t){ .info_cb = cb, .cbdata = cbdata };
    return event_base_once(doubles.base, -1, EV_TIMEOUT, info_answer, l,
                           NULL) == 0 ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

/* ------------------------------------------------------------ names */

/* The HNP's name service, in this process: the runtime's own table
 * (names_table.c), answers from the loop; a waiting lookup is held until
 * a publish brings its keys. */
typedef struct name_call {
    struct name_call *next;
    int op; /* 0 publish, 1 lookup, 2 unpublish */
    uint32_t jobid, rank;
    size_t count;
    char **keys;
    hnp_rte_names_fn fn;
    void *cbdata;
    int status;
} name_call_t;

static hnp_names_t *name_table;
static name_call_t *name_waiting;

static void name_call_free(name_call_t *c)
{
    for (size_t i = 0; i < c->count; i++)
        free(c->keys[i]);
    free(c->keys);
    free(c);
}

static void name_answer(evutil_socket_t fd, short what, void *arg)
{
    name_call_t *c = arg;
    hnp_names_entry_t found[8];
    hnp_rte_name_t names[8];
    size_t n = 0;

    (void)fd, (void)what;
    if (c->op == 1 && c->status == HNP_SUCCESS) {
        hnp_names_lookup(name_table, c->jobid, (const char *const *)c->keys,
                         c->count, found);
        for (size_t i = 0; i < c->count; i++)
            if (found[i].key != NULL)
                names[n++] = (hnp_rte_name_t){
                    .key = found[i].key, .value = found[i].value,
                    .len = found[i].len, .jobid = found[i].jobid,
                    .rank = found[i].rank, .job_name = "publisher-job" };
    }
    c->fn(NULL, c->status, names, n, c->cbdata);
    name_call_free(c);
}

static void name_later(name_call_t *c)
{
    event_base_once(doubles.base, -1, EV_TIMEOUT, name_answer, c, NULL);
}

static name_call_t *name_call(int op, uint32_t jobid, uint32_t rank,
                              const char *const *keys, size_t count,
                              hnp_rte_names_fn fn, void *cbdata)
{
    name_call_t *c = calloc(1, sizeof(*c));

    if (name_table == NULL)
        hnp_names_create(&name_table);
    *c = (name_call_t){ .op = op, .jobid = jobid, .rank = rank,
                        .count = count, .fn = fn, .cbdata = cbdata };
    c->keys = calloc(count + 1, sizeof(char *));
    for (size_t i = 0; keys != NULL && i < count; i++)
        c->keys[i] = strdup(keys[i]);
    doubles.name_calls++;
    return c;
}

int hnp_rte_name_publish(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                         const hnp_rte_name_t *names, size_t count,
                         unsigned flags, hnp_rte_names_fn fn, void *cbdata)
{
    hnp_names_put_t puts[8];
    name_call_t *c;

    (void)rte;
    if (count == 0 || count > 8)
        return HNP_ERR_BAD_PARAM;
    c = name_call(0, jobid, rank, NULL, 0, fn, cbdata);
    for (size_t i = 0; i < count; i++)
        puts[i] = (hnp_names_put_t){ names[i].key, names[i].value,
                                     names[i].len };
    c->status = hnp_names_publish(name_table, jobid, jobid, rank, puts,
                                  count, (flags & HNP_RTE_NAME_PERSIST) != 0);
    name_later(c);
    /* the waiting lookups whose keys are all there now */
    for (name_call_t **w = &name_waiting; *w != NULL;) {
        hnp_names_entry_t found[8];
        name_call_t *l = *w;
        if (hnp_names_lookup(name_table, l->jobid,
                             (const char *const *)l->keys, l->count,
                             found) < l->count) {
            w = &l->next;
            continue;
        }
        *w = l->next;
        name_later(l);
    }
    return HNP_SUCCESS;
}

int hnp_rte_name_lookup(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                        const char *const *keys, size_t count, unsigned flags,
                        double timeout, hnp_rte_names_fn fn, void *cbdata)
{
    hnp_names_entry_t found[8];
    name_call_t *c;
    size_t n;

    (void)rte, (void)timeout;
    if (count == 0 || count > 8)
        return HNP_ERR_BAD_PARAM;
    c = name_call(1, jobid, rank, keys, count, fn, cbdata);
    n = hnp_names_lookup(name_table, jobid, keys, count, found);
    doubles.name_lookup_waited += n < count && (flags & HNP_RTE_NAME_WAIT);
    if (n < count && (flags & HNP_RTE_NAME_WAIT) != 0) {
        c->next = name_waiting;
        name_waiting = c;
        return HNP_SUCCESS;
    }
    c->status = n > 0 ? HNP_SUCCESS : HNP_ERR_NOT_FOUND;
    name_later(c);
    return HNP_SUCCESS;
}

int hnp_rte_name_unpublish(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                           const char *const *keys, size_t count,
                           unsigned flags, hnp_rte_names_fn fn, void *cbdata)
{
    name_call_t *c;

    (void)rte, (void)flags;
    c = name_call(2, jobid, rank, keys, count, fn, cbdata);
    c->status = hnp_names_unpublish(name_table, jobid, jobid, rank, keys,
                                    count);
    name_later(c);
    return HNP_SUCCESS;
}

void pmix_doubles_names_clean(void)
{
    while (name_waiting != NULL) {
        name_call_t *c = name_waiting;
        name_waiting = c->next;
        name_call_free(c);
    }
    hnp_names_destroy(name_table);
    name_table = NULL;
}
