/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Jobs a rank's MPI_Comm_spawn asks for (wire/spawn.h): the request of
 * its daemon becomes a command line as hnp would read it (-n, --host,
 * --wdir, -x for each program; the job-level directives; the parent's
 * output options), read in the parent's environment and directory, mapped
 * onto the free slots of the nodes the runtime holds and launched as a
 * DVM's job (dvm_job.c), with no client: its output goes where its
 * parent's goes. The daemon gets the new job's id and name once every
 * child has started, or why not. The jobs of a family live and die
 * together: a failure of one ends the others, a parent ends after its
 * children.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apphosts.h"
#include "dvm_server.h"
#include "hnp_buffer.h"
#include "wire/auth.h"
#include "wire/spawn.h"

extern char **environ;

/* A growing vector of owned words. */
typedef struct words {
    char **v;
    size_t n, cap;
    bool failed;
} words_t;

static void words_add(words_t *w, const char *text)
{
    char *copy;

    if (w->failed)
        return;
    if (w->n + 2 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 32;
        char **grown = realloc(w->v, cap * sizeof(*grown));
        if (grown == NULL) {
            w->failed = true;
            return;
        }
        w->v = grown;
        w->cap = cap;
    }
    if ((copy = strdup(text)) == NULL) {
        w->failed = true;
        return;
    }
    w->v[w->n++] = copy;
    w->v[w->n] = NULL;
}

static void words_free(words_t *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->v[i]);
    free(w->v);
    memset(w, 0, sizeof(*w));
}

/* The option and its value, when there is one. */
static void words_option(words_t *w, const char *opt, const char *value)
{
    if (value != NULL && value[0] != '\0') {
        words_add(w, opt);
        words_add(w, value);
    }
}

static const char *env_get(char *const *env, const char *name)
{
    size_t len = strlen(name);

    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
            return env[i] + len + 1;
    return NULL;
}

static bool is_program(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* @p cmd in the directories of @p dirs (':'-separated) into @p out. */
static bool search_dirs(const char *dirs, const char *cmd, char *out,
                        size_t len)
{
    const char *p = dirs;

    while (p != NULL && *p != '\0') {
        const char *end = strchr(p, ':');
        size_t dlen = end != NULL ? (size_t)(end - p) : strlen(p);
        if (dlen > 0 &&
            snprintf(out, len, "%.*s/%s", (int)dlen, p, cmd) < (int)len &&
            is_program(out))
            return true;
        p = end != NULL ? end + 1 : NULL;
    }
    return false;
}

/* Where @p app's program is, as the children's exec would find it: a
 * name with '/' from the working directory, else along the app's path
 * (MPICH's "path" info), PREFIX/bin, then the PATH of @p env. */
static int find_program(const hnp_wire_spawn_app_t *app, const char *wdir,
                        char *const *env, char *out, size_t len, char *err,
                        size_t errlen)
{
    char bin[4096];

    if (strchr(app->cmd, '/') != NULL) {
        if (snprintf(out, len, "%s%s%s", app->cmd[0] == '/' ? "" : wdir,
                     app->cmd[0] == '/' ? "" : "/", app->cmd) < (int)len &&
            is_program(out))
            return HNP_SUCCESS;
    } else {
        snprintf(bin, sizeof(bin), "%s/bin", app->prefix);
        if (search_dirs(app->path, app->cmd, out, len) ||
            (app->prefix[0] != '\0' && search_dirs(bin, app->cmd, out, len)) ||
            search_dirs(env_get(env, "PATH"), app->cmd, out, len))
            return HNP_SUCCESS;
    }
    hnp_err_set(err, errlen, "no such program: %s (%s)", app->cmd,
                strchr(app->cmd, '/') != NULL
                    ? "not an executable file"
                    : "not found along the app's path, its prefix or PATH");
    return HNP_ERR_NOT_FOUND;
}

/* What the parent's command line says of the output, which its children
 * share; then the request's job-level directives. */
static void job_words(words_t *w, const hnp_args_t *parent,
                      const hnp_wire_spawn_request_t *req)
{
    char ppr[256];

    if (parent->tag_output)
        words_add(w, "--tag-output");
    if (parent->timestamp_output)
        words_add(w, "--timestamp-output");
    if (parent->merge_stderr)
        words_add(w, "--merge-stderr-to-stdout");
    if (parent->oversubscribe)
        words_add(w, "--oversubscribe");
    if (req->ppr[0] != '\0') {
        snprintf(ppr, sizeof(ppr), "ppr:%s", req->ppr);
        words_option(w, "--map-by", ppr);
    } else {
        words_option(w, "--map-by", req->map_by);
    }
    words_option(w, "--rank-by", req->rank_by);
    words_option(w, "--bind-to", req->bind_to);
    if (req->display_map)
        words_add(w, "--display-map");
}

static int app_words(words_t *w, const hnp_wire_spawn_app_t *app,
                     const char *wdir, char *const *env, char *err,
                     size_t errlen)
{
    char count[16], program[4096], lib[4200];
    const char *app_wdir = app->wdir[0] != '\0' ? app->wdir : wdir;
    int rc = find_program(app, app_wdir, env, program, sizeof(program), err,
                          errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    snprintf(count, sizeof(count), "%u", app->maxprocs);
    words_option(w, "-n", count);
    words_option(w, "--host", app->hosts);
    words_option(w, "--hostfile", app->hostfile);
    words_option(w, "--wdir", app_wdir);
    for (uint32_t i = 0; i < app->nenv; i++)
        if (strchr(app->env[i], '=') != NULL && app->env[i][0] != '=')
            words_option(w, "-x", app->env[i]);
    if (app->prefix[0] != '\0') {
        const char *old = env_get(env, "LD_LIBRARY_PATH");
        snprintf(lib, sizeof(lib), "LD_LIBRARY_PATH=%s/lib%s%s", app->prefix,
                 old != NULL ? ":" : "", old != NULL ? old : "");
        words_option(w, "-x", lib);
    }
    words_add(w, program);
    for (uint32_t i = 0; i < app->argc; i++)
        words_add(w, app->argv[i]);
    return HNP_SUCCESS;
}

/* Each node @p hosts names runs a daemon: by now, dvm_grow.c has had one
 * started on each node of the allocation that needed it, except under a
 * launcher that starts none once the job runs (plm slurm); such a node,
 * or one outside the allocation, is refused, naming it. */
static int check_hosts(const hnp_dvm_t *dvm, const char *hosts, char *err,
                       size_t errlen)
{
    hnp_nodelist_t want = { NULL, 0, 0 }, alloc = { NULL, 0, 0 };
    int rc = hnp_nodelist_parse_hosts(&want, hosts, err, errlen);

    for (size_t i = 0; rc == HNP_SUCCESS && i < want.count; i++) {
        const char *name = want.nodes[i].name;
        bool allocated = false;
        if (hnp_dvm_runs_daemon(dvm, name))
            continue;
        if (dvm->family_only && alloc.count == 0 &&
            (rc = dvm_allocation(dvm, &alloc, err, errlen)) != HNP_SUCCESS)
            break;
        allocated = hnp_nodelist_find(&alloc, name) != NULL;
        if (allocated)
            hnp_err_set(err, errlen, "node %s of the allocation runs no "
                        "daemon, and plm %s starts none once the job runs "
                        "(--mca plm_base_daemons_on_all_nodes 1 starts one "
                        "on every node, or give the job a rank there, e.g. "
                        "with -N 1)", name, dvm->rte->selected[0]);
        else
            hnp_err_set(err, errlen, "host %s is not in %s", name,
                        hnp_dvm_noun(dvm));
        rc = HNP_ERR_BAD_PARAM;
    }
    hnp_nodelist_free(&want);
    hnp_nodelist_free(&alloc);
    return rc;
}

/* What hnp_rte_spawn() leaves to later: nodes without a daemon (the
 * nodes a spawn adds were checked by dvm_spawn_add_hosts()). */
static int refuse_unsupported(const hnp_dvm_t *dvm,
                              const hnp_wire_spawn_request_t *req, char *err,
                              size_t errlen)
{
    for (uint32_t a = 0; a < req->napps; a++) {
        const hnp_wire_spawn_app_t *app = &req->apps[a];
        if (app->hosts[0] != '\0' &&
            check_hosts(dvm, app->hosts, err, errlen) != HNP_SUCCESS)
            return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ answers */

static void send_answer(hnp_dvm_t *dvm, hnp_vpid_t to, uint32_t reqid,
                        int status, uint32_t jobid, const char *why)
{
    char name[HNP_AUTH_JOB_NAME_LEN] = "";
    hnp_wire_spawn_reply_t m = { .reqid = reqid, .status = status,
                                 .jobid = status == HNP_SUCCESS ? jobid : 0,
                                 .name = name, .err = (char *)why };
    hnp_buffer_t buf;

    if (status == HNP_SUCCESS)
        hnp_auth_job_name(dvm->rte->secret, jobid, name);
    hnp_buffer_init(&buf);
    if (hnp_wire_spawn_reply_pack(&buf, &m) != HNP_SUCCESS ||
        hnp_rte_send(dvm->rte, to, HNP_TAG_SPAWN_REPLY, buf.data, buf.len) !=
            HNP_SUCCESS)
        HNP_WARN(dvm->rte->log, "cannot answer the spawn request %u of vpid "
                 "%u", reqid, to);
    hnp_buffer_release(&buf);
}

void dvm_spawn_answer(dvm_conn_t *c, int status, const char *why)
{
    uint32_t reqid = c->spawn_reqid;

    if (reqid == 0)
        return;
    c->spawn_reqid = 0;
    send_answer(c->dvm, c->spawn_from, reqid, status,
                c->job != NULL ? hnp_dvm_job_of(c->job)->jobid : 0,
                why != NULL ? why : "the job ended before its processes "
                                    "started");
}

static void children_started(hnp_job_t *job, void *ctx)
{
    dvm_conn_t *c = ctx;

    HNP_VERBOSE(c->dvm->rte->log, 1, "job %u, spawned by job %u: its %u "
                "processes started", job->jobid, c->parent_jobid,
                job->map.nprocs);
    dvm_spawn_timing_started(c);
    dvm_spawn_answer(c, HNP_SUCCESS, NULL);
}

/* ------------------------------------------------------------ family */

hnp_job_t *dvm_family_job(hnp_dvm_t *dvm, uint32_t jobid)
{
    dvm_conn_t *c = dvm_running_job(dvm, jobid);

    if (c != NULL)
        return hnp_dvm_job_of(c->job);
    if (dvm->family_only && jobid == dvm->runtime->jobid)
        return dvm->runtime;
    return NULL;
}

bool dvm_has_children(hnp_dvm_t *dvm, uint32_t jobid)
{
    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next)
        if (c->running && c->parent_jobid == jobid)
            return true;
    return false;
}

void dvm_end_children(hnp_dvm_t *dvm, const hnp_job_t *job)
{
    for (dvm_conn_t *c = dvm->conns; c != NULL; c = c->next) {
        hnp_job_t *child;
        if (!c->running || c->parent_jobid != job->jobid)
            continue;
        child = hnp_dvm_job_of(c->job);
        child->kill_now = child->kill_now || job->kill_now;
        hnp_dvm_job_log_to(c->job);
        hnp_job_abort(child, job->exit_status != 0 ? job->exit_status : 1,
                      NULL);
        hnp_dvm_job_log_to(NULL);
    }
}

void hnp_dvm_signal_children(hnp_dvm_t *dvm, const hnp_job_t *job, int sig,
                             bool control)
{
    for (dvm_conn_t *c = dvm != NULL ? dvm->conns : NULL; c != NULL;
         c = c->next) {
        hnp_job_t *child;
        if (!c->running || c->parent_jobid != job->jobid)
            continue;
        child = hnp_dvm_job_of(c->job);
        hnp_dvm_job_log_to(c->job);
        if (control)
            hnp_job_control(child, sig); /* and its own children */
        else
            hnp_job_signal(child, sig);
        hnp_dvm_job_log_to(NULL);
    }
}

void dvm_spawn_concluded(hnp_dvm_t *dvm, uint32_t parent_jobid, int status)
{
    hnp_job_t *parent = dvm_family_job(dvm, parent_jobid);
    dvm_conn_t *pc = dvm_running_job(dvm, parent_jobid);

    if (parent == NULL)
        return;
    if (status != 0 && !parent->ending) {
        /* a child's failure is its family's: hnp's status is its own */
        if (pc != NULL)
            hnp_dvm_job_log_to(pc->job);
        hnp_job_abort(parent, status, NULL);
        if (pc != NULL)
            hnp_dvm_job_log_to(NULL);
        return;
    }
    if (dvm_has_children(dvm, parent_jobid))
        return;
    if (pc != NULL && pc->waits_for_children) {
        pc->waits_for_children = false;
        if (pc->conclude_timer == NULL)
            pc->conclude_timer = hnp_rte_timer_create(dvm->rte, 0,
                                                      dvm_conclude, pc);
    } else if (pc == NULL && dvm->family_only && dvm->runtime_waits) {
        dvm->runtime_waits = false;
        hnp_job_finish(dvm->runtime);
    }
}

/* ------------------------------------------------------------ requests */

/* The environment and directory a job of the family was read in. */
static void parent_context(hnp_dvm_t *dvm, uint32_t jobid, char *const **env,
                           const char **cwd)
{
    dvm_conn_t *c = dvm_running_job(dvm, jobid);

    if (c != NULL) {
        *env = hnp_dvm_job_env(c->job);
        *cwd = hnp_dvm_job_cwd(c->job);
    } else {
        *env = environ;
        *cwd = dvm->runtime->wdir;
    }
}

/* The request as a command line, read as a client's would be. */
static int make_submission(hnp_dvm_t *dvm, const hnp_wire_spawn_request_t *req,
                           const hnp_job_t *parent,
                           hnp_wire_dvm_request_t *sub, char *err,
                           size_t errlen)
{
    char *const *env;
    const char *cwd;
    char here[4096];
    words_t w = { 0 }, e = { 0 };
    int rc = refuse_unsupported(dvm, req, err, errlen);

    parent_context(dvm, req->parent_jobid, &env, &cwd);
    if (req->parent_wdir[0] != '\0')
        cwd = req->parent_wdir;
    if (cwd == NULL || cwd[0] == '\0')
        cwd = getcwd(here, sizeof(here)) != NULL ? here : "/";
    job_words(&w, parent->args, req);
    for (uint32_t a = 0; rc == HNP_SUCCESS && a < req->napps; a++) {
        if (a > 0)
            words_add(&w, ":");
        rc = app_words(&w, &req->apps[a], cwd, env, err, errlen);
    }
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        words_add(&e, env[i]);
    if (rc == HNP_SUCCESS && (w.failed || e.failed || w.n == 0)) {
        hnp_err_set(err, errlen, "out of memory");
        rc = HNP_ERR_NOMEM;
    }
    if (rc == HNP_SUCCESS) {
        *sub = (hnp_wire_dvm_request_t){
            .kind = HNP_DVM_SUBMIT, .flags = HNP_DVM_NOWAIT,
            .argc = (uint32_t)w.n, .argv = w.v, .cwd = strdup(cwd),
            .nenv = (uint32_t)e.n, .env = e.v != NULL ? e.v
                                                      : calloc(1, sizeof(char *)),
            .mca = calloc(1, sizeof(char *)),
        };
        if (sub->cwd == NULL || sub->env == NULL || sub->mca == NULL) {
            hnp_wire_dvm_request_clear(sub);
            hnp_err_set(err, errlen, "out of memory");
            return HNP_ERR_NOMEM;
        }
        return HNP_SUCCESS;
    }
    words_free(&w);
    words_free(&e);
    return rc;
}

/* The parent's stdout and stderr, /dev/null for stdin: the children's
 * output goes where the parent's goes. */
static int share_output(const hnp_job_t *parent, int fds[3])
{
    fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    fds[1] = fcntl(hnp_job_stdio(parent, 1), F_DUPFD_CLOEXEC, 3);
    fds[2] = fcntl(hnp_job_stdio(parent, 2), F_DUPFD_CLOEXEC, 3);
    for (int i = 0; i < 3; i++)
        if (fds[i] < 0) {
            for (int k = 0; k < 3; k++)
                if (fds[k] >= 0)
                    close(fds[k]);
            return HNP_ERR_IO;
        }
    return HNP_SUCCESS;
}

/* No free slot: the figures. */
static void say_no_slot(hnp_dvm_t *dvm, dvm_conn_t *c, char *err,
                        size_t errlen)
{
    uint32_t nfree, total;

    for (uint32_t n = 0; n < dvm->runtime->map.nnodes; n++)
        dvm->avail[n] = dvm->free_slots[n];
    hnp_dvm_job_free_slots(c->job, dvm->avail, &nfree, &total);
    hnp_err_set(err, errlen, "no free slot for the %u processes asked for: "
                "%u of the %u slots of the nodes they may use are free "
                "(--oversubscribe allows more processes than slots)",
                hnp_dvm_job_ranks(c->job), nfree, total);
}

/* Take over the requester's bytes for the new job's daemons. */
static void keep_spawn_data(dvm_conn_t *c, hnp_wire_spawn_request_t *req)
{
    hnp_job_t *job = hnp_dvm_job_of(c->job);

    c->spawn_component = req->component;
    req->component = NULL;
    c->spawn_data = req->data;
    c->spawn_data_len = req->data_len;
    req->data = NULL;
    req->data_len = 0;
    job->parent_jobid = c->parent_jobid;
    job->spawn_component = c->spawn_component;
    job->spawn_data = c->spawn_data;
    job->spawn_data_len = c->spawn_data_len;
    job->on_started = children_started;
    job->started_ctx = c;
}

/* A new job from @p req, running: HNP_SUCCESS; else @p err says why. */
static int start_spawn(hnp_dvm_t *dvm, hnp_vpid_t src,
                       hnp_wire_spawn_request_t *req,
                       const struct timespec *asked, char *err,
                       size_t errlen)
{
    hnp_job_t *parent = dvm_family_job(dvm, req->parent_jobid);
    hnp_wire_dvm_request_t sub;
    dvm_conn_t *c;
    int fds[3], rc;

    if (parent == NULL || parent->ending) {
        hnp_err_set(err, errlen, "job %u, which asks, is not running",
                    req->parent_jobid);
        return HNP_ERR_NOT_FOUND;
    }
    if (dvm->stopping || dvm->last_jobid == UINT32_MAX) {
        hnp_err_set(err, errlen, "%s", dvm->stopping ? "the runtime is "
                    "stopping" : "every job id has been used");
        return HNP_ERR_NOT_AVAILABLE;
    }
    if ((rc = dvm_spawn_add_hosts(dvm, req, err, errlen)) != HNP_SUCCESS ||
        (rc = make_submission(dvm, req, parent, &sub, err, errlen)) !=
            HNP_SUCCESS)
        return rc;
    if ((c = calloc(1, sizeof(*c))) == NULL ||
        share_output(parent, fds) != HNP_SUCCESS) {
        free(c);
        hnp_wire_dvm_request_clear(&sub);
        hnp_err_set(err, errlen, "out of memory or descriptors");
        return HNP_ERR_NOMEM;
    }
    c->dvm = dvm;
    c->fd = -1;
    c->parent_jobid = req->parent_jobid;
    c->job = hnp_dvm_job_create(dvm, ++dvm->last_jobid, &sub, fds, err,
                                errlen);
    hnp_wire_dvm_request_clear(&sub);
    if (c->job == NULL) {
        free(c);
        return HNP_ERR_BAD_PARAM;
    }
    c->next = dvm->conns;
    dvm->conns = c;
    dvm_spawn_timing_asked(c, asked, req->parent_rank);
    keep_spawn_data(c, req);
    /* the names its parent's family published are its own to see
     * (Open MPI's parent and children meet on a published port) */
    if (hnp_rte_names_job_family(dvm->rte, hnp_dvm_job_of(c->job)->jobid,
                                 c->parent_jobid) != HNP_SUCCESS)
        HNP_WARN(dvm->rte->log, "job %u will not see the names of job %u's "
                 "family", hnp_dvm_job_of(c->job)->jobid, c->parent_jobid);
    if (!dvm_place(dvm, c, true)) {
        say_no_slot(dvm, c, err, errlen);
        dvm_conn_close(c);
        return HNP_ERR_NOT_AVAILABLE;
    }
    c->spawn_from = src;
    c->spawn_reqid = req->reqid;
    if (!dvm->routing)
        hnp_dvm_route_messages(dvm);
    dvm_launch(dvm, c);
    return HNP_SUCCESS;
}

static void take_request(hnp_dvm_t *dvm, hnp_vpid_t src, const void *data,
                         size_t len, const char *why,
                         const struct timespec *asked);

/* Nodes without a daemon that the request names or adds get one first
 * (dvm_grow.c): whether the request waits for them. */
static bool waits_for_daemons(hnp_dvm_t *dvm, hnp_vpid_t src,
                              const hnp_wire_spawn_request_t *req,
                              const void *data, size_t len,
                              const struct timespec *asked, int *rc,
                              char *err, size_t errlen)
{
    hnp_nodelist_t nodes = { NULL, 0, 0 };

    *rc = dvm_grow_needed(dvm, req, &nodes, err, errlen);
    if (*rc == HNP_SUCCESS && nodes.count > 0 &&
        (dvm->rte->plm->daemon_identity == NULL ||
         dvm->rte->plm->launch_added != NULL)) {
        *rc = dvm_grow_then_replay(dvm, src, req, data, len, asked, &nodes,
                                   take_request, err, errlen);
        hnp_nodelist_free(&nodes);
        return *rc == HNP_SUCCESS;
    }
    /* a launcher that starts daemons with a command of its own and
     * cannot run one more (no launch_added) starts none later:
     * check_hosts() refuses the nodes */
    hnp_nodelist_free(&nodes);
    return false;
}

/* A spawn request, as it comes (@p asked NULL: now) or again once the
 * daemons it waited for are up. */
static void take_request(hnp_dvm_t *dvm, hnp_vpid_t src, const void *data,
                         size_t len, const char *why,
                         const struct timespec *asked)
{
    hnp_rte_t *rte = dvm->rte;
    hnp_wire_spawn_request_t req;
    struct timespec now;
    char err[1024] = "";
    int rc = HNP_SUCCESS;

    if (asked == NULL) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        asked = &now;
    }
    if (!HNP_RTE_UNPACK(rte, src, "spawn request",
                        hnp_wire_spawn_request_unpack, data, len, &req))
        return;
    HNP_VERBOSE(rte->log, 1, "rank %u of job %u (vpid %u) asks for %u "
                "programs", req.parent_rank, req.parent_jobid, src,
                req.napps);
    if (why != NULL) {
        hnp_err_set(err, sizeof(err), "%s", why);
        rc = HNP_ERR_UNREACHABLE;
    } else if (waits_for_daemons(dvm, src, &req, data, len, asked, &rc, err,
                                 sizeof(err))) {
        hnp_wire_spawn_request_clear(&req);
        return;
    }
    if (rc == HNP_SUCCESS)
        rc = start_spawn(dvm, src, &req, asked, err, sizeof(err));
    if (rc != HNP_SUCCESS) {
        hnp_job_t *parent = dvm_family_job(dvm, req.parent_jobid);
        FILE *own = parent != NULL ? hnp_job_log_begin(parent) : NULL;
        HNP_ERROR_LOG(rte->log, "the spawn of rank %u of job %u failed: %s",
                      req.parent_rank, req.parent_jobid,
                      err[0] != '\0' ? err : hnp_strerror(rc));
        if (parent != NULL)
            hnp_log_set_file(own);
        send_answer(dvm, src, req.reqid, rc, 0,
                    err[0] != '\0' ? err : hnp_strerror(rc));
    }
    hnp_wire_spawn_request_clear(&req);
}

static void on_spawn(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                     const void *data, size_t len, void *cbdata)
{
    (void)rte;
    (void)tag;
    take_request(cbdata, src, data, len, NULL, NULL);
}

int dvm_spawn_listen(hnp_dvm_t *dvm)
{
    return hnp_rte_recv(dvm->rte, HNP_TAG_SPAWN, on_spawn, dvm);
}
