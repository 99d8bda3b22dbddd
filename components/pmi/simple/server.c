/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMI server: one connection a local process, read and answered on the
 * daemon's event loop, and the node's side of every fence.
 *
 * A connection starts without a wire format: its first byte tells (a digit
 * or blank opens a PMI-2 length field, anything else is a PMI-1 line), and
 * a PMI-1 "init" asking for version 2 switches it to PMI-2 after the
 * answer, as MPICH's PMI-2 client expects.
 *
 * A request the server cannot answer at once (a fence, a node attribute
 * asked with wait=TRUE) parks the connection: nothing more is read or
 * parsed from it until the answer is written, so answers always leave in
 * the order of the requests, as clients that block on each one expect.
 * Output that the process does not read parks it too, which bounds what a
 * process can make the daemon hold.
 *
 * Requests that name something unsupported get the protocol's error answer
 * (rc=-1) so that the library fails the call instead of hanging; only
 * bytes that are not the protocol at all close the connection.
 *
 * Every entry point holds the server (pmi_server_hold, pmi_server_release),
 * so a callback may call pmi_simple_server_destroy(): the free waits until
 * the outermost frame returns.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "hnp_errors.h"
#include "hnp_log.h"
#include "hnp_rte.h"
#include "internal.h"

#define READ_CHUNK 65536
/* What a connection may buffer unparsed: one PMI-2 message of the largest
 * size. Reading stops there until parsing has consumed some of it. */
#define IN_MAX (PMI_SIMPLE_V2_HEADER_LEN + PMI_SIMPLE_V2_BODY_MAX + 1)
/* PMI-1 "put kvsname=K key=KEY value=V\n" must fit MPICH's line buffer
 * with the longest key the client may use (keylen_max - 1 characters). */
#define V1_PUT_OVERHEAD (sizeof("cmd=put kvsname= key= value=\n") - 1)

static void server_free(pmi_simple_server_t *srv);

void pmi_server_hold(pmi_simple_server_t *srv)
{
    srv->depth++;
}

void pmi_server_release(pmi_simple_server_t *srv)
{
    if (--srv->depth == 0 && srv->destroy_pending)
        server_free(srv);
}

pmi_client_t *pmi_client_of_rank(pmi_simple_server_t *srv, uint32_t rank)
{
    for (size_t i = 0; i < srv->nlocal; i++)
        if (srv->clients[i] != NULL && srv->clients[i]->rank == rank)
            return srv->clients[i];
    return NULL;
}

/* ----------------------------------------------------------- connections */

static void client_read_cb(hnp_rte_t *rte, int fd, unsigned ready, void *arg);
static void client_write_cb(hnp_rte_t *rte, int fd, unsigned ready,
                            void *arg);

/* Reading and writing are each watched only while wanted: a parked
 * connection reads nothing, a flushed one waits for nothing. */
static bool client_watch(pmi_client_t *c, hnp_rte_fd_watch_t **w,
                         unsigned events, hnp_rte_fd_fn fn, bool on)
{
    if (!on) {
        hnp_rte_fd_watch_destroy(*w);
        *w = NULL;
    } else if (*w == NULL) {
        *w = hnp_rte_fd_watch_create(c->srv->rte, c->fd, events, fn, c);
    }
    return !on || *w != NULL;
}

static bool client_watch_read(pmi_client_t *c, bool on)
{
    return client_watch(c, &c->rd, HNP_RTE_FD_READ, client_read_cb, on);
}

static bool client_watch_write(pmi_client_t *c, bool on)
{
    return client_watch(c, &c->wr, HNP_RTE_FD_WRITE, client_write_cb, on);
}

static size_t client_unsent(const pmi_client_t *c)
{
    return c->out.len - c->out_sent;
}

void pmi_client_close(pmi_client_t *c)
{
    if (c->closed)
        return;
    /* Answers to the requests before the one that ended it still go out,
     * as far as the socket takes them now: the process may be reading. */
    if (client_unsent(c) > 0)
        (void)send(c->fd, c->out.data + c->out_sent, client_unsent(c),
                   MSG_NOSIGNAL | MSG_DONTWAIT);
    client_watch_read(c, false);
    client_watch_write(c, false);
    hnp_rte_timer_destroy(c->resume);
    c->resume = NULL;
    close(c->fd);
    c->fd = -1;
    c->closed = true;
    hnp_buffer_release(&c->out);
    c->out_sent = 0;
}

void pmi_client_fail(pmi_client_t *c, int code, const char *fmt, ...)
{
    char msg[PMI_ERR_LEN];
    va_list ap;

    if (c->closed)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pmi_client_close(c);
    HNP_VERBOSE(c->srv->log, 1, "rank %u: %s", c->rank, msg);
    if (c->srv->cb.client_error != NULL && !c->srv->destroy_pending)
        c->srv->cb.client_error(c->srv->cb.ctx, c->rank, code, msg);
}

/* A process may close at any time: one that initialized and did not
 * finalize is the runtime's to report when it exits (hnp_rte_proc_state). */
static void client_end_of_input(pmi_client_t *c)
{
    pmi_client_close(c);
}

/* What was read before the connection parked is answered from the loop,
 * as if the socket had become readable. */
static void client_resume_cb(hnp_rte_t *rte, void *cbdata)
{
    pmi_client_t *c = cbdata;

    (void)rte;
    hnp_rte_timer_destroy(c->resume);
    c->resume = NULL;
    client_read_cb(rte, c->fd, HNP_RTE_FD_READ, c);
}

void pmi_client_resume(pmi_client_t *c)
{
    if (c->closed)
        return;
    /* Parked again and resumed before the last turn came: reading goes
     * on, the turn already due serves both. */
    client_watch_read(c, true);
    if (c->resume == NULL)
        c->resume = hnp_rte_timer_create(c->srv->rte, 0, client_resume_cb, c);
}

void pmi_client_flush(pmi_client_t *c)
{
    while (!c->closed && client_unsent(c) > 0) {
        /* MSG_NOSIGNAL: a process that died must give EPIPE, not kill the
         * daemon with SIGPIPE. */
        ssize_t n = send(c->fd, c->out.data + c->out_sent, client_unsent(c),
                         MSG_NOSIGNAL);
        if (n > 0) {
            c->out_sent += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            client_watch_write(c, true);
            return;
        } else {
            client_end_of_input(c);
            return;
        }
    }
    if (c->closed)
        return;
    c->out.len = 0;
    c->out_sent = 0;
    client_watch_write(c, false);
}

static void client_write_cb(hnp_rte_t *rte, int fd, unsigned ready,
                            void *arg)
{
    pmi_client_t *c = arg;
    pmi_simple_server_t *srv = c->srv;
    bool was_full = client_unsent(c) >= PMI_OUT_HIGH_WATER;

    (void)rte;
    (void)fd;
    (void)ready;
    pmi_server_hold(srv);
    pmi_client_flush(c);
    if (was_full && client_unsent(c) < PMI_OUT_HIGH_WATER)
        pmi_client_resume(c);
    pmi_server_release(srv);
}

/* Read what is there (up to IN_MAX buffered); false at the end of input. */
static bool client_read(pmi_client_t *c)
{
    while (evbuffer_get_length(c->in) < IN_MAX) {
        int n = evbuffer_read(c->in, c->fd, READ_CHUNK);
        if (n > 0)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
    return true;
}

/* How the first byte tells the wire format: a PMI-2 message opens with its
 * length field (digits or blanks), a PMI-1 line with "cmd=" or "mcmd=". */
static void client_detect_wire(pmi_client_t *c)
{
    unsigned char first;

    evbuffer_copyout(c->in, &first, 1);
    c->wire = (first >= '0' && first <= '9') || first == ' '
                  ? PMI_SIMPLE_WIRE_V2 : PMI_SIMPLE_WIRE_V1;
    c->wire_known = true;
}

/* Parse and answer one complete message; false when there is none yet or
 * the connection closed. */
static bool client_next_message(pmi_client_t *c)
{
    size_t have = evbuffer_get_length(c->in), start, len, consumed;
    char err[PMI_ERR_LEN];

    if (have == 0)
        return false;
    if (!c->wire_known)
        client_detect_wire(c);
    size_t max = c->wire == PMI_SIMPLE_WIRE_V1 ? PMI_SIMPLE_V1_INPUT_MAX
                                            : PMI_SIMPLE_V2_BODY_MAX;
    /* Enough to hold the largest message and tell one too long. */
    size_t window = have < max + PMI_SIMPLE_V2_HEADER_LEN
                        ? have : max + PMI_SIMPLE_V2_HEADER_LEN;
    const char *data = (const char *)evbuffer_pullup(c->in, (ssize_t)window);
    int rc = data != NULL ? pmi_simple_frame(c->wire, data, window, max, &start,
                                             &len, &consumed, err, sizeof(err))
                          : HNP_ERR_NOMEM;
    if (rc == 0)
        return false;
    if (rc < 0) {
        pmi_client_fail(c, rc, "%s", data != NULL ? err : "out of memory");
        return false;
    }
    pmi_handle_message(c, data + start, len);
    evbuffer_drain(c->in, consumed);
    return !c->closed;
}

/* Answer requests until none is complete, or one parks the connection;
 * a parked connection reads nothing until it is resumed. */
static void client_process(pmi_client_t *c)
{
    while (!c->closed && !c->srv->destroy_pending &&
           c->wait == PMI_WAIT_NONE && client_unsent(c) < PMI_OUT_HIGH_WATER &&
           client_next_message(c))
        ;
    pmi_client_flush(c);
    if (!c->closed &&
        (c->wait != PMI_WAIT_NONE || client_unsent(c) >= PMI_OUT_HIGH_WATER))
        client_watch_read(c, false);
}

static void client_read_cb(hnp_rte_t *rte, int fd, unsigned ready, void *arg)
{
    pmi_client_t *c = arg;
    pmi_simple_server_t *srv = c->srv;
    bool open;

    (void)rte;
    (void)fd;
    (void)ready;
    if (c->closed)
        return;
    pmi_server_hold(srv);
    open = client_read(c);
    client_process(c);
    /* What came before the end of input was answered (an abort, say);
     * a parked connection finds out later, once it is resumed. */
    if (!open && !c->closed && !srv->destroy_pending &&
        c->wait == PMI_WAIT_NONE)
        client_end_of_input(c);
    pmi_server_release(srv);
}

static void client_free(pmi_client_t *c)
{
    if (c == NULL)
        return;
    if (c->fd >= 0)
        pmi_client_close(c);
    client_watch_read(c, false);
    client_watch_write(c, false);
    hnp_rte_timer_destroy(c->resume);
    if (c->in != NULL)
        evbuffer_free(c->in);
    hnp_buffer_release(&c->out);
    free(c->wait_key);
    free(c->wait_thrid);
    pmi_spawn_request_free(c->spawn);
    free(c);
}

static pmi_client_t *client_new(pmi_simple_server_t *srv, int fd, uint32_t rank)
{
    pmi_client_t *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    c->srv = srv;
    c->fd = fd;
    c->rank = rank;
    hnp_buffer_init(&c->out);
    c->in = evbuffer_new();
    if (c->in == NULL || !client_watch_read(c, true)) {
        c->fd = -1;   /* the caller still owns it */
        client_free(c);
        return NULL;
    }
    return c;
}

const char *pmi_job_tag(const pmi_simple_server_t *srv)
{
    const char *dash = strrchr(srv->kvsname, '-');

    return dash != NULL ? dash + 1 : srv->kvsname;
}

/* ------------------------------------------------------------- fences */

static void fence_answer(pmi_client_t *c, int status)
{
    pmi_simple_reply_t r;

    c->wait = PMI_WAIT_NONE;
    if (c->closed)
        return;
    if (c->wire == PMI_SIMPLE_WIRE_V1) {
        pmi_reply_begin(c, &r, "barrier_out", NULL);
        if (status != HNP_SUCCESS) {
            pmi_simple_reply_add_int(&r, "rc", -1);
            pmi_simple_reply_add_str(&r, "msg", "fence_failed");
        }
    } else {
        pmi_reply_begin(c, &r, "kvs-fence-response", c->wait_thrid);
        pmi_simple_reply_add_int(&r, "rc", status == HNP_SUCCESS ? 0 : -1);
        if (status != HNP_SUCCESS)
            pmi_simple_reply_add_str(&r, "errmsg", "the job's fence failed");
    }
    free(c->wait_thrid);
    c->wait_thrid = NULL;
    if (pmi_reply_end(c, &r))
        pmi_client_flush(c);
    pmi_client_resume(c);
}

/* Answer every process in the fence and move on to the next one. */
static void fence_finish(pmi_simple_server_t *srv, int status)
{
    srv->fence_entered = 0;
    srv->fence_ready_called = false;
    srv->fence_seq++;
    for (size_t i = 0; i < srv->nlocal; i++) {
        pmi_client_t *c = srv->clients[i];
        if (c != NULL && c->wait == PMI_WAIT_FENCE)
            fence_answer(c, status);
    }
}

/* A node whose puts cannot be shipped fails the fence here: its processes
 * get an error answer and the daemon hears why. */
static void fence_fail_locally(pmi_simple_server_t *srv, uint32_t rank, int rc,
                               size_t bytes)
{
    char msg[PMI_ERR_LEN];

    snprintf(msg, sizeof(msg), "fence %u: the node's puts (%zu bytes) "
             "cannot be shipped: %s", srv->fence_seq, bytes,
             hnp_strerror(rc));
    fence_finish(srv, rc);
    HNP_ERROR_LOG(srv->log, "%s", msg);
    if (srv->cb.client_error != NULL)
        srv->cb.client_error(srv->cb.ctx, rank, rc, msg);
}

void pmi_fence_check(pmi_simple_server_t *srv, uint32_t rank)
{
    hnp_buffer_t blob;
    int rc;

    if (srv->fence_ready_called || srv->fence_entered == 0 ||
        srv->fence_entered < srv->nlocal - srv->nfinalized)
        return;
    hnp_buffer_init(&blob);
    rc = pmi_simple_kvs_pack_pending(srv->kvs, &blob);
    if (rc == HNP_SUCCESS && srv->max_fence_bytes > 0 &&
        blob.len > srv->max_fence_bytes)
        rc = HNP_ERR_TRUNCATED;
    if (rc != HNP_SUCCESS) {
        fence_fail_locally(srv, rank, rc, blob.len);
        hnp_buffer_release(&blob);
        return;
    }
    srv->fence_ready_called = true;
    HNP_VERBOSE(srv->log, 2, "job %s: fence %u ready: %zu bytes of puts",
                pmi_job_tag(srv), srv->fence_seq, blob.len);
    srv->cb.fence_ready(srv->cb.ctx, srv->fence_seq, blob.data, blob.len);
    hnp_buffer_release(&blob);
}

void pmi_fence_enter(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *thrid = pmi_simple_msg_get(req, "thrid");

    if (thrid != NULL && (c->wait_thrid = strdup(thrid)) == NULL) {
        pmi_client_fail(c, HNP_ERR_NOMEM, "out of memory entering a fence");
        return;
    }
    c->wait = PMI_WAIT_FENCE;
    c->srv->fence_entered++;
    pmi_fence_check(c->srv, c->rank);
}

int pmi_simple_fence_merge(pmi_simple_server_t *srv, uint32_t seq,
                           const void *blob, size_t len, char *err,
                           size_t errlen)
{
    if (seq != srv->fence_seq) {
        hnp_err_set(err, errlen, "fence %u is not in progress (fence %u is)",
                    seq, srv->fence_seq);
        return HNP_ERR_BAD_PARAM;
    }
    return pmi_simple_kvs_merge(srv->kvs, blob, len, err, errlen);
}

int pmi_simple_fence_complete(pmi_simple_server_t *srv, uint32_t seq,
                              int status)
{
    if (seq != srv->fence_seq || !srv->fence_ready_called)
        return HNP_ERR_BAD_PARAM;
    HNP_VERBOSE(srv->log, 2, "job %s: fence %u complete (%s), %zu keys "
                "known", pmi_job_tag(srv), seq, hnp_strerror(status),
                pmi_simple_kvs_count(srv->kvs));
    pmi_server_hold(srv);
    fence_finish(srv, status);
    pmi_server_release(srv);
    return HNP_SUCCESS;
}

/* ----------------------------------------------------------- lifecycle */

static int check_config(const pmi_simple_config_t *cfg,
                        const pmi_simple_callbacks_t *cb, char *err,
                        size_t errlen)
{
    size_t klen = cfg->kvsname != NULL ? strlen(cfg->kvsname) : 0;

    if (cb == NULL || cb->fence_ready == NULL) {
        hnp_err_set(err, errlen, "PMI server: no fence_ready callback");
        return HNP_ERR_BAD_PARAM;
    }
    if (cfg->size == 0 || cfg->size > INT32_MAX || cfg->nlocal == 0 ||
        cfg->nlocal > cfg->size) {
        hnp_err_set(err, errlen, "PMI server: %zu local ranks of %u",
                    cfg->nlocal, cfg->size);
        return HNP_ERR_BAD_PARAM;
    }
    if (klen == 0 || klen >= PMI_SIMPLE_KVSNAME_MAX ||
        !pmi_simple_v1_value_ok(cfg->kvsname, klen)) {
        hnp_err_set(err, errlen, "PMI server: kvs name must have 1 to %d "
                    "characters and no blanks", PMI_SIMPLE_KVSNAME_MAX - 1);
        return HNP_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < cfg->nlocal; i++)
        for (size_t j = 0; j <= i; j++)
            if (cfg->local_ranks[i] >= cfg->size ||
                (j < i && cfg->local_ranks[j] == cfg->local_ranks[i])) {
                hnp_err_set(err, errlen, "PMI server: local rank %u is out "
                            "of range or repeated", cfg->local_ranks[i]);
                return HNP_ERR_BAD_PARAM;
            }
    return HNP_SUCCESS;
}

/* The job attributes: what the config names, then the ones the server
 * knows itself. PMI-1 clients read them with get, PMI-2 ones with
 * info-getjobattr. */
static int load_job_attrs(pmi_simple_server_t *srv,
                          const pmi_simple_config_t *cfg)
{
    char universe[16];
    int rc = HNP_SUCCESS;

    for (size_t i = 0; i < cfg->njob_attrs && rc == HNP_SUCCESS; i++)
        rc = pmi_simple_kvs_put(srv->job_attrs, cfg->job_attrs[i].key,
                                cfg->job_attrs[i].value,
                                strlen(cfg->job_attrs[i].value), false);
    snprintf(universe, sizeof(universe), "%u", srv->universe_size);
    if (rc == HNP_SUCCESS)
        rc = pmi_simple_kvs_put(srv->job_attrs, "universeSize", universe,
                                strlen(universe), false);
    if (rc == HNP_SUCCESS && cfg->process_mapping != NULL)
        rc = pmi_simple_kvs_put(srv->job_attrs, "PMI_process_mapping",
                                cfg->process_mapping,
                                strlen(cfg->process_mapping), false);
    if (rc == HNP_SUCCESS && cfg->process_mapping == NULL &&
        cfg->mapping_nodes != NULL && cfg->size > 0) {
        srv->mapping_nodes = malloc(cfg->size * sizeof(*srv->mapping_nodes));
        if (srv->mapping_nodes == NULL)
            return HNP_ERR_NOMEM;
        memcpy(srv->mapping_nodes, cfg->mapping_nodes,
               cfg->size * sizeof(*srv->mapping_nodes));
    }
    return rc;
}

const pmi_simple_kvs_t *pmi_job_attrs(pmi_simple_server_t *srv)
{
    char *mapping = NULL;
    int rc;

    if (srv->mapping_nodes == NULL)
        return srv->job_attrs;
    rc = pmi_simple_process_mapping(srv->mapping_nodes, srv->size, &mapping);
    if (rc == HNP_SUCCESS)
        rc = pmi_simple_kvs_put(srv->job_attrs, "PMI_process_mapping",
                                mapping, strlen(mapping), false);
    if (rc != HNP_SUCCESS)
        HNP_WARN(srv->log, "job %s: PMI_process_mapping not offered (%s); "
                 "MPICH works the node map out itself", pmi_job_tag(srv),
                 hnp_strerror(rc));
    free(mapping);
    free(srv->mapping_nodes);
    srv->mapping_nodes = NULL;
    return srv->job_attrs;
}

static int server_setup(pmi_simple_server_t *srv,
                        const pmi_simple_config_t *cfg)
{
    srv->size = cfg->size;
    srv->universe_size = cfg->universe_size > 0 ? cfg->universe_size
                                                : cfg->size;
    srv->max_fence_bytes = cfg->max_fence_bytes;
    srv->max_kvs_bytes = cfg->max_kvs_bytes;
    srv->nlocal = cfg->nlocal;
    srv->kvsname = strdup(cfg->kvsname);
    if (cfg->spawner_jobid != NULL &&
        (srv->spawner_jobid = strdup(cfg->spawner_jobid)) == NULL)
        return HNP_ERR_NOMEM;
    srv->v1_vallen_max = PMI_SIMPLE_V1_LINE_MAX - V1_PUT_OVERHEAD -
                         strlen(cfg->kvsname) - (PMI_SIMPLE_KEY_MAX - 1);
    srv->local_ranks = malloc(cfg->nlocal * sizeof(*srv->local_ranks));
    srv->clients = calloc(cfg->nlocal, sizeof(*srv->clients));
    if (srv->kvsname == NULL || srv->local_ranks == NULL ||
        srv->clients == NULL || pmi_simple_kvs_create(&srv->kvs) != 0 ||
        pmi_simple_kvs_create(&srv->node_attrs) != 0 ||
        pmi_simple_kvs_create(&srv->job_attrs) != 0)
        return HNP_ERR_NOMEM;
    memcpy(srv->local_ranks, cfg->local_ranks,
           cfg->nlocal * sizeof(*srv->local_ranks));
    return load_job_attrs(srv, cfg);
}

int pmi_simple_server_create(pmi_simple_server_t **out, hnp_rte_t *rte,
                             const pmi_simple_config_t *cfg,
                             const pmi_simple_callbacks_t *cb, char *err,
                             size_t errlen)
{
    pmi_simple_server_t *srv;
    int rc = check_config(cfg, cb, err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    srv = calloc(1, sizeof(*srv));
    if (srv == NULL)
        return HNP_ERR_NOMEM;
    srv->rte = rte;
    srv->cb = *cb;
    srv->log = hnp_log_stream("pmi");
    rc = server_setup(srv, cfg);
    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "PMI server: %s", hnp_strerror(rc));
        server_free(srv);
        return rc;
    }
    *out = srv;
    return HNP_SUCCESS;
}

static void server_free(pmi_simple_server_t *srv)
{
    for (size_t i = 0; srv->clients != NULL && i < srv->nlocal; i++)
        client_free(srv->clients[i]);
    free(srv->clients);
    free(srv->local_ranks);
    free(srv->kvsname);
    pmi_names_release(srv);
    pmi_spawns_release(srv);
    free(srv->spawner_jobid);
    pmi_simple_kvs_destroy(srv->kvs);
    pmi_simple_kvs_destroy(srv->node_attrs);
    pmi_simple_kvs_destroy(srv->job_attrs);
    free(srv->mapping_nodes);
    free(srv);
}

void pmi_simple_server_destroy(pmi_simple_server_t *srv)
{
    if (srv == NULL)
        return;
    if (srv->depth > 0) {
        /* Inside one of our own callbacks: the frames below still use it.
         * Quiet every connection now, free on the way out. */
        srv->destroy_pending = true;
        for (size_t i = 0; i < srv->nlocal; i++)
            if (srv->clients[i] != NULL)
                pmi_client_close(srv->clients[i]);
        return;
    }
    server_free(srv);
}

int pmi_simple_server_add_client(pmi_simple_server_t *srv, int fd,
                                 uint32_t rank, int32_t appnum)
{
    size_t i = 0;
    int flags;

    while (i < srv->nlocal && srv->local_ranks[i] != rank)
        i++;
    if (i == srv->nlocal || srv->clients[i] != NULL) {
        close(fd);
        return i == srv->nlocal ? HNP_ERR_BAD_PARAM : HNP_ERR_EXISTS;
    }
    flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        close(fd);
        return HNP_ERR_IO;
    }
    srv->clients[i] = client_new(srv, fd, rank);
    if (srv->clients[i] == NULL) {
        close(fd);
        return HNP_ERR_NOMEM;
    }
    srv->clients[i]->appnum = appnum;
    HNP_VERBOSE(srv->log, 2, "job %s: serving rank %u on fd %d",
                pmi_job_tag(srv), rank, fd);
    return HNP_SUCCESS;
}

int pmi_simple_client_env(const pmi_simple_server_t *srv, uint32_t rank, int fd,
                          char **env)
{
    int n = 0;

    /* PMI_FD, PMI_RANK and PMI_SIZE are what MPICH-derived PMI-1 clients
     * read; PMI-2 clients also send PMI_JOBID back in their fullinit. */
    if (asprintf(&env[n], "PMI_FD=%d", fd) < 0)
        goto fail;
    n++;
    if (asprintf(&env[n], "PMI_RANK=%u", rank) < 0)
        goto fail;
    n++;
    if (asprintf(&env[n], "PMI_SIZE=%u", srv->size) < 0)
        goto fail;
    n++;
    if (asprintf(&env[n], "PMI_JOBID=%s", srv->kvsname) < 0)
        goto fail;
    return ++n;
fail:
    while (n > 0)
        free(env[--n]);
    return HNP_ERR_NOMEM;
}
