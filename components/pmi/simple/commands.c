/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMI requests and their answers, PMI-1 then PMI-2.
 *
 * Answer names and fields are the ones MPICH's clients look for (its
 * simple PMI-1 client and the PMI-2 client Slurm also ships): a client
 * checks the answer's cmd against the one it expects and reads rc, so an
 * unsupported request gets the expected answer name with rc=-1, and the
 * library fails that call cleanly instead of waiting forever.
 *
 * PMI-1 values cannot hold blanks, so its reasons are words_with_underscores.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "internal.h"

typedef void (*handler_fn)(pmi_client_t *c, const pmi_simple_msg_t *req);

/* A request; with no handler, it is answered "reply" with rc=-1. */
typedef struct command {
    const char *name;
    handler_fn fn;
    const char *reply;
} command_t;

void pmi_reply_begin(pmi_client_t *c, pmi_simple_reply_t *r, const char *cmd,
                     const char *thrid)
{
    pmi_simple_reply_begin(r, &c->out, c->wire, cmd);
    if (c->wire == PMI_SIMPLE_WIRE_V2 && thrid != NULL)
        pmi_simple_reply_add_str(r, "thrid", thrid);
}

bool pmi_reply_end(pmi_client_t *c, pmi_simple_reply_t *r)
{
    int rc = pmi_simple_reply_end(r);

    if (rc == HNP_ERR_NOMEM)
        pmi_client_fail(c, rc, "out of memory answering");
    if (rc == HNP_SUCCESS)
        HNP_VERBOSE(c->srv->log, 4, "job %s: rank %u -> %.*s",
                    pmi_job_tag(c->srv), c->rank,
                    (int)(c->out.len - r->start -
                          (c->wire == PMI_SIMPLE_WIRE_V1)),
                    (const char *)c->out.data + r->start);
    return rc == HNP_SUCCESS;
}

static const char *thrid_of(const pmi_simple_msg_t *req)
{
    return pmi_simple_msg_get(req, "thrid");
}

/* The answer most requests get: rc, and a reason when it is not 0 (PMI-1
 * also says msg=success, as MPICH's server does). */
static void reply_rc(pmi_client_t *c, const char *thrid, const char *cmd,
                     int rc, const char *why)
{
    pmi_simple_reply_t r;

    pmi_reply_begin(c, &r, cmd, thrid);
    pmi_simple_reply_add_int(&r, "rc", rc);
    if (c->wire == PMI_SIMPLE_WIRE_V1)
        pmi_simple_reply_add_str(&r, "msg", rc == 0 ? "success" : why);
    else if (rc != 0)
        pmi_simple_reply_add_str(&r, "errmsg", why);
    pmi_reply_end(c, &r);
}

/* A job attribute, else a put: PMI-1 clients read PMI_process_mapping
 * with an ordinary get. */
static const char *lookup(pmi_simple_server_t *srv, const char *key,
                          size_t *len)
{
    const char *value = pmi_simple_kvs_get(srv->kvs, key, len);
    return value != NULL ? value : pmi_simple_kvs_get(pmi_job_attrs(srv), key,
                                                      len);
}

/* The local process whose puts are charged to @p owner, or NULL. */
static pmi_client_t *client_of_owner(pmi_simple_server_t *srv, uint32_t owner)
{
    return owner != 0 ? pmi_client_of_rank(srv, owner - 1) : NULL;
}

/* A put past max_kvs_bytes: the reason in the words of @p c's wire, and the
 * daemon told once. */
static const char *refuse_over_limit(pmi_client_t *c, char *why,
                                     size_t whylen)
{
    pmi_simple_server_t *srv = c->srv;

    snprintf(why, whylen, c->wire == PMI_SIMPLE_WIRE_V1
                              ? "over_the_limit_of_%zu_bytes_a_process_may_"
                                "store"
                              : "over the limit of %zu bytes a process may "
                                "store", srv->max_kvs_bytes);
    HNP_VERBOSE(srv->log, 2, "rank %u: put refused, it stores %zu bytes of "
                "%zu", c->rank, c->stored, srv->max_kvs_bytes);
    if (!c->over_limit_told) {
        c->over_limit_told = true;
        if (srv->cb.kvs_limit != NULL)
            srv->cb.kvs_limit(srv->cb.ctx, c->rank, srv->max_kvs_bytes);
    }
    return why;
}

/* Store @p key = @p value in @p kvs for @p c, charged to it: what the key
 * held before goes back to whoever put it, so @p c pays for the net size
 * of what it stores. NULL, or why not (a PMI token; @p why holds it when
 * it is not a constant). */
static const char *check_put(pmi_client_t *c, pmi_simple_kvs_t *kvs,
                             const pmi_simple_pair_t *key,
                             const pmi_simple_pair_t *value, size_t value_max,
                             bool pending, char *why, size_t whylen)
{
    uint32_t me = c->rank + 1, before;
    size_t limit = c->srv->max_kvs_bytes, cost, mine, charge;

    if (key == NULL || value == NULL || key->value_len == 0)
        return "missing_key_or_value";
    /* A PMI-2 value may hold NULs, a key may not: it is a C string. */
    if (strlen(key->value) != key->value_len)
        return "key_with_nul";
    if (key->value_len > PMI_SIMPLE_KEY_MAX)
        return "key_too_long";
    if (value->value_len > value_max)
        return "value_too_long";
    /* Neither length can come near SIZE_MAX: a message bounds both. */
    cost = key->value_len + value->value_len + PMI_SIMPLE_KVS_ENTRY_COST;
    before = pmi_simple_kvs_owner(kvs, key->value, &charge);
    mine = c->stored - (before == me ? charge : 0);
    if (limit > 0 && (cost > limit || mine > limit - cost))
        return refuse_over_limit(c, why, whylen);
    if (pmi_simple_kvs_put_owned(kvs, key->value, value->value,
                                 value->value_len, pending, me,
                                 cost) != HNP_SUCCESS)
        return "out_of_memory";
    pmi_client_t *previous = before != me ? client_of_owner(c->srv, before)
                                          : NULL;
    if (previous != NULL)
        previous->stored -= charge;
    c->stored = mine + cost;
    return NULL;
}

/* The process's library is up (answered init): told once. */
static void client_initialized(pmi_client_t *c)
{
    if (c->initialized)
        return;
    c->initialized = true;
    if (c->srv->cb.initialized != NULL)
        c->srv->cb.initialized(c->srv->cb.ctx, c->rank);
}

/* Spawn is a later step: the process gets its error answer, the daemon a
 * word with the rank so that hnp says why. */
static void client_asked_spawn(pmi_client_t *c)
{
    if (c->srv->cb.spawn != NULL)
        c->srv->cb.spawn(c->srv->cb.ctx, c->rank);
}

/* PMI-1's finalize_ack has no fields; PMI-2's answer has rc. */
static void finalize_client(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_server_t *srv = c->srv;
    pmi_simple_reply_t r;

    if (c->wire == PMI_SIMPLE_WIRE_V1) {
        pmi_reply_begin(c, &r, "finalize_ack", NULL);
    } else {
        pmi_reply_begin(c, &r, "finalize-response", thrid_of(req));
        pmi_simple_reply_add_int(&r, "rc", 0);
    }
    if (!pmi_reply_end(c, &r))
        return;
    pmi_client_flush(c);
    c->finalized = true;
    srv->nfinalized++;
    if (srv->cb.finalized != NULL)
        srv->cb.finalized(srv->cb.ctx, c->rank);
    if (!srv->destroy_pending)
        pmi_fence_check(srv, c->rank);
}

static void abort_job(pmi_client_t *c, int code, const char *msg)
{
    pmi_simple_server_t *srv = c->srv;

    /* The process exits right after asking; nothing more will come. */
    pmi_client_close(c);
    if (srv->cb.abort != NULL)
        srv->cb.abort(srv->cb.ctx, c->rank, code, msg != NULL ? msg : "");
}

/* ------------------------------------------------------------- PMI-1 */

static void v1_init(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *version = pmi_simple_msg_get(req, "pmi_version");
    bool v2 = version != NULL && strcmp(version, "2") == 0;
    bool ok = version == NULL || strcmp(version, "1") == 0 || v2;
    pmi_simple_reply_t r;

    pmi_reply_begin(c, &r, "response_to_init", NULL);
    pmi_simple_reply_add_str(&r, "pmi_version", v2 ? "2" : "1");
    pmi_simple_reply_add_str(&r, "pmi_subversion", v2 ? "0" : "1");
    pmi_simple_reply_add_int(&r, "rc", ok ? 0 : -1);
    if (!ok)
        pmi_simple_reply_add_str(&r, "msg", "unsupported_pmi_version");
    if (!pmi_reply_end(c, &r))
        return;
    /* A PMI-2 client opens in PMI-1 and goes on in PMI-2 (fullinit). */
    if (v2)
        c->wire = PMI_SIMPLE_WIRE_V2;
    else if (ok)
        client_initialized(c);
}

/* The start-up of clients given PMI_ID instead of PMI_RANK: the server
 * tells the rank. Ours is the connection's, whatever pmiid says. */
static void v1_initack(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_reply_t r;

    (void)req;
    pmi_reply_begin(c, &r, "initack", NULL);
    pmi_reply_end(c, &r);
    pmi_reply_begin(c, &r, "set", NULL);
    pmi_simple_reply_add_int(&r, "size", (long)c->srv->size);
    pmi_reply_end(c, &r);
    pmi_reply_begin(c, &r, "set", NULL);
    pmi_simple_reply_add_int(&r, "rank", (long)c->rank);
    pmi_reply_end(c, &r);
    pmi_reply_begin(c, &r, "set", NULL);
    pmi_simple_reply_add_int(&r, "debug", 0);
    pmi_reply_end(c, &r);
}

static void v1_get_maxes(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_reply_t r;

    (void)req;
    pmi_reply_begin(c, &r, "maxes", NULL);
    pmi_simple_reply_add_int(&r, "kvsname_max", PMI_SIMPLE_KVSNAME_MAX);
    pmi_simple_reply_add_int(&r, "keylen_max", PMI_SIMPLE_KEY_MAX);
    pmi_simple_reply_add_int(&r, "vallen_max", (long)c->srv->v1_vallen_max);
    pmi_reply_end(c, &r);
}

static void v1_get_appnum(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_reply_t r;

    (void)req;
    pmi_reply_begin(c, &r, "appnum", NULL);
    pmi_simple_reply_add_int(&r, "appnum", c->appnum);
    pmi_reply_end(c, &r);
}

static void v1_get_universe_size(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_reply_t r;

    (void)req;
    pmi_reply_begin(c, &r, "universe_size", NULL);
    pmi_simple_reply_add_int(&r, "size", (long)c->srv->universe_size);
    pmi_reply_end(c, &r);
}

static void v1_get_my_kvsname(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_reply_t r;

    (void)req;
    pmi_reply_begin(c, &r, "my_kvsname", NULL);
    pmi_simple_reply_add_str(&r, "kvsname", c->srv->kvsname);
    pmi_reply_end(c, &r);
}

static bool v1_kvsname_ok(pmi_client_t *c, const pmi_simple_msg_t *req,
                          const char *reply)
{
    const char *kvsname = pmi_simple_msg_get(req, "kvsname");

    if (kvsname != NULL && strcmp(kvsname, c->srv->kvsname) == 0)
        return true;
    reply_rc(c, thrid_of(req), reply, -1, "unknown_kvsname");
    return false;
}

static void v1_put(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    char buf[PMI_ERR_LEN];
    const char *why;

    if (!v1_kvsname_ok(c, req, "put_result"))
        return;
    why = check_put(c, c->srv->kvs, pmi_simple_msg_find(req, "key"),
                    pmi_simple_msg_find(req, "value"),
                    c->srv->v1_vallen_max - 1, true, buf, sizeof(buf));
    reply_rc(c, thrid_of(req), "put_result", why == NULL ? 0 : -1, why);
}

static void v1_get(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *key = pmi_simple_msg_get(req, "key"), *value;
    pmi_simple_reply_t r;
    size_t len;

    if (!v1_kvsname_ok(c, req, "get_result"))
        return;
    value = key != NULL ? lookup(c->srv, key, &len) : NULL;
    if (value == NULL) {
        reply_rc(c, thrid_of(req), "get_result", -1, "key_not_found");
        return;
    }
    pmi_reply_begin(c, &r, "get_result", NULL);
    pmi_simple_reply_add_int(&r, "rc", 0);
    pmi_simple_reply_add_str(&r, "msg", "success");
    pmi_simple_reply_add(&r, "value", value, len);
    /* A PMI-2 put can hold what a PMI-1 line cannot carry. */
    if (!pmi_reply_end(c, &r) && !c->closed)
        reply_rc(c, NULL, "get_result", -1, "value_too_long_for_pmi1");
}

static void v1_abort(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *code = pmi_simple_msg_get(req, "exitcode");
    const char *msg = pmi_simple_msg_get(req, "message");
    char *end;
    long n = code != NULL ? strtol(code, &end, 10) : 1;

    if (code == NULL || *end != '\0' || end == code || n < INT32_MIN ||
        n > INT32_MAX)
        n = 1;
    abort_job(c, (int)n, msg != NULL ? msg : pmi_simple_msg_get(req, "msg"));
}

/* mcmd=spawn: one block per executable; the answer follows the last. */
static void v1_spawn(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *total = pmi_simple_msg_get(req, "totspawns");
    const char *sofar = pmi_simple_msg_get(req, "spawnssofar");
    pmi_simple_reply_t r;

    if (total != NULL && sofar != NULL && atol(sofar) < atol(total))
        return;
    pmi_reply_begin(c, &r, "spawn_result", NULL);
    pmi_simple_reply_add_int(&r, "rc", -1);
    pmi_simple_reply_add_str(&r, "msg", "spawn_is_not_supported");
    pmi_reply_end(c, &r);
    client_asked_spawn(c);
}

static const command_t v1_commands[] = {
    { "init", v1_init, NULL },
    { "initack", v1_initack, NULL },
    { "get_maxes", v1_get_maxes, NULL },
    { "get_appnum", v1_get_appnum, NULL },
    { "get_universe_size", v1_get_universe_size, NULL },
    { "get_my_kvsname", v1_get_my_kvsname, NULL },
    { "put", v1_put, NULL },
    { "get", v1_get, NULL },
    { "barrier_in", pmi_fence_enter, NULL },
    { "finalize", finalize_client, NULL },
    { "abort", v1_abort, NULL },
    { "publish_name", pmi_v1_publish, NULL },
    { "unpublish_name", pmi_v1_unpublish, NULL },
    { "lookup_name", pmi_v1_lookup, NULL },
    { "get_ranks2hosts", NULL, "put_ranks2hosts" },
    { "create_kvs", NULL, "newkvs" },
    { "destroy_kvs", NULL, "kvs_destroyed" },
    { "getbyidx", NULL, "getbyidx_results" },
    { "singinit", NULL, "singinit_info" },
    { NULL, NULL, NULL },
};

/* Older clients of name publishing checked info=ok rather than rc. */
static void v1_unsupported(pmi_client_t *c, const char *reply)
{
    pmi_simple_reply_t r;

    pmi_reply_begin(c, &r, reply, NULL);
    pmi_simple_reply_add_int(&r, "rc", -1);
    pmi_simple_reply_add_str(&r, "info", "not_supported");
    pmi_simple_reply_add_str(&r, "msg", "not_supported_by_hnp");
    pmi_reply_end(c, &r);
}

/* ------------------------------------------------------------- PMI-2 */

static void v2_init(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *version = pmi_simple_msg_get(req, "pmi-version");
    bool ok = version == NULL || strcmp(version, "2") == 0;
    pmi_simple_reply_t r;

    pmi_reply_begin(c, &r, "response_to_init", thrid_of(req));
    pmi_simple_reply_add_int(&r, "rc", ok ? 0 : -1);
    pmi_simple_reply_add_str(&r, "pmi-version", "2");
    pmi_simple_reply_add_str(&r, "pmi-subversion", "0");
    if (!ok)
        pmi_simple_reply_add_str(&r, "errmsg", "hnp speaks PMI version 2.0");
    if (pmi_reply_end(c, &r) && ok)
        client_initialized(c);
}

static void v2_fullinit(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *rank = pmi_simple_msg_get(req, "pmirank");
    pmi_simple_reply_t r;

    if (rank != NULL && strtoul(rank, NULL, 10) != c->rank)
        HNP_VERBOSE(c->srv->log, 1, "rank %u: fullinit says pmirank=%s; "
                    "answering with the connection's rank", c->rank, rank);
    pmi_reply_begin(c, &r, "fullinit-response", thrid_of(req));
    pmi_simple_reply_add_int(&r, "rc", 0);
    pmi_simple_reply_add_str(&r, "pmi-version", "2");
    pmi_simple_reply_add_str(&r, "pmi-subversion", "0");
    pmi_simple_reply_add_int(&r, "rank", (long)c->rank);
    pmi_simple_reply_add_int(&r, "size", (long)c->srv->size);
    pmi_simple_reply_add_int(&r, "appnum", c->appnum);
    if (c->srv->spawner_jobid != NULL)
        pmi_simple_reply_add_str(&r, "spawner-jobid", c->srv->spawner_jobid);
    pmi_simple_reply_add_str(&r, "debugged", "FALSE");
    pmi_simple_reply_add_str(&r, "pmiverbose", "FALSE");
    if (pmi_reply_end(c, &r))
        client_initialized(c);
}

static void v2_job_getid(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_reply_t r;

    pmi_reply_begin(c, &r, "job-getid-response", thrid_of(req));
    pmi_simple_reply_add_int(&r, "rc", 0);
    pmi_simple_reply_add_str(&r, "jobid", c->srv->kvsname);
    pmi_reply_end(c, &r);
}

static void v2_kvs_put(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    char buf[PMI_ERR_LEN];
    const char *why = check_put(c, c->srv->kvs, pmi_simple_msg_find(req, "key"),
                                pmi_simple_msg_find(req, "value"),
                                PMI_SIMPLE_V2_BODY_MAX, true, buf, sizeof(buf));

    reply_rc(c, thrid_of(req), "kvs-put-response", why == NULL ? 0 : -1, why);
}

/* found=TRUE with the value, or found=FALSE: both are answers, rc=0. */
static void reply_found(pmi_client_t *c, const char *thrid, const char *cmd,
                        const char *value, size_t len)
{
    pmi_simple_reply_t r;

    pmi_reply_begin(c, &r, cmd, thrid);
    pmi_simple_reply_add_int(&r, "rc", 0);
    pmi_simple_reply_add_str(&r, "found", value != NULL ? "TRUE" : "FALSE");
    if (value != NULL)
        pmi_simple_reply_add(&r, "value", value, len);
    if (!pmi_reply_end(c, &r) && !c->closed)
        reply_rc(c, thrid, cmd, -1, "the value is too long to send");
}

static void v2_kvs_get(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *jobid = pmi_simple_msg_get(req, "jobid");
    const char *key = pmi_simple_msg_get(req, "key"), *value = NULL;
    size_t len = 0;

    if (key != NULL && (jobid == NULL || jobid[0] == '\0' ||
                        strcmp(jobid, c->srv->kvsname) == 0))
        value = lookup(c->srv, key, &len);
    reply_found(c, thrid_of(req), "kvs-get-response", value, len);
}

static void v2_getjobattr(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *key = pmi_simple_msg_get(req, "key"), *value = NULL;
    size_t len = 0;

    if (key != NULL)
        value = pmi_simple_kvs_get(pmi_job_attrs(c->srv), key, &len);
    reply_found(c, thrid_of(req), "info-getjobattr-response", value, len);
}

/* Answer the processes waiting for node attribute @p key. */
static void wake_nodeattr_waiters(pmi_simple_server_t *srv, const char *key,
                                  const pmi_simple_pair_t *value)
{
    for (size_t i = 0; i < srv->nlocal; i++) {
        pmi_client_t *w = srv->clients[i];
        if (w == NULL || w->wait != PMI_WAIT_NODEATTR ||
            strcmp(w->wait_key, key) != 0)
            continue;
        w->wait = PMI_WAIT_NONE;
        reply_found(w, w->wait_thrid, "info-getnodeattr-response",
                    value->value, value->value_len);
        free(w->wait_key);
        free(w->wait_thrid);
        w->wait_key = w->wait_thrid = NULL;
        pmi_client_resume(w);
    }
}

/* Node attributes stay on the node: no fence, and a reader may wait. */
static void v2_putnodeattr(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_server_t *srv = c->srv;
    const pmi_simple_pair_t *key = pmi_simple_msg_find(req, "key");
    const pmi_simple_pair_t *value = pmi_simple_msg_find(req, "value");
    char buf[PMI_ERR_LEN];
    const char *why =
        check_put(c, srv->node_attrs, key, value, PMI_SIMPLE_V2_BODY_MAX, false,
                  buf, sizeof(buf));

    reply_rc(c, thrid_of(req), "info-putnodeattr-response",
             why == NULL ? 0 : -1, why);
    if (why == NULL)
        wake_nodeattr_waiters(srv, key->value, value);
}

static void v2_getnodeattr(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *key = pmi_simple_msg_get(req, "key");
    const char *wait = pmi_simple_msg_get(req, "wait");
    const char *thrid = thrid_of(req);
    size_t len = 0;
    const char *value = key != NULL
        ? pmi_simple_kvs_get(c->srv->node_attrs, key, &len) : NULL;

    if (value != NULL || key == NULL || wait == NULL ||
        strcmp(wait, "TRUE") != 0) {
        reply_found(c, thrid, "info-getnodeattr-response", value, len);
        return;
    }
    c->wait_key = strdup(key);
    c->wait_thrid = thrid != NULL ? strdup(thrid) : NULL;
    if (c->wait_key == NULL || (thrid != NULL && c->wait_thrid == NULL)) {
        pmi_client_fail(c, HNP_ERR_NOMEM, "out of memory waiting for a "
                        "node attribute");
        return;
    }
    c->wait = PMI_WAIT_NODEATTR;
}

/* PMI2_Abort carries no exit code: the library exits with 1 itself. */
static void v2_abort(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    abort_job(c, 1, pmi_simple_msg_get(req, "msg"));
}

static const command_t v2_commands[] = {
    { "init", v2_init, NULL },
    { "fullinit", v2_fullinit, NULL },
    { "job-getid", v2_job_getid, NULL },
    { "kvs-put", v2_kvs_put, NULL },
    { "kvs-get", v2_kvs_get, NULL },
    { "kvs-fence", pmi_fence_enter, NULL },
    { "info-putnodeattr", v2_putnodeattr, NULL },
    { "info-getnodeattr", v2_getnodeattr, NULL },
    { "info-getjobattr", v2_getjobattr, NULL },
    { "finalize", finalize_client, NULL },
    { "abort", v2_abort, NULL },
    { "name-publish", pmi_v2_publish, NULL },
    { "name-lookup", pmi_v2_lookup, NULL },
    { "name-unpublish", pmi_v2_unpublish, NULL },
    { NULL, NULL, NULL },
};

/* Anything else (spawn, job-connect, ring, ...) follows the
 * PMI-2 rule: the answer is the request's name with "-response". */
static void v2_unsupported(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    char reply[PMI_SIMPLE_KEY_MAX + sizeof("-response")];
    char why[PMI_SIMPLE_KEY_MAX + sizeof(" is not supported by hnp")];

    snprintf(reply, sizeof(reply), "%.*s-response", PMI_SIMPLE_KEY_MAX,
             req->cmd);
    snprintf(why, sizeof(why), "%.*s is not supported by hnp",
             PMI_SIMPLE_KEY_MAX, req->cmd);
    reply_rc(c, thrid_of(req), reply, -1, why);
    if (strcmp(req->cmd, "spawn") == 0)
        client_asked_spawn(c);
}

/* ------------------------------------------------------------ dispatch */

static const command_t *find_command(const command_t *table, const char *cmd)
{
    for (; table->name != NULL; table++)
        if (strcmp(table->name, cmd) == 0)
            return table;
    return NULL;
}

static void dispatch(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    bool v1 = c->wire == PMI_SIMPLE_WIRE_V1;
    const command_t *cmd =
        find_command(v1 ? v1_commands : v2_commands, req->cmd);

    HNP_VERBOSE(c->srv->log, 3, "rank %u: %s request %s", c->rank,
                v1 ? "PMI-1" : "PMI-2", req->cmd);
    bool spawn = strcmp(req->cmd, "spawn") == 0;

    if (spawn && c->srv->cb.spawn_request != NULL && v1 == req->multiline)
        (v1 ? pmi_v1_spawn : pmi_v2_spawn)(c, req);
    else if (v1 && req->multiline && spawn)
        v1_spawn(c, req);
    else if (cmd != NULL && cmd->fn != NULL && !req->multiline)
        cmd->fn(c, req);
    else if (v1 && cmd != NULL && !req->multiline)
        v1_unsupported(c, cmd->reply);
    else if (v1)
        reply_rc(c, thrid_of(req), "error", -1, "unknown_command");
    else
        v2_unsupported(c, req);
}

static bool is_blank_line(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
            return false;
    return true;
}

void pmi_handle_message(pmi_client_t *c, const char *text, size_t len)
{
    pmi_simple_msg_t req;
    char err[PMI_ERR_LEN];
    int rc;

    HNP_VERBOSE(c->srv->log, 4, "job %s: rank %u <- %.*s",
                pmi_job_tag(c->srv), c->rank, (int)len, text);
    /* An empty PMI-1 line says nothing; tolerate it. */
    if (c->wire == PMI_SIMPLE_WIRE_V1 && is_blank_line(text, len))
        return;
    rc = c->wire == PMI_SIMPLE_WIRE_V1
             ? pmi_simple_parse_v1(&req, text, len, err, sizeof(err))
             : pmi_simple_parse_v2(&req, text, len, err, sizeof(err));
    if (rc != HNP_SUCCESS) {
        pmi_client_fail(c, rc, "malformed PMI request: %s",
                        rc == HNP_ERR_NOMEM ? "out of memory" : err);
        return;
    }
    if (c->finalized)
        pmi_client_fail(c, HNP_ERR_BAD_PARAM, "PMI request %s after "
                        "finalize", req.cmd);
    else
        dispatch(c, &req);
    pmi_simple_msg_release(&req);
}
