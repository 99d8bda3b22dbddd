/*
 * The application processes of this node: start them from the launch
 * message (phase 3), forward their output to the HNP a line at a time, and
 * report how each one ended.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "daemon.h"

#define LINEBUF_FLUSH (64 * 1024)

extern char **environ;

static hnpd_proc_t *find_proc(hnpd_t *d, uint32_t rank)
{
    for (uint32_t i = 0; i < d->nlocal; i++)
        if (d->procs[i].rank == rank)
            return &d->procs[i];
    return NULL;
}

static void send_output(hnpd_t *d, uint32_t rank, int stream,
                        const char *data, size_t len)
{
    hnp_buffer_t buf;

    if (len == 0)
        return;
    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, rank);
    hnp_pack_u8(&buf, (uint8_t)stream);
    hnp_pack_blob(&buf, data, len);
    if (hnp_buffer_status(&buf) == HNP_SUCCESS)
        hnp_rte_send(d->rte, 0, HNP_TAG_IOF, buf.data, buf.len);
    hnp_buffer_release(&buf);
}

static int linebuf_append(hnpd_linebuf_t *lb, const void *data, size_t len)
{
    if (lb->len + len > lb->cap) {
        size_t cap = lb->cap ? lb->cap : 4096;
        while (cap < lb->len + len)
            cap *= 2;
        char *grown = realloc(lb->data, cap);
        if (grown == NULL)
            return HNP_ERR_NOMEM;
        lb->data = grown;
        lb->cap = cap;
    }
    memcpy(lb->data + lb->len, data, len);
    lb->len += len;
    return HNP_SUCCESS;
}

/* Send every complete line (all of it at end of file, or when a line grows
 * past LINEBUF_FLUSH), keep the rest. */
static void output_arrived(void *ctx, uint32_t rank, int stream,
                           const void *data, size_t len)
{
    hnpd_t *d = ctx;
    hnpd_proc_t *p = find_proc(d, rank);
    hnpd_linebuf_t *lb;
    size_t keep_from;

    if (p == NULL || (stream != HNP_STDOUT && stream != HNP_STDERR))
        return;
    lb = &p->out[stream - 1];
    if (len > 0 && linebuf_append(lb, data, len) != HNP_SUCCESS) {
        send_output(d, rank, stream, lb->data, lb->len);
        lb->len = 0;
        send_output(d, rank, stream, data, len);
        return;
    }
    keep_from = lb->len;
    if (len > 0 && lb->len < LINEBUF_FLUSH)
        while (keep_from > 0 && lb->data[keep_from - 1] != '\n')
            keep_from--;
    send_output(d, rank, stream, lb->data, keep_from);
    memmove(lb->data, lb->data + keep_from, lb->len - keep_from);
    lb->len -= keep_from;
}

static void proc_exited(void *ctx, uint32_t rank, pid_t pid, int wait_status,
                        int exec_errno)
{
    hnpd_t *d = ctx;
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, rank);
    hnp_pack_i32(&buf, (int32_t)pid);
    hnp_pack_i32(&buf, wait_status);
    hnp_pack_i32(&buf, exec_errno);
    if (hnp_buffer_status(&buf) == HNP_SUCCESS)
        hnp_rte_send(d->rte, 0, HNP_TAG_PROC_EXIT, buf.data, buf.len);
    hnp_buffer_release(&buf);
    hnpd_maybe_exit(d);
}

/* The launch message: the job's ranks, where each runs, what to run. */
typedef struct launch_msg {
    uint32_t jobid;
    uint32_t nprocs;
    uint32_t nnodes;
    uint32_t *node_of;
    char *wdir;
    uint32_t argc;
    char **argv;
} launch_msg_t;

static void launch_msg_free(launch_msg_t *m)
{
    for (uint32_t i = 0; m->argv != NULL && i < m->argc; i++)
        free(m->argv[i]);
    free(m->argv);
    free(m->node_of);
    free(m->wdir);
}

static int launch_msg_unpack(launch_msg_t *m, const void *data, size_t len)
{
    hnp_reader_t rd;

    memset(m, 0, sizeof(*m));
    hnp_reader_init(&rd, data, len);
    m->jobid = hnp_unpack_u32(&rd);
    m->nprocs = hnp_unpack_u32(&rd);
    m->nnodes = hnp_unpack_u32(&rd);
    if (hnp_reader_status(&rd) != HNP_SUCCESS ||
        (size_t)m->nprocs * 4 > hnp_reader_remaining(&rd) ||
        (m->node_of = calloc(m->nprocs + 1, sizeof(uint32_t))) == NULL)
        return HNP_ERR_BAD_PARAM;
    for (uint32_t r = 0; r < m->nprocs; r++)
        m->node_of[r] = hnp_unpack_u32(&rd);
    m->wdir = hnp_unpack_string(&rd);
    m->argc = hnp_unpack_u32(&rd);
    if (hnp_reader_status(&rd) != HNP_SUCCESS || m->argc == 0 ||
        m->argc > hnp_reader_remaining(&rd) ||
        (m->argv = calloc(m->argc + 1, sizeof(char *))) == NULL)
        return HNP_ERR_BAD_PARAM;
    for (uint32_t i = 0; i < m->argc; i++)
        m->argv[i] = hnp_unpack_string(&rd);
    return hnp_reader_status(&rd);
}

/* The environment of one rank: the daemon's, with the job's variables. */
static char **proc_environment(const hnpd_t *d, const launch_msg_t *m,
                               uint32_t rank, uint32_t local_rank)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n] != NULL)
        n++;
    env = calloc(n + 7, sizeof(*env));
    if (env == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "HNP_", 4) != 0)
            env[k++] = strdup(environ[i]);
    if (asprintf(&env[k++], "HNP_RANK=%u", rank) < 0 ||
        asprintf(&env[k++], "HNP_SIZE=%u", m->nprocs) < 0 ||
        asprintf(&env[k++], "HNP_LOCAL_RANK=%u", local_rank) < 0 ||
        asprintf(&env[k++], "HNP_LOCAL_SIZE=%u", d->nlocal) < 0 ||
        asprintf(&env[k++], "HNP_NODE=%s", d->node) < 0 ||
        asprintf(&env[k++], "HNP_JOBID=%u", m->jobid) < 0)
        env[k - 1] = NULL;
    return env;
}

static void free_environment(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

static void start_rank(hnpd_t *d, const launch_msg_t *m, uint32_t rank,
                       uint32_t local_rank)
{
    char **env = proc_environment(d, m, rank, local_rank);
    hnp_odls_proc_t spec = { rank, m->argv, env, m->wdir };
    char err[256] = "";
    pid_t pid;

    if (env == NULL || hnp_odls_launch(d->odls, &spec, &pid, err,
                                       sizeof(err)) < 0)
        hnp_rte_fail(d->rte, 1, "node %s: cannot start rank %u: %s", d->node,
                     rank, err[0] != '\0' ? err : "out of memory");
    free_environment(env);
}

static int create_odls(hnpd_t *d)
{
    hnp_odls_callbacks_t cb = { output_arrived, proc_exited, d };

    if (d->odls != NULL)
        return HNP_SUCCESS;
    return hnp_odls_create(&d->odls, d->rte->base, d->rte->children, &cb);
}

static void on_launch(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata)
{
    hnpd_t *d = cbdata;
    uint32_t my_node = rte->self - 1;
    launch_msg_t m;

    (void)src;
    (void)tag;
    if (d->ending || d->procs != NULL)
        return;
    if (launch_msg_unpack(&m, data, len) != HNP_SUCCESS || create_odls(d) != 0) {
        hnp_rte_fail(rte, 1, "node %s: malformed launch message", d->node);
        launch_msg_free(&m);
        return;
    }
    for (uint32_t r = 0; r < m.nprocs; r++)
        d->nlocal += m.node_of[r] == my_node;
    d->procs = calloc(d->nlocal + 1, sizeof(*d->procs));
    d->jobid = m.jobid;
    d->app_nprocs = m.nprocs;
    for (uint32_t r = 0, i = 0; d->procs != NULL && r < m.nprocs; r++)
        if (m.node_of[r] == my_node)
            d->procs[i++].rank = r;
    for (uint32_t i = 0; d->procs != NULL && i < d->nlocal; i++)
        start_rank(d, &m, d->procs[i].rank, i);
    hnp_rte_send(rte, 0, HNP_TAG_PROCS_STARTED, NULL, 0);
    launch_msg_free(&m);
}

void hnpd_register_proc_handlers(hnpd_t *d)
{
    hnp_rte_recv(d->rte, HNP_TAG_LAUNCH, on_launch, d);
}

void hnpd_procs_release(hnpd_t *d)
{
    if (d->odls != NULL)
        hnp_odls_destroy(d->odls);
    d->odls = NULL;
    for (uint32_t i = 0; d->procs != NULL && i < d->nlocal; i++) {
        free(d->procs[i].out[0].data);
        free(d->procs[i].out[1].data);
    }
    free(d->procs);
    d->procs = NULL;
}
