/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Name publishing (MPI_Publish_name, MPI_Lookup_name,
 * MPI_Unpublish_name): PMI-1 publish_name / lookup_name / unpublish_name
 * ("service" and "port"), PMI-2 name-publish / name-lookup /
 * name-unpublish ("name" and "port"). The server hands each request to
 * the daemon (the names callback) with a ticket and answers the process
 * when the daemon gives the ticket back (pmi_simple_name_done()), from
 * the HNP's name service. A PMI lookup never waits: neither wire
 * protocol can ask to.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "internal.h"

/* A request handed to the daemon, until its answer. */
struct pmi_name_wait {
    struct pmi_name_wait *next;
    uint64_t ticket;
    uint32_t rank;
    pmi_simple_name_op_t op;
    char *thrid;
};

static const char *reply_name(pmi_simple_wire_t wire, pmi_simple_name_op_t op)
{
    static const char *const v1[] = { "publish_result", "lookup_result",
                                      "unpublish_result" };
    static const char *const v2[] = { "name-publish-response",
                                      "name-lookup-response",
                                      "name-unpublish-response" };

    return wire == PMI_SIMPLE_WIRE_V1 ? v1[op] : v2[op];
}

/* Why, as each wire writes it (PMI-1 values hold no blank). */
static const char *why_of(pmi_simple_wire_t wire, pmi_simple_name_op_t op,
                          int status)
{
    bool v1 = wire == PMI_SIMPLE_WIRE_V1;

    if (status == HNP_ERR_EXISTS)
        return v1 ? "name_already_published" : "name already published";
    if (status == HNP_ERR_NOT_FOUND)
        return op == PMI_SIMPLE_NAME_UNPUBLISH
                   ? (v1 ? "name_not_published" : "name not published")
                   : (v1 ? "name_not_found" : "name not found");
    if (status == HNP_ERR_BAD_PARAM)
        return v1 ? "bad_name_or_port" : "bad name or port";
    return v1 ? "name_service_unavailable" : "name service unavailable";
}

static void answer(pmi_client_t *c, const char *thrid, pmi_simple_name_op_t op,
                   int status, const char *port)
{
    pmi_simple_reply_t r;
    bool v1 = c->wire == PMI_SIMPLE_WIRE_V1;

    pmi_reply_begin(c, &r, reply_name(c->wire, op), thrid);
    pmi_simple_reply_add_int(&r, "rc", status == HNP_SUCCESS ? 0 : -1);
    /* MPICH's older PMI-1 clients look for info=ok */
    if (v1)
        pmi_simple_reply_add_str(&r, "info", status == HNP_SUCCESS ? "ok"
                                                                   : "fail");
    if (status != HNP_SUCCESS)
        pmi_simple_reply_add_str(&r, v1 ? "msg" : "errmsg",
                                 why_of(c->wire, op, status));
    else if (v1)
        pmi_simple_reply_add_str(&r, "msg", "success");
    if (status == HNP_SUCCESS && port != NULL)
        pmi_simple_reply_add_str(&r, "port", port);
    /* a port a PMI-1 line cannot carry (a PMI-2 publisher's) */
    if (!pmi_reply_end(c, &r) && !c->closed)
        answer(c, thrid, op, HNP_ERR_BAD_PARAM, NULL);
}

static bool name_ok(const char *s)
{
    return s != NULL && s[0] != '\0' && strlen(s) <= PMI_SIMPLE_NAME_MAX;
}

static void ask(pmi_client_t *c, const pmi_simple_msg_t *req,
                pmi_simple_name_op_t op, const char *name_key)
{
    pmi_simple_server_t *srv = c->srv;
    const char *thrid = pmi_simple_msg_get(req, "thrid");
    const char *name = pmi_simple_msg_get(req, name_key);
    const char *port = pmi_simple_msg_get(req, "port");
    struct pmi_name_wait *w;

    if (!name_ok(name) || (op == PMI_SIMPLE_NAME_PUBLISH && !name_ok(port))) {
        answer(c, thrid, op, HNP_ERR_BAD_PARAM, NULL);
        return;
    }
    if (srv->cb.name == NULL) {
        answer(c, thrid, op, HNP_ERR_NOT_AVAILABLE, NULL);
        return;
    }
    if ((w = calloc(1, sizeof(*w))) == NULL ||
        (thrid != NULL && (w->thrid = strdup(thrid)) == NULL)) {
        free(w);
        pmi_client_fail(c, HNP_ERR_NOMEM, "out of memory asking for a name");
        return;
    }
    w->ticket = ++srv->name_tickets;
    w->rank = c->rank;
    w->op = op;
    w->next = srv->name_waits;
    srv->name_waits = w;
    srv->cb.name(srv->cb.ctx, c->rank, op, name,
                 op == PMI_SIMPLE_NAME_PUBLISH ? port : NULL, w->ticket);
}

int pmi_simple_name_done(pmi_simple_server_t *srv, uint64_t ticket,
                         int status, const char *port)
{
    struct pmi_name_wait *w = NULL;
    pmi_client_t *c;

    for (struct pmi_name_wait **p = &srv->name_waits; *p != NULL;
         p = &(*p)->next)
        if ((*p)->ticket == ticket) {
            w = *p;
            *p = w->next;
            break;
        }
    if (w == NULL)
        return HNP_ERR_NOT_FOUND;
    c = pmi_client_of_rank(srv, w->rank);
    /* a process gone meanwhile is answered by nobody */
    if (c != NULL && !c->closed && !c->finalized) {
        pmi_server_hold(srv);
        answer(c, w->thrid, w->op, status,
               w->op == PMI_SIMPLE_NAME_LOOKUP ? port : NULL);
        pmi_client_flush(c);
        pmi_server_release(srv);
    }
    free(w->thrid);
    free(w);
    return HNP_SUCCESS;
}

void pmi_names_release(pmi_simple_server_t *srv)
{
    while (srv->name_waits != NULL) {
        struct pmi_name_wait *w = srv->name_waits;
        srv->name_waits = w->next;
        free(w->thrid);
        free(w);
    }
}

void pmi_v1_publish(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    ask(c, req, PMI_SIMPLE_NAME_PUBLISH, "service");
}

void pmi_v1_lookup(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    ask(c, req, PMI_SIMPLE_NAME_LOOKUP, "service");
}

void pmi_v1_unpublish(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    ask(c, req, PMI_SIMPLE_NAME_UNPUBLISH, "service");
}

void pmi_v2_publish(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    ask(c, req, PMI_SIMPLE_NAME_PUBLISH, "name");
}

void pmi_v2_lookup(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    ask(c, req, PMI_SIMPLE_NAME_LOOKUP, "name");
}

void pmi_v2_unpublish(pmi_client_t *c, const pmi_simple_msg_t *req)
{
    ask(c, req, PMI_SIMPLE_NAME_UNPUBLISH, "name");
}
