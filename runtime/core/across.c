/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A daemon's collectives across jobs (hnp_rte_gather_across() in
 * hnp_rte.h): its part goes to the HNP (wire/gather.h), which counts the
 * participants of every daemon and sends each the whole; the answer goes
 * to the caller's callback.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "rte.h"
#include "wire/gather.h"

typedef struct across_pending {
    struct across_pending *next;
    uint32_t reqid;
    hnp_rte_gather_fn cb;
    void *cbdata;
} across_pending_t;

struct hnp_rte_across {
    across_pending_t *pending;
    uint32_t next_reqid;
    bool listening;
};

static void on_gather_reply(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                            const void *data, size_t len, void *cbdata)
{
    hnp_wire_gather_reply_t m;
    across_pending_t *p = NULL;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "answer of a collective across jobs",
                        hnp_wire_gather_reply_unpack, data, len, &m))
        return;
    for (across_pending_t **at = &rte->across->pending; *at != NULL;
         at = &(*at)->next)
        if ((*at)->reqid == m.reqid) {
            p = *at;
            *at = p->next;
            break;
        }
    if (p == NULL) {
        HNP_VERBOSE(rte->log, 1, "the answer of collective %u, which waits "
                    "no more, dropped", m.reqid);
        return;
    }
    p->cb(rte, m.status, m.data, m.len, p->cbdata);
    free(p);
}

static int across_ready(hnp_rte_t *rte)
{
    int rc;

    if (rte->across == NULL &&
        (rte->across = calloc(1, sizeof(*rte->across))) == NULL)
        return HNP_ERR_NOMEM;
    if (rte->across->listening)
        return HNP_SUCCESS;
    rc = hnp_rte_recv(rte, HNP_TAG_GATHER_REPLY, on_gather_reply, NULL);
    rte->across->listening = rc == HNP_SUCCESS;
    return rc;
}

int hnp_rte_gather_across(hnp_rte_t *rte, const hnp_rte_member_t *members,
                          uint32_t nmembers, uint32_t nlocal,
                          const void *data, size_t len,
                          hnp_rte_gather_fn cb, void *cbdata)
{
    hnp_wire_gather_t m = { .nmembers = nmembers, .nlocal = nlocal,
                            .data = data, .len = len };
    across_pending_t *p;
    hnp_buffer_t buf;
    int rc;

    if (rte == NULL || rte->is_hnp || cb == NULL || members == NULL ||
        nmembers == 0 || nmembers > HNP_WIRE_GATHER_MAX_MEMBERS ||
        nlocal == 0 || (len > 0 && data == NULL))
        return HNP_ERR_BAD_PARAM;
    if ((rc = across_ready(rte)) != HNP_SUCCESS)
        return rc;
    if ((p = calloc(1, sizeof(*p))) == NULL ||
        (m.members = calloc(nmembers, sizeof(*m.members))) == NULL) {
        free(p);
        return HNP_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < nmembers; i++)
        m.members[i] = (hnp_wire_member_t){ members[i].jobid,
                                            members[i].rank };
    if (++rte->across->next_reqid == 0)
        rte->across->next_reqid = 1;
    *p = (across_pending_t){ .reqid = rte->across->next_reqid, .cb = cb,
                             .cbdata = cbdata };
    m.reqid = p->reqid;
    hnp_buffer_init(&buf);
    rc = hnp_wire_gather_pack(&buf, &m);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send(rte, 0, HNP_TAG_GATHER, buf.data, buf.len);
    hnp_buffer_release(&buf);
    free(m.members);
    if (rc != HNP_SUCCESS) {
        free(p);
        return rc;
    }
    p->next = rte->across->pending;
    rte->across->pending = p;
    return HNP_SUCCESS;
}

void hnp_rte_across_destroy(hnp_rte_t *rte)
{
    across_pending_t *p;

    if (rte->across == NULL)
        return;
    while ((p = rte->across->pending) != NULL) {
        rte->across->pending = p->next;
        free(p);
    }
    free(rte->across);
    rte->across = NULL;
}
