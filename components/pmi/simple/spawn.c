/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Spawn (MPI_Comm_spawn, MPI_Comm_spawn_multiple) as MPICH's clients ask
 * for it:
 *
 *  - PMI-1: one "mcmd=spawn" block per program, each with nprocs,
 *    execname, totspawns, spawnssofar, argcnt and arg1.., preput_num and
 *    preput_key_I / preput_val_I (MPICH 4.0 repeats them in every block,
 *    later MPICH sends them in the first), info_num and info_key_I /
 *    info_val_I, up to "endcmd". The answer (spawn_result) follows the
 *    block whose spawnssofar reaches totspawns.
 *  - PMI-2: one "cmd=spawn" message: ncmds, preputcount, ppkeyI / ppvalI,
 *    then per program subcmd, maxprocs, argc and argvI (from 0),
 *    infokeycount and infokeyI / infovalI. The answer is spawn-response
 *    with the new job's id (its kvs name).
 *
 * The request goes to the daemon (the spawn_request callback) with a
 * ticket; the process is answered when the daemon gives it back
 * (pmi_simple_spawn_done()), once the children are started or the spawn
 * failed. A request that does not parse is answered with an error that
 * names the field, the daemon never asked.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "internal.h"

/* Bounds of what one request may ask for: far beyond MPI's use, small
 * enough that a process cannot make the daemon allocate without end. */
#define SPAWN_MAX_APPS 256
#define SPAWN_MAX_ARGS 4096
#define SPAWN_MAX_KEYS 1024
#define SPAWN_MAX_PROCS 1000000

struct pmi_spawn_wait {
    struct pmi_spawn_wait *next;
    uint64_t ticket;
    uint32_t rank;
    pmi_simple_wire_t wire;
    char *thrid;
};

/* ------------------------------------------------------------ the request */

void pmi_spawn_request_free(pmi_simple_spawn_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->napps; i++) {
        pmi_simple_spawn_app_t *a = &s->apps[i];
        free(a->cmd);
        for (size_t j = 0; a->argv != NULL && a->argv[j] != NULL; j++)
            free(a->argv[j]);
        free(a->argv);
        for (size_t j = 0; j < a->ninfo; j++) {
            free(a->info[j].key);
            free(a->info[j].value);
        }
        free(a->info);
    }
    free(s->apps);
    for (size_t j = 0; j < s->npreput; j++) {
        free(s->preput[j].key);
        free(s->preput[j].value);
    }
    free(s->preput);
    free(s);
}

/* A count field: a decimal in [0, max]; -1 when it is not. */
static long count_of(const char *text, long max)
{
    char *end;
    long n;

    if (text == NULL || text[0] < '0' || text[0] > '9')
        return -1;
    n = strtol(text, &end, 10);
    return *end == '\0' && n >= 0 && n <= max ? n : -1;
}

/* The value of "<prefix><i>" among @p pairs[from..to), or NULL. */
static const char *indexed(const pmi_simple_pair_t *pairs, size_t from,
                          size_t to, const char *prefix, long i)
{
    char key[PMI_SIMPLE_KEY_MAX + 1];

    snprintf(key, sizeof(key), "%s%ld", prefix, i);
    for (size_t p = from; p < to; p++)
        if (strcmp(pairs[p].key, key) == 0)
            return pairs[p].value;
    return NULL;
}

static const char *field(const pmi_simple_pair_t *pairs, size_t from,
                         size_t to, const char *key)
{
    for (size_t p = from; p < to; p++)
        if (strcmp(pairs[p].key, key) == 0)
            return pairs[p].value;
    return NULL;
}

/* @p n key/value pairs "<kp><i>" / "<vp><i>" into @p out. NULL, or the
 * missing field's prefix. */
static const char *take_kv(const pmi_simple_pair_t *pairs, size_t from,
                           size_t to, const char *kp, const char *vp,
                           long n, pmi_simple_kv_t **out, size_t *count)
{
    if (n == 0)
        return NULL;
    if ((*out = calloc((size_t)n, sizeof(**out))) == NULL)
        return "memory";
    for (long i = 0; i < n; i++) {
        const char *k = indexed(pairs, from, to, kp, i);
        const char *v = indexed(pairs, from, to, vp, i);
        if (k == NULL || k[0] == '\0')
            return kp;
        if (v == NULL)
            return vp;
        (*out)[i].key = strdup(k);
        (*out)[i].value = strdup(v);
        (*count)++;
        if ((*out)[i].key == NULL || (*out)[i].value == NULL)
            return "memory";
    }
    return NULL;
}

/* One program from pairs[from..to): @p names says its fields' names
 * (PMI-1 or PMI-2). NULL, or the field that is wrong. */
typedef struct app_fields {
    const char *cmd, *procs, *argc, *arg; long arg_base;
    const char *ninfo, *ikey, *ival;
} app_fields_t;

static const app_fields_t v1_fields = { "execname", "nprocs", "argcnt",
                                        "arg", 1, "info_num", "info_key_",
                                        "info_val_" };
static const app_fields_t v2_fields = { "subcmd", "maxprocs", "argc",
                                        "argv", 0, "infokeycount",
                                        "infokey", "infoval" };

static const char *take_app(const pmi_simple_pair_t *pairs, size_t from,
                            size_t to, const app_fields_t *f,
                            pmi_simple_spawn_app_t *a)
{
    const char *cmd = field(pairs, from, to, f->cmd);
    long procs = count_of(field(pairs, from, to, f->procs), SPAWN_MAX_PROCS);
    const char *argc_text = field(pairs, from, to, f->argc);
    long argc = argc_text != NULL ? count_of(argc_text, SPAWN_MAX_ARGS) : 0;
    const char *ninfo_text = field(pairs, from, to, f->ninfo);
    long ninfo = ninfo_text != NULL ? count_of(ninfo_text, SPAWN_MAX_KEYS)
                                    : 0;

    if (cmd == NULL || cmd[0] == '\0')
        return f->cmd;
    if (procs < 1)
        return f->procs;
    if (argc < 0)
        return f->argc;
    if (ninfo < 0)
        return f->ninfo;
    a->maxprocs = (uint32_t)procs;
    if ((a->cmd = strdup(cmd)) == NULL ||
        (a->argv = calloc((size_t)argc + 1, sizeof(char *))) == NULL)
        return "memory";
    for (long i = 0; i < argc; i++) {
        const char *arg = indexed(pairs, from, to, f->arg, i + f->arg_base);
        if (arg == NULL)
            return f->arg;
        if ((a->argv[i] = strdup(arg)) == NULL)
            return "memory";
    }
    return take_kv(pairs, from, to, f->ikey, f->ival, ninfo, &a->info,
                   &a->ninfo);
}

static const char *add_app(pmi_simple_spawn_t *s)
{
    pmi_simple_spawn_app_t *apps;

    if (s->napps == SPAWN_MAX_APPS)
        return "too_many_programs";
    apps = realloc(s->apps, (s->napps + 1) * sizeof(*apps));
    if (apps == NULL)
        return "memory";
    s->apps = apps;
    memset(&s->apps[s->napps++], 0, sizeof(*apps));
    return NULL;
}

/* PMI-2: "cmd=spawn;ncmds=;preputcount=;ppkeyI=;ppvalI=;subcmd=...". */
const char *pmi_spawn_parse_v2(const pmi_simple_msg_t *req,
                               pmi_simple_spawn_t **out)
{
    const pmi_simple_pair_t *pairs = req->pairs;
    size_t n = req->npairs, first = n;
    long ncmds = count_of(pmi_simple_msg_get(req, "ncmds"), SPAWN_MAX_APPS);
    const char *pp = pmi_simple_msg_get(req, "preputcount");
    long npre = pp != NULL ? count_of(pp, SPAWN_MAX_KEYS) : 0;
    pmi_simple_spawn_t *s = calloc(1, sizeof(*s));
    const char *bad = NULL;

    *out = s;
    if (s == NULL)
        return "memory";
    if (ncmds < 1)
        return "ncmds";
    if (npre < 0)
        return "preputcount";
    for (size_t p = 0; p < n && first == n; p++)
        if (strcmp(pairs[p].key, "subcmd") == 0)
            first = p;
    bad = take_kv(pairs, 0, first, "ppkey", "ppval", npre, &s->preput,
                  &s->npreput);
    for (size_t at = first; bad == NULL && at < n;) {
        size_t end = at + 1;
        while (end < n && strcmp(pairs[end].key, "subcmd") != 0)
            end++;
        if ((bad = add_app(s)) == NULL)
            bad = take_app(pairs, at, end, &v2_fields,
                           &s->apps[s->napps - 1]);
        at = end;
    }
    if (bad == NULL && s->napps != (size_t)ncmds)
        bad = "ncmds";
    return bad;
}

/* PMI-1: one block, added to the client's request in progress. Returns
 * NULL with *done once the last block came. */
const char *pmi_spawn_parse_v1(const pmi_simple_msg_t *req,
                               pmi_simple_spawn_t *s, bool *done)
{
    const pmi_simple_pair_t *pairs = req->pairs;
    size_t n = req->npairs;
    long total = count_of(pmi_simple_msg_get(req, "totspawns"),
                          SPAWN_MAX_APPS);
    long sofar = count_of(pmi_simple_msg_get(req, "spawnssofar"),
                          SPAWN_MAX_APPS);
    const char *pp = pmi_simple_msg_get(req, "preput_num");
    long npre = pp != NULL ? count_of(pp, SPAWN_MAX_KEYS) : 0;
    const char *bad;

    *done = false;
    if (total < 1)
        return "totspawns";
    if (sofar != (long)s->napps + 1 || sofar > total)
        return "spawnssofar";
    if (npre < 0)
        return "preput_num";
    /* the preput keys: once (MPICH 4.0 repeats them in every block) */
    if (s->npreput == 0 && (bad = take_kv(pairs, 0, n, "preput_key_",
                                          "preput_val_", npre, &s->preput,
                                          &s->npreput)) != NULL)
        return bad;
    if ((bad = add_app(s)) != NULL ||
        (bad = take_app(pairs, 0, n, &v1_fields, &s->apps[s->napps - 1])))
        return bad;
    *done = sofar == total;
    return NULL;
}

/* ------------------------------------------------------------ answers */

static void answer(pmi_client_t *c, pmi_simple_wire_t wire,
                   const char *thrid, int status, const char *jobid,
                   const char *why)
{
    pmi_simple_reply_t r;
    char word[PMI_ERR_LEN];

    if (wire != c->wire)
        return; /* a client that switched its protocol meanwhile */
    pmi_reply_begin(c, &r, wire == PMI_SIMPLE_WIRE_V1 ? "spawn_result"
                                                     : "spawn-response",
                    thrid);
    pmi_simple_reply_add_int(&r, "rc", status == HNP_SUCCESS ? 0 : -1);
    if (status != HNP_SUCCESS) {
        snprintf(word, sizeof(word), "%s", why != NULL && why[0] != '\0'
                                               ? why : hnp_strerror(status));
        /* PMI-1 values hold no blank, no newline */
        for (char *p = word; wire == PMI_SIMPLE_WIRE_V1 && *p != '\0'; p++)
            if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
                *p = '_';
        pmi_simple_reply_add_str(&r, wire == PMI_SIMPLE_WIRE_V1 ? "msg"
                                                               : "errmsg",
                                 word);
    } else if (wire == PMI_SIMPLE_WIRE_V2 && jobid != NULL) {
        pmi_simple_reply_add_str(&r, "jobid", jobid);
    }
    if (!pmi_reply_end(c, &r) && !c->closed)
        answer(c, wire, thrid, HNP_ERR_BAD_PARAM, NULL, "spawn failed");
}

int pmi_simple_spawn_done(pmi_simple_server_t *srv, uint64_t ticket,
                          int status, const char *jobid, const char *why)
{
    struct pmi_spawn_wait *w = NULL;
    pmi_client_t *c;

    for (struct pmi_spawn_wait **p = &srv->spawn_waits; *p != NULL;
         p = &(*p)->next)
        if ((*p)->ticket == ticket) {
            w = *p;
            *p = w->next;
            break;
        }
    if (w == NULL)
        return HNP_ERR_NOT_FOUND;
    c = pmi_client_of_rank(srv, w->rank);
    if (c != NULL && !c->closed && !c->finalized) {
        pmi_server_hold(srv);
        answer(c, w->wire, w->thrid, status, jobid, why);
        pmi_client_flush(c);
        pmi_server_release(srv);
    }
    free(w->thrid);
    free(w);
    return HNP_SUCCESS;
}

void pmi_spawns_release(pmi_simple_server_t *srv)
{
    while (srv->spawn_waits != NULL) {
        struct pmi_spawn_wait *w = srv->spawn_waits;
        srv->spawn_waits = w->next;
        free(w->thrid);
        free(w);
    }
}

/* ------------------------------------------------------------ requests */

/* Hand @p s (taken) to the daemon; the answer comes with the ticket. */
static void submit(pmi_client_t *c, const char *thrid, pmi_simple_spawn_t *s)
{
    pmi_simple_server_t *srv = c->srv;
    struct pmi_spawn_wait *w = calloc(1, sizeof(*w));

    if (w == NULL || (thrid != NULL && (w->thrid = strdup(thrid)) == NULL)) {
        free(w);
        pmi_spawn_request_free(s);
        pmi_client_fail(c, HNP_ERR_NOMEM, "out of memory asking to spawn");
        return;
    }
    w->ticket = ++srv->spawn_tickets;
    w->rank = c->rank;
    w->wire = c->wire;
    w->next = srv->spawn_waits;
    srv->spawn_waits = w;
    srv->cb.spawn_request(srv->cb.ctx, c->rank, s, w->ticket);
    pmi_spawn_request_free(s);
}

/* A refusal before the daemon is asked: the field that is wrong. */
static void refuse(pmi_client_t *c, const char *thrid, const char *bad)
{
    char why[PMI_ERR_LEN];

    snprintf(why, sizeof(why), strcmp(bad, "memory") == 0
                                   ? "out of memory"
                                   : "bad spawn request: field %s", bad);
    answer(c, c->wire, thrid, HNP_ERR_BAD_PARAM, NULL, why);
}

void pmi_v1_spawn(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    const char *bad;
    bool done = false;

    if (c->spawn == NULL && (c->spawn = calloc(1, sizeof(*c->spawn))) == NULL) {
        pmi_client_fail(c, HNP_ERR_NOMEM, "out of memory asking to spawn");
        return;
    }
    bad = pmi_spawn_parse_v1(req, c->spawn, &done);
    if (bad != NULL) {
        pmi_spawn_request_free(c->spawn);
        c->spawn = NULL;
        refuse(c, NULL, bad);
        return;
    }
    if (!done)
        return; /* the answer follows the last block */
    pmi_simple_spawn_t *s = c->spawn;
    c->spawn = NULL;
    submit(c, NULL, s);
}

void pmi_v2_spawn(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    pmi_simple_spawn_t *s = NULL;
    const char *bad = pmi_spawn_parse_v2(req, &s);
    const char *thrid = pmi_simple_msg_get(req, "thrid");

    if (bad != NULL) {
        pmi_spawn_request_free(s);
        refuse(c, thrid, bad);
        return;
    }
    submit(c, thrid, s);
}
